"""Benchmark: a bare-metal site of N servers, end to end. For each size, in a scratch project that is a copy of this
one with an on-prem stack whose workload needs (about) every server of a generated inventory:

- `accelfit check` of the inventory file, as a whole process;
- the offline preview (what `accelfit preview --stack` does: plan, the program under Pulumi mocks with every host
  prepared over SSH (two remote commands) and a node patch each, pricing, the real policy pack) and its text
  report, in a fresh process that imports everything: wall time, its parts, peak RSS (resource.getrusage);
- the floor: the same resources (two remote commands and a node patch per server) with one-word inputs, recorded
  under the same mocks and nothing else, in a fresh process (what the Pulumi SDK and mocks cost per resource).

    .venv/bin/python benchmarks/bench_baremetal.py [--servers 4 100 1000 10000] [--keep DIR]

Targets (issue 18), never asserted by a test: 10,000 servers checked in under 5 s, previewed in under 60 s and
2 GB. The scratch project's policy config is the repository's staging.json with max-accelerators,
bounded-autoscaling and the budget raised to the site's size (so the planner may use it all); the pack's code is
the repository's. `--keep DIR` leaves the scratch projects there (e.g. to profile one).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STACK = "bench-metal"
# A 70B model fits on one 8 x H100 server; about 59T tokens per 1,000 servers makes a 100-day run that needs
# nearly all of them by a 100.4-day deadline (the planner picks the fewest servers that meet it).
TOKENS_T_PER_1000_SERVERS = 59.0
DEADLINE_DAYS = 100.4

_PREVIEW_CHILD = """
import json, resource, sys, time
started = time.perf_counter()
from accelfit.preview.run import preview_stack
from accelfit.reports.preview_report import render_text
imported = time.perf_counter()
result = preview_stack({stack!r}, __import__("pathlib").Path({project!r}))
previewed = time.perf_counter()
text = render_text(result.document)
done = time.perf_counter()
t = result.timings
print(json.dumps({{"hosts": len(result.document["plan"]["baremetal_hosts"]),
                  "resources": len(result.document["resources"]), "process_s": done - started,
                  "program_s": t.program_s, "policies_s": t.policies_s, "render_s": done - previewed,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""

# The floor: the same resources per server (two remote commands, a node patch) with one-word inputs, recorded under
# the same mocks with nothing else (no plan, scripts, pricing or policies): what the SDK and the mocks cost per
# resource, which no change to accelfit can lower.
_FLOOR_CHILD = """
import json, resource, sys, time
started = time.perf_counter()
import pulumi, pulumi_kubernetes as k8s
from pulumi_command import remote
from accelfit.preview.collection import collection_paused
from accelfit.preview.recorder import record

def program():
    provider = k8s.Provider("floor-provider", kubeconfig="unused")
    parent = pulumi.ComponentResource("accelfit:bench:Floor", "floor")
    for index in range({servers}):
        connection = remote.ConnectionArgs(host=f"10.0.{{index // 256}}.{{index % 256}}", user="ops")
        prepared = remote.Command(f"h{{index}}-prepare", connection=connection, create="true",
                                  opts=pulumi.ResourceOptions(parent=parent))
        joined = remote.Command(f"h{{index}}-join", connection=connection, create="true",
                                opts=pulumi.ResourceOptions(parent=parent, depends_on=[prepared]))
        k8s.core.v1.NodePatch(f"h{{index}}-node", metadata=k8s.meta.v1.ObjectMetaPatchArgs(name=f"h{{index}}"),
                              opts=pulumi.ResourceOptions(parent=parent, provider=provider, depends_on=[joined]))

with collection_paused():
    recording = record(program)
print(json.dumps({{"resources": len(recording.resources), "process_s": time.perf_counter() - started,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def server_row(index: int) -> str:
    return (f"  - {{name: gpu-{index:05d}, address: 10.{20 + index // 65536}.{index // 256 % 256}.{index % 256}, "
            f"ssh_user: ops, gpu_model: h100-80gb, gpu_count: 8, cpu_cores: 112, memory_gib: 2048, nvme_tb: 30, "
            f"network_gbps: 3200, rack: r{index // 32}, form_factor: sxm}}")


def scratch_project(servers: int, directory: Path) -> Path:
    """A copy of this project's Pulumi.yaml and policy pack, an inventory of `servers` and a stack using it."""
    project = directory / f"site-{servers}"
    (project / "stacks" / "inventories").mkdir(parents=True)
    shutil.copy(ROOT / "Pulumi.yaml", project / "Pulumi.yaml")
    shutil.copytree(ROOT / "policies", project / "policies", ignore=shutil.ignore_patterns("__pycache__"))
    rows = "\n".join(server_row(index) for index in range(servers))
    (project / "stacks" / "inventories" / "site.yaml").write_text(f"site: bench-site\nservers:\n{rows}\n")
    config_file = project / "policies" / "config" / "staging.json"
    config = json.loads(config_file.read_text())
    config["max-accelerators"]["maxAccelerators"] = 8 * servers
    config["bounded-autoscaling"]["maxNodesPerPool"] = servers
    config["stack-monthly-budget"]["maxMonthlyUsd"] = 1e9
    config_file.write_text(json.dumps(config, indent=2))
    tokens = f"{TOKENS_T_PER_1000_SERVERS * servers / 1000:.4g}T"
    example = (ROOT / "stacks" / "Pulumi.example-onprem-h100.yaml").read_text()
    stack = (example.replace("parameters: 8B", "parameters: 70B").replace("tokens: 80B", f"tokens: {tokens}")
             .replace("deadline_days: 5", f"deadline_days: {DEADLINE_DAYS}")
             .replace("inventories/lab-h100.yaml", "inventories/site.yaml"))
    (project / "stacks" / f"Pulumi.{STACK}.yaml").write_text(stack)
    return project


def check_seconds(project: Path) -> float:
    started = time.perf_counter()
    subprocess.run([str(ROOT / ".venv" / "bin" / "accelfit"), "check", "stacks/inventories/site.yaml"], cwd=project,
                   check=True, capture_output=True, text=True)
    return time.perf_counter() - started


def preview_figures(project: Path) -> dict:
    code = _PREVIEW_CHILD.format(stack=STACK, project=str(project))
    output = subprocess.run([sys.executable, "-c", code], check=True, cwd=project, capture_output=True, text=True)
    return json.loads(output.stdout.strip().splitlines()[-1])


def floor_figures(servers: int) -> dict:
    code = _FLOOR_CHILD.format(servers=servers)
    output = subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, capture_output=True, text=True)
    return json.loads(output.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, nargs="+", default=[100, 1000, 10000])
    parser.add_argument("--keep", type=Path, help="leave the scratch projects in this directory")
    arguments = parser.parse_args()
    directory = arguments.keep or Path(tempfile.mkdtemp(prefix="accelfit-bench-metal-"))
    directory.mkdir(parents=True, exist_ok=True)
    print(f"{'servers':>8} {'check s':>8} {'hosts':>6} {'resources':>9} {'preview s':>10} {'program s':>10} "
          f"{'policies s':>10} {'report s':>8} {'peak RSS MB':>11} | {'floor s':>7} {'floor MB':>8}", flush=True)
    try:
        for servers in arguments.servers:
            project = scratch_project(servers, directory)
            check = check_seconds(project)
            figures = preview_figures(project)
            floor = floor_figures(servers)
            print(f"{servers:>8} {check:>8.2f} {figures['hosts']:>6} {figures['resources']:>9} "
                  f"{figures['process_s']:>10.2f} {figures['program_s']:>10.2f} {figures['policies_s']:>10.2f} "
                  f"{figures['render_s']:>8.2f} {figures['peak_rss_mb']:>11.0f} | {floor['process_s']:>7.2f} "
                  f"{floor['peak_rss_mb']:>8.0f}", flush=True)
    finally:
        if arguments.keep is None:
            shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
