"""Pure EFA network-interface layout for a launch template: which card, device index and interface type.

AWS's current recommendation for instance types with several network cards
(https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html, as of 2026-11-23):
- the primary interface (network card 0, device index 0) is a plain ENA interface ("interface"); an EFA-only
  interface cannot be the primary one;
- if card 0 supports EFA, an EFA-only interface at card 0, device index 1;
- every other card takes an EFA-only interface at device index 0.
EFA-only interfaces carry no IP address, so a p5 with 32 EFAs does not use 32 subnet addresses per node
(https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html#efa-only-interfaces); EKS's VPC CNI handles them
from v1.18.4 (terraform-aws-eks modules/eks-managed-node-group/variables.tf `enable_efa_only`).

An instance type with a single EFA on a single network card keeps the older layout: one "efa" interface (EFA with
ENA) as the primary, which is what AWS documents for those types (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-start.html).
Which layout a type takes, and how many cards it has, is data (data/efa_layouts.yaml), checked before anything is
created (efa_rules.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Layout = Literal["ena-primary-efa-only", "efa-primary"]


@dataclass(frozen=True)
class EfaInterface:
    network_card_index: int
    device_index: int
    interface_type: str


def efa_interfaces(count: int, layout: Layout = "ena-primary-efa-only") -> tuple[EfaInterface, ...]:
    """The interfaces for `count` EFAs, one per network card 0..count-1; an empty tuple for 0.

    "ena-primary-efa-only": an ENA primary plus `count` EFA-only interfaces (count + 1 interfaces in all).
    "efa-primary": a single EFA-with-ENA primary (only for one EFA on one card)."""
    if count < 0:
        raise ValueError(f"EFA interface count must be >= 0, got {count}")
    if count == 0:
        return ()
    if layout == "efa-primary":
        if count != 1:
            raise ValueError("the efa-primary layout takes exactly one EFA; use ena-primary-efa-only for more")
        return (EfaInterface(network_card_index=0, device_index=0, interface_type="efa"),)
    return (EfaInterface(network_card_index=0, device_index=0, interface_type="interface"),
            EfaInterface(network_card_index=0, device_index=1, interface_type="efa-only"),
            *(EfaInterface(network_card_index=card, device_index=0, interface_type="efa-only")
              for card in range(1, count)))
