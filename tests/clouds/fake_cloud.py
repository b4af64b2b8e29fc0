"""A third cloud for tests only (issue 35): one platform, one machine type, one price, the pricer of its one resource
type and the component builder that records it, all in this module. Registering it touches no other file."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from accelfit.catalog import Catalog, InstanceType, Price
from accelfit.clouds import Cloud
from accelfit.pricing.pricers import prices
from accelfit.pricing.rates import NeutralResource, Priced, RateBook
from components.build import Built, CloudBuilders

NODE_TYPE = "fakecloud:compute/gpuNode:GpuNode"
MACHINE_TYPE = "fk-h100-8"
HOURLY_USD = {MACHINE_TYPE: 10.0}  # its one price: on demand, any region
REGION = "fk-east1"

CLOUD = Cloud(
    name="fakecloud",
    title="FakeCloud",
    platforms=("fake-gpu",),
    cluster_platform="fake-gpu",
    # Its rows (one machine type, its one region, its one price), beside this module: read by the catalog loader,
    # keyed into the compiled catalog and checked by the integrity rules like the shipped clouds' files.
    catalog_dir=Path(__file__).parent / "fakecloud_data",
    catalog_files=("fakecloud.yaml",),
    priced_resource_types=(NODE_TYPE,),
    pricer_module=__name__,
    component_builders=f"{__name__}:BUILDERS",
    unsupported=(("tpu", "FakeCloud sells GPUs only"),),
)


@prices(NODE_TYPE)
def gpu_node(resource: NeutralResource, book: RateBook) -> Priced | None:
    hourly = HOURLY_USD.get(str(resource.props.get("machineType", "")))
    if hourly is None:
        return None
    nodes = float(resource.props.get("nodes", 1))
    minimum = float(resource.props.get("minNodes", nodes))
    # The node resource scales itself between its minimum and `nodes` (as a GKE node pool's own autoscaling does).
    return Priced("pool", hourly * nodes, hourly * minimum, f"{resource.props['machineType']} on demand "
                  f"${hourly:g}/h; {minimum:g}..{nodes:g} nodes", min_nodes=minimum, autoscaled=True)


def with_its_rows(catalog: Catalog) -> Catalog:
    """The catalog with this cloud's one machine type (8 H100s, offered in REGION) and its one on-demand price: what
    its catalog files would hold (Cloud.catalog_files) for a cloud shipped with accelfit."""
    sourced = dict(as_of=dt.date(2026, 11, 1), source="tests/clouds/fake_cloud.py")
    machine = InstanceType(cloud=CLOUD.name, name=MACHINE_TYPE, family="fk", accelerator="h100-80gb",
                           accelerator_count=8, vcpus=208, memory_gib=1872, local_nvme_gb=0, network_gbps=3200,
                           regions=(REGION,), **sourced)
    price = Price(cloud=CLOUD.name, sku=MACHINE_TYPE, unit="instance-hour", region=REGION, pricing="on-demand",
                  hourly_usd=HOURLY_USD[MACHINE_TYPE], **sourced)
    return Catalog(**{**dict(catalog), "instance_types": (*catalog.instance_types, machine),
                      "prices": (*catalog.prices, price)})


def _build_cluster(cluster, catalog: Catalog, layer) -> Built:  # noqa: ANN001 (components' own types)
    """Each accelerator pool of the cluster's workloads as one node resource of this cloud's type, with the machine
    type and node count its pricer reads. No Kubernetes layer (BUILDERS.kubernetes_layer is False, so `layer` is
    None): this cloud has no GPU software profile and no cluster whose kubeconfig a Kubernetes provider could use."""
    import pulumi

    from components.fleet import accelerator_pools

    nodes = [pulumi.CustomResource(NODE_TYPE, f"{cluster.name}-{pool.name}",
                                   {"machineType": pool.machine_type, "nodes": pool.max_nodes,
                                    "minNodes": pool.min_nodes, "region": workload.plan.region})
             for workload in cluster.workloads for pool in accelerator_pools(workload.plan)]
    return Built(nodes[0] if cluster.own and len(nodes) == 1 else nodes)


BUILDERS = CloudBuilders(cluster=_build_cluster, cluster_problems=lambda cluster, catalog: [], kubernetes_layer=False)
