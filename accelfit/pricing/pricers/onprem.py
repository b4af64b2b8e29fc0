"""The pricer of owned bare-metal servers (accelfit/clouds/onprem.py): the NodePatch that labels an inventory
server with its GPUs is priced at what the server costs to own (accelfit.pricing.onprem), with the inventory's
figures it is annotated with and the sourced defaults for the rest; other node patches cost nothing."""

from __future__ import annotations

import datetime as dt

from accelfit.pricing.onprem import (
    figures_from_annotations, measured_power_from_annotations, owned_server_cost, purchased_from_annotations,
)
from accelfit.pricing.pricers import prices
from accelfit.pricing.rates import NeutralResource, Priced, RateBook

NODE_PATCH_TYPE = "kubernetes:core/v1:NodePatch"


@prices(NODE_PATCH_TYPE)
def owned_server(resource: NeutralResource, book: RateBook) -> Priced | None:
    metadata = resource.props.get("metadata") or {}
    labels = metadata.get("labels") or {}
    model, count = labels.get("accelfit.io/gpu-model"), labels.get("accelfit.io/gpu-count")
    if not model or not str(count or "").isdigit():
        return None
    count = str(count)
    accelerator = book.catalog.accelerator(str(model))
    annotations = metadata.get("annotations") or {}
    # Priced as of today, as the plan was: past the amortization's end, no acquisition.
    owned = owned_server_cost(accelerator.power_w, int(count), figures_from_annotations(annotations),
                              purchased_from_annotations(annotations), measured_power_from_annotations(annotations),
                              as_of=dt.date.today())
    hourly = owned.hourly_usd
    return Priced("owned", hourly, hourly, f"owned {count} × {accelerator.name} server: ${hourly:,.4g}/h "
                                           "(acquisition, rack and staff spread over the month, plus energy)")
