"""What the speed work on bare metal must not change (benchmarks/bench_baremetal.py measures the speed itself):
the recorded resources and inputs of a small mixed inventory, the problems found in a broken many-server
inventory, and the interpreter state the recorder tunes while it records."""

from __future__ import annotations

import gc
import json
import os
from pathlib import Path

import pytest

import metal_stack
from accelfit.cli.main import main
from accelfit.errors import InputError
from accelfit.spec.inventory import Inventory
from accelfit.validation import validate

GOLDEN = Path(__file__).parent / "golden" / "recording-mixed.json"
# Three shapes: an SXM H100 with extra labels, a PCIe L40S without a rack, an H100 whose fabric preflight detects.
MIXED = [
    metal_stack.server(0, form_factor="sxm", labels={"accelfit.io/owner": "research"}),
    metal_stack.server(1, gpu_model="l40s", gpu_count=4, form_factor="pcie", rack=None),
    metal_stack.server(2),
]


def _recorded(servers: list[dict]) -> list[dict]:
    inventory = Inventory.model_validate({"site": "lab-rack-a", "servers": servers})
    plan = metal_stack.plan_for(inventory).model_copy(
        update={"baremetal_hosts": tuple(row["name"] for row in servers if row["gpu_model"] == "h100-80gb")})
    recording, error = metal_stack.record_build(plan, inventory)
    assert error is None, error
    return sorted(({"type": item.type, "name": item.name, "urn": item.urn, "parent": item.parent, "custom": item.custom,
             "inputs": item.inputs, "protect": item.protect, "provider": item.provider,
             "dependencies": sorted(item.dependencies)} for item in recording.resources),
                  key=lambda item: item["urn"])  # registration order varies with the SDK's executor threads


def test_recording_of_a_small_mixed_inventory_is_unchanged():
    """Every resource, input and dependency, compared with the golden file: a change to how hosts are prepared or
    recorded shows up here as a diff to read (regenerate with ACCELFIT_UPDATE_GOLDEN=1 only when it is intended)."""
    recorded = _recorded(MIXED)
    if os.environ.get("ACCELFIT_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    assert GOLDEN.exists(), f"{GOLDEN} missing; run with ACCELFIT_UPDATE_GOLDEN=1"
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert [item["urn"] for item in recorded] == [item["urn"] for item in golden]
    for got, want in zip(recorded, golden, strict=True):
        assert got == want, got["urn"]
    # Not vacuous: the two H100 servers are prepared and joined, the L40S is not part of this plan.
    names = {item["name"] for item in recorded}
    assert {"lab-finetune-metal-hosts-gpu-0000-prepare", "lab-finetune-metal-hosts-gpu-0002-join"} <= names
    assert not any("gpu-0001" in name for name in names)


def test_recording_twice_gives_the_same_resources():
    """The recorder's interpreter tuning (garbage collection, no SDK stack traces) leaves no state behind that
    changes a second recording."""
    assert _recorded(MIXED[:1]) == _recorded(MIXED[:1])


def test_recorder_restores_what_it_tunes():
    from pulumi.runtime import resource as sdk_resource

    thresholds, stack_trace = gc.get_threshold(), sdk_resource._get_stack_trace
    _recorded(MIXED[:1])
    assert gc.get_threshold() == thresholds
    assert sdk_resource._get_stack_trace is stack_trace
    assert gc.get_freeze_count() == 0


def _broken_site(servers: int) -> list[dict]:
    rows = [metal_stack.server(index) for index in range(servers)]
    rows[1500] = metal_stack.server(1500, name="gpu-0007")  # a name used twice
    return rows


def test_broken_many_server_inventory_names_the_duplicate():
    with pytest.raises(InputError) as caught:
        validate(Inventory, {"site": "lab-rack-a", "servers": _broken_site(2000)}, "inventory.yaml")
    [found] = caught.value.problems
    assert found.field == "servers[1500].name"
    assert "'gpu-0007' is already used by servers[7]" in found.message


@pytest.mark.parametrize(("changes", "field", "words"), [
    ({"gpu_model": "h110"}, "servers[1999].gpu_model", "did you mean 'h100-80gb'"),
    ({"gpu_count": 12}, "servers[1999].gpu_count", "at most 8 per server"),
    ({"address": "10.20.0.5"}, "servers[1999].address", "already used by servers[5]"),
])
def test_broken_many_server_inventory_file_is_refused_by_check(tmp_path, capsys, changes, field, words):
    import yaml

    rows = [metal_stack.server(index) for index in range(2000)]
    rows[1999] = metal_stack.server(1999, **changes)
    path = tmp_path / "inventory.yaml"
    path.write_text(yaml.safe_dump({"site": "lab-rack-a", "servers": rows}), encoding="utf-8")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert field in err and words in err, err
    assert "Traceback" not in err
