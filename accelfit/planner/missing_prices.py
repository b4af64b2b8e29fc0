"""Say so when a missing price shaped a plan: options the availability data offers but the catalog cannot price
were left out of the comparison, so the plan names them and the command that fills the prices. An option the cloud
does not sell under the spec's pricing model (rule `not-sold`, from sourced catalog data) is no gap: importing
prices cannot change it, so it is never listed here."""

from __future__ import annotations

from collections.abc import Sequence

from accelfit.planner.candidates import NO_PRICE
from accelfit.planner.model import Rejection

_SHOWN = 3
FILL_COMMAND = "accelfit catalog update"


def missing_price_notes(pricing: str, rejected: Sequence[Rejection]) -> tuple[str, ...]:
    """One warning listing the option groups rejected only because no price was known (empty when none were)."""
    unpriced = [rejection.option for rejection in rejected if rejection.rule == NO_PRICE]
    if not unpriced:
        return ()
    shown = "; ".join(unpriced[:_SHOWN]) + (f"; +{len(unpriced) - _SHOWN} more" if len(unpriced) > _SHOWN else "")
    return (f"A missing price shaped this plan: {len(unpriced)} option group(s) are offered but have no {pricing} "
            f"price in the catalog, so they were not compared ({shown}). Run `{FILL_COMMAND}` to import current "
            f"prices and plan again; `accelfit catalog --coverage` lists every gap.",)
