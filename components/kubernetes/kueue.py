"""KueueRouting: Kueue through Helm (pinned), a ResourceFlavor per accelerator pool, a ClusterQueue per workload
with its flavors in its fallback order and quotas from its plan (in a fleet: all in one cohort, borrowing the other
workloads' idle pools), and a LocalQueue in each of the workload's namespaces."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s

from accelfit.errors import InputError, problem
from components.common import child_name
from accelfit.cloudrules.shared_cluster import cohort_name_problems, queue_flavor_problems
from components.kubernetes.charts import ChartPin, pin
from components.kubernetes.helm import namespace, release
from components.kubernetes.kueue_config import kueue_values
from components.kubernetes.queues import (
    KUEUE_API,
    KUEUE_PREVIOUS_API,
    QUEUE_NAMESPACE_LABEL,
    FlavorPlan,
    CHECK_NAMES,
    QueuePlan,
    admission_check_spec,
    provisioning_request_config_spec,
    resource_flavor_spec,
)


@dataclass(frozen=True)
class KueueRoutingArgs:
    queues: tuple[QueuePlan, ...] = field(metadata={
        "doc": "One per workload: its ClusterQueue (and LocalQueues) name, flavors in fallback order, namespaces."})
    pool_selectors: Mapping[str, Mapping[str, pulumi.Input[str]]] = field(
        metadata={"doc": "Pool name -> the platform's own node label(s) that pick out that pool's nodes."})
    provider: k8s.Provider
    labels: dict[str, str] = field(default_factory=dict)
    chart: ChartPin = field(default_factory=lambda: pin("kueue"))
    release_dependencies: tuple[pulumi.Resource, ...] = field(
        default=(), metadata={"doc": "Installed before Kueue starts (the JobSet controller, for its integration)."})

    @property
    def flavors(self) -> tuple[FlavorPlan, ...]:
        """Every queue's own flavors: one ResourceFlavor each."""
        return tuple(flavor for queue in self.queues for flavor in queue.flavors)


def validate_kueue_args(name: str, args: KueueRoutingArgs) -> None:
    where = f"KueueRouting {name}"
    problems = []
    if not args.flavors:
        problems.append(problem(where, "flavors", "no accelerator pool to route to", "plan GPU or TPU pools"))
    for index, flavor in enumerate(args.flavors):
        if flavor.pool not in args.pool_selectors:
            problems.append(problem(where, f"flavors[{index}].pool", "no node selector for this pool",
                                    "pass the pool's node label in pool_selectors", flavor.pool))
    namespaces = [namespace for queue in args.queues for namespace in queue.namespaces]
    for index, queue in enumerate(args.queues):
        if not queue.namespaces:
            problems.append(problem(where, f"queues[{index}].namespaces", "no namespace to submit from",
                                    "give at least one"))
        problems += queue_flavor_problems(f"queues[{index}].flavors", queue.name,
                                          len(queue.flavors) + len(queue.borrowed))
        if queue.cohort is not None:
            problems += cohort_name_problems("accelfit:fleet", queue.cohort)
    if len(set(namespaces)) != len(namespaces):
        problems.append(problem(where, "team_namespaces", "listed twice", "list each namespace once",
                                namespaces))
    if len({queue.name for queue in args.queues}) != len(args.queues):
        problems.append(problem(where, "queues", "two ClusterQueues share a name", "name each workload once",
                                [queue.name for queue in args.queues]))
    if problems:
        raise InputError(problems)


def _moved_from_previous_api(kind: str) -> pulumi.ResourceOptions:
    """Stacks created with the previous API version keep their objects: the type token changed, the object
    did not (Kueue serves both versions and converts), so the old token is an alias rather than a replacement."""
    return pulumi.ResourceOptions(aliases=[pulumi.Alias(type_=f"kubernetes:{KUEUE_PREVIOUS_API}:{kind}")])


