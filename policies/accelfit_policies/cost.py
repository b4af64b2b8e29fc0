"""Cost rules: the stack's monthly budget, which accelerators an environment may use and how many, spot
outside prod, bounded autoscaling and training pools that scale to zero."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pulumi_policy import Policy, EnforcementLevel, ResourceValidationPolicy, StackValidationPolicy

from accelfit.buying import buying_model, buying_model_names
from accelfit.cloudrules.aws.capacity_types import buying_of_capacity_type

from .framework import Settings, resource_policy, stack_policy
from .nodes import node_group
from .usage import AcceleratorUse, accelerator_use, canonical, default_catalog
from .view import ResourceView, fmt, get, plain

# A pricing function as accelfit.pricing.monthly_cost_of_resources: (resources, catalog) -> CostReport-like.
PriceResources = Callable[[list[dict[str, Any]], Any], Any]


# ---- stack-monthly-budget ----------------------------------------------------------------------------------

def budget_options() -> dict[str, dict[str, Any]]:
    """The budget policy's settings. `pricing` lists every buying model of the table (accelfit.buying), read when the
    policy is made, so a model registered later is accepted too."""
    return {
        "maxMonthlyUsd": {"type": "number", "minimum": 0,
                          "description": "Most the stack may cost per month, USD, as the figure below measures it."},
        "figure": {"type": "string", "enum": ["monthly_usd", "full_scale_monthly_usd"], "default": "monthly_usd",
                   "description": "monthly_usd: as planned (accelerator pools for the hours they run); "
                                  "full_scale_monthly_usd: every pool at its maximum all month."},
        "pricing": {"type": "string", "enum": list(buying_model_names()),
                    "description": "Pricing model for non-spot compute; default on-demand. A commitment prices "
                                   "compute at its committed rate; the others price each resource as its own inputs "
                                   "buy it (spot, a held reservation, flex-start, a Capacity Block) and the rest on "
                                   "demand."},
        "bucketGib": {"type": "number", "minimum": 0, "description": "Bucket size to price storage at, GiB."},
    }


def _default_price_resources(resources: list[dict[str, Any]], catalog: Any) -> Any:
    from accelfit.pricing import monthly_cost_of_resources  # imported late: only the budget rule needs it

    return monthly_cost_of_resources(resources, catalog)


def _total(report: Any, figure: str = "monthly_usd") -> tuple[float, list[tuple[str, float]]]:
    """(monthly total, [(resource name, monthly)]) from a CostReport, a (total, rows) pair or a number."""
    if isinstance(report, (int, float)):
        return float(report), []
    if isinstance(report, tuple):
        return float(report[0]), [(str(name), float(cost)) for name, cost in (report[1] if len(report) > 1 else [])]
    rows = [(str(row.name), float(getattr(row, figure))) for row in getattr(report, "resources", ())]
    return float(getattr(report, figure)), rows


def check_budget(views: Sequence[ResourceView], settings: Settings,
                 price_resources: PriceResources | None = None, catalog: Any = None) -> list[tuple[str, str | None]]:
    limit = settings.get("maxMonthlyUsd")
    if limit is None:
        return []
    resources = [{"type": view.type, "name": view.name, "urn": view.urn, "props": plain(view.props)}
                 for view in views]
    pricer = price_resources or _default_price_resources
    try:
        if price_resources is None and (settings.get("pricing") or settings.get("bucketGib")):
            from accelfit.pricing import PricingContext, monthly_cost_of_resources

            report = monthly_cost_of_resources(resources, catalog or default_catalog(), PricingContext(
                pricing=str(settings.get("pricing") or "on-demand"), bucket_gib=float(settings.get("bucketGib") or 0),
                bucket_basis="the bucketGib policy setting"))
        else:
            report = pricer(resources, catalog or default_catalog())
        figure = str(settings.get("figure") or "monthly_usd")
        total, rows = _total(report, figure)
    except Exception as error:  # fail closed: a budget that cannot be checked must not pass silently
        return [(f"the stack's monthly cost could not be computed ({type(error).__name__}: {error}); allowed "
                 f"{fmt(float(limit))} USD/month. Fix: make every resource priceable or raise the issue with the "
                 "pricing owners.", None)]
    if total <= float(limit):
        return []
    top = sorted(rows, key=lambda row: -row[1])[:3]
    biggest = ", ".join(f"{name} {fmt(round(cost))} USD" for name, cost in top if cost > 0)
    measured = "as planned (monthly_usd)" if figure == "monthly_usd" else "at full scale (full_scale_monthly_usd)"
    return [(f"stack costs {fmt(round(total))} USD/month {measured}; allowed {fmt(float(limit))} "
             f"USD/month (over by {fmt(round(total - float(limit)))}). Largest: {biggest or 'n/a'}. Fix: shrink the "
             "largest pools (max nodes, smaller accelerators, spot) or raise maxMonthlyUsd for this environment.",
             None)]


def budget_policy(price_resources: PriceResources | None = None, catalog: Any = None,
                  enforcement_level: EnforcementLevel | None = None) -> StackValidationPolicy:
    def check(views: Sequence[ResourceView], settings: Settings) -> list[tuple[str, str | None]]:
        return check_budget(views, settings, price_resources, catalog)

    return stack_policy("stack-monthly-budget", "The stack's monthly cost stays within the environment's budget.",
                        check, budget_options(), enforcement_level)


# ---- accelerator-allow-list ---------------------------------------------------------------------------------

ALLOW_LIST_OPTIONS = {
    "allowedAccelerators": {"type": "array", "items": {"type": "string"}, "default": [],
                            "description": "Canonical accelerator names (aliases accepted); empty allows any."},
}


def check_allowed_accelerator(view: ResourceView, settings: Settings) -> list[str]:
    use = accelerator_use(view)
    allowed_raw = list(settings.get("allowedAccelerators") or [])
    if use is None or not allowed_raw:
        return []
    catalog = default_catalog()
    allowed = sorted({canonical(str(name), catalog) for name in allowed_raw})
    if use.accelerator in allowed:
        return []
    return [f"{view.label} uses accelerator {use.accelerator}; allowed in this environment: {', '.join(allowed)}. "
            "Fix: pick an allowed accelerator (placement.accelerators in the spec) or add it to "
            "allowedAccelerators in this environment's policy config."]


def allow_list_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("accelerator-allow-list", "Only the environment's allowed accelerator types are used.",
                           check_allowed_accelerator, ALLOW_LIST_OPTIONS, enforcement_level)


# ---- max-accelerators ---------------------------------------------------------------------------------------

MAX_ACCELERATORS_OPTIONS = {
    "maxAccelerators": {"type": "integer", "minimum": 0,
                        "description": "Most accelerators (GPUs or TPU chips) the stack may scale to."},
}


def _uses(views: Iterable[ResourceView]) -> list[tuple[ResourceView, AcceleratorUse]]:
    return [(view, use) for view in views if (use := accelerator_use(view)) is not None]


def check_max_accelerators(views: Sequence[ResourceView], settings: Settings) -> list[tuple[str, str | None]]:
    limit = settings.get("maxAccelerators")
    if limit is None:
        return []
    uses = _uses(views)
    unbounded = [view.label for view, use in uses if use.max_total is None]
    total = sum(use.max_total or 0 for _, use in uses)
    if total <= int(limit) and not unbounded:
        return []
    parts = ", ".join(f"{view.name} {fmt(use.max_total)}" for view, use in uses)
    extra = f" ({', '.join(unbounded)} unbounded)" if unbounded else ""
    return [(f"stack can scale to {fmt(total)} accelerators{extra}; allowed {fmt(int(limit))}. Per resource: "
             f"{parts}. Fix: lower max nodes or accelerators per node, or raise maxAccelerators for this "
             "environment.", None)]


def max_accelerators_policy(enforcement_level: EnforcementLevel | None = None) -> StackValidationPolicy:
    return stack_policy("max-accelerators", "The stack's accelerators at full scale stay within the environment's "
                        "limit.", check_max_accelerators, MAX_ACCELERATORS_OPTIONS, enforcement_level)


# ---- spot-outside-prod --------------------------------------------------------------------------------------

SPOT_OPTIONS = {
    "allowReserved": {"type": "boolean", "default": True,
                      "description": "Capacity consumed from a named reservation or capacity block is exempt."},
}


def _reserved(view: ResourceView) -> bool:
    props = view.props
    affinity = str(get(props, "nodeConfig.reservationAffinity.consumeReservationType", ""))
    node = node_group(view)
    return (affinity == "SPECIFIC_RESERVATION" or bool(get(props, "schedulingConfig.reserved"))
            or buying_model(buying_of_capacity_type(str(get(props, "capacityType", "")))).whole_block
            or (node is not None and node.reserved))


def check_spot(view: ResourceView, settings: Settings) -> list[str]:
    use = accelerator_use(view)
    if use is None or use.spot or (settings.get("allowReserved", True) and _reserved(view)):
        return []
    return [f"{view.label} runs {use.accelerator} on on-demand capacity; allowed outside prod: spot only. "
            "Fix: set budget.pricing: spot in the spec for this environment (spot: true on the pool)."]


def spot_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("spot-outside-prod", "Accelerator capacity outside prod is spot (or reserved).",
                           check_spot, SPOT_OPTIONS, enforcement_level)


# ---- bounded-autoscaling ------------------------------------------------------------------------------------

AUTOSCALING_OPTIONS = {
    "maxNodesPerPool": {"type": "integer", "minimum": 1, "default": 64,
                        "description": "Most nodes one accelerator pool or node group may scale to."},
}


def check_bounded_autoscaling(view: ResourceView, settings: Settings) -> list[str]:
    use = accelerator_use(view)
    node = node_group(view) if use is not None else None
    if use is None or node is None:
        return []
    limit = int(settings.get("maxNodesPerPool", 64))
    if use.max_nodes is None:
        return [f"{view.label} has no maximum node count; allowed at most {limit} nodes. Fix: set "
                f"{node.paths.max_nodes}."]
    if use.max_nodes > limit:
        return [f"{view.label} may scale to {fmt(use.max_nodes)} nodes; allowed {limit}. Fix: lower the pool's "
                "max nodes or raise maxNodesPerPool for this environment."]
    return []


def autoscaling_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("bounded-autoscaling", "Accelerator pools have a maximum size within the limit.",
                           check_bounded_autoscaling, AUTOSCALING_OPTIONS, enforcement_level)


# ---- training-pools-scale-to-zero ---------------------------------------------------------------------------

SCALE_TO_ZERO_OPTIONS: dict[str, dict[str, Any]] = {
    "roleLabel": {"type": "string", "default": "accelfit.io/role",
                  "description": "Node label whose value says what the pool is for."},
    "trainingRoles": {"type": "array", "items": {"type": "string"}, "default": ["training"],
                      "description": "Values of roleLabel that mark a training pool."},
}


def check_scale_to_zero(view: ResourceView, settings: Settings) -> list[str]:
    use = accelerator_use(view)
    node = node_group(view) if use is not None else None
    if use is None or node is None:
        return []
    role = node.labels.get(str(settings.get("roleLabel", "accelfit.io/role")))
    if role not in list(settings.get("trainingRoles") or ["training"]) or (use.min_nodes or 0) == 0:
        return []
    return [f"{view.label} is a training pool with {fmt(use.min_nodes)} nodes minimum; allowed 0. Fix: set the "
            f"minimum to 0 ({node.paths.min_nodes}) so the fleet stops billing after the run."]


def scale_to_zero_policy(enforcement_level: EnforcementLevel | None = None) -> ResourceValidationPolicy:
    return resource_policy("training-pools-scale-to-zero", "Training accelerator pools can scale to zero.",
                           check_scale_to_zero, SCALE_TO_ZERO_OPTIONS, enforcement_level)


def policies(price_resources: PriceResources | None = None, catalog: Any = None) -> list[Policy]:
    return [budget_policy(price_resources, catalog), allow_list_policy(), max_accelerators_policy(), spot_policy(),
            autoscaling_policy(), scale_to_zero_policy()]


__all__ = ["check_allowed_accelerator", "check_bounded_autoscaling", "check_budget", "check_max_accelerators",
           "check_scale_to_zero", "check_spot", "policies"]
