"""One way for `plan SPEC`: a spec file plans as the fleet of one its stack builds, so `accelfit plan SPEC` and
`accelfit plan --stack ENV` of the same workload give the same fallback chain (issue 35)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from accelfit.cli.main import main
from accelfit.stackfile import load_stack

ROOT = Path(__file__).parents[2]
SINGLE = sorted(name for name in (path.name.removeprefix("Pulumi.").removesuffix(".yaml")
                                  for path in (ROOT / "stacks").glob("Pulumi.*.yaml"))
                if not load_stack(name, ROOT).is_fleet)


def spec_file_of(stack_name: str, folder: Path) -> Path:
    """The stack's workload as a spec file of its own: where the stack pins a region (gcp:region, aws:region, a
    zone), the spec lists only those regions, which is what the stack's placement lets it plan in."""
    stack = load_stack(stack_name, ROOT)
    raw = yaml.safe_load(stack.path.read_text())["config"]["accelfit:workload"]
    placement = raw.setdefault("placement", {})
    if placement.get("inventory"):
        placement["inventory"] = str(stack.path.parent / placement["inventory"])
    from accelfit.stackrules.regions import stack_placement

    pinned = {region for _, region in stack_placement(stack.config).regions}
    if pinned and placement.get("regions"):
        placement["regions"] = [region for region in placement["regions"] if region in pinned]
    path = folder / "spec.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def plan_json(capsys, *args: str) -> dict:
    code = main(["plan", *args, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_every_single_stack_is_compared():
    assert len(SINGLE) >= 10 and "example-onprem-h100" in SINGLE


@pytest.mark.parametrize("stack", SINGLE)
def test_plan_spec_and_plan_stack_give_the_same_chain(stack, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    environment = load_stack(stack, ROOT).environment
    from_spec = plan_json(capsys, str(spec_file_of(stack, tmp_path)), "--environment", environment)
    from_stack = plan_json(capsys, "--stack", stack)
    assert from_spec["fallback"], "every plan has at least its planned step"
    assert from_spec["fallback"] == from_stack["fallback"]
    assert from_spec["fallback_omitted"] == from_stack["fallback_omitted"]
    assert from_spec["node_pools"] == from_stack["node_pools"]  # the standby pools too
    assert from_spec.get("serving") == from_stack.get("serving")  # standby serving steps included


def test_a_spec_file_plan_carries_standby_serving_steps(capsys, tmp_path, monkeypatch):
    """Not vacuous: a spec that lists two ways to buy its GPUs plans a standby pool and serves from it too."""
    monkeypatch.chdir(ROOT)
    path = spec_file_of("example-gcp-l4-inference", tmp_path)
    path.write_text(path.read_text().replace("pricing: on-demand", "pricing: [on-demand, spot]"))
    document = plan_json(capsys, str(path), "--environment", load_stack("example-gcp-l4-inference", ROOT).environment)
    assert len(document["fallback"]) >= 2
    assert any(pool.get("fallback_rank") for pool in document["node_pools"])
    assert len(document["serving"]["pools"]) >= 2
