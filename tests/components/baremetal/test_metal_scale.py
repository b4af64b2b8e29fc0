"""What the speed work for 10,000-server sites must not change: the resources and inputs recorded for a small site
(golden made before it), every problem of a broken site of thousands of servers, duplicates found among 10,000,
and a written-out 10,000-server inventory file read and checked. Timings are measured by
benchmarks/bench_baremetal.py, never here."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import metal_stack
from accelfit.cli.main import cli
from accelfit.errors import InputError
from accelfit.spec.inventory import Inventory
from accelfit.cloudrules.baremetal.checks import MAX_SPELLING_HINTS, plan_problems

# Not in golden/: the policy tests read every golden/*.json as recorded resources; this file holds digests.
GOLDEN = Path(__file__).parent / "recorded" / "recording-3-servers.json"


def _digested(value: Any) -> Any:
    """Inputs with each long text (a host script; its own goldens are the .sh files here) as its hash and length."""
    if isinstance(value, str) and len(value) > 300:
        return f"sha256:{hashlib.sha256(value.encode()).hexdigest()} ({len(value)} chars)"
    if isinstance(value, dict):
        return {key: _digested(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_digested(item) for item in value]
    return value


def _rows(recording) -> list[dict[str, Any]]:
    names = {resource.urn: resource.name for resource in recording.resources}
    return sorted(({"type": r.type, "name": r.name, "parent": r.parent_name, "custom": r.custom,
                    "protect": r.protect, "provider": r.provider.split("::")[-1],
                    "depends_on": sorted(names.get(urn, urn) for urn in r.dependencies),
                    "inputs": _digested(r.inputs)} for r in recording.resources),
                  key=lambda row: (row["type"], row["name"]))


def test_a_small_site_records_the_same_resources_and_inputs_as_before_the_speed_work():
    inventory = metal_stack.make_inventory(3)
    recording, error = metal_stack.record_build(metal_stack.plan_for(inventory), inventory)
    assert error is None and not recording.duplicate_urns
    rows = _rows(recording)
    if os.environ.get("ACCELFIT_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n")
    assert GOLDEN.exists(), f"{GOLDEN} missing; run with ACCELFIT_UPDATE_GOLDEN=1"
    assert rows == json.loads(GOLDEN.read_text()), f"differs from {GOLDEN.name}"


def test_every_host_of_a_plan_made_for_another_site_is_reported_the_first_with_a_hint():
    """3,000 hosts the inventory lacks: each one is a problem (spelling hints for the first few only, so the
    check stays linear: a hint compares one name with every server's)."""
    inventory = metal_stack.make_inventory(3000)
    plan = metal_stack.plan_for(inventory)
    renamed = tuple(f"gpu-{index:04d}x" for index in range(3000))
    problems = plan_problems(plan.model_copy(update={"baremetal_hosts": renamed}), inventory)
    missing = [item for item in problems if "lacks" in item.message]
    assert [item.field for item in missing] == [f"servers[name={host}]" for host in renamed]
    assert all("did you mean 'gpu-" in item.fix for item in missing[:MAX_SPELLING_HINTS])
    assert all(item.fix == "plan again with this inventory" for item in missing[MAX_SPELLING_HINTS:])


def test_hosts_listed_twice_and_mismatched_servers_are_found_among_thousands():
    inventory = metal_stack.make_inventory(3000)
    plan = metal_stack.plan_for(inventory)
    hosts = (*plan.baremetal_hosts, "gpu-1500")
    rows = [server.model_dump() for server in inventory.servers]
    rows[2999]["gpu_count"] = 4
    smaller = Inventory.model_validate({"site": inventory.site, "servers": rows})
    problems = plan_problems(plan.model_copy(update={"baremetal_hosts": hosts}), smaller)
    assert {(item.field, item.message.split(",")[0]) for item in problems} == {
        ("baremetal_hosts[3000]", "listed twice"), ("servers[name=gpu-2999]", "has 4 x h100-80gb")}


@pytest.mark.parametrize(("attribute", "value"), [("name", "gpu-0007"), ("address", "::ffff:10.20.0.7")])
def test_a_duplicate_among_ten_thousand_servers_names_both(attribute, value):
    rows = [metal_stack.server(index) for index in range(10_000)]
    rows[9_999][attribute] = value
    with pytest.raises(ValueError, match=rf"servers\[9999\]\.{attribute}: .* is already used by servers\[7\]"):
        Inventory.model_validate({"site": "lab-rack-a", "servers": rows})


def test_an_inventory_holds_up_to_thirty_thousand_servers():
    """The measured limit (accelfit/spec/inventory.py MAX_SERVERS, issue 39): one more is refused, by name."""
    rows = [metal_stack.server(index) for index in range(30_001)]
    assert len(Inventory.model_validate({"site": "lab-rack-a", "servers": rows[:30_000]}).servers) == 30_000
    with pytest.raises(ValueError, match=r"servers\n  Tuple should have at most 30000 items"):
        Inventory.model_validate({"site": "lab-rack-a", "servers": rows})


def _inventory_text(servers: int) -> str:
    rows = [json.dumps(metal_stack.server(index)) for index in range(servers)]
    return "site: lab-rack-a\nservers:\n" + "".join(f"  - {row}\n" for row in rows)


def test_a_written_out_ten_thousand_server_inventory_is_read_and_checked(tmp_path):
    """Some 230,000 values written out are no alias bomb (the limit counts what aliases add)."""
    path = tmp_path / "site.yaml"
    path.write_text(_inventory_text(10_000))
    result = CliRunner().invoke(cli, ["check", str(path)])
    assert result.exit_code == 0, result.output
    assert "10000 servers, 80000 GPUs" in result.output


def test_a_broken_server_deep_in_a_large_inventory_file_is_named_with_its_line(tmp_path):
    text = _inventory_text(5_000).replace('"gpu_count": 8, "cpu_cores": 112, "memory_gib": 2048, "nvme_tb": 30, '
                                          '"network_gbps": 3200, "rack": "r140"}',
                                          '"gpu_count": 12, "cpu_cores": 112, "memory_gib": 2048, "nvme_tb": 30, '
                                          '"network_gbps": 3200, "rack": "r140"}', 1)
    path = tmp_path / "site.yaml"
    path.write_text(text)
    from accelfit.spec import load_inventory

    with pytest.raises(InputError) as error:
        load_inventory(path)
    [problem] = error.value.problems
    assert problem.field == "servers[4480].gpu_count" and "at most 8" in problem.render()
