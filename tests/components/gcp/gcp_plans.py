"""Hand-built Plans for the GCP examples: what the planner should produce for each `stacks/Pulumi.example-gcp-*`
spec. Shared by the GCP component tests and the benchmark (a uniquely named module, no conftest needed)."""

from __future__ import annotations

import datetime as dt

from accelfit.planner.build import SLICE_SET_LABEL
from accelfit.planner.model import (
    CostLine,
    Estimate,
    NetworkPlan,
    NodePool,
    Plan,
    PlanAccelerator,
    StoragePlan,
    Taint,
    TpuVmSlice,
)
from components.common import Ownership

PROJECT = "acme-ml-examples"
GPU_TAINT = Taint(key="nvidia.com/gpu", value="present", effect="NoSchedule")
TPU_TAINT = Taint(key="google.com/tpu", value="present", effect="NoSchedule")


def _estimate(devices: int, hours: float, monthly: float, total: float) -> Estimate:
    return Estimate(hours=hours, accelerator_hours=hours * devices, devices=devices, memory_per_device_gib=40.0,
                    monthly_usd=monthly, total_usd=total,
                    breakdown=(CostLine(item="compute", monthly_usd=monthly, total_usd=total),))


def _plan(**fields) -> Plan:
    base = dict(option="example", pricing="on-demand", reasons=("hand-built example plan",),
                catalog_as_of=dt.date(2026, 11, 21))
    base.update(fields)
    return Plan(**base)


def system_pool(zones: tuple[str, ...], nodes: int = 1) -> NodePool:
    return NodePool(name="system", role="system", machine_type="e2-standard-4", min_nodes=nodes,
                    max_nodes=nodes * 2, initial_nodes=nodes, zones=zones, disk_size_gb=100)


def tpu_jax_pretrain() -> Plan:
    """stacks/Pulumi.example-gcp-tpu-jax-pretrain.yaml: one v5p-128 slice (4x4x4, 16 hosts) as TPU VMs."""
    return _plan(
        workload="jax-pretrain", kind="training", framework="jax", environment="staging",
        platform="tpu-vm", cloud="gcp", region="us-east5", zones=("us-east5-a",), orchestration="vms",
        accelerator=PlanAccelerator(name="tpu-v5p", kind="tpu", count=64, topology="4x4x4", slice="v5p-128",
                                    slices=1),
        tpu_vm_slices=(TpuVmSlice(name="slice-0", accelerator_type="v5p-128", accelerator_config_type="V5P",
                                  topology="4x4x4", zone="us-east5-a", runtime_version="v2-alpha-tpuv5"),),
        storage=StoragePlan(dataset_tb=5, checkpoint_tb=1.5, checkpoint_retention_days=14),
        estimate=_estimate(64, 152, 27000, 27000))


def gke_h100_training() -> Plan:
    """stacks/Pulumi.example-gcp-gke-h100-training.yaml: 4 x a3-highgpu-8g (32 H100), compact, GPUDirect-TCPX."""
    zones = ("us-central1-a",)
    return _plan(
        workload="llm-train", kind="training", framework="pytorch", environment="staging",
        platform="gke-gpu", cloud="gcp", region="us-central1", zones=zones, orchestration="kubernetes",
        accelerator=PlanAccelerator(name="h100-80gb", kind="gpu", count=32, instance_type="a3-highgpu-8g",
                                    nodes=4, per_node=8),
        node_pools=(
            system_pool(zones),
            NodePool(name="gpu", role="gpu", machine_type="a3-highgpu-8g", accelerator="h100-80gb",
                     accelerators_per_node=8, gke_accelerator="nvidia-h100-80gb", min_nodes=0, max_nodes=4,
                     initial_nodes=4, zones=zones, taints=(GPU_TAINT,), compact_placement=True,
                     gpudirect="tcpx", local_nvme_gb=6000, driver_version="DEFAULT",
                     labels={"accelfit.io/workload": "llm-train"}),
        ),
        network=NetworkPlan(extra_networks=4),
        storage=StoragePlan(dataset_tb=10, checkpoint_tb=2, shared_filesystem="filestore",
                            filesystem_capacity_gib=10240, filestore_tier="ZONAL"),
        estimate=_estimate(32, 336, 250000, 120000))


