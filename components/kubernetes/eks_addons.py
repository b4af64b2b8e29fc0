"""EksAddons: what an EKS cluster's GPU pools need in the cluster beyond the GPU Operator and Kueue.

- Cluster Autoscaler (Helm, pinned), its image matched to the cluster's Kubernetes minor, discovering the managed
  node groups by the tags EKS puts on their Auto Scaling groups; AWS credentials through the Pod Identity
  association the AWS stack made for its service account (components/aws/stack.py). Without it a pool sized for
  autoscaling never grows and a training pool never returns to zero after the run.
  https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/cloudprovider/aws/README.md
- The EFA device plugin (Helm, pinned), so pods can request vpc.amazonaws.com/efa and NCCL uses EFA, tolerating
  the GPU taint (the chart tolerates nothing by default).
  https://docs.aws.amazon.com/eks/latest/userguide/device-management-efa.html
- FSx for Lustre as a statically provisioned PersistentVolume and a claim in the workload's namespace, mounted by
  the FSx CSI driver add-on (kubernetes-sigs/aws-fsx-csi-driver examples/kubernetes/static_provisioning). Static
  provisioning makes no AWS API call, so the driver needs no IAM role.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from accelfit.yamlio import read_package_yaml
from components.common import child_name
from components.kubernetes.charts import pin
from components.kubernetes.capacity_fallback import PRIORITY_EXPANDER, expander_priorities
from components.kubernetes.gpu_software import GPU_TOLERATION
from components.kubernetes.helm import release

AUTOSCALER_DATA = Path(__file__).parent / "data" / "cluster_autoscaler.yaml"
AUTOSCALER_SERVICE_ACCOUNT = "cluster-autoscaler"
FSX_CSI_DRIVER = "fsx.csi.aws.com"


@functools.cache
def autoscaler_images() -> dict[str, Any]:
    return read_package_yaml(AUTOSCALER_DATA)


def autoscaler_image_tag(kubernetes_version: str) -> str | None:
    """The autoscaler release for a Kubernetes minor ("1.35" or "1.35.2" -> v1.35.x), None when none is pinned."""
    minor = ".".join(kubernetes_version.split(".")[:2])
    tag = autoscaler_images()["image_tags"].get(minor)
    return None if tag is None else str(tag)


@dataclass(frozen=True)
class LustreVolume:
    file_system_id: pulumi.Input[str]
    dns_name: pulumi.Input[str]
    mount_name: pulumi.Input[str]
    capacity_gib: int
    namespace: str = field(metadata={"doc": "Where the claim goes (the workload's namespace)."})
    claim_name: str = "shared-data"


@dataclass(frozen=True)
class EksAddonsPlan:
    """Decided from the plan before anything is created (components/kubernetes/build.py)."""

    kubernetes_version: str
    autoscaler: bool
    efa: bool


@dataclass(frozen=True)
class EksAddonsArgs:
    plan: EksAddonsPlan
    cluster_name: pulumi.Input[str]
    region: str
    lustre: LustreVolume | None = None
    provider: k8s.Provider | None = field(default=None, metadata={"doc": "Set by KubernetesLayer: its provider."})
    labels: dict[str, str] = field(default_factory=dict)
    after: tuple[pulumi.Resource, ...] = field(default=(), metadata={"doc": "The claim's namespace."})
    capacity_groups: tuple[tuple[pulumi.Input[str], ...], ...] = field(default=(), metadata={
        "doc": "Each capacity group's node group names in chain order: the autoscaler's priority expander tries "
               "them in that order (capacity_fallback.expander_priorities). Empty = least-waste alone."})


def autoscaler_values(cluster_name: str, region: str, kubernetes_version: str,
                      capacity_groups: tuple[tuple[str, ...], ...] = ()) -> dict[str, Any]:
    """`capacity_groups`: node group names per group, in chain order (the priority expander's order)."""
    tag = autoscaler_image_tag(kubernetes_version)
    if tag is None:
        raise ValueError(f"no Cluster Autoscaler release pinned for Kubernetes {kubernetes_version}")
    return {
        "cloudProvider": "aws",
        "awsRegion": region,
        "autoDiscovery": {"clusterName": cluster_name},
        "image": {"repository": autoscaler_images()["image_repository"], "tag": tag},
        # A fixed name: the Pod Identity association is made for this service account.
        "rbac": {"serviceAccount": {"create": True, "name": AUTOSCALER_SERVICE_ACCOUNT}},
        "extraArgs": {
            # Pods with emptyDir scratch on the NVMe array must not pin an idle GPU node forever.
            "skip-nodes-with-local-storage": "false",
            "balance-similar-node-groups": "true",
            "expander": PRIORITY_EXPANDER if capacity_groups else "least-waste",
        },
        # The chart renders the cluster-autoscaler-priority-expander ConfigMap from this (capacity_fallback).
        **({"expanderPriorities": {str(priority): patterns for priority, patterns
                                   in expander_priorities(capacity_groups).items()}} if capacity_groups else {}),
    }


def _regroup(names: list[str], sizes: list[int]) -> tuple[tuple[str, ...], ...]:
    out, start = [], 0
    for size in sizes:
        out.append(tuple(names[start:start + size]))
        start += size
    return tuple(out)


def efa_device_plugin_values() -> dict[str, Any]:
    return {"tolerations": [GPU_TOLERATION]}


class EksAddons(pulumi.ComponentResource):
    def __init__(self, name: str, args: EksAddonsArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("accelfit:kubernetes:EksAddons", name, None, opts)
        on_cluster = pulumi.ResourceOptions(parent=self, provider=args.provider)
        if args.plan.autoscaler:
            sizes = [len(group) for group in args.capacity_groups]
            values = pulumi.Output.all(args.cluster_name, *(name for group in args.capacity_groups for name in group)) \
                .apply(lambda parts: autoscaler_values(parts[0], args.region, args.plan.kubernetes_version,
                                                       _regroup(parts[1:], sizes)))
            release(child_name(name, "cluster-autoscaler"), "cluster-autoscaler", pin("cluster_autoscaler"),
                    values, self, args.provider)
        if args.plan.efa:
            release(child_name(name, "efa-device-plugin"), "aws-efa-k8s-device-plugin", pin("efa_device_plugin"),
                    efa_device_plugin_values(), self, args.provider)
        if args.lustre is not None:
            self._lustre(name, args.lustre, args.labels,
                         pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(depends_on=list(args.after))))
        self.register_outputs({"autoscaler": args.plan.autoscaler, "efa_device_plugin": args.plan.efa})

    def _lustre(self, name: str, volume: LustreVolume, labels: dict[str, str],
                on_cluster: pulumi.ResourceOptions) -> None:
        size = f"{volume.capacity_gib}Gi"
        pv_name = f"{volume.namespace}-{volume.claim_name}"
        pv = k8s.core.v1.PersistentVolume(
            child_name(name, "lustre-pv"),
            metadata=k8s.meta.v1.ObjectMetaArgs(name=pv_name, labels=labels),
            spec=k8s.core.v1.PersistentVolumeSpecArgs(
                capacity={"storage": size}, volume_mode="Filesystem", access_modes=["ReadWriteMany"],
                mount_options=["flock"], persistent_volume_reclaim_policy="Retain", storage_class_name="",
                csi=k8s.core.v1.CSIPersistentVolumeSourceArgs(
                    driver=FSX_CSI_DRIVER, volume_handle=volume.file_system_id,
                    volume_attributes={"dnsname": volume.dns_name, "mountname": volume.mount_name})),
            opts=on_cluster)
        k8s.core.v1.PersistentVolumeClaim(
            child_name(name, "lustre-pvc"),
            metadata=k8s.meta.v1.ObjectMetaArgs(name=volume.claim_name, namespace=volume.namespace, labels=labels),
            spec=k8s.core.v1.PersistentVolumeClaimSpecArgs(
                access_modes=["ReadWriteMany"], storage_class_name="", volume_name=pv_name,
                resources=k8s.core.v1.VolumeResourceRequirementsArgs(requests={"storage": size})),
            opts=pulumi.ResourceOptions.merge(on_cluster, pulumi.ResourceOptions(depends_on=[pv])))
