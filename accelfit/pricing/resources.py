"""The three cost figures of a stack (`accelfit.pricing.figures`) from its resources, with the usage assumption
stated for each.

Pure: takes neutral resources (type token, name, camelCase inputs — as mocks record them, as CrossGuard sees
them and as `pulumi preview --json` prints them) and returns figures. The same code prices the in-process preview
and a real `pulumi preview --json` document, so the two can never disagree.

How long each resource runs is read from what the stack builds, never assumed:
- an accelerator pool bills the training run's hours only when it can scale to zero: minimum 0 nodes and an
  autoscaler that removes idle nodes (GKE: the pool's own autoscaling; EKS: a Cluster Autoscaler or Karpenter
  release in the stack); otherwise it bills all month;
- a serving pool bills part of the day only when a schedule in the stack scales it down (AWS: scheduled actions
  named `<pool>-schedule-start` / `-stop` on its Auto Scaling group; GKE: a pool of minimum 0 whose servers' KEDA
  ScaledObject holds them for a daily cron window only, accelfit.pricing.server_windows); otherwise all day;
- TPU VMs and queued resources bill every hour they exist;
- system pools run their minimum all month (their maximum at full scale); control planes and NAT run all month;
- buckets are sized from the spec's dataset plus checkpoints; egress comes from the spec.
What the resources cannot say (the run's length, the bucket's size) comes from the plan through `PricingContext`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from accelfit.buying import term_hours
from accelfit.catalog.models import Catalog, Cloud
from accelfit.clouds import all_clouds
from accelfit.pricing.capacity_blocks import block_for
from accelfit.pricing.figures import (
    HOURS_PER_MONTH, Part, accelerator_pool, always_on, figures, per_month,
    serving_hours_per_month, vm_part,
)
from accelfit.pricing.pricers import pricer_for, priced_types
from accelfit.pricing.rates import (
    FALLBACK_RANK_LABEL, ROLE_LABEL, NeutralResource, Priced, PricingContext, RateBook, region_of_location,
)
from accelfit.pricing.server_windows import scheduled_hours_per_day, server_windows
from accelfit.pricing.serving_objects import GATEWAY_TYPE, POD_MONITORING_TYPE, SCALED_OBJECT_TYPE, planned_servers, route_of

__all__ = ["ASSUMPTIONS", "FALLBACK_RANK_LABEL", "ROLE_LABEL", "CostReport", "NeutralResource",
           "Priced", "PricingContext", "ResourceCost", "StackUsage", "monthly_cost_of_resources", "price_resource",
           "price_resources", "region_of_location", "scheduled_hours_per_day"]

AUTOSCALER_CHARTS = ("cluster-autoscaler", "karpenter")
SCHEDULE_TYPE = "aws:autoscaling/schedule:Schedule"
NODE_PATCH_TYPE = "kubernetes:core/v1:NodePatch"


@dataclass(frozen=True)
class ResourceCost:
    urn: str
    type: str
    name: str
    monthly_usd: float
    full_scale_monthly_usd: float
    run_usd: float | None
    basis: str


@dataclass(frozen=True)
class CostReport:
    resources: tuple[ResourceCost, ...]
    usage: tuple[ResourceCost, ...]  # priced from the spec, not from a resource (egress)
    monthly_usd: float
    full_scale_monthly_usd: float
    run_total_usd: float | None
    assumptions: tuple[str, ...]
    unpriced: tuple[str, ...] = field(default=())

    def by_urn(self) -> dict[str, ResourceCost]:
        return {cost.urn or cost.name: cost for cost in self.resources}

    def figures_json(self) -> dict[str, float | None]:
        return {"monthly_usd": self.monthly_usd, "full_scale_monthly_usd": self.full_scale_monthly_usd,
                "run_total_usd": self.run_total_usd}


ASSUMPTIONS = (
    "monthly_usd: what the stack costs per month while it exists, as planned: always-on parts (control plane, NAT, "
    "the system pool at its minimum, storage) all month, accelerator pools for the hours they run in the month.",
    "full_scale_monthly_usd: every pool at its maximum all month (the most the autoscaler can spend).",
    "An accelerator pool bills only the run's hours when it can scale to zero (min 0 and an autoscaler), only the "
    "scheduled hours when a schedule scales it down, and all month otherwise; TPU VMs bill every hour they exist.",
    "Prices are list prices from the catalog, per region and pricing model, with their as-of dates.",
    "NAT data processing is not priced (bucket traffic uses private Google access or the S3 gateway endpoint).",
)


@dataclass(frozen=True)
class StackUsage:
    """What the stack builds that decides how long its pools run: an autoscaler, daily schedules, and servers
    that run only in a daily window (accelfit.pricing.server_windows)."""

    cluster_autoscaler: bool
    schedules: Mapping[str, Mapping[str, Any]]  # resource name -> inputs of aws:autoscaling/schedule:Schedule
    server_windows: Mapping[str, float] = field(default_factory=dict)  # GKE node pool name -> hours a day

    @classmethod
    def of(cls, resources: list[NeutralResource]) -> StackUsage:
        autoscaler = any(resource.type == "kubernetes:helm.sh/v3:Release"
                         and any(chart in str(resource.props.get("chart", "")) for chart in AUTOSCALER_CHARTS)
                         for resource in resources)
        schedules = {resource.name: resource.props for resource in resources if resource.type == SCHEDULE_TYPE}
        return cls(autoscaler, schedules, server_windows(resources))

    def hours_per_day(self, resource: NeutralResource, priced: Priced) -> float | None:
        """A node group `<pool>-ng` is scaled by schedules `<pool>-schedule-start` and `<pool>-schedule-stop`; a GKE
        node pool that scales to zero runs while the servers that require it do."""
        window = self.server_windows.get(str(resource.props.get("name", "")))
        if window is not None and priced.min_nodes == 0 and priced.autoscaled:
            return window
        prefix = resource.name.removesuffix("-ng")
        start = self.schedules.get(f"{prefix}-schedule-start")
        stop = self.schedules.get(f"{prefix}-schedule-stop")
        if start is None or stop is None:
            return None
        return scheduled_hours_per_day(str(start.get("recurrence", "")), str(stop.get("recurrence", "")))

    def part(self, resource: NeutralResource, priced: Priced, context: PricingContext) -> tuple[Part, str]:
        """How long the resource bills, from its shape and what the stack builds around it: the first way that
        applies, in this order."""
        for way in (self._vm, self._fixed, self._overflow, self._standby, self._block, self._committed, self._slice, self._owned):
            found = way(resource.name, priced, context)
            if found is not None:
                return found
        return self._pool(resource, priced, context)

    @staticmethod
    def _vm(name: str, priced: Priced, context: PricingContext) -> tuple[Part, str] | None:
        if priced.shape != "vm":
            return None
        run = context.run
        committed = None if priced.spot else term_hours(context.pricing)
        if not priced.autostop_action:
            return (accelerator_pool(name, priced.hourly_max + priced.disk_hourly, HOURS_PER_MONTH, run),
                    "a VM without autostop: all month")
        return (vm_part(name, priced.hourly_max, priced.disk_hourly, priced.autostop_action, run,
                        priced.idle_tail_hours, committed),
                f"the run plus {priced.idle_tail_hours * 60:g} min idle until autostop "
                f"{priced.autostop_action}s it" + ("; its boot disk all month (kept while stopped)"
                                                   if priced.autostop_action == "stop" else ""))

    @staticmethod
    def _fixed(name: str, priced: Priced, context: PricingContext) -> tuple[Part, str] | None:
        """Storage by the month; control planes, NAT and system pools all month."""
        if priced.shape == "per-month":
            return per_month(name, priced.monthly, context.run), "billed by the month"
        if priced.shape == "always-on" or (priced.shape == "pool" and priced.system):
            return (always_on(name, priced.hourly_min, priced.hourly_max, context.run),
                    "all month" + (" at its minimum (its maximum at full scale)"
                                   if priced.hourly_min != priced.hourly_max else ""))
        return None

    @staticmethod
    def _overflow(name: str, priced: Priced, context: PricingContext) -> tuple[Part, str] | None:
        """A hybrid workload's cloud overflow pool: at its maximum for the hours it carries, a training run paying
        them for the share of a month the run lasts (accelfit.planner.fleet.hybrid prices it the same way)."""
        if priced.overflow_hours is None:
            return None
        hours = min(priced.overflow_hours, HOURS_PER_MONTH)
        monthly = priced.hourly_max * hours
        run = context.run
        return (Part(name, monthly, priced.hourly_max * HOURS_PER_MONTH,
                     monthly * run.wall_hours / HOURS_PER_MONTH if run else None),
                f"overflow pool: {hours:g} h a month at its maximum (the jobs the owned servers have no room for)")

    @staticmethod
    def _standby(name: str, priced: Priced, context: PricingContext) -> tuple[Part, str] | None:
        if not priced.standby:
            return None
        # Priced as planned at nothing: the pool exists at 0 nodes and the plan runs the workload on the pools
        # before it; at full scale it runs at its maximum all month like any pool.
        full = priced.hourly_max * HOURS_PER_MONTH
        return (Part(name, 0.0, full, 0.0 if context.run else None),
                "standby fallback pool: 0 nodes as planned (runs only when the pools before it are full), "
                "its maximum all month at full scale")

    @staticmethod
    def _block(name: str, priced: Priced, context: PricingContext) -> tuple[Part, str] | None:
        run = context.run
        if not priced.block_hourly_max or run is None:
            return None
        block = block_for(run.accelerator_hours)
        disks = priced.hourly_max - priced.block_hourly_max
        return (Part(name,
                     priced.block_hourly_max * min(block.hours, HOURS_PER_MONTH)
                     + disks * min(run.accelerator_hours, HOURS_PER_MONTH),
                     priced.hourly_max * HOURS_PER_MONTH,
                     priced.block_hourly_max * block.hours + disks * run.accelerator_hours),
                f"a Capacity Block bills every hour of its {block.reason}, paid up front; its root volumes "
                "while the run's nodes exist")

    @staticmethod
    def _committed(name: str, priced: Priced, context: PricingContext) -> tuple[Part, str] | None:
        committed = None if priced.spot else term_hours(context.pricing)
        if not committed:
            return None
        return (accelerator_pool(name, priced.hourly_max, HOURS_PER_MONTH, context.run, committed_term_hours=committed),
                f"{context.pricing} bills every hour of its term")

    @staticmethod
    def _slice(name: str, priced: Priced, context: PricingContext) -> tuple[Part, str] | None:
        if priced.shape != "slice":
            return None
        return (accelerator_pool(name, priced.hourly_max, HOURS_PER_MONTH, context.run),
                "TPU VMs bill every hour they exist" + (": the run total counts the run only" if context.run else ""))

    @staticmethod
    def _owned(name: str, priced: Priced, context: PricingContext) -> tuple[Part, str] | None:
        if priced.shape != "owned":
            return None
        run = context.run
        hours = run.accelerator_hours if run else HOURS_PER_MONTH
        return (accelerator_pool(name, priced.hourly_max, hours, run),
                "owned server at its power cost while it " + ("runs the training job" if run else "serves"))

    def _pool(self, resource: NeutralResource, priced: Priced, context: PricingContext) -> tuple[Part, str]:
        """An accelerator pool: the run's hours when it can scale to zero, its schedule's hours, or all month."""
        name = resource.name
        run = context.run
        can_scale_to_zero = priced.min_nodes == 0 and (priced.autoscaled or self.cluster_autoscaler)
        if run is not None:
            if can_scale_to_zero:
                return (accelerator_pool(name, priced.hourly_max, run.accelerator_hours, run),
                        f"at its maximum for the {run.accelerator_hours:,.1f} h run, then scaled to zero")
            why = ("its minimum is above 0" if priced.min_nodes else
                   "no autoscaler in the stack removes idle nodes")
            return (accelerator_pool(name, priced.hourly_max, HOURS_PER_MONTH, run),
                    f"at its maximum all month: {why}")
        hours_per_day = self.hours_per_day(resource, priced)
        if hours_per_day is not None:
            return (accelerator_pool(name, priced.hourly_max, serving_hours_per_month(hours_per_day), run),
                    f"at its maximum {hours_per_day:g} h a day (scheduled), zero the rest")
        return accelerator_pool(name, priced.hourly_max, HOURS_PER_MONTH, run), "at its maximum all month"


def price_resource(resource: NeutralResource, pricer: RateBook) -> Priced | None:
    """How a priced type costs (its hourly or monthly rate and shape), by the pricer its cloud registers for the
    type (accelfit.pricing.pricers); None for a type that costs nothing itself."""
    found = pricer_for(resource.type)
    return found(resource, pricer) if found else None


def __getattr__(name: str) -> Any:
    # PRICED_TYPES is read from the pricer registry on first use, so importing this module loads no cloud's pricers.
    if name == "PRICED_TYPES":
        return priced_types()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _template_types() -> frozenset[str]:
    return frozenset(token for cloud in all_clouds() for token in cloud.template_resource_types)


def price_resources(resources: Iterable[NeutralResource], catalog: Catalog,
                    context: PricingContext | None = None,
                    surroundings: Iterable[NeutralResource] = ()) -> CostReport:
    """Price every resource of a priced type with the usage the stack itself provides for it; others cost nothing
    by themselves (a subnet, a role). `surroundings`: the rest of the cluster `resources` run in, when they are
    priced on their own (a fleet workload's pools with the shared cluster's autoscaler); read for usage only."""
    context = context or PricingContext()
    resources = list(resources)
    around = [*resources, *surroundings]
    templates = _template_types()
    pricer = RateBook(catalog, context, {resource.name: resource.props for resource in around
                                         if resource.type in templates},
                      planned_servers(resource.props for resource in around if resource.type == SCALED_OBJECT_TYPE))
    usage = StackUsage.of(around)
    priced = priced_types()
    costs: list[ResourceCost] = []
    unpriced: list[str] = []
    for resource in resources:
        if resource.type not in priced:
            continue
        rate = price_resource(resource, pricer)
        if rate is None:
            # A node patch without inventory data, and a Gateway or PodMonitoring that is not a serving route's
            # (the GPU telemetry's), cost nothing themselves.
            free = resource.type == NODE_PATCH_TYPE or (
                resource.type in (GATEWAY_TYPE, POD_MONITORING_TYPE) and route_of(resource.props) is None)
            if not free:
                unpriced.append(f"{resource.name} ({resource.type}): no catalog price for its type/region/pricing")
            continue
        part, how = usage.part(resource, rate, context)
        costs.append(ResourceCost(urn=resource.urn, type=resource.type, name=resource.name,
                                  monthly_usd=round(part.monthly_usd, 2),
                                  full_scale_monthly_usd=round(part.full_scale_monthly_usd, 2),
                                  run_usd=None if part.run_usd is None else round(part.run_usd, 2),
                                  basis=f"{rate.basis}; {how}"))
    spec_usage = tuple(_egress(pricer, context))
    parts = [Part(c.name, c.monthly_usd, c.full_scale_monthly_usd, c.run_usd) for c in costs + list(spec_usage)]
    totals = figures(parts, training=context.run is not None)
    assumptions = (*ASSUMPTIONS, f"Buckets are sized from the spec: {context.bucket_basis}.")
    return CostReport(resources=tuple(costs), usage=spec_usage, monthly_usd=totals.monthly_usd,
                      full_scale_monthly_usd=totals.full_scale_monthly_usd, run_total_usd=totals.run_total_usd,
                      assumptions=assumptions + tuple(f"Unpriced: {item}" for item in unpriced),
                      unpriced=tuple(unpriced))


def _egress(pricer: RateBook, context: PricingContext) -> list[ResourceCost]:
    """Traffic to the internet out of the cloud the spec names (owned servers' is not billed per GB)."""
    sold = {cloud.name for cloud in all_clouds() if not cloud.owned}
    if not context.egress_tb_per_month or context.egress_cloud not in sold:
        return []
    rate = pricer.service(Cloud(context.egress_cloud), "egress-internet", context.egress_region)
    part = per_month("egress", context.egress_tb_per_month * 1000.0 * rate, context.run)
    return [ResourceCost(urn="", type="usage:egress", name="egress", monthly_usd=round(part.monthly_usd, 2),
                         full_scale_monthly_usd=round(part.full_scale_monthly_usd, 2),
                         run_usd=None if part.run_usd is None else round(part.run_usd, 2),
                         basis=f"{context.egress_tb_per_month:g} TB/month to the internet (from the spec) at "
                               f"${rate:g}/GB")]


def monthly_cost_of_resources(resources: Iterable[Mapping[str, Any] | NeutralResource], catalog: Catalog,
                              context: PricingContext | None = None) -> CostReport:
    """Convenience for callers holding dicts {type, name, props|inputs, urn} (policies, preview JSON)."""
    neutral = [resource if isinstance(resource, NeutralResource) else NeutralResource(
        type=resource["type"], name=resource["name"], props=resource.get("props", resource.get("inputs", {})),
        urn=resource.get("urn", "")) for resource in resources]
    return price_resources(neutral, catalog, context)
