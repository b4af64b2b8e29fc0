"""Workload Identity for the workload's pods: a Google service account with object read/write on the data bucket,
the Kubernetes service account the pods run as (one per team namespace), and the binding that lets the one act as
the other.

GKE nodes run with `GKE_METADATA`, so pods (and the GCS FUSE CSI driver mounting the bucket for them) call Google
APIs as their Kubernetes service account, not as the node's service account: without this, reading the bucket
gives 403. https://cloud.google.com/kubernetes-engine/docs/how-to/workload-identity#authenticating_to and
https://cloud.google.com/kubernetes-engine/docs/how-to/persistent-volumes/cloud-storage-fuse-csi-driver-setup#authentication
Cluster Toolkit does the same (modules/scheduler/gke-cluster `configure_workload_identity_sa`, examples use the
KSA `workload-identity-k8s-sa`; GoogleCloudPlatform/cluster-toolkit @1047080).

`WorkloadIdentity` is the Google Cloud half (created with the cluster); `WorkloadServiceAccounts` is the
Kubernetes half, created on the cluster once the namespaces exist.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s
from pulumi_gcp import serviceaccount, storage

from accelfit.errors import InputError, problem
from accelfit.cloudrules.gcp.names import check_name
from accelfit.cloudrules.gcp.node_settings import service_account_id

# Object read, write and delete on one bucket (no bucket administration).
# https://cloud.google.com/storage/docs/access-control/iam-roles#standard-roles
BUCKET_ROLE = "roles/storage.objectUser"
WORKLOAD_IDENTITY_USER = "roles/iam.workloadIdentityUser"
# Object read and list on the model weights' bucket, nothing else (same page, roles/storage.objectViewer).
WEIGHTS_ROLE = "roles/storage.objectViewer"
GSA_ANNOTATION = "iam.gke.io/gcp-service-account"


def workload_identity_member(project: str, namespace: str, kubernetes_service_account: str) -> str:
    """The IAM member a Kubernetes service account is under Workload Identity."""
    return f"serviceAccount:{project}.svc.id.goog[{namespace}/{kubernetes_service_account}]"


@dataclass(frozen=True)
class WorkloadIdentityArgs:
    project: str
    bucket: pulumi.Input[str]
    """Name of the data bucket the workload reads and writes."""
    namespaces: tuple[str, ...]
    kubernetes_service_account: str
    display_name: str
    weights_bucket: str | None = None
    """The model server's gs:// weights bucket (model.weights), read-only; None = no server weights here."""
    identity_pool_ready: Sequence[pulumi.Resource] = ()
    """What creates the project's identity pool `PROJECT.svc.id.goog`: a cluster with Workload Identity on. GKE
    creates the pool with the first such cluster, and until then IAM refuses a binding that names a member of it
    ("Error 400: Identity Pool does not exist"; terraform-google-modules/terraform-google-kubernetes-engine issue
    916, googleforgames/global-multiplayer-demo issue 39, whose fix is a dependency on the cluster)."""


def validate_workload_identity_args(name: str, args: WorkloadIdentityArgs) -> None:
    where = f"WorkloadIdentity {name}"
    problems = []
    if not args.namespaces:
        problems.append(problem(where, "namespaces", "no namespace to bind", "give the workload's namespaces"))
    problems += check_name(where, "kubernetes_service_account", "kubernetes_object", args.kubernetes_service_account)
    for index, namespace in enumerate(args.namespaces):
        problems += check_name(where, f"namespaces[{index}]", "kubernetes_object", namespace)
    if problems:
        raise InputError(problems)


class WorkloadIdentity(pulumi.ComponentResource):
    account: serviceaccount.Account
    email: pulumi.Output[str]

    def __init__(self, name: str, args: WorkloadIdentityArgs, opts: pulumi.ResourceOptions | None = None):
        validate_workload_identity_args(name, args)
        super().__init__("accelfit:gcp:WorkloadIdentity", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.account = serviceaccount.Account(f"{name}-sa", account_id=service_account_id(name),
                                              display_name=args.display_name, project=args.project, opts=child)
        self.email = self.account.email
        member = self.email.apply(lambda email: f"serviceAccount:{email}")
        storage.BucketIAMMember(f"{name}-bucket-user", bucket=args.bucket, role=BUCKET_ROLE, member=member,
                                opts=child)
        if args.weights_bucket is not None:
            # Read-only on the weights (the model server and the GCS FUSE CSI driver mounting them for it).
            storage.BucketIAMMember(f"{name}-weights-reader", bucket=args.weights_bucket, role=WEIGHTS_ROLE,
                                    member=member, opts=child)
        for namespace in args.namespaces:
            serviceaccount.IAMMember(
                f"{name}-wi-{namespace}", service_account_id=self.account.name, role=WORKLOAD_IDENTITY_USER,
                member=workload_identity_member(args.project, namespace, args.kubernetes_service_account),
                opts=pulumi.ResourceOptions(parent=self, depends_on=list(args.identity_pool_ready)))
        self.kubernetes_service_account = args.kubernetes_service_account
        self.namespaces = args.namespaces
        self.register_outputs({"email": self.email, "kubernetes_service_account": args.kubernetes_service_account,
                               "namespaces": list(args.namespaces)})


@dataclass(frozen=True)
class WorkloadServiceAccountsArgs:
    provider: k8s.Provider
    google_service_account: pulumi.Input[str]
    """Email of WorkloadIdentity's Google service account."""
    name: str
    namespaces: tuple[str, ...]
    labels: Mapping[str, str] = field(default_factory=dict)
    dependencies: Sequence[pulumi.Resource] = ()
    """What creates the namespaces (the Kubernetes layer)."""


class WorkloadServiceAccounts(pulumi.ComponentResource):
    """The Kubernetes service account the workload's pods name (`serviceAccountName`), in each namespace,
    annotated with the Google service account it acts as."""

    def __init__(self, name: str, args: WorkloadServiceAccountsArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__("accelfit:gcp:WorkloadServiceAccounts", name, None, opts)
        on_cluster = pulumi.ResourceOptions(parent=self, provider=args.provider,
                                            depends_on=list(args.dependencies))
        self.accounts = [k8s.core.v1.ServiceAccount(
            f"{name}-{namespace}", metadata=k8s.meta.v1.ObjectMetaArgs(
                name=args.name, namespace=namespace, labels=dict(args.labels),
                annotations={GSA_ANNOTATION: args.google_service_account}),
            opts=on_cluster) for namespace in args.namespaces]
        self.register_outputs({"name": args.name, "namespaces": list(args.namespaces)})
