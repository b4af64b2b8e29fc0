"""Hand-built plans for shared-cluster tests: a JAX pretraining workload on TPU v5e and a PyTorch serving workload
on L4, both in us-west4 (where GKE offers ct5lp and g2 machines), as a fleet's plans would place them."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).parents[1] / "gcp"), str(Path(__file__).parents[1] / "aws")]

import gcp_plans  # noqa: E402
from gcp_plans import GPU_TAINT, TPU_TAINT, system_pool  # noqa: E402

from accelfit.planner.model import NodePool, PlanAccelerator, StoragePlan  # noqa: E402
from components.common import Ownership  # noqa: E402
from components.fleet import ClusterWorkload, SharedClusterBuild, shared_ownership  # noqa: E402

FLEET = "ml-fleet"
ZONE = ("us-west4-a",)


def tpu_pretrain(**update):
    pool = NodePool(name="tpu", role="tpu", machine_type="ct5lp-hightpu-4t", accelerator="tpu-v5e",
                    accelerators_per_node=4, gke_accelerator="tpu-v5-lite-podslice", min_nodes=0, max_nodes=4,
                    initial_nodes=4, zones=ZONE, taints=(TPU_TAINT,), tpu_topology="4x4", tpu_slice="v5litepod-16")
    standby = pool.model_copy(update={"name": "tpu-fb1", "buying": "spot", "initial_nodes": 0})
    plan = gcp_plans.gke_tpu_multislice().model_copy(update={
        "workload": "jax-pretrain", "environment": "dev", "zones": ZONE,
        "accelerator": PlanAccelerator(name="tpu-v5e", kind="tpu", count=16, topology="4x4", slice="v5litepod-16",
                                       slices=1),
        "node_pools": (system_pool(ZONE), pool, standby)})
    return plan.model_copy(update=update)


def gpu_serving(**update):
    pool = NodePool(name="gpu", role="gpu", machine_type="g2-standard-24", accelerator="l4",
                    accelerators_per_node=2, gke_accelerator="nvidia-l4", min_nodes=1, max_nodes=4,
                    initial_nodes=1, zones=ZONE, taints=(GPU_TAINT,), driver_version="DEFAULT")
    standby = pool.model_copy(update={"name": "gpu-fb1", "buying": "spot", "min_nodes": 0, "initial_nodes": 0})
    plan = gcp_plans.l4_inference().model_copy(update={
        "workload": "chat-serve", "environment": "dev", "region": "us-west4", "zones": ZONE,
        "gke_release_channel": "REGULAR",
        "storage": StoragePlan(dataset_tb=0.1, checkpoint_tb=0.05),
        "node_pools": (system_pool(ZONE), pool, standby)})
    return plan.model_copy(update=update)


def ownership(workload: str) -> Ownership:
    return Ownership(team="research-llm", cost_center="cc-4410", environment="dev", workload=workload)


def gcp_cluster(*plans, fleet: str = FLEET, eligible=None) -> SharedClusterBuild:
    plans = plans or (tpu_pretrain(), gpu_serving())
    eligible = eligible or {}
    return SharedClusterBuild(
        name=fleet, fleet=fleet, ownership=shared_ownership(fleet, ownership(fleet)),
        workloads=tuple(ClusterWorkload(plan=plan, ownership=ownership(plan.workload),
                                        eligible_accelerators=frozenset(eligible.get(plan.workload,
                                                                                     {plan.accelerator.name})))
                        for plan in plans))


def record_cluster(cluster: SharedClusterBuild, config=None):
    """(recording, InputError or None) of building the shared cluster under the recording mocks."""
    from accelfit.catalog import load_catalog
    from accelfit.errors import InputError
    from accelfit.preview.recorder import record
    from components.build import build_cluster

    caught = []

    def program():
        try:
            build_cluster(cluster, load_catalog())
        except InputError as error:
            caught.append(error)

    recording = record(program, config=config or {"gcp:project": gcp_plans.PROJECT})
    return recording, (caught[0] if caught else None)


def aws_cluster(fleet: str = FLEET) -> SharedClusterBuild:
    """H100 training (FSx for Lustre, EFA) and L4 serving on one EKS cluster in us-east-1, both in staging."""
    import aws_plans

    training = aws_plans.h100_training_plan()
    serving = aws_plans.l4_inference_plan().model_copy(update={"environment": "staging"})
    return SharedClusterBuild(
        name=fleet, fleet=fleet, ownership=shared_ownership(fleet, ownership(fleet)),
        workloads=tuple(ClusterWorkload(plan=plan, ownership=ownership(plan.workload),
                                        eligible_accelerators=frozenset({plan.accelerator.name}))
                        for plan in (training, serving)))


def aws_config():
    import aws_plans

    return {**aws_plans.ACCESS_CONFIG, "aws:region": "us-east-1"}
