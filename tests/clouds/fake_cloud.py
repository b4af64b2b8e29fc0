"""A third cloud for tests only (issue 35): one platform, one machine type, one price. Its record, its stack key, the
pricer of its one resource type, what the policy pack reads of it (its nodes' accelerators, and where its node
resource keeps its node range, labels, tags, taints and private-nodes setting) and the component builder that
records it (its nodes, then the shared Kubernetes layer on its cluster) are in this module; its catalog rows (the
machine type, the region it is offered in, its one on-demand price) are a data file beside it
(fakecloud_data/fakecloud.yaml) that the record names. Registering it touches no other file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from accelfit.catalog.models import Cloud as CatalogCloud
from accelfit.clouds import Cloud
from accelfit.pricing.pricers import prices
from accelfit.pricing.rates import NeutralResource, Priced, RateBook
from accelfit.stackkeys import StackKey
from components.build import Built, CloudBuilders

NODE_TYPE = "fakecloud:compute/gpuNode:GpuNode"
MACHINE_TYPE = "fk-h100-8"
HOURLY_USD = 10.0  # its one price (on demand, in REGION), as fakecloud_data/fakecloud.yaml states it
REGION = "fk-east1"
DATA_DIR = Path(__file__).parent / "fakecloud_data"

CLOUD = Cloud(
    name="fakecloud",
    title="FakeCloud",
    platforms=("fake-gpu",),
    cluster_platform="fake-gpu",
    # Its rows, beside this module: read by the catalog loader, keyed into the compiled catalog and checked by the
    # integrity rules like the shipped clouds' files.
    catalog_dir=DATA_DIR,
    catalog_files=("fakecloud.yaml",),
    priced_resource_types=(NODE_TYPE,),
    pricer_module=__name__,
    component_builders=f"{__name__}:BUILDERS",
    accelerator_reader=f"{__name__}:accelerators_of",
    node_reader=f"{__name__}:node_group_of",
    # The stack: `fakecloud:region` places its workloads (its one region); the stack file's schema lists the key.
    region_key="fakecloud:region",
    stack_keys=f"{__name__}:STACK_KEYS",
    regions=(REGION,),
    example_region=REGION,
    gpu_software="gpu-operator",  # its node image carries the driver and toolkit
    # placement.reservations: its zones are its region and a letter (fk-east1-b); a reservation is named fkr- and
    # six digits, as its console lists them.
    zone_suffix=r"-[a-z]\Z",
    reservation_name_pattern=r"fkr-[0-9]{6}\Z",
    reservation_name_rule="a FakeCloud reservation id (fkr- and six digits) from its console",
    unsupported=(("tpu", "FakeCloud sells GPUs only"),),
)

STACK_KEYS = (StackKey("fakecloud:region", "The FakeCloud region the stack builds in.", {"type": "string"},
                       values=lambda: CLOUD.regions),)


@prices(NODE_TYPE)
def gpu_node(resource: NeutralResource, book: RateBook) -> Priced | None:
    """Its node resource at the catalog's price for its machine type in its region (the stack's region key when the
    resource names none), or as already paid on the reservation it names; it scales itself between `minNodes` and
    `nodes`, as a GKE node pool's own autoscaling does."""
    props = resource.props
    region = props.get("region") or book.context.region(CLOUD.name)
    reservation = props.get("reservation")
    found = book.node_hourly(CatalogCloud(CLOUD.name), str(props.get("machineType", "")), region,
                             "reservation" if reservation else "on-demand", reservation)
    if found is None:
        return None
    hourly, basis, _ = found
    nodes = float(props.get("nodes", 1))
    minimum = float(props.get("minNodes", nodes))
    return Priced("pool", hourly * nodes, hourly * minimum,
                  f"{props['machineType']}: {basis}; {minimum:g}..{nodes:g} nodes in {region}",
                  min_nodes=minimum, autoscaled=True)


