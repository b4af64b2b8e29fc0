"""Benchmark: a bare-metal inventory of N servers, four ways, each size in a fresh process (time and peak memory):

    build    validate the inventory, build and record under Pulumi mocks (every server prepared and joined over
             SSH: one remote command and a node patch each, and the Kubernetes layer)
    check    `accelfit check` of an N-server inventory file (the CLI command, in process)
    preview  the whole offline preview of a stack using that inventory: load, plan, build + record, pricing, the
             real policy pack, the preview document and its text report (what `accelfit preview --stack` does)
    floor    the same resources per server (a remote command, a node patch) with one-word inputs, recorded
             under the same mocks and nothing else: the Pulumi SDK's and the mocks' own cost per resource

    .venv/bin/python benchmarks/bench_baremetal.py [--servers 4 100 1000 10000] [--modes build check preview floor]

The child reports its own wall time and peak RSS (resource.getrusage). The stack for `preview` is the example
on-prem stack with its inventory replaced by N generated servers, in a temporary project folder that links the
repository's policies. Its training run is sized so that the deadline needs every server (the planner picks the
fewest servers that meet it). No test asserts these numbers (targets, issue 18: 10,000 servers checked under 5 s,
previewed under 60 s and 2 GB; issue 39: previewed in 30 s and under 2 GB, 30,000 servers measured:
`--servers 1000 10000 30000 --modes preview floor`). With the floor measured too, each mode is also printed as a
ratio to it at the same size.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "components" / "baremetal"
STACK = "example-onprem-h100"
MODES = ("build", "check", "preview", "floor")
FLOOR = "floor"

_HEAD = """
import json, resource, sys, time
started = time.perf_counter()
sys.path[:0] = [{root!r}, {fixtures!r}]
"""
_TAIL = """
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{**figures, "process_s": time.perf_counter() - started, "cpu_s": usage.ru_utime + usage.ru_stime,
                  "peak_rss_mb": usage.ru_maxrss / 1024}}))
"""
_BUILD = """
import metal_stack
from accelfit.spec.inventory import Inventory
rows = [metal_stack.server(index) for index in range({servers})]
inventory = Inventory.model_validate({{"site": "lab-rack-a", "servers": rows}})
plan = metal_stack.plan_for(inventory)
built = time.perf_counter()
recording, error = metal_stack.record_build(plan, inventory)
assert error is None, error
assert not recording.duplicate_urns
figures = {{"resources": len(recording.resources), "stage_s": time.perf_counter() - built}}
"""
_CHECK = """
from accelfit.cli.main import main
checked = time.perf_counter()
code = main(["check", {inventory!r}])
assert code == 0, code
figures = {{"resources": 0, "stage_s": time.perf_counter() - checked}}
"""
_PREVIEW = """
from accelfit.preview.run import preview_stack
previewed = time.perf_counter()
result = preview_stack({stack!r}, __import__("pathlib").Path({project!r}))
document = result.document
from accelfit.reports.preview_report import render_text
render_text(document)  # the report `accelfit preview` prints
assert len(document["plan"]["baremetal_hosts"]) == {servers}, len(document["plan"]["baremetal_hosts"])
figures = {{"resources": len(document["resources"]), "stage_s": time.perf_counter() - previewed,
           "violations": len(document["policies"]["violations"])}}
"""

# The floor: per server the same resources as the build (a remote command, a node patch, under one component),
# with one-word inputs, recorded under the same mocks and nothing else (no inventory, plan, scripts, pricing or
# policies): what the Pulumi SDK and the mocks cost per resource, which no change to accelfit can lower.
_FLOOR = """
import pulumi, pulumi_kubernetes as k8s
from pulumi_command import remote
from accelfit.preview.collection import collection_paused
from accelfit.preview.recorder import record

def program():
    provider = k8s.Provider("floor-provider", kubeconfig="unused")
    parent = pulumi.ComponentResource("accelfit:bench:Floor", "floor")
    for index in range({servers}):
        connection = remote.ConnectionArgs(host=f"10.0.{{index // 256}}.{{index % 256}}", user="ops")
        joined = remote.Command(f"h{{index}}-prepare", connection=connection, create="true", stdin="token",
                                opts=pulumi.ResourceOptions(parent=parent))
        k8s.core.v1.NodePatch(f"h{{index}}-node", metadata=k8s.meta.v1.ObjectMetaPatchArgs(name=f"h{{index}}"),
                              opts=pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=[joined]))

recorded = time.perf_counter()
with collection_paused():  # as preview_stack records
    recording = record(program)
