"""The selection lock: a chosen option written into the stack file (`accelfit:selection`) so a plan does not
change under a running cluster because a price moved. The program builds from the lock while it still
satisfies the spec, and says when a fresh plan would choose differently and what that would save or cost."""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from accelfit.lock_setting import LOCKED_ENV, TRUE_WORDS  # noqa: F401 (re-exported: one reading, lock_setting)
from accelfit.catalog.models import Catalog
from accelfit.planner.choose import best_per_group, grouped_rejections, infeasible, rank_key
from accelfit.planner.evaluate import over_budget, policy_rejections, size_offer
from accelfit.planner.model import Plan
from accelfit.planner.options import Offer, Sized
from accelfit.planner.planner import Environment, Search, build_plan, search
from accelfit.planner.training.sizing import Unfit
from accelfit.spec import WorkloadSpec


class Selection(BaseModel):
    """What `accelfit lock` writes under `accelfit:selection` in a stack file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    option: str = Field(description="Option id: platform/cloud/region/accelerator/machine/xUNITS/pricing.")
    locked_on: dt.date
    catalog_as_of: dt.date
    monthly_usd: float
    total_usd: float
    overflow: str | None = Field(default=None, description="placement.overflow: the overflow cluster's option id, "
                                 "locked with the owned one so a price change does not rebuild it either.")

    @property
    def parts(self) -> tuple[str, str, str, str, str, int, str]:
        return option_parts(self.option)

    @classmethod
    def from_plan(cls, plan: Plan, today: dt.date) -> Selection:
        return cls(option=plan.option, locked_on=today, catalog_as_of=plan.catalog_as_of,
                   monthly_usd=plan.estimate.monthly_usd, total_usd=plan.estimate.total_usd,
                   overflow=plan.overflow.plan.option if plan.overflow is not None else None)

    def for_overflow(self) -> Selection | None:
        """The overflow's lock, as the planner's lock of the overflow spec (None when none is locked)."""
        if self.overflow is None:
            return None
        return Selection(option=self.overflow, locked_on=self.locked_on, catalog_as_of=self.catalog_as_of,
                         monthly_usd=0.0, total_usd=0.0)


def option_parts(option: str) -> tuple[str, str, str, str, str, int, str]:
    platform, cloud, region, accelerator, machine, units, pricing = option.split("/")
    return platform, cloud, region, accelerator, machine, int(units.removeprefix("x")), pricing


@dataclasses.dataclass(frozen=True)
class LockStatus:
    state: Literal["none", "used", "stale"]
    message: str
    locked_option: str | None = None
    fresh_option: str | None = None
    fresh_monthly_delta_usd: float | None = None

    def to_json_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# The CI setting: build only the locked selection, fail when it is missing or stale.


class LockRequired(Exception):
    """`--locked` (or ACCELFIT_LOCKED / accelfit:requireLock) was asked for and the lock cannot be built."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def unit_word(platform: str, count: int) -> str:
    """What the count of an option counts: nodes, TPU slices or owned servers."""
    word = {"gke-tpu": "slice", "tpu-vm": "slice", "baremetal-gpu": "server", "gce-gpu-vm": "VM",
            "ec2-gpu-vm": "VM"}.get(platform, "node")
    return f"{count} {word}{'' if count == 1 else 's'}"


