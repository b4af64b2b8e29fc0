"""What the Kubernetes layer builds for a workload's model server, decided from its plan before anything is created:
the namespace and service account its pods run as, and for each serving pool the node pools (by their layer
selector keys), taints and TPU node labels. Pure: no Pulumi import."""

from __future__ import annotations

from dataclasses import dataclass

from accelfit.clouds import cloud_named
from accelfit.engines import builds_server
from accelfit.errors import InputError
from accelfit.planner.model import Plan, ServingPlan, ServingPool, Taint
from accelfit.stackrules.namespaces import serving_namespace_problem

# GKE places a TPU pod only with both labels (GKE docs: "Deploy TPU workloads in GKE Standard", nodeSelector
# cloud.google.com/gke-tpu-accelerator and cloud.google.com/gke-tpu-topology).
TPU_ACCELERATOR_LABEL = "cloud.google.com/gke-tpu-accelerator"
TPU_TOPOLOGY_LABEL = "cloud.google.com/gke-tpu-topology"


@dataclass(frozen=True)
class PoolPlacement:
    pool: ServingPool
    selector_keys: tuple[str, ...]
    """The layer's pool_selectors keys of its node pools (`<prefix><node pool>`)."""
    taints: tuple[Taint, ...]
    tpu_labels: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ServingBuild:
    workload: str
    namespace: str
    service_account: str
    create_service_account: bool
    """EKS: nothing else creates the service account its Pod Identity association names."""
    cloud: str
    region: str
    serving: ServingPlan
    pools: tuple[PoolPlacement, ...]
    hf_token_key: str | None = None

    @property
    def multi_node(self) -> bool:
        return any(placement.pool.nodes_per_replica > 1 for placement in self.pools)

    @property
    def hf_secret(self) -> str | None:
        return f"{self.workload}-hf-token" if self.hf_token_key else None


def serving_build(plan: Plan, prefix: str, namespaces: tuple[str, ...]) -> ServingBuild | None:
    """None unless the plan's serving section asks for a model server (an engine: accelfit.engines)."""
    serving = plan.serving
    if serving is None or not builds_server(serving.server) or not serving.pools:
        return None
    cloud = plan.cloud.value
    pod_identity = cloud_named(cloud).pod_identity_association
    namespace = namespaces[0] if namespaces else plan.workload
    wrong = serving_namespace_problem((namespace,), plan.workload, "config.accelfit:teamNamespaces",
                                      "stack") if pod_identity else None
    if wrong is not None:
        raise InputError([wrong])
    by_name = {pool.name: pool for pool in plan.node_pools}
    placements = []
    for pool in serving.pools:
        first = by_name[pool.node_pools[0]]
        tpu = ((TPU_ACCELERATOR_LABEL, first.gke_accelerator), (TPU_TOPOLOGY_LABEL, first.tpu_topology)) \
            if first.role == "tpu" and first.gke_accelerator and first.tpu_topology else ()
        placements.append(PoolPlacement(pool=pool, selector_keys=tuple(f"{prefix}{name}" for name in pool.node_pools),
                                        taints=first.taints, tpu_labels=tpu))
    token = serving.weights_token
    return ServingBuild(workload=plan.workload, namespace=namespace, service_account=plan.workload,
                        create_service_account=pod_identity, cloud=cloud, region=plan.region, serving=serving,
                        pools=tuple(placements), hf_token_key=token)