figures = {{"resources": len(recording.resources), "stage_s": time.perf_counter() - recorded}}
"""


def write_inventory(servers: int, path: Path) -> Path:
    sys.path.insert(0, str(FIXTURES))
    import metal_stack

    rows = [metal_stack.server(index, form_factor="sxm") for index in range(servers)]
    path.write_text(yaml.safe_dump({"site": "lab-rack-a", "servers": rows}, sort_keys=False), encoding="utf-8")
    return path


def tokens_needing_every_server(workload: dict, folder: Path, servers: int, name: str) -> int:
    """The fewest training tokens (billions) for which the planner uses all N servers to meet the deadline (it
    picks the fewest servers that meet it). Found by bisection over the pure planner (no Pulumi)."""
    from accelfit.catalog import load_catalog
    from accelfit.planner import Environment, NoFeasiblePlan, plan
    from accelfit.policy_config import plan_constraints
    from accelfit.spec.loader import load_inventory
    from accelfit.spec.models import WorkloadSpec

    catalog = load_catalog()
    inventory = load_inventory(folder / "stacks" / "inventories" / "bench.yaml")
    environment = Environment(name, inventory, None, plan_constraints(folder, name, catalog))

    def nodes(tokens_b: int) -> int:
        spec = WorkloadSpec.model_validate({**workload, "training": {**workload["training"],
                                                                      "tokens": f"{tokens_b}B"}})
        try:
            return len(plan(spec, catalog, environment).baremetal_hosts)
        except NoFeasiblePlan:
            return servers + 1

    low, high = 1, 40 * servers  # about 26B tokens per H100 server in the example's 5 days
    while low < high:
        middle = (low + high) // 2
        if nodes(middle) >= servers:
            high = middle
        else:
            low = middle + 1
    if nodes(low) != servers:
        raise SystemExit(f"no token count makes the planner use exactly {servers} servers")
    return low


def write_project(servers: int, folder: Path) -> Path:
    """The example on-prem stack over N servers, in a project folder of its own: the repository's Pulumi.yaml
    linked and its policy pack copied, with the environment's caps raised to the site's size (staging allows 128
    GPUs, 32 nodes a pool and $300,000 a month; a 10,000-server site has 80,000 GPUs and its owner's policy config
    would say so)."""
    (folder / "stacks" / "inventories").mkdir(parents=True)
    (folder / "Pulumi.yaml").symlink_to(ROOT / "Pulumi.yaml")
    shutil.copytree(ROOT / "policies", folder / "policies", ignore=shutil.ignore_patterns("__pycache__"))
    write_inventory(servers, folder / "stacks" / "inventories" / "bench.yaml")
    document = yaml.safe_load((ROOT / "stacks" / f"Pulumi.{STACK}.yaml").read_text(encoding="utf-8"))
    environment = folder / "policies" / "config" / f"{document['config']['accelfit:environment']}.json"
    policy_config = json.loads(environment.read_text(encoding="utf-8"))
    workload = document["config"]["accelfit:workload"]
    workload["placement"]["inventory"] = "inventories/bench.yaml"
    for rule, key, limit in (("max-accelerators", "maxAccelerators", 8 * servers),
                             ("bounded-autoscaling", "maxNodesPerPool", servers),
                             ("stack-monthly-budget", "maxMonthlyUsd", 10_000 * servers)):  # owned: ~$1,900/server
        policy_config[rule][key] = max(policy_config[rule][key], limit)
    environment.write_text(json.dumps(policy_config), encoding="utf-8")
    tokens_b = tokens_needing_every_server(workload, folder, servers, document["config"]["accelfit:environment"])
    workload["training"]["tokens"] = f"{tokens_b}B"
    (folder / "stacks" / f"Pulumi.{STACK}.yaml").write_text(yaml.safe_dump(document, sort_keys=False),
                                                            encoding="utf-8")
    return folder


def measure(mode: str, servers: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="accelfit-bench-metal-") as temporary:
        folder = Path(temporary)
        if mode == "build":
            body = _BUILD.format(servers=servers)
        elif mode == "floor":
            body = _FLOOR.format(servers=servers)
        elif mode == "check":
            body = _CHECK.format(inventory=str(write_inventory(servers, folder / "inventory.yaml")))
        else:
            body = _PREVIEW.format(stack=STACK, project=str(write_project(servers, folder)), servers=servers)
        code = _HEAD.format(root=str(ROOT), fixtures=str(FIXTURES)) + body + _TAIL.format()
        output = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    if output.returncode != 0:
        raise SystemExit(f"{mode} of {servers} servers failed:\n{output.stderr[-3000:]}")
    return json.loads(output.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, nargs="+", default=[4, 100, 1000, 10000])
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    arguments = parser.parse_args()
    print(f"{'mode':>8} {'servers':>8} {'resources':>9} {'process s':>10} {'stage s':>8} {'CPU s':>7} {'peak RSS MB':>12}")
    measured: dict[tuple[str, int], dict] = {}
    for mode in arguments.modes:
        for servers in arguments.servers:
            figures = measured[mode, servers] = measure(mode, servers)
            print(f"{mode:>8} {servers:>8} {figures['resources']:>9} {figures['process_s']:>10.2f} "
                  f"{figures['stage_s']:>8.2f} {figures['cpu_s']:>7.2f} {figures['peak_rss_mb']:>12.0f}", flush=True)
    print_ratios(measured)


def print_ratios(measured: dict[tuple[str, int], dict]) -> None:
    """Each mode's CPU seconds and peak memory as a ratio to the floor's at the same size, from this run."""
    rows = [(mode, servers, figures, measured[FLOOR, servers]) for (mode, servers), figures in measured.items()
            if mode != FLOOR and (FLOOR, servers) in measured]
    if rows:
        print(f"\n{'mode':>8} {'servers':>8} {'CPU / floor':>12} {'memory / floor':>15}")
    for mode, servers, figures, floor in rows:
        print(f"{mode:>8} {servers:>8} {figures['cpu_s'] / floor['cpu_s']:>11.2f}x "
              f"{figures['peak_rss_mb'] / floor['peak_rss_mb']:>14.2f}x")


if __name__ == "__main__":
    main()
