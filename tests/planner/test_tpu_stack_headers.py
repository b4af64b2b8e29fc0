"""The TPU stack files' header comments say what `accelfit plan --stack NAME` plans: platform, zone, slice,
topology, hosts, pricing, runtime or GKE release channel. A plan that changes makes this fail until the header is
updated, so a reader of the stack file is never told a different slice or zone than the one that gets built."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from accelfit.planner import Environment, plan
from accelfit.stackfile import load_stack

ROOT = Path(__file__).parents[2]
TPU_STACKS = ["dev", "staging", "prod", "example-gcp-tpu-jax-pretrain"]
CLAIM = re.compile(r"Plan \(`accelfit plan --stack [\w-]+`\): (?P<platform>[\w-]+) in (?P<zone>[a-z0-9-]+)"
                   r".*?(?P<slices>\d+) x (?P<slice>[\w-]+) \(topology (?P<topology>[\dx]+), (?P<hosts>\d+) hosts?\)"
                   r" on (?P<pricing>[\w-]+)(?P<rest>.*)", re.S)


def _header(path: Path) -> str:
    lines = []
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        lines.append(line.lstrip("# "))
    return " ".join(lines)


@pytest.mark.parametrize("name", TPU_STACKS)
def test_header_matches_the_plan(catalog, name):
    stack = load_stack(name, ROOT)
    chosen = plan(stack.spec, catalog, Environment(stack.environment, stack.workload.inventory))
    claim = CLAIM.search(_header(stack.path))
    assert claim, f"{stack.path.name} has no 'Plan (`accelfit plan --stack ...`): ...' header line"
    tpu_slice = catalog.tpu_slice(chosen.accelerator.slice)
    assert claim["platform"] == chosen.platform.value
    assert claim["zone"] == chosen.zones[0]
    assert int(claim["slices"]) == chosen.accelerator.slices
    assert claim["slice"] == chosen.accelerator.slice and claim["topology"] == tpu_slice.topology
    assert int(claim["hosts"]) == tpu_slice.hosts
    assert claim["pricing"] == chosen.pricing
    if chosen.platform.value == "gke-tpu":
        assert f"release channel {chosen.gke_release_channel}" in claim["rest"]
    else:
        assert f"runtime {chosen.tpu_vm_slices[0].runtime_version}" in claim["rest"]
