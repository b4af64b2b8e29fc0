"""The GKE GPU example stacks' header comments agree with the plans they produce: zones, release channel and
every pool's machine type and node bounds (`<min>..<max> nodes`). A planner change that moves any of these fails
here until the comment says what the stack now builds."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).parents[3]
GKE_GPU_STACKS = ("example-gcp-gke-h100-training", "example-gcp-l4-inference")


def _header(name: str) -> str:
    lines = (ROOT / "stacks" / f"Pulumi.{name}.yaml").read_text(encoding="utf-8").splitlines()
    comment = []
    for line in lines:
        if not line.startswith("#"):
            break
        comment.append(line.lstrip("# "))
    return " ".join(comment)


@pytest.fixture(scope="module", params=GKE_GPU_STACKS)
def stack(request):
    from accelfit.preview.run import preview_stack

    return request.param, _header(request.param), preview_stack(request.param, ROOT).document["plan"]


def test_header_names_region_zones_and_channel(stack):
    name, header, plan = stack
    assert f"in {plan['region']}" in header, name
    for zone in sorted({zone for pool in plan["node_pools"] for zone in pool["zones"]}):
        assert zone in header, (name, zone)
    assert f"release channel {plan['gke_release_channel']}" in header, name


def test_header_gives_every_pool_its_machine_and_node_bounds(stack):
    name, header, plan = stack
    for pool in plan["node_pools"]:
        assert pool["machine_type"] in header, (name, pool["name"])
        assert f"{pool['min_nodes']}..{pool['max_nodes']} nodes" in header, (name, pool["name"], header)