def plan_with_lock(spec: WorkloadSpec, catalog: Catalog, environment: Environment,
                   selection: Selection | None, *, top: int = 8, require_lock: bool = False,
                   found: Search | None = None, stack: str = "ENV") -> tuple[Plan, LockStatus]:
    """The locked option when it still meets the spec (built at its locked size, also when the spec now needs
    less), else a fresh plan; either way, what a fresh plan says. With `require_lock`, a missing or stale lock is
    an error (`LockRequired`) instead of a fresh plan: what is reviewed is what is built. `found` is the planner's
    search for this spec and environment when the caller already ran it (a fleet reuses it for fallback steps).
    `stack` names the stack in the command a `LockRequired` error tells the user to run."""
    found = found or search(spec, catalog, environment)
    evaluation, rejected = found.evaluation, grouped_rejections(found.rejected)
    ranked = best_per_group(evaluation.feasible)
    fresh = min(evaluation.feasible, key=rank_key) if evaluation.feasible else None
    if selection is None:
        if require_lock:
            raise LockRequired("no selection is locked and a lock is required (--locked / ACCELFIT_LOCKED); run "
                               f"`accelfit lock --stack {stack}` and commit the stack file")
        if fresh is None:
            raise infeasible(spec, evaluation, rejected)
        return build_plan(spec, environment, fresh, ranked, rejected, top), LockStatus(
            "none", "no selection is locked; `accelfit lock` pins this choice", fresh_option=fresh.option_id)

    locked, why_stale, needed = _locked_sized(spec, catalog, found.offers, selection, environment)
    if locked is None:
        message = (f"the locked selection {selection.option} no longer fits the spec ({why_stale})")
        if require_lock:
            raise LockRequired(f"{message}; a lock is required (--locked / ACCELFIT_LOCKED), so nothing fresh is "
                               f"built: run `accelfit lock --stack {stack} --fresh` and review the new choice")
        if fresh is None:
            raise infeasible(spec, evaluation, rejected)
        status = LockStatus("stale", f"{message}; built the fresh plan {fresh.option_id} instead; run `accelfit "
                            "lock` to pin it", locked_option=selection.option, fresh_option=fresh.option_id)
        return build_plan(spec, environment, fresh, ranked, rejected, top), status
    plan = build_plan(spec, environment, locked, ranked, rejected, top)
    platform, units = locked.offer.platform, selection.parts[5]
    larger = (f" The lock has {unit_word(platform, units)}; the spec now needs {unit_word(platform, needed)}, so "
              "the locked size is built (`accelfit lock --fresh` to shrink it)." if needed < units else "")
    plan = plan.model_copy(update={"reasons": (f"Locked selection (accelfit lock on {selection.locked_on}): "
                                               f"{selection.option}.{larger}", *plan.reasons)})
    built = "built the locked selection" + (f" at its locked size (the lock has {unit_word(platform, units)}, the "
                                            f"spec now needs {unit_word(platform, needed)})" if larger else "")
    if fresh is None or fresh.option_id == locked.option_id:
        return plan, LockStatus("used", f"{built}; a fresh plan chooses the same",
                                locked_option=selection.option, fresh_option=locked.option_id,
                                fresh_monthly_delta_usd=0.0)
    delta = fresh.monthly_usd - locked.monthly_usd
    verb = "save" if delta < 0 else "cost"
    return plan, LockStatus(
        "used", f"{built}; a fresh plan would choose {fresh.option_id}, which would {verb} "
                f"${abs(delta):,.0f} a month (total ${fresh.total_usd:,.0f} vs ${locked.total_usd:,.0f}); run "
                "`accelfit lock --fresh` to switch", locked_option=selection.option, fresh_option=fresh.option_id,
        fresh_monthly_delta_usd=round(delta, 2))


def _locked_sized(spec: WorkloadSpec, catalog: Catalog, offers: list[Offer], selection: Selection,
                  environment: Environment) -> tuple[Sized | None, str, int]:
    """(the locked option sized at its locked count, why it is stale, the count the spec needs)."""
    platform, cloud, region, accelerator, machine, units, pricing = selection.parts
    matching = [offer for offer in offers if (offer.platform, offer.cloud, offer.region, offer.accelerator.name,
                                              offer.machine, offer.pricing)
                == (platform, cloud, region, accelerator, machine, pricing)]
    if not matching:
        return None, "the catalog, the placement or the environment's policy no longer offers it", 0
    offer = dataclasses.replace(matching[0], max_units=max(units, 1))
    try:
        needed = size_offer(spec, catalog, offer, environment.efficiency).units
        sized = size_offer(spec, catalog, offer, environment.efficiency, at_units=units)
    except Unfit as unfit:
        return None, f"the lock has {unit_word(platform, units)}, which cannot meet it: {unfit.reason}", 0
    over = over_budget(spec, sized)
    if over:
        return None, f"the lock has {unit_word(platform, units)}, which {over}", needed
    policy = policy_rejections(spec, sized, environment.constraints)
    if policy:
        return None, f"the lock has {unit_word(platform, units)}: {policy[0][1]}", needed
    return sized, "", needed
