"""Fleet preview speed: the whole `accelfit preview --stack fleet --json` process for a 20-workload fleet (two
clouds, three regions: shared GKE and EKS clusters, a TPU VM workload built alone), against its floor:

    floor = SDK class loading + resources x per-resource mock cost

- SDK class loading: a fresh process that imports exactly the provider classes the fleet's resources use (read
  from the preview's own resource list) and nothing else;
- per-resource mock cost: the median time to register one small resource under the same recording mocks
  (accelfit.preview.recorder), times the number of resources the fleet preview records.

Target: the preview process within 1.5 x the floor (everything accelfit adds: config, planning, placement,
components, pricing per workload, policies, the document). Reports the figures; asserts nothing.

Run: ./dev bench   (or .venv/bin/python benchmarks/bench_fleet_preview.py --runs 5)
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

TARGET_RATIO = 1.5
PROBE_RESOURCES = 300


def fleet_project(project: Path) -> None:
    """The 20-workload fleet of bench_fleet_plan.py as a prod stack, with the EKS API access its clusters need."""
    from bench_fleet_plan import FLEET

    shutil.copy(ROOT / "Pulumi.yaml", project / "Pulumi.yaml")
    shutil.copytree(ROOT / "policies" / "config", project / "policies" / "config")
    (project / "stacks").mkdir()
    config = {"gcp:project": "acme-ml-bench", "aws:region": "us-east-1", "accelfit:environment": "prod",
              "accelfit:team": "platform", "accelfit:costCenter": "cc-1", "accelfit:fleet": "bench-fleet",
              "accelfit:workloads": FLEET, "accelfit:eksPublicAccessCidrs": ["203.0.113.0/24"],
              "accelfit:eksAdminPrincipals": ["arn:aws:iam::111122223333:role/accelfit-deploy"]}
    (project / "stacks" / "Pulumi.fleet.yaml").write_text(yaml.safe_dump({"config": config}, sort_keys=False),
                                                          encoding="utf-8")


def class_of(token: str) -> tuple[str, str] | None:
    """(module, class) of the SDK class that registers a type token; None for accelfit's own components."""
    package, _, rest = token.partition(":")
    if package == "pulumi" and rest.startswith("providers:"):
        name = rest.split(":", 1)[1]
        return f"pulumi_{name}", "Provider"
    if package not in ("gcp", "aws", "kubernetes"):
        return None
    module, _, name = rest.rpartition(":")
    if package == "kubernetes":
        if module in ("core/v1", "apps/v1", "rbac.authorization.k8s.io/v1"):
            return "pulumi_kubernetes." + module.replace("/", ".").replace(".authorization.k8s.io", ""), name
        if module == "helm.sh/v3":
            return "pulumi_kubernetes.helm.v3", name
        return "pulumi_kubernetes.apiextensions", "CustomResource"
    return f"pulumi_{package}.{module.split('/')[0]}", name


def class_loading_s(tokens: set[str], runs: int) -> float:
    """Median wall time of a fresh process that imports only the classes behind `tokens`."""
    classes = sorted({found for token in tokens if (found := class_of(token))})
    lines = ["import importlib, pulumi"] + [f"getattr(importlib.import_module({module!r}), {name!r})"
                                            for module, name in classes]
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "\n".join(lines)], check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def per_resource_mock_s(runs: int) -> float:
    """Median time to register one small resource (a Kubernetes Namespace) under the preview's recording mocks."""
    import pulumi_kubernetes as k8s

    from accelfit.preview.recorder import record

    def program() -> None:
        for index in range(PROBE_RESOURCES):
            k8s.core.v1.Namespace(f"probe-{index}", metadata={"name": f"probe-{index}", "labels": {"a": "b"}})

    times = []
    for _ in range(runs):
        started = time.perf_counter()
        recording = record(program, project="bench", stack="probe")
        times.append((time.perf_counter() - started) / len(recording.resources))
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    accelfit = str(ROOT / ".venv" / "bin" / "accelfit")
    with tempfile.TemporaryDirectory(prefix="accelfit-bench-fleet-preview-") as folder:
        fleet_project(Path(folder))
        times, parts, done = [], "", None
        for _ in range(runs):
            started = time.perf_counter()
            done = subprocess.run([accelfit, "preview", "--stack", "fleet", "--json", "--timings"], cwd=folder,
                                  capture_output=True, text=True, check=False)
            times.append(time.perf_counter() - started)
            parts = next((line for line in done.stderr.splitlines() if line.startswith("timings:")), "")
        if done is None or done.returncode not in (0, 1):
            print(f"the fleet preview failed: {done.stderr if done else ''}", file=sys.stderr)
            sys.exit(1)
    document = json.loads(done.stdout)
    resources = document["resources"]
    plan = document["plan"]
    loading = class_loading_s({item["type"] for item in resources}, runs)
    per_resource = per_resource_mock_s(runs)
    floor = loading + per_resource * len(resources)
    preview = statistics.median(times)
    print(f"fleet: {len(plan['workloads'])} workloads, {len(plan['clusters'])} shared clusters, "
          f"{sum(member['cluster'] is None for member in plan['workloads'])} alone; {len(resources)} resources "
          f"({sum(item['custom'] for item in resources)} custom)")
    print(f"preview process:        median {preview:.2f} s over {runs} runs ({parts})")
    print(f"floor:                  {floor:.2f} s = SDK class loading {loading:.2f} s + {len(resources)} x "
          f"{per_resource * 1000:.2f} ms mock registration")
    print(f"preview / floor:        {preview / floor:.2f} (target <= {TARGET_RATIO})")


if __name__ == "__main__":
    main()
