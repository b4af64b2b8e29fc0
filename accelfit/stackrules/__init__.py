"""The stack rules: every check a stack must pass before anything is built, in one list that `accelfit check`,
`plan --stack`, `lock`, `preview` and the Pulumi program all run (issue 33: `check` is the union of the checks).

Two stages, because some rules need the plan:
- `BEFORE_PLAN`, run by `load_stack_file` (the one loader of every stack command and of the program) after its own
  checks of the file (config keys, team, cost center, environment, the lock, secrets): each takes the stack's config
  and workloads. An unknown region is refused here, before a plan could fail for it.
- `AFTER_PLAN`, run by `planned_stack` (accelfit/stack_plan.py, which the program calls too): each takes the
  stack, its planned fleet and the catalog, and checks the settings the plan's platforms read (the EKS API's access,
  the GKE control plane, the join settings of bare metal, team namespaces) and the cloud rules the plans must meet
  (each cloud's, and a bare-metal plan against its inventory).

Each check names the config keys it reads (`keys`), so a test can show that every key the program reads is either
honoured (it changes what is built) or refused here. Components read the same settings through the same
validators (accelfit.stackrules.*), so a value `check` accepts is one the build accepts. Pure: no Pulumi import.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from accelfit.clouds import all_clouds, cloud_named, cloud_of_platform, hook
from accelfit.catalog.models import Catalog
from accelfit.errors import InputError, Problem, problem
from accelfit.planner.fleet.model import FleetPlan
from accelfit.planner.serving.route_plan import builds_route
from accelfit.spec.models import WorkloadSpec
from accelfit.stackrules import control_plane, eks_access, host_access, namespaces, regions


# The config keys a check reads: bare for the project's namespace (`teamNamespaces`), qualified for a provider's;
# or a function giving them, asked each time they are listed, where they are the registered clouds' (a region key).
Keys = tuple[str, ...] | Callable[[], tuple[str, ...]]


def _listed(keys: Keys) -> tuple[str, ...]:
    return keys() if callable(keys) else keys


@dataclass(frozen=True)
class LoadedCheck:
    name: str
    reads: Keys
    run: Callable[[Mapping[str, Any], Iterable[tuple[WorkloadSpec, str]], str], list[Problem]]

    @property
    def keys(self) -> tuple[str, ...]:
        """Config keys it reads (so a test can show each is honoured or refused)."""
        return _listed(self.reads)


@dataclass(frozen=True)
class PlannedCheck:
    name: str
    reads: Keys
    run: Callable[[Any, FleetPlan, Catalog], list[Problem]]
    """(StackFile, FleetPlan, Catalog) -> problems."""

    @property
    def keys(self) -> tuple[str, ...]:
        return _listed(self.reads)


def _field(stack: Any, key: str) -> str:
    return f"config.{key if ':' in key else f'{stack.project}:{key}'}"


def _prefix(stack: Any) -> str:
    return f"config.{stack.project}:"


def _plans(fleet: FleetPlan) -> list[Any]:
    """Every plan the stack builds: each workload's, and a hybrid workload's overflow cluster (placement.overflow)."""
    plans = [member.plan for member in fleet.workloads]
    return plans + [plan.overflow.plan for plan in plans if plan.overflow is not None]


def _platforms(fleet: FleetPlan) -> set[str]:
    return {plan.platform.value for plan in _plans(fleet)}


def provider_config_keys() -> tuple[str, ...]:
    """The keys each registered cloud's provider-config check reads (`Cloud.provider_config_keys`)."""
    return tuple(key for cloud in all_clouds() for key in cloud.provider_config_keys)


def provider_problems(stack: Any, fleet: FleetPlan, catalog: Catalog) -> list[Problem]:
    """What each cloud's provider needs to build the plan there: the GCP project; the AWS provider's region (it
    refuses to configure without one from aws:region, AWS_REGION/AWS_DEFAULT_REGION or a profile:
    pulumi/pulumi-aws#2088, preConfigureCallback), even though accelfit's AWS resources name their region."""
    problems: list[Problem] = []
    for name in dict.fromkeys(plan.cloud.value for plan in _plans(fleet)):
        check = cloud_named(name).provider_config_check
        if check:  # each cloud's own check (accelfit/cloudrules/<cloud>/provider_config.py)
            problems += hook(check)(stack)
    return problems


def cloud_rule_problems(stack: Any, fleet: FleetPlan, catalog: Catalog) -> list[Problem]:
    """Every workload's plan against its cloud's rules, and every shared cluster's limits."""
    from accelfit.cloudrules.stack_checks import fleet_problems

    return fleet_problems(fleet, catalog, single=not stack.is_fleet)


def eks_access_problems(stack: Any, fleet: FleetPlan, catalog: Catalog) -> list[Problem]:
    """The EKS API's access settings: well-formed whenever set, and complete when a workload plans on EKS."""
    _, problems = eks_access.read_cluster_access(stack.get, str(stack.path), _prefix(stack),
                                                 complete="eks-gpu" in _platforms(fleet))
    return problems


