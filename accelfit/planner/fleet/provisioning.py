"""Which pools obtain their nodes through a ProvisioningRequest (GKE flex-start with queued provisioning), so that
Kueue admits a job to them only through a ProvisioningRequest admission check. Pure: the node pool component
(enable queued provisioning), the Kueue routing (ProvisioningRequestConfig, AdmissionCheck, the ClusterQueue's
check) and the plan's fallback chain all ask this one rule.

GKE (https://cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest, "Run a large-scale workload with
flex-start with queued provisioning"): queued provisioning is for batch and AI workloads that must run across
several nodes at once, all nodes allocated together; "for smaller workloads that can run on a single node" GKE
points to flex-start VMs (a flex-start pool without queued provisioning, scaled by pending pods). xpk enables it
for GPU flex-start clusters only (AI-Hypercomputer/xpk src/xpk/utils/kueue.py is_queued_cluster and
src/xpk/core/capacity.py @367c838253bea41e7d7716145ad6513f44c1a21e: GPU, one slice, `--enable-queued-provisioning`).

Not on EKS: the cluster autoscaler's ProvisioningRequest classes would not see a shortage there. On AWS,
AtomicIncreaseSize is not implemented (kubernetes/autoscaler cluster-autoscaler-chart-9.59.0
@5a0b98e45f896e98132737240ac131a519d3b33d cluster-autoscaler/cloudprovider/aws/aws_cloud_provider.go), so
best-effort-atomic-scale-up.autoscaling.x-k8s.io marks a request Provisioned once the Auto Scaling group's size is
raised, before EC2 has (or has not) found the instances (cluster-autoscaler/FAQ.md, "Supported ProvisioningClasses";
cluster-autoscaler/provisioningrequest/besteffortatomic/provisioning_class.go: Provisioned=True on "scale up
requested", and a node group in backoff only leaves the request Provisioned=False, never Failed);
check-capacity.autoscaling.x-k8s.io only checks nodes that already exist, which a pool scaled from 0 never has. On
EKS a job without nodes is caught by Kueue's waitForPodsReady timeout instead (fallback_triggers).
"""

from __future__ import annotations

from accelfit.clouds import cloud_named
from accelfit.planner.model import NodePool, Plan

QUEUED_PROVISIONING_CLASS = "queued-provisioning.gke.io"


def provisioning_class(plan: Plan, pool: NodePool) -> str | None:
    """The ProvisioningRequest class the pool's nodes come through, or None (the autoscaler adds nodes for pending
    pods)."""
    if not cloud_named(plan.cloud).queued_provisioning or plan.orchestration != "kubernetes" or pool.role != "gpu":
        return None
    if not pool.flex_start or plan.kind == "inference" or pool.max_nodes < 2:
        return None
    return QUEUED_PROVISIONING_CLASS
