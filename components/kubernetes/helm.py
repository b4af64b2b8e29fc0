"""Shared pieces of the Kubernetes components: a namespace and a pinned Helm release on an explicit provider."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from components.kubernetes.charts import ChartPin

# Operands that mount host paths or load kernel modules (GPU Operator, DCGM exporter) need the privileged Pod
# Security level in their namespace. https://kubernetes.io/docs/concepts/security/pod-security-admission/
PRIVILEGED = {"pod-security.kubernetes.io/enforce": "privileged"}


def namespace(resource_name: str, name: str, labels: Mapping[str, str], opts: pulumi.ResourceOptions
              ) -> k8s.core.v1.Namespace:
    return k8s.core.v1.Namespace(resource_name, metadata=k8s.meta.v1.ObjectMetaArgs(name=name, labels=dict(labels)),
                                 opts=opts)


def release(resource_name: str, release_name: str, pin: ChartPin,
            values: Mapping[str, Any] | pulumi.Output[dict[str, Any]],
            parent: pulumi.Resource, provider: k8s.Provider, depends_on: Sequence[pulumi.Resource] = ()
            ) -> k8s.helm.v3.Release:
    """A Helm release at the pinned chart version, into a namespace created beforehand (so its labels are ours).
    A fixed release name: an auto-suffixed one would change the objects' names on every replacement."""
    return k8s.helm.v3.Release(
        resource_name, name=release_name, chart=pin.chart, version=pin.version, namespace=pin.namespace,
        repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=pin.repository) if pin.repository else None,
        values=values if isinstance(values, pulumi.Output) else dict(values), create_namespace=False, cleanup_on_fail=True,
        max_history=5,
        opts=pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=list(depends_on)))
