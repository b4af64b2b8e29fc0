"""Kubeconfigs for the clusters accelfit creates, rendered from the cluster's outputs. Pure: no Pulumi import.

Neither kubeconfig holds a credential: each runs the cloud's own client to get a short-lived token when the
Kubernetes provider connects (gke-gcloud-auth-plugin, `aws eks get-token`), so the state file never stores one.
Bare-metal clusters have no such plugin; their kubeconfig comes from the secret config `accelfit:kubeconfig`.
"""

from __future__ import annotations
from typing import Any

import yaml

# client.authentication.k8s.io/v1beta1 is what both plugins speak (v1 is accepted by newer kubectl only).
EXEC_API_VERSION = "client.authentication.k8s.io/v1beta1"


_GKE_EXEC = {"apiVersion": EXEC_API_VERSION, "command": "gke-gcloud-auth-plugin",
             "installHint": "Install gke-gcloud-auth-plugin: gcloud components install gke-gcloud-auth-plugin",
             "provideClusterInfo": True, "interactiveMode": "Never"}


def _kubeconfig(name: str, server: str, ca_data: str | None, exec_config: dict[str, Any]) -> str:
    cluster = {"server": server, "certificate-authority-data": ca_data} if ca_data else {"server": server}
    document = {
        "apiVersion": "v1", "kind": "Config", "current-context": name,
        "clusters": [{"name": name, "cluster": cluster}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name}}],
        "users": [{"name": name, "user": {"exec": exec_config}}],
    }
    return str(yaml.safe_dump(document, sort_keys=False))


def gke_kubeconfig(cluster_name: str, endpoint: str, ca_certificate: str) -> str:
    """GKE: `endpoint` is a bare IP (the API server listens on 443); the token comes from the gcloud plugin.
    https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin"""
    return _kubeconfig(f"gke-{cluster_name}", f"https://{endpoint}", ca_certificate, _GKE_EXEC)


def gke_dns_kubeconfig(cluster_name: str, dns_endpoint: str) -> str:
    """GKE through the DNS-based control-plane endpoint (`gke-<hash>.<region>.gke.goog`): served with a publicly
    trusted certificate, so no cluster CA; IAM decides who gets in, from any network.
    https://cloud.google.com/kubernetes-engine/docs/concepts/network-isolation#dns-based_endpoint"""
    return _kubeconfig(f"gke-{cluster_name}", f"https://{dns_endpoint}", None, _GKE_EXEC)


def eks_kubeconfig(cluster_name: str, endpoint: str, ca_data: str, region: str) -> str:
    """EKS: `endpoint` is already an https URL; the token comes from `aws eks get-token` (IAM identity).
    https://docs.aws.amazon.com/eks/latest/userguide/create-kubeconfig.html"""
    return _kubeconfig(f"eks-{cluster_name}", endpoint, ca_data, {
        "apiVersion": EXEC_API_VERSION, "command": "aws",
        "args": ["eks", "get-token", "--cluster-name", cluster_name, "--region", region, "--output", "json"],
        "interactiveMode": "Never"})
