"""Hand-built Plans for the AWS example stacks: what the planner should produce for each spec in
stacks/Pulumi.example-aws-*.yaml (checked against `accelfit plan --stack ...` when written), plus small
variations for the refusal tests. Kept by hand so the component tests do not move when prices do.
"""

from __future__ import annotations

import datetime as dt

from accelfit.planner.model import (
    Estimate, NetworkPlan, NodePool, Plan, PlanAccelerator, StoragePlan, Taint,
)
from components.aws.cluster_access import ClusterAccess
from components.common import Ownership

GPU_TAINT = Taint(key="nvidia.com/gpu", value="present", effect="NoSchedule")
ZONES = ("us-east-1a", "us-east-1b")


def _estimate(devices: int) -> Estimate:
    return Estimate(hours=100.0, accelerator_hours=100.0 * devices, devices=devices, memory_per_device_gib=40.0,
                    monthly_usd=1000.0, total_usd=1000.0, breakdown=())


def _system_pool() -> NodePool:
    return NodePool(name="system", role="system", machine_type="m6i.xlarge", min_nodes=1, max_nodes=3,
                    initial_nodes=1, zones=ZONES, labels={"accelfit.io/role": "system"}, disk_size_gb=100)


def h100_training_plan() -> Plan:
    """stacks/Pulumi.example-aws-h100-training.yaml: 7 x p5.48xlarge (56 H100) in us-east-1a with 32 EFA
    interfaces each and a cluster placement group; FSx for Lustre 19,200 GiB at 125 MB/s/TiB."""
    gpu = NodePool(
        name="gpu", role="gpu", machine_type="p5.48xlarge", accelerator="h100-80gb", accelerators_per_node=8,
        min_nodes=0, max_nodes=7, initial_nodes=7, zones=("us-east-1a",), taints=(GPU_TAINT,),
        labels={"accelfit.io/role": "training", "accelfit.io/workload": "llm-pretrain",
                "accelfit.io/accelerator": "h100-80gb"},
        compact_placement=True, efa_interfaces=32, local_nvme_gb=30720.0, disk_size_gb=200)
    return Plan(
        workload="llm-pretrain", kind="training", framework="pytorch", environment="staging",
        option="eks-gpu/aws/us-east-1/h100-80gb/p5.48xlarge/on-demand", platform="eks-gpu", cloud="aws",
        region="us-east-1", zones=ZONES, pricing="on-demand", orchestration="kubernetes",
        accelerator=PlanAccelerator(name="h100-80gb", kind="gpu", count=56, instance_type="p5.48xlarge", nodes=7,
                                    per_node=8),
        node_pools=(_system_pool(), gpu),
        network=NetworkPlan(efa=True, placement_group=True),
        storage=StoragePlan(dataset_tb=20.0, checkpoint_tb=0.546, shared_filesystem="fsx-lustre",
                            filesystem_capacity_gib=19200, filesystem_throughput_mbps_per_tib=125),
        estimate=_estimate(56), reasons=("example",), catalog_as_of=dt.date(2026, 11, 21))


def l4_inference_plan() -> Plan:
    """stacks/Pulumi.example-aws-l4-inference.yaml: g6.xlarge (1 x L4) over two zones, autoscaling 13..18
    nodes, no EFA and no placement group, S3 only (no shared file system), prod (bucket protected)."""
    gpu = NodePool(
        name="gpu", role="gpu", machine_type="g6.xlarge", accelerator="l4", accelerators_per_node=1,
        min_nodes=13, max_nodes=18, initial_nodes=13, zones=ZONES, taints=(GPU_TAINT,),
        labels={"accelfit.io/role": "inference", "accelfit.io/workload": "chat-serve",
                "accelfit.io/accelerator": "l4"},
        local_nvme_gb=250.0, disk_size_gb=200)
    return Plan(
        workload="chat-serve", kind="inference", framework="pytorch", environment="prod",
        option="eks-gpu/aws/us-east-1/l4/g6.xlarge/on-demand", platform="eks-gpu", cloud="aws",
        region="us-east-1", zones=ZONES, pricing="on-demand", orchestration="kubernetes",
        accelerator=PlanAccelerator(name="l4", kind="gpu", count=18, instance_type="g6.xlarge", nodes=18,
                                    per_node=1),
        node_pools=(_system_pool(), gpu),
        storage=StoragePlan(dataset_tb=0.1, checkpoint_tb=0.016),
        estimate=_estimate(18), reasons=("example",), catalog_as_of=dt.date(2026, 11, 21))


def ownership_for(plan: Plan, team: str = "research-llm", cost_center: str = "cc-4410") -> Ownership:
    return Ownership(team=team, cost_center=cost_center, environment=plan.environment, workload=plan.workload)


def with_pool(plan: Plan, index: int, **changes) -> Plan:
    """The plan with node_pools[index] changed (plans are frozen)."""
    pools = list(plan.node_pools)
    pools[index] = pools[index].model_copy(update=changes)
    return plan.model_copy(update={"node_pools": tuple(pools)})


EXAMPLES = {
    "example-aws-h100-training": (h100_training_plan, lambda plan: ownership_for(plan)),
    "example-aws-l4-inference": (l4_inference_plan,
                                 lambda plan: ownership_for(plan, team="applied-ml", cost_center="cc-5120")),
}


# What the example stacks configure (stacks/Pulumi.example-aws-*.yaml): the public endpoint for the office and the
# CI runners' egress range, and the deploy role as cluster admin.
ACCESS = ClusterAccess(endpoint_access="public", public_access_cidrs=("203.0.113.0/24",),
                       admin_principal_arns=("arn:aws:iam::111122223333:role/accelfit-deploy",))
# The same, as stack config (for programs that read it: components.build).
ACCESS_CONFIG = {"accelfit:eksPublicAccessCidrs": '["203.0.113.0/24"]',
                 "accelfit:eksAdminPrincipals": '["arn:aws:iam::111122223333:role/accelfit-deploy"]'}