class KueueRouting(pulumi.ComponentResource):
    release: k8s.helm.v3.Release
    cluster_queue: k8s.apiextensions.CustomResource
    cluster_queues: list[k8s.apiextensions.CustomResource]
    team_namespaces: list[k8s.core.v1.Namespace]

    def __init__(self, name: str, args: KueueRoutingArgs, opts: pulumi.ResourceOptions | None = None):
        validate_kueue_args(name, args)
        super().__init__("accelfit:kubernetes:KueueRouting", name, None, opts)
        ns = namespace(child_name(name, "namespace"), args.chart.namespace, args.labels,
                       pulumi.ResourceOptions(parent=self, provider=args.provider))
        # waitForPodsReady: a job whose pods cannot get nodes is evicted and requeued (kueue_config).
        self.release = release(child_name(name, "release"), "kueue", args.chart, kueue_values(args.chart), self,
                               args.provider,
                               depends_on=[ns, *args.release_dependencies])
        # Kueue's objects need its CRDs and admission webhook: both come with the release.
        after_kueue = pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=[self.release])

        labels_of = {flavor.name: dict(queue.labels or args.labels) for queue in args.queues
                     for flavor in queue.flavors}
        flavors = [k8s.apiextensions.CustomResource(
            child_name(name, f"flavor-{flavor.pool}"), api_version=KUEUE_API, kind="ResourceFlavor",
            metadata={"name": flavor.name, "labels": labels_of[flavor.name]},
            spec=resource_flavor_spec(flavor, args.pool_selectors[flavor.pool] if flavor.selects_one_pool else {}),
            opts=pulumi.ResourceOptions.merge(after_kueue, _moved_from_previous_api("ResourceFlavor")))
            for flavor in args.flavors]
        checks = self._provisioning_checks(name, args, after_kueue)
        self.cluster_queues = []
        self.team_namespaces = []
        for queue in args.queues:
            # Outside a fleet the one queue keeps the names it always had; in a fleet each carries its workload's.
            suffix = "" if queue.cohort is None else f"-{queue.name}"
            labels = dict(queue.labels or args.labels)
            cluster_queue = k8s.apiextensions.CustomResource(
                child_name(name, f"cluster-queue{suffix}"), api_version=KUEUE_API, kind="ClusterQueue",
                metadata={"name": queue.name, "labels": labels}, spec=queue.spec(),
                opts=pulumi.ResourceOptions.merge(
                    pulumi.ResourceOptions(parent=self, provider=args.provider,
                                           depends_on=[self.release, *flavors, *checks]),
                    _moved_from_previous_api("ClusterQueue")))
            self.cluster_queues.append(cluster_queue)
            for team_namespace in queue.namespaces:
                team = namespace(child_name(name, f"ns-{team_namespace}"), team_namespace,
                                 {**labels, QUEUE_NAMESPACE_LABEL: queue.name},
                                 pulumi.ResourceOptions(parent=self, provider=args.provider))
                self.team_namespaces.append(team)
                k8s.apiextensions.CustomResource(
                    child_name(name, f"queue-{team_namespace}"), api_version=KUEUE_API, kind="LocalQueue",
                    metadata={"name": queue.name, "namespace": team_namespace, "labels": labels},
                    spec={"clusterQueue": queue.name},
                    opts=pulumi.ResourceOptions.merge(
                        pulumi.ResourceOptions(parent=self, provider=args.provider,
                                               depends_on=[team, cluster_queue]),
                        _moved_from_previous_api("LocalQueue")))
        self.cluster_queue = self.cluster_queues[0]

        self.register_outputs({"cluster_queues": [queue.name for queue in args.queues],
                               "flavors": [flavor.name for flavor in args.flavors]})

    def _provisioning_checks(self, name: str, args: KueueRoutingArgs,
                             opts: pulumi.ResourceOptions) -> list[k8s.apiextensions.CustomResource]:
        """For each ProvisioningRequest class a flavor needs: its ProvisioningRequestConfig and the AdmissionCheck
        the ClusterQueues run on those flavors (queues.admission_check_strategy)."""
        resources_of: dict[str, set[str]] = {}
        for queue in args.queues:
            for flavor in (*queue.flavors, *queue.borrowed):
                if flavor.provisioning_class:
                    resources_of.setdefault(flavor.provisioning_class, set()).add(flavor.resource)
        made: list[k8s.apiextensions.CustomResource] = []
        for provisioning_class, resources in sorted(resources_of.items()):
            check = CHECK_NAMES[provisioning_class]
            config = k8s.apiextensions.CustomResource(
                child_name(name, f"{check}-config"), api_version=KUEUE_API, kind="ProvisioningRequestConfig",
                metadata={"name": check, "labels": dict(args.labels)},
                spec=provisioning_request_config_spec(provisioning_class, sorted(resources)), opts=opts)
            made += [config, k8s.apiextensions.CustomResource(
                child_name(name, check), api_version=KUEUE_API, kind="AdmissionCheck",
                metadata={"name": check, "labels": dict(args.labels)}, spec=admission_check_spec(check),
                opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[config])))]
        return made
