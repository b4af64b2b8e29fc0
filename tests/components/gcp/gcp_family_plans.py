"""GKE GPU plans for every GCP GPU machine family the catalog holds, built the way the planner builds them
(multi-node training: one zone, compact placement, GPUDirect where the machine has it). Shared by the rule and
conformance tests (a uniquely named module, no conftest needed)."""

from __future__ import annotations

from accelfit.catalog import load_catalog
from accelfit.catalog.models import Cloud
from accelfit.planner.model import NetworkPlan, NodePool, Plan, PlanAccelerator, StoragePlan

import gcp_plans

# One machine per family: the largest, which the planner uses for multi-node training.
FAMILY_MACHINES = {
    "g2": "g2-standard-96",
    "a2-high": "a2-highgpu-8g",
    "a2-ultra": "a2-ultragpu-8g",
    "a3-high": "a3-highgpu-8g",
    "a3-mega": "a3-megagpu-8g",
    "a3-ultra": "a3-ultragpu-8g",
    "a4": "a4-highgpu-8g",
}
# A zone of us-central1 (or the family's region) where the family is offered.
FAMILY_ZONES = {"g2": "us-central1-a", "a2-high": "us-central1-a", "a2-ultra": "us-central1-a",
                "a3-high": "us-central1-a", "a3-mega": "us-central1-a", "a3-ultra": "us-central1-b",
                "a4": "us-central1-b"}


def training_plan(family: str, nodes: int = 2, workload: str = "fam-train", **pool_changes) -> Plan:
    machine = load_catalog().instance_type(Cloud.gcp, FAMILY_MACHINES[family])
    assert machine is not None, family
    zone = FAMILY_ZONES[family]
    zones = (zone,)
    pool = NodePool(name="gpu", role="gpu", machine_type=machine.name, accelerator=machine.accelerator,
                    accelerators_per_node=machine.accelerator_count, gke_accelerator=machine.gke_accelerator,
                    min_nodes=0, max_nodes=nodes, initial_nodes=nodes, zones=zones, taints=(gcp_plans.GPU_TAINT,),
                    compact_placement=True, gpudirect=machine.gpudirect, local_nvme_gb=machine.local_nvme_gb,
                    driver_version="DEFAULT", labels={"accelfit.io/workload": workload})
    pool = pool.model_copy(update=pool_changes)
    return gcp_plans._plan(
        workload=workload, kind="training", framework="pytorch", environment="staging", platform="gke-gpu",
        cloud="gcp", region=zone.rsplit("-", 1)[0], zones=zones, orchestration="kubernetes",
        accelerator=PlanAccelerator(name=machine.accelerator, kind="gpu", count=nodes * machine.accelerator_count,
                                    instance_type=machine.name, nodes=nodes, per_node=machine.accelerator_count),
        node_pools=(gcp_plans.system_pool(zones), pool),
        network=NetworkPlan(extra_networks=machine.extra_networks),
        storage=StoragePlan(dataset_tb=1, checkpoint_tb=0.5),
        estimate=gcp_plans._estimate(nodes * machine.accelerator_count, 100, 1000, 1000))


def record_full(plan: Plan, config: dict[str, str] | None = None):
    """Build the plan with the Kubernetes layer and the cluster objects (components.build) under mocks."""
    from accelfit.errors import InputError
    from accelfit.preview.recorder import record
    from components.build import build

    caught: list[InputError] = []

    def program() -> None:
        try:
            build(plan, gcp_plans.ownership(plan))
        except InputError as error:
            caught.append(error)

    recording = record(program, config={"gcp:project": gcp_plans.PROJECT, **(config or {})})
    return recording, (caught[0] if caught else None)
