"""Fleet planning speed: median time of plan_fleet() for a 20-workload fleet over the full catalog (each workload
planned, placed, given its fallback chain with standby pools and priced), against planning the same 20 specs one
by one with plan(); and the whole `accelfit plan --stack fleet --json` process on that fleet. Target: plan_fleet()
under 1 s. Reports the figures; asserts nothing.

Run: ./dev bench   (or .venv/bin/python benchmarks/bench_fleet_plan.py --runs 5)
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GCP = {"clouds": ["gcp"], "regions": ["us-central1"]}
GCP_EU = {"clouds": ["gcp"], "regions": ["europe-west4"]}
AWS = {"clouds": ["aws"], "regions": ["us-east-1"]}


def _train(name: str, framework: str, parameters: str, tokens: str, days: float, placement: dict,
           **model) -> dict:
    return {"name": name, "kind": "training", "framework": framework, "model": {"parameters": parameters, **model},
            "training": {"tokens": tokens, "deadline_days": days}, "data": {"dataset_tb": 1},
            "placement": placement, "budget": {"pricing": ["spot", "on-demand"]}}


def _serve(name: str, parameters: str, rps: float, placement: dict, traffic: str = "variable") -> dict:
    return {"name": name, "kind": "inference", "framework": "pytorch", "model": {"parameters": parameters},
            "inference": {"requests_per_second": rps, "latency_p99_ms": 10000, "traffic": traffic},
            "placement": placement}


# A platform team's fleet: pretraining, fine-tuning and serving side by side, on GPUs and TPUs, in three regions
# of two clouds, one of them on TPU VMs (built alone).
FLEET = [
    _train("pretrain-70b", "jax", "70B", "1T", 30, GCP),
    _train("pretrain-8b", "jax", "8B", "300B", 7, GCP),
    _train("pretrain-1b", "jax", "1B", "50B", 3, {**GCP, "orchestration": "vms"}),
    _train("ft-kernels-34b", "pytorch", "34B", "2B", 2, GCP, custom_kernels=True),
    _train("ft-13b", "pytorch", "13B", "5B", 3, GCP),
    _train("ft-7b-aws", "pytorch", "7B", "5B", 3, AWS),
    _train("ft-34b-aws", "pytorch", "34B", "10B", 5, AWS, custom_kernels=True),
    _train("research-3b", "jax", "3B", "60B", 4, GCP_EU),
    _train("research-8b-eu", "pytorch", "8B", "40B", 6, GCP_EU),
    _train("distill-1b", "pytorch", "1B", "20B", 2, GCP),
    _serve("chat-8b", "8B", 30, GCP),
    _serve("chat-70b", "70B", 10, GCP),
    _serve("search-1b", "1B", 200, GCP, "steady"),
    _serve("embed-300m", "300M", 500, GCP, "steady"),
    _serve("chat-8b-aws", "8B", 30, AWS),
    _serve("code-13b-aws", "13B", 15, AWS),
    _serve("summarize-8b-eu", "8B", 20, GCP_EU),
    _serve("batch-70b-eu", "70B", 4, GCP_EU, "steady"),
    _serve("assist-3b", "3B", 60, GCP),
    _serve("moderate-1b-aws", "1B", 100, AWS, "steady"),
]


def _fleet_stack(project: Path) -> None:
    shutil.copy(ROOT / "Pulumi.yaml", project / "Pulumi.yaml")
    shutil.copytree(ROOT / "policies" / "config", project / "policies" / "config")
    (project / "stacks").mkdir()
    config = {"gcp:project": "acme-ml-bench", "aws:region": "us-east-1", "accelfit:environment": "prod",
              "accelfit:team": "platform", "accelfit:costCenter": "cc-1", "accelfit:workloads": FLEET}
    (project / "stacks" / "Pulumi.fleet.yaml").write_text(yaml.safe_dump({"config": config}, sort_keys=False),
                                                          encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs

    from accelfit.catalog import load_catalog
    from accelfit.planner import Environment, plan, plan_fleet
    from accelfit.policy_config import plan_constraints
    from accelfit.spec import WorkloadSpec

    catalog = load_catalog()
    specs = [WorkloadSpec.model_validate(document) for document in FLEET]
    # As the stack's program plans it: the prod environment's policy configuration constrains every workload.
    environment = Environment("prod", constraints=plan_constraints(ROOT, "prod", catalog))
    single, fleet_times = [], []
    for _ in range(runs):
        started = time.perf_counter()
        for spec in specs:
            plan(spec, catalog, environment)
        single.append(time.perf_counter() - started)
        started = time.perf_counter()
        fleet, _ = plan_fleet(specs, catalog, environment, None, fleet_name="bench")
        fleet_times.append(time.perf_counter() - started)
    standby = sum(1 for member in fleet.workloads for pool in member.plan.node_pools if pool.fallback_rank)
    print(f"{len(specs)} workloads -> {len(fleet.clusters)} shared clusters, "
          f"{sum(member.cluster is None for member in fleet.workloads)} alone, {standby} standby pools, "
          f"{sum(len(member.fallback) for member in fleet.workloads)} fallback steps")
    print(f"plan() x {len(specs)} one by one: median {statistics.median(single):.3f} s over {runs} runs")
    print(f"plan_fleet() of the {len(specs)}:       median {statistics.median(fleet_times):.3f} s over {runs} runs "
          "(target < 1 s)")

    with tempfile.TemporaryDirectory(prefix="accelfit-bench-fleet-") as folder:
        _fleet_stack(Path(folder))
        times = []
        for _ in range(max(1, runs // 2)):
            started = time.perf_counter()
            subprocess.run([str(ROOT / ".venv" / "bin" / "accelfit"), "plan", "--stack", "fleet", "--json"],
                           cwd=folder, check=True, capture_output=True)
            times.append(time.perf_counter() - started)
    print(f"`accelfit plan --stack fleet --json` whole process: median {statistics.median(times):.2f} s over "
          f"{len(times)} runs")


if __name__ == "__main__":
    main()