def zone_id_problems(stack: Any, fleet: FleetPlan, catalog: Catalog) -> list[Problem]:
    """`awsZoneIds`: a map of zone names to zone IDs; with it, every EKS pool zone must offer its instance type."""
    from accelfit.cloudrules.aws.zone_offerings import KEY, configured_zone_ids, zone_offering_problems

    try:
        zone_ids = configured_zone_ids(stack.get(KEY))
    except InputError as error:
        return [problem(str(stack.path), _field(stack, KEY), item.message, item.fix, item.value)
                for item in error.problems]
    problems = []
    for index, member in enumerate(fleet.workloads):
        if member.plan.platform.value != "eks-gpu" or not zone_ids:
            continue
        where = "" if not stack.is_fleet else f"workloads[{index}]."
        problems += [problem(str(stack.path), f"{where}{item.field}", item.message,
                             f"{item.fix}: map those zone names in {_field(stack, KEY)}, or remove it to let EC2 "
                             "tell the zones", item.value)
                     for item in zone_offering_problems(member.plan, zone_ids, catalog)]
    return problems


def control_plane_rule(stack: Any, fleet: FleetPlan, catalog: Catalog) -> list[Problem]:
    return control_plane.control_plane_problems(stack.get(control_plane.KEY), _field(stack, control_plane.KEY),
                                                str(stack.path))


def team_namespace_rule(stack: Any, fleet: FleetPlan, catalog: Catalog) -> list[Problem]:
    """`teamNamespaces`: valid names a stack may own; none in a fleet (each workload has its own); an EKS model
    server's namespace first."""
    value, field, source = stack.get("teamNamespaces"), _field(stack, "teamNamespaces"), str(stack.path)
    problems = namespaces.team_namespace_problems(value, field, source)
    if problems or value is None:
        return problems
    if stack.is_fleet:
        return [namespaces.fleet_namespaces_problem(field, source)]
    plan = fleet.workloads[0].plan
    if cloud_named(plan.cloud.value).pod_identity_association and builds_route(plan):
        wrong = namespaces.serving_namespace_problem(tuple(dict.fromkeys(value)), plan.workload, field, source)
        return [wrong] if wrong else []
    return []


def baremetal_plan_problems(stack: Any, fleet: FleetPlan, catalog: Catalog) -> list[Problem]:
    """A bare-metal plan against its inventory (form factor per GPU model, the pinned driver and toolkit, the
    chosen servers), as the bare-metal build checks it: a `form_factor: sxm` on a PCIe-only GPU is the user's to fix."""
    from accelfit.cloudrules.baremetal.checks import plan_problems

    loaded = {item.spec.name: item for item in stack.workloads}
    problems = []
    for member in fleet.workloads:
        if cloud_of_platform(member.plan.platform).owned:
            workload = loaded[member.name]
            source = str(workload.inventory_path) if workload.inventory_path else "inventory"
            problems += plan_problems(member.plan, workload.inventory, source)
    return problems


def host_access_rule(stack: Any, fleet: FleetPlan, catalog: Catalog) -> list[Problem]:
    """The join settings: complete for a bare-metal plan; without one, only a value malformed in itself."""
    return host_access.host_access_problems(stack.get, str(stack.path), _prefix(stack),
                                            required=any(cloud_of_platform(platform).owned
                                                                 for platform in _platforms(fleet)))


BEFORE_PLAN: tuple[LoadedCheck, ...] = (
    # Each registered cloud's region and zone keys (Cloud.region_key, Cloud.zone_key), listed when asked.
    LoadedCheck("stack-region", regions.stack_region_keys, regions.region_problems),
)
AFTER_PLAN: tuple[PlannedCheck, ...] = (
    PlannedCheck("provider-config", provider_config_keys, provider_problems),
    PlannedCheck("cloud-rules", (), cloud_rule_problems),
    PlannedCheck("eks-api-access", eks_access.KEYS, eks_access_problems),
    PlannedCheck("aws-zone-ids", ("awsZoneIds",), zone_id_problems),
    PlannedCheck("gke-control-plane", (control_plane.KEY,), control_plane_rule),
    PlannedCheck("team-namespaces", ("teamNamespaces",), team_namespace_rule),
    PlannedCheck("host-access", host_access.KEYS, host_access_rule),
    PlannedCheck("baremetal-plan", ("workload", "workloads"), baremetal_plan_problems),
)


def loaded_problems(config: Mapping[str, Any], found: Iterable[tuple[WorkloadSpec, str]],
                    source: str) -> list[Problem]:
    """Every BEFORE_PLAN rule (load_stack_file runs them)."""
    found = tuple(found)
    return [item for check in BEFORE_PLAN for item in check.run(config, found, source)]


def planned_problems(stack: Any, fleet: FleetPlan, catalog: Catalog) -> list[Problem]:
    """Every AFTER_PLAN rule, for a stack and its planned fleet."""
    return [item for check in AFTER_PLAN for item in check.run(stack, fleet, catalog)]


def require_sound(stack: Any, fleet: FleetPlan, catalog: Catalog) -> None:
    """Raise one InputError with every AFTER_PLAN problem (exit 2), before anything is built or written."""
    problems = planned_problems(stack, fleet, catalog)
    if problems:
        raise InputError(problems)


__all__ = ["AFTER_PLAN", "BEFORE_PLAN", "LoadedCheck", "PlannedCheck", "loaded_problems", "planned_problems",
           "require_sound"]
