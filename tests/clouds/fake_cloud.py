"""A third cloud for tests only (issue 35): one platform, one machine type, one price, and the pricer of its one
resource type, all in this module. Registering it touches no other file."""

from __future__ import annotations

from accelfit.clouds import Cloud
from accelfit.pricing.pricers import prices
from accelfit.pricing.rates import NeutralResource, Priced, RateBook

NODE_TYPE = "fakecloud:compute/gpuNode:GpuNode"
MACHINE_TYPE = "fk-h100-8"
HOURLY_USD = {MACHINE_TYPE: 10.0}  # its one price: on demand, any region

CLOUD = Cloud(
    name="fakecloud",
    title="FakeCloud",
    platforms=("fake-gpu",),
    cluster_platform="fake-gpu",
    priced_resource_types=(NODE_TYPE,),
    pricer_module=__name__,
    unsupported=(("tpu", "FakeCloud sells GPUs only"),),
)


@prices(NODE_TYPE)
def gpu_node(resource: NeutralResource, book: RateBook) -> Priced | None:
    hourly = HOURLY_USD.get(str(resource.props.get("machineType", "")))
    if hourly is None:
        return None
    nodes = float(resource.props.get("nodes", 1))
    return Priced("pool", hourly * nodes, hourly * nodes, f"{resource.props['machineType']} on demand ${hourly:g}/h; "
                                                          f"{nodes:g} nodes", min_nodes=nodes)
