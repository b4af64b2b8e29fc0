"""Pure EFA network-interface layout for a launch template: which card, device index and interface type.

AWS rules (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html and
https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html#efa-limits): one EFA per network card; the
primary interface sits on card 0 at device index 0 and carries IP traffic, so it is type "efa" (EFA with ENA);
every other card takes its EFA at device index 1. Those secondary interfaces are "efa-only": they carry no IP
address, so a p5 with 32 interfaces does not use up 32 subnet addresses per node or create routing ambiguity
(https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html#efa-only-interfaces).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EfaInterface:
    network_card_index: int
    device_index: int
    interface_type: str


def efa_interfaces(count: int) -> tuple[EfaInterface, ...]:
    """The interfaces for `count` EFAs, one per network card 0..count-1; an empty tuple for 0."""
    if count < 0:
        raise ValueError(f"EFA interface count must be >= 0, got {count}")
    return tuple(EfaInterface(network_card_index=card, device_index=0 if card == 0 else 1,
                              interface_type="efa" if card == 0 else "efa-only")
                 for card in range(count))
