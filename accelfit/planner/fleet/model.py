"""The fleet plan's model (issue 17; the contract between planning and building a fleet). Frozen, like Plan."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from accelfit.buying import tier_names

from accelfit.planner.model import CostLine, Frozen, NetworkPlan, NodePool, Plan, PlanCloud

SHARED_SUFFIX = "shared"
# Type tokens of the components that group a shared cluster's resources: the components build them, the preview
# attributes every resource to the workload (or to the shared cluster) it sits under. Names, not code: the core
# holds them so the preview reads them without importing components/.
WORKLOAD_COMPONENT = "accelfit:fleet:Workload"
SHARED_COMPONENT = "accelfit:fleet:SharedCluster"


def shared_marker(cluster: str) -> str:
    """The `workload` label/tag value of a shared cluster's shared resources (`<cluster>-shared`)."""
    return f"{cluster}-{SHARED_SUFFIX}"


class FallbackStep(Frozen):
    """One step of a workload's fallback chain: where its jobs go when the steps before it have no capacity."""

    rank: int = Field(ge=1, description="1 = the planned pool itself, then in order.")
    option: str = Field(description="Option id (same format as Plan.option).")
    accelerator: str
    count: int = Field(ge=1, description="Accelerators (GPUs or TPU chips) the step runs the workload on.")
    pricing: str = Field(
        description="The capacity tier (a tier of the buying-model table, accelfit/buying): reservation "
                    "(committed-use capacity), flex-start, capacity-block, on-demand, spot, or owned servers.")
    pool: str | None = Field(description="The NodePool of the workload's plan that serves this step; None = listed "
                             "only (not buildable in the workload's cluster), the note says why.")
    monthly_usd: float = Field(description="What the workload costs per month if it runs on this step (its own "
                               "resources plus its share of the shared cluster).")
    total_usd: float = Field(description="Training: the run total on this step; inference: = monthly_usd.")
    note: str = ""
    moves_when: tuple[Literal["no-capacity", "quota-full", "pods-not-ready", "preempted"], ...] = Field(
        default=(), description="What sends a job here from the steps before "
        "(accelfit.planner.fleet.fallback_triggers): the cloud had no capacity for them (a step of the planned pool's "
        "capacity group), their quota is held, its pods were not ready in time, or it was preempted on spot; empty "
        "for the planned step and for steps listed only.")
    wait_minutes: int | None = Field(
        default=None, description="How long a job waits on an earlier step for its pods before it moves: for a "
        "capacity-group step the autoscaler's node provisioning timeout, else until Kueue evicts and requeues it "
        "(waitForPodsReady.timeout, the same number the Kueue configuration carries); None = step 1.")


    @field_validator("pricing")
    @classmethod
    def _a_tier(cls, value: str) -> str:
        if value != "owned" and value not in tier_names():
            raise ValueError(f"pricing: {value!r} is not a capacity tier; known: {', '.join(tier_names())}, owned")
        return value


class SharedCluster(Frozen):
    """One Kubernetes cluster (and its network) that several workloads of the fleet run on."""

    name: str = Field(description="Prefix of the shared resources' names (APIs, network, NAT, cluster, system pool).")
    cloud: PlanCloud
    region: str
    zones: tuple[str, ...] = Field(description="Every zone a member's pools use, standby pools included (the "
                                   "network spans them).")
    platform: str = Field(description="gke (GKE) or eks (EKS).")
    network: NetworkPlan = Field(description="The shared network: the members' layout, with a pods range sized for "
                                 "all members' nodes.")
    system_pool: NodePool = Field(description="The one system pool the cluster builds (the members' plans each carry "
                                  "the system pool a single stack would build; in a shared cluster this one replaces "
                                  "them), in every zone a member's system pool uses.")
    workloads: tuple[str, ...] = Field(min_length=1, description="Member workloads, in the stack's order.")
    shared: tuple[str, ...] = Field(description="What the members share, in words.")
    breakdown: tuple[CostLine, ...] = Field(description="The shared items' cost lines, counted once.")
    shared_monthly_usd: float = Field(description="Monthly cost of the shared items (counted once).")
    shared_full_scale_monthly_usd: float
    shared_run_usd: float | None = Field(description="The shared items over the longest member training run "
                                         "(None when no member trains).")
    saves_monthly_usd: float = Field(description="Against each member in its own cluster: the shared lines of the "
                                     "separate plans minus the shared items once.")


