"""What a cloud is to accelfit, in one record (issue 35): its name, the platforms it offers, where its catalog rows
are, which Pulumi resource types its stacks build that cost money, how preflight reads it, and what it cannot do,
each with the reason a user is told.

Modelled on SkyPilot's one `Cloud` interface with unsupported features as data carrying a user-facing reason
(skypilot-org/skypilot sky/clouds/cloud.py, `CloudImplementationFeatures` and `_unsupported_features_for_resources`)
and on dstack's table that derives "which backends support X" from each backend's declared features
(dstack src/dstack/_internal/core/backends/features.py). accelfit keeps its own way: a record of data, no
subclassing, and hooks that live in higher layers named by module path (`pricer_module`, `preflight_reader`), so
this package imports nothing above the foundation.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


def _no_zones(region: str) -> tuple[str, ...]:
    return (region,)


@dataclass(frozen=True)
class Cloud:
    """One cloud (or the owned bare-metal servers). Pure data; every field is read by a named caller."""

    name: str  # the user-facing value: placement.clouds, plan.cloud, catalog rows
    title: str  # how messages name it: GCP, AWS, owned servers
    platforms: tuple[str, ...]  # every platform a plan may place work on in this cloud
    # The platform of each kind, or "" where the cloud has none: a Kubernetes cluster accelfit creates with GPU node
    # pools (the only one that buys reservations and the cloud's own buying models), a GPU VM without a cluster.
    cluster_platform: str = ""
    cluster_tpu_platform: str = ""  # a cluster's TPU node pools (GKE)
    # How a plan names the cloud's clusters (SharedCluster.platform; upper-cased in why a workload runs where it
    # does): gke, eks; "" = its cluster platform's name.
    cluster_kind: str = ""
    vm_platform: str = ""
    # Platforms on which the stack builds a model server (a cluster whose workload identity reads the weights).
    server_platforms: tuple[str, ...] = ()
    tpu_platforms: tuple[str, ...] = ()
    owned: bool = False  # owned hardware: sunk cost, priced at its power (accelfit.pricing.onprem)
    # The catalog data files with this cloud's rows, and the folder they are in: None for the catalog's own data
    # folder (accelfit/catalog/data/, or the copy a caller loads instead), read with its shared files; a cloud that
    # is not shipped with accelfit (a plug-in, a test's) names the folder beside its module, which the catalog
    # loader, its compiled cache's key and its integrity checks then read as well (accelfit/catalog/loader.py).
    catalog_files: tuple[str, ...] = ()
    catalog_dir: Path | None = None
    # Pulumi resource type tokens this cloud's stacks build that the preview prices, and the module that registers
    # their pricers (imported by accelfit.pricing when it first prices; a module path so this layer stays below it).
    priced_resource_types: tuple[str, ...] = ()
    pricer_module: str = ""
    # Types that cost nothing themselves but say how a priced one runs (a launch or instance template), handed to
    # the pricers by resource name.
    template_resource_types: tuple[str, ...] = ()
    # "module:Class" of the read-only preflight reader for this cloud ("" where preflight reads nothing): the one
    # place preflight learns how to build it, how to log in and how to ask for more (accelfit/preflight/readers.py).
    preflight_reader: str = ""
    # The stack config key naming where preflight reads (GCP: the project; "" where the credentials say it all).
    preflight_project_key: str = ""
    # "module:function" of the check of what the cloud's Pulumi provider needs from the stack's config (a project,
    # a region), given the stack; "" where the provider needs nothing.
    provider_config_check: str = ""
    provider_config_keys: tuple[str, ...] = ()  # the stack config keys that check reads (`accelfit check` lists them)
    # The catalog's rules for this cloud's rows: its instance rows carry the GKE accelerator string, GPUDirect and
    # extra networks (GCP machine types; every other cloud's rows must leave them out), and "module:function" of the
    # check of one availability row's own fields (AWS: where the row was read), given the row's `Located` and
    # returning its problems; "" where the cloud has none (accelfit/catalog/integrity.py).
    instance_accelerator_fields: bool = False
    availability_row_check: str = ""
    # "module:function" of the check of one workload's plan against the cloud's rules, given the plan and the
    # catalog, before anything is created (accelfit/cloudrules/stack_checks.py); "" where it has none.
    plan_check: str = ""
    # The machine type of a cluster's system pool (cluster add-ons), priced at its "vm-<type>" service row, and how
    # a fleet plan names what its shared cluster holds once (accelfit/planner/fleet/costs.py).
    system_pool_machine: str = ""
    shared_cluster_parts: tuple[str, ...] = ()
    # "module:function" reading one of its priced resources (a policies.accelfit_policies.view.ResourceView and the
    # catalog) into the accelerators it asks for (an AcceleratorUse, or None), for the policy pack's accelerator
    # rules; "" where policies/accelfit_policies/usage.py reads the cloud's types itself (the shipped clouds).
    accelerator_reader: str = ""
    # "module:function" reading one of its priced resources (a ResourceView) into a node group as the policy pack's
    # node rules see it (a policies.accelfit_policies.nodes.NodeGroup: where its node range, labels, tags, taints
    # and private-nodes setting are), or None for a resource that is not one; "" where nodes.py knows the cloud's
    # node types itself (the shipped clouds).
    node_reader: str = ""
    # "module:name" of the cloud's component builders (a components.build.CloudBuilders: its cluster, its GPU VMs,
    # the checks run before anything is created); "" where it has none (owned servers: components/baremetal).
    component_builders: str = ""
    # URI schemes whose objects this cloud's workload identity reads (model.weights, training.code).
    storage_schemes: tuple[str, ...] = ()
    # Catalog service rows (accelfit/catalog/data/service_prices.yaml) the plan prices a place with: the cluster's
    # control-plane fee, the bucket, a node's boot disk (GCP GPU pools take their family's disk instead:
    # accelfit.pricing.node_disks), and the shared file system a multi-node training run gets ("" = none).
    cluster_fee_service: str = ""
    bucket_service: str = ""
    node_disk_service: str = ""
    node_disk_by_family: bool = False
    shared_filesystem: str = ""
    # The network: one NAT gateway per zone (AWS: each private subnet routes through its own) or one in all.
    nat_per_zone: bool = False
    # Zones: the zones a pool goes in when the availability data lists only the region (`zones_of_region`);
    # whether the catalog's listed zones are zone names a pool can take (GCP) or IDs (AWS AZ IDs); whether a
    # cluster needs a second zone for its control plane (EKS); whether a GPU VM's network spans the region's zones.
    zones_of_region: Callable[[str], tuple[str, ...]] = _no_zones
    listed_zones_are_names: bool = False
    cluster_needs_two_zones: bool = False
    vm_network_spans_zones: bool = False
    # How the cloud's clusters behave: a GKE cluster's pods range is fixed when it is created (sized from every node
    # its pools can add); the system pool follows the work's zones (GKE); multi-node training's network (EKS: EFA
    # interfaces and a placement group; GKE: the machine's extra GPU networks); flex-start GPU pools take nodes
    # through queued provisioning (GKE ProvisioningRequest); the serving route's metrics bill per sample (Google
    # Cloud Managed Service for Prometheus).
    pods_range_fixed_at_creation: bool = False
    system_pool_follows_work: bool = False
    multi_node_network: str = ""  # efa | extra-networks | ""
    queued_provisioning: bool = False
    metrics_billed_per_sample: bool = False
    # How a model server is reached and scaled on the cloud's cluster (components/kubernetes/serving): the Gateway
    # API implementation in front of the InferencePool (GKE's own gateway, or NGINX Gateway Fabric installed by the
    # stack on EKS) and where the servers' metrics go for KEDA (Managed Prometheus on GKE, queried per project with
    # the KEDA operator's Workload Identity; the in-cluster kube-prometheus-stack on EKS). "" where it builds none.
    serving_gateway: str = ""  # gke-gateway | nginx-gateway-fabric
    # The plan field that pins the cluster's Kubernetes version line: every workload sharing one cluster must agree.
    cluster_version_field: str = ""  # gke_release_channel | eks_version
    example_region: str = ""  # what an error's fix suggests for a region setting
    # The stack: the provider config key of the region the cloud's resources are built in (the planner places the
    # cloud's workloads there, accelfit/stackrules/regions.py), "" where the stack names none (owned servers); the
    # provider config keys accelfit reads for the cloud, as "module:name" of a tuple of accelfit.stackkeys.StackKey
    # (the stack file's schema lists them); how messages name the cloud whose provider builds there.
    region_key: str = ""
    stack_keys: str = ""
    # The provider config key of the zone the stack builds in ("" where the stack names none), the regular
    # expression a zone name matches in full, with a group `region` naming its region, and how an error describes
    # a zone (accelfit/stackrules/regions.py).
    zone_key: str = ""
    zone_pattern: str = ""
    zone_form: str = ""
    provider_title: str = ""  # "Google Cloud", "AWS"
    # Its public regions where accelfit/spec/data/regions.yaml (the shipped clouds' published lists, each with its
    # source) has none: a cloud not shipped with accelfit lists them here, for placement.regions and its region key.
    regions: tuple[str, ...] = ()
    serving_metrics: str = ""  # managed-prometheus | in-cluster-prometheus
    # The NVIDIA software the Kubernetes layer installs on the cloud's GPU nodes (components/kubernetes/
    # gpu_software.py): "gke-managed" (the cloud installs the driver and runs its own device plugin: only the DCGM
    # exporter), "gpu-operator" (the driver and toolkit come with the node image or host preparation: the GPU
    # Operator with driver and toolkit off); "" where it has no GPU cluster.
    gpu_software: str = ""
    # How the cloud's cluster autoscaler moves pending work between a workload's planned and standby GPU pools (a
    # capacity group, accelfit/planner/fleet/capacity_groups.py): "compute-class" (GKE custom compute classes, by
    # their node label), "node-label" (accelfit's own node label, which the Cluster Autoscaler reads: EKS); "" where
    # it does not (Kueue moves the job instead).
    capacity_groups: str = ""
    # What the cloud's managed GPU pools are called in a plan's words (EKS: managed node groups).
    node_pool_kind: str = "node pools"
    # Reservations are zonal (GCP: a reservation lives in one zone) rather than named by id alone (AWS).
    zonal_reservations: bool = False
    # placement.reservations on this cloud (accelfit/spec/models.py ReservationSpec): the regular expression the end
    # of a zone's name matches after its region (GCP us-central1-a, AWS us-east-1a), the one a reservation's name
    # matches in full, and what the error says a name must be, with where to copy it from; "" where the cloud takes
    # no reservations.
    zone_suffix: str = ""
    reservation_name_pattern: str = ""
    reservation_name_rule: str = ""
    # How a cluster's pool limit is named in a problem (accelfit/cloudrules/shared_cluster.py).
    pools_per_cluster: str = ""
    # What plans tell users: the quota a GPU pool counts against, how to reach a GPU VM, how a spot VM comes back.
    gpu_quota: str = ""
    vm_access: str = ""
    vm_spot_recovery: str = ""
    # feature -> the reason a user is told when a plan would need it here (see FEATURES).
    unsupported: tuple[tuple[str, str], ...] = field(default=())
    # A model server's cloud identity is an EKS Pod Identity association: bound to a service account the serving
    # layer creates in the workload's own namespace (components/aws/workload_identity.py), so the server runs there.
    pod_identity_association: bool = False
    # How a GPU VM's start-up script logs in to the cloud's container registry (components/templates: gcp runs
    # `gcloud auth configure-docker`, ecr `aws ecr get-login-password`); "" where the cloud has no GPU VMs.
    registry_auth: str = ""
    # A GPU VM runs in a managed instance group of one, which its autostop acts through (Compute Engine).
    vm_in_instance_group: bool = False

    def supports(self, feature: str) -> bool:
        return self.unsupported_reason(feature) is None

    def unsupported_reason(self, feature: str) -> str | None:
        if feature not in FEATURES:
            raise ValueError(f"unknown cloud feature {feature!r}; known: {', '.join(FEATURES)}")
        return dict(self.unsupported).get(feature)

    def offers(self, platform: str) -> bool:
        return platform in self.platforms

    @property
    def cluster_platforms(self) -> tuple[str, ...]:
        """Its platforms whose work runs as node pools of a Kubernetes cluster accelfit creates in the cloud (not
        owned servers' own cluster, TPU VMs or GPU VMs): they take the cluster's costs and standby pools, and may
        share a fleet's cluster."""
        return tuple(platform for platform in (self.cluster_platform, self.cluster_tpu_platform) if platform)

    @property
    def cluster_word(self) -> str:
        """How a plan names its clusters: `cluster_kind`, else its cluster platform's name."""
        return self.cluster_kind or self.cluster_platform

    @property
    def has_system_pool(self) -> bool:
        """Its clusters build a system pool (cluster add-ons) of `system_pool_machine`; a fleet's shared cluster
        builds one for all members (SharedCluster.system_pool, which the plan's schema requires)."""
        return bool(self.system_pool_machine)

    @property
    def has_catalog(self) -> bool:
        """It has catalog rows of its own (its catalog files: offerings and prices) that `accelfit catalog --cloud`
        lists; owned servers have none (their inventory is theirs)."""
        return bool(self.catalog_files)

    @property
    def a_region_owner(self) -> str:
        """'a Google Cloud', 'an AWS': as in "not an AWS region"."""
        title = self.provider_title or self.title
        return f"{'an' if title[:1] in 'AEIOU' else 'a'} {title}"


# The features a cloud may lack, each read by one caller: model-server (planner/eligibility.py), tpu (planner
# candidates), gpu-vm (planner/gpu_vms.py), shared-filesystem (planner/costing/option_costs.py), fallback-tiers
# (planner/fleet/chain.py).
FEATURES = ("model-server", "tpu", "gpu-vm", "shared-filesystem", "fallback-tiers")