def l4_inference() -> Plan:
    """stacks/Pulumi.example-gcp-l4-inference.yaml: g2-standard-24 (2 x L4) across three zones, 3..12 nodes."""
    zones = ("us-central1-a", "us-central1-b", "us-central1-c")
    return _plan(
        workload="chat-serve", kind="inference", framework="pytorch", environment="prod",
        platform="gke-gpu", cloud="gcp", region="us-central1", zones=zones, orchestration="kubernetes",
        gke_release_channel="STABLE",
        accelerator=PlanAccelerator(name="l4", kind="gpu", count=6, instance_type="g2-standard-24", nodes=3,
                                    per_node=2),
        node_pools=(
            system_pool(zones, nodes=3),
            NodePool(name="gpu", role="gpu", machine_type="g2-standard-24", accelerator="l4",
                     accelerators_per_node=2, gke_accelerator="nvidia-l4", min_nodes=3, max_nodes=12,
                     initial_nodes=3, zones=zones, taints=(GPU_TAINT,), driver_version="DEFAULT",
                     labels={"accelfit.io/workload": "chat-serve"}),
        ),
        storage=StoragePlan(dataset_tb=0.1, checkpoint_tb=0.05, checkpoint_retention_days=60),
        estimate=_estimate(6, 730, 9000, 9000))


def gke_tpu_multislice() -> Plan:
    """Not an example stack: two v5litepod-16 slices (4x4, 4 hosts each) as two spot GKE TPU pools."""
    zone = ("us-west4-a",)
    pools = tuple(
        NodePool(name=f"tpu-{index}", role="tpu", machine_type="ct5lp-hightpu-4t", accelerator="tpu-v5e",
                 accelerators_per_node=4, gke_accelerator="tpu-v5-lite-podslice", min_nodes=0, max_nodes=4,
                 initial_nodes=4, zones=zone, spot=True, taints=(TPU_TAINT,), tpu_topology="4x4",
                 tpu_slice="v5litepod-16", labels={SLICE_SET_LABEL: "tpu"})  # as the planner labels a slice set
        for index in range(2))
    return _plan(
        workload="tpu-train", kind="training", framework="jax", environment="dev", pricing="spot",
        platform="gke-tpu", cloud="gcp", region="us-west4", zones=zone, orchestration="kubernetes",
        accelerator=PlanAccelerator(name="tpu-v5e", kind="tpu", count=32, topology="4x4", slice="v5litepod-16",
                                    slices=2),
        node_pools=(system_pool(zone), *pools),
        storage=StoragePlan(dataset_tb=1, checkpoint_tb=0.2),
        estimate=_estimate(32, 100, 3000, 3000))


def queued_multislice() -> Plan:
    """Not an example stack: two v5p-128 slices requested together through one queued resource."""
    slices = tuple(TpuVmSlice(name=f"slice-{index}", accelerator_type="v5p-128", accelerator_config_type="V5P",
                              topology="4x4x4", zone="us-east5-a", runtime_version="v2-alpha-tpuv5", queued=True)
                   for index in range(2))
    return tpu_jax_pretrain().model_copy(update={
        "workload": "jax-multislice", "tpu_vm_slices": slices,
        "accelerator": PlanAccelerator(name="tpu-v5p", kind="tpu", count=128, topology="4x4x4", slice="v5p-128",
                                       slices=2)})


EXAMPLES = {
    "tpu-jax-pretrain": tpu_jax_pretrain,
    "gke-h100-training": gke_h100_training,
    "l4-inference": l4_inference,
}


def ownership(plan: Plan) -> Ownership:
    return Ownership(team="research-llm", cost_center="cc-4410", environment=plan.environment,
                     workload=plan.workload)


def record_plan(plan: Plan, catalog=None):
    """Build `plan` under the recording mocks. Returns (recording, error): an InputError raised by build() is
    caught inside the program, so a test can also check that nothing was registered before it."""
    from accelfit.errors import InputError
    from accelfit.preview.recorder import record
    from components.gcp import build

    caught: list[InputError] = []

    def program() -> None:
        try:
            build(plan, ownership(plan), catalog=catalog)
        except InputError as error:
            caught.append(error)

    recording = record(program, config={"gcp:project": PROJECT})
    return recording, (caught[0] if caught else None)


def resource_list(recording) -> list[dict]:
    """The golden-file view: every resource with type, name, parent name, inputs and protect, sorted by name."""
    return sorted(({"type": item.type, "name": item.name, "parent": item.parent_name, "inputs": item.inputs,
                    "protect": item.protect} for item in recording.resources),
                  key=lambda item: (item["name"], item["type"]))
