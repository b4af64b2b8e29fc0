"""KueueRouting: Kueue through Helm (pinned), a ResourceFlavor per accelerator pool, one ClusterQueue with the
flavors in the plan's fallback order and quotas from the plan, and a LocalQueue in each team namespace."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_kubernetes as k8s

from accelfit.errors import InputError, problem
from components.common import child_name
from components.kubernetes.charts import ChartPin, pin
from components.kubernetes.helm import namespace, release
from components.kubernetes.queues import (
    KUEUE_API,
    KUEUE_PREVIOUS_API,
    QUEUE_NAMESPACE_LABEL,
    FlavorPlan,
    cluster_queue_spec,
    resource_flavor_spec,
)


@dataclass(frozen=True)
class KueueRoutingArgs:
    queue_name: str = field(metadata={"doc": "Name of the ClusterQueue and of each LocalQueue."})
    flavors: tuple[FlavorPlan, ...] = field(metadata={"doc": "In fallback order (queues.flavor_plans)."})
    pool_selectors: Mapping[str, Mapping[str, pulumi.Input[str]]] = field(
        metadata={"doc": "Pool name -> the platform's own node label(s) that pick out that pool's nodes."})
    team_namespaces: tuple[str, ...]
    provider: k8s.Provider
    labels: dict[str, str] = field(default_factory=dict)
    chart: ChartPin = field(default_factory=lambda: pin("kueue"))
    release_dependencies: tuple[pulumi.Resource, ...] = field(
        default=(), metadata={"doc": "Installed before Kueue starts (the JobSet controller, for its integration)."})


def validate_kueue_args(name: str, args: KueueRoutingArgs) -> None:
    where = f"KueueRouting {name}"
    problems = []
    if not args.flavors:
        problems.append(problem(where, "flavors", "no accelerator pool to route to", "plan GPU or TPU pools"))
    for index, flavor in enumerate(args.flavors):
        if flavor.pool not in args.pool_selectors:
            problems.append(problem(where, f"flavors[{index}].pool", "no node selector for this pool",
                                    "pass the pool's node label in pool_selectors", flavor.pool))
    if not args.team_namespaces:
        problems.append(problem(where, "team_namespaces", "no namespace to submit from", "give at least one"))
    if len(set(args.team_namespaces)) != len(args.team_namespaces):
        problems.append(problem(where, "team_namespaces", "listed twice", "list each namespace once",
                                list(args.team_namespaces)))
    if problems:
        raise InputError(problems)


def _moved_from_previous_api(kind: str) -> pulumi.ResourceOptions:
    """Stacks created with the previous API version keep their objects: the type token changed, the object
    did not (Kueue serves both versions and converts), so the old token is an alias rather than a replacement."""
    return pulumi.ResourceOptions(aliases=[pulumi.Alias(type_=f"kubernetes:{KUEUE_PREVIOUS_API}:{kind}")])


class KueueRouting(pulumi.ComponentResource):
    release: k8s.helm.v3.Release
    cluster_queue: k8s.apiextensions.CustomResource
    team_namespaces: list[k8s.core.v1.Namespace]

    def __init__(self, name: str, args: KueueRoutingArgs, opts: pulumi.ResourceOptions | None = None):
        validate_kueue_args(name, args)
        super().__init__("accelfit:kubernetes:KueueRouting", name, None, opts)
        ns = namespace(child_name(name, "namespace"), args.chart.namespace, args.labels,
                       pulumi.ResourceOptions(parent=self, provider=args.provider))
        self.release = release(child_name(name, "release"), "kueue", args.chart, {}, self, args.provider,
                               depends_on=[ns, *args.release_dependencies])
        # Kueue's objects need its CRDs and admission webhook: both come with the release.
        after_kueue = pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=[self.release])

        flavors = [k8s.apiextensions.CustomResource(
            child_name(name, f"flavor-{flavor.pool}"), api_version=KUEUE_API, kind="ResourceFlavor",
            metadata={"name": flavor.name, "labels": args.labels},
            spec=resource_flavor_spec(flavor, args.pool_selectors[flavor.pool]),
            opts=pulumi.ResourceOptions.merge(after_kueue, _moved_from_previous_api("ResourceFlavor")))
            for flavor in args.flavors]
        self.cluster_queue = k8s.apiextensions.CustomResource(
            child_name(name, "cluster-queue"), api_version=KUEUE_API, kind="ClusterQueue",
            metadata={"name": args.queue_name, "labels": args.labels},
            spec=cluster_queue_spec(args.queue_name, list(args.flavors)),
            opts=pulumi.ResourceOptions.merge(
                pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=[self.release, *flavors]),
                _moved_from_previous_api("ClusterQueue")))

        self.team_namespaces = []
        for team_namespace in args.team_namespaces:
            team = namespace(child_name(name, f"ns-{team_namespace}"), team_namespace,
                             {**args.labels, QUEUE_NAMESPACE_LABEL: args.queue_name},
                             pulumi.ResourceOptions(parent=self, provider=args.provider))
            self.team_namespaces.append(team)
            k8s.apiextensions.CustomResource(
                child_name(name, f"queue-{team_namespace}"), api_version=KUEUE_API, kind="LocalQueue",
                metadata={"name": args.queue_name, "namespace": team_namespace, "labels": args.labels},
                spec={"clusterQueue": args.queue_name},
                opts=pulumi.ResourceOptions.merge(
                    pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=[team, self.cluster_queue]),
                    _moved_from_previous_api("LocalQueue")))

        self.register_outputs({"cluster_queue": args.queue_name,
                               "flavors": [flavor.name for flavor in args.flavors]})
