"""The pricer of owned bare-metal servers (accelfit/clouds/onprem.py): the NodePatch that labels an inventory
server with its GPUs carries its power cost (accelfit.pricing.onprem); other node patches cost nothing."""

from __future__ import annotations

from accelfit.pricing.onprem import onprem_unit_hourly_usd
from accelfit.pricing.pricers import prices
from accelfit.pricing.rates import NeutralResource, Priced, RateBook

NODE_PATCH_TYPE = "kubernetes:core/v1:NodePatch"


@prices(NODE_PATCH_TYPE)
def owned_server(resource: NeutralResource, book: RateBook) -> Priced | None:
    labels = ((resource.props.get("metadata") or {}).get("labels") or {})
    model, count = labels.get("accelfit.io/gpu-model"), labels.get("accelfit.io/gpu-count")
    if not model or not str(count or "").isdigit():
        return None
    count = str(count)
    accelerator = book.catalog.accelerator(str(model))
    hourly = onprem_unit_hourly_usd(accelerator.power_w, int(count))
    return Priced("owned", hourly, hourly, f"owned {count} × {accelerator.name} server: ${hourly:,.3g}/h of power")