class FleetWorkload(Frozen):
    name: str
    plan: Plan = Field(description="Its own plan; node_pools include its standby fallback pools (fallback_rank > 0). "
                       "In a shared cluster its `system` pool is the cluster's (SharedCluster.system_pool), built once.")
    eligible_accelerators: tuple[str, ...] = Field(default=(), description=(
        "Accelerators of its cluster's pools (every member's, planned and standby) it may run on by the planner's "
        "eligibility rules (framework, portability, custom kernels, precision, allow-list): where it may borrow idle "
        "quota through the cohort."))
    fallback: tuple[FallbackStep, ...]
    fallback_omitted: tuple[str, ...] = Field(default=(), description="Steps left out of the chain, each with why.")
    cluster: str | None = Field(description="SharedCluster.name; None = built alone (TPU VMs, bare metal).")
    placement: str = Field(description="Where it runs and why (shared, or alone and why).")
    monthly_usd: float = Field(description="Its own resources as planned plus an even share of its cluster's shared "
                               "items.")
    full_scale_monthly_usd: float = Field(description="Its pools at their maximum all month, standby pools included, "
                                          "plus its share of the shared items at full scale.")
    run_total_usd: float | None
    standby_full_scale_monthly_usd: float = Field(default=0.0, description="Its standby pools at their maximum all "
                                                  "month (in full_scale_monthly_usd; nothing as planned: they scale "
                                                  "from 0).")

    def shown_json(self) -> dict[str, Any]:
        """Its plan's JSON as a stack of one workload (or a spec file) shows it: the shown plan and its fallback
        chain (`plan SPEC --json`, `plan --stack --json` and the preview's `plan` print this one document)."""
        return {**self.shown_plan().to_json_dict(),
                "fallback": [step.model_dump(mode="json") for step in self.fallback],
                "fallback_omitted": list(self.fallback_omitted)}

    def shown_plan(self) -> Plan:
        """Its plan as a stack of one workload shows it (`plan --json`, the preview's `plan`): the estimate's
        full-scale figure counts the standby pools the stack builds, as a `standby` cost line (nothing as planned
        and in the run total: they scale from 0 and run only when the steps before them have no capacity)."""
        if not self.standby_full_scale_monthly_usd:
            return self.plan
        estimate = self.plan.estimate
        pools = [pool.name for pool in self.plan.node_pools if pool.fallback_rank]
        line = CostLine(item="standby", monthly_usd=0.0, full_scale_monthly_usd=self.standby_full_scale_monthly_usd,
                        total_usd=0.0, note=f"standby fallback pools {', '.join(pools)}: 0 nodes as planned, "
                        "each at its maximum all month at full scale")
        return self.plan.model_copy(update={"estimate": estimate.model_copy(update={
            "breakdown": (*estimate.breakdown, line),
            "full_scale_monthly_usd": round(estimate.full_scale_monthly_usd + self.standby_full_scale_monthly_usd,
                                            2)})})


class FleetPlan(Frozen):
    name: str
    environment: str
    workloads: tuple[FleetWorkload, ...]
    clusters: tuple[SharedCluster, ...]
    monthly_usd: float = Field(description="The fleet as planned, shared items counted once.")
    full_scale_monthly_usd: float
    run_total_usd: float | None = Field(description="Training workloads' run totals (shared items once); None when "
                                        "no workload trains.")
    saves_monthly_usd: float = Field(default=0.0, description="Sum of the clusters' savings.")
    warnings: tuple[str, ...] = Field(default=(), description="What holds for the fleet but no single workload: "
                                      "e.g. the environment's stack budget exceeded by the workloads together.")

    def workload(self, name: str) -> FleetWorkload:
        return next(member for member in self.workloads if member.name == name)

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