def accelerators_of(view: Any, catalog: Any) -> Any:
    """What the policy pack's accelerator rules count on its node: the catalog's GPUs of its machine type, its node
    range, never spot (it sells on demand only)."""
    from policies.accelfit_policies.usage import AcceleratorUse

    shape = catalog.instance_type(CLOUD.name, str(view.props.get("machineType", "")))
    if shape is None:
        return None
    return AcceleratorUse(shape.accelerator, "gpu", shape.accelerator_count, int(view.props.get("nodes", 1)),
                          int(view.props.get("minNodes", 0)), spot=False)


def node_group_of(view: Any) -> Any:
    """Its node resource as the policy pack's node rules read it (taints, bounded autoscaling, scale to zero,
    ownership tags, private nodes, the reservation the spot rule exempts): where each setting is among its
    inputs."""
    from policies.accelfit_policies.nodes import NodeGroup, NodePaths

    if view.type != NODE_TYPE:
        return None
    return NodeGroup(view, NodePaths(max_nodes="nodes", min_nodes="minNodes", labels="labels", tags="tags",
                                     taints="taints", private_nodes="privateNodes", reservation="reservation"))


POOL_LABEL = "fakecloud.io/pool"  # the label its nodes carry: the pool's name (as GKE's and EKS's do)
GPU_TAINT = "nvidia.com/gpu"  # what its GPU nodes are tainted with, so only pods asking for GPUs land there
_EFFECTS = {"NoSchedule": "NO_SCHEDULE", "PreferNoSchedule": "PREFER_NO_SCHEDULE", "NoExecute": "NO_EXECUTE"}


def _node_inputs(pool: Any, plan: Any, name: str, ownership: Any) -> dict[str, Any]:
    """Its node resource's inputs: the machine type, node range and region its pricer reads; the pool's labels;
    the ownership tags on its machines; the plan's taints (its API spells effects NO_SCHEDULE) with the GPU taint
    added when the plan has none of that key; its nodes on private addresses only; the reservation its nodes are
    taken from, where the plan's pool consumes one."""
    taints = [{"key": taint.key, "value": taint.value, "effect": _EFFECTS[taint.effect]} for taint in pool.taints]
    if not any(taint["key"] == GPU_TAINT for taint in taints):
        taints.append({"key": GPU_TAINT, "value": "present", "effect": "NO_SCHEDULE"})
    inputs = {"machineType": pool.machine_type, "nodes": pool.max_nodes, "minNodes": pool.min_nodes,
              "region": plan.region, "labels": {**pool.labels, POOL_LABEL: name}, "tags": ownership.aws_tags(),
              "taints": taints, "privateNodes": True}
    return {**inputs, "reservation": pool.reservation} if pool.reservation else inputs


def _build_cluster(cluster: Any, catalog: Any, layer: Any) -> Built:
    """Each accelerator pool of the cluster's workloads as one node resource of this cloud's type, with the machine
    type, node range and region its pricer reads; then the shared Kubernetes layer (GPU software by its record's
    `gpu_software` profile, Kueue routing, telemetry) on its cluster, each flavor selecting its pool's nodes by
    POOL_LABEL, waiting for every node resource."""
    import pulumi

    from components.fleet import accelerator_pools
    from components.kubernetes.build import layer_args
    from components.kubernetes.layer import KubernetesLayer

    nodes, selectors = [], {}
    for workload in cluster.workloads:
        for pool in accelerator_pools(workload.plan):
            name = f"{cluster.name}-{pool.name}"
            nodes.append(pulumi.CustomResource(NODE_TYPE, name, _node_inputs(pool, workload.plan, name,
                                                                              workload.ownership)))
            selectors[f"{cluster.pool_prefix(workload.plan)}{pool.name}"] = {POOL_LABEL: name}
    kubeconfig = nodes[0].urn.apply(lambda urn: f"# the kubeconfig of {urn}'s cluster")
    kubernetes = KubernetesLayer(f"{cluster.name}-k8s", layer_args(layer, cluster.ownership, kubeconfig, selectors,
                                                                   nodes))
    return Built(nodes[0] if cluster.own and len(nodes) == 1 else nodes, kubernetes)


BUILDERS = CloudBuilders(cluster=_build_cluster, cluster_problems=lambda cluster, catalog: [])
