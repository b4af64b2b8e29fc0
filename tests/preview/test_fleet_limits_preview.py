"""Fleet plans respect the environment's max-accelerators over the whole stack, as the policy pack checks it
(standby pools counted at their maximum): the recorded preview passes the real policy pack."""

from __future__ import annotations

import json
import sys

from accelfit.catalog import load_catalog
from accelfit.planner import Environment, plan_fleet
from accelfit.planner.fleet.policy_limits import planned_accelerators, pool_accelerators
from accelfit.policy_config import plan_constraints
from accelfit.preview.run import preview_stack
from accelfit.spec import WorkloadSpec

from test_fleet_preview import fleet_project, serving
from test_preview_stack import ROOT


def violations(result, policy: str) -> list[dict]:
    return [item for item in result.document["policies"]["violations"] if item["policy"] == policy]


def test_standby_pools_over_the_limit_are_listed_only_and_the_preview_passes_the_policy_pack(tmp_path):
    # Two pricing models each: the chain steps only through those budget.pricing lists, so each has a standby.
    both = ["spot", "on-demand"]
    specs = [serving("chat-a", "gcp", "us-central1", "l4", pricing=both),
             serving("chat-b", "gcp", "us-central1", "l4", pricing=both)]
    project = fleet_project(tmp_path, specs, environment="prod")
    catalog = load_catalog()
    unlimited, _ = plan_fleet([WorkloadSpec.model_validate(item) for item in specs], catalog,
                              Environment("prod"), None, fleet_name="fleet")
    planned = sum(planned_accelerators(member.plan) for member in unlimited.workloads)
    first_standby = sum(pool_accelerators(pool) for pool in unlimited.workload("chat-a").plan.node_pools
                        if pool.fallback_rank == 2)
    assert first_standby and planned + 2 * first_standby > planned + first_standby
    config_path = project / "policies" / "config" / "prod.json"
    config = json.loads(config_path.read_text())
    config["max-accelerators"]["maxAccelerators"] = planned + first_standby  # room for one standby step only
    config_path.write_text(json.dumps(config))
    assert plan_constraints(project, "prod", catalog).max_accelerators == planned + first_standby

    result = preview_stack("fleet", project)
    plan = result.document["plan"]
    listed = [step for member in plan["workloads"] for step in member["fallback"]
              if step["rank"] > 1 and step["pool"] is None and "max-accelerators" in step["note"]]
    assert listed and all("policies/config/prod.json" in step["note"] for step in listed)
    assert any(step["pool"] for step in plan["workloads"][0]["fallback"] if step["rank"] > 1)
    assert violations(result, "max-accelerators") == []
    assert result.mandatory_violations == 0


def test_the_prod_benchmark_fleet_previews_with_no_mandatory_violation(tmp_path):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from bench_fleet_preview import fleet_project as benchmark_project
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    benchmark_project(tmp_path)
    result = preview_stack("fleet", tmp_path)
    assert violations(result, "max-accelerators") == []
    assert [item for item in result.document["policies"]["violations"] if item["level"] == "mandatory"] == []
    assert result.mandatory_violations == 0
    # Some standby steps did not fit the prod limit and say so.
    assert any(step["pool"] is None and "max-accelerators" in step["note"]
               for member in result.document["plan"]["workloads"] for step in member["fallback"])
