"""`accelfit cost` on a hostile `pulumi preview --json` (issue 29): a resource that is its own parent, or a longer
parent cycle, is exit 2 naming the file and the resource, not a RecursionError; a very deep (acyclic) parent
chain is attributed without recursion."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from accelfit.cli.main import main
from accelfit.preview.fleet_costs import attribute

ROOT = Path(__file__).parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "pulumi-preview-example-gcp-fleet.json"


def _with_cycle(tmp_path: Path, length: int) -> tuple[Path, str]:
    document = json.loads(FIXTURE.read_text(encoding="utf-8"))
    states = [step["newState"] for step in document["steps"]
              if step.get("newState") and step["newState"]["type"] not in ("pulumi:pulumi:Stack",)
              and not step["newState"]["type"].startswith("accelfit:fleet:")
              and "labels" not in json.dumps(step["newState"].get("inputs", {}))]
    members = states[:length]
    for index, state in enumerate(members):
        state["parent"] = members[(index + 1) % length]["urn"]
    path = tmp_path / "preview.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path, members[0]["urn"]


@pytest.mark.parametrize("length", [1, 3])
def test_a_parent_cycle_is_exit_2_naming_the_file(tmp_path, capsys, monkeypatch, length):
    path, _ = _with_cycle(tmp_path, length)
    monkeypatch.chdir(ROOT)
    code = main(["cost", "--pulumi-preview", str(path), "--stack", "example-gcp-fleet"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert str(path) in err and "cycle" in err and "Traceback" not in err and "RecursionError" not in err


def test_a_deep_parent_chain_is_attributed_without_recursion():
    records = [SimpleNamespace(urn=f"u{i}", parent=f"u{i - 1}" if i else None, type="t",
                               name="serve-root" if i == 0 else "x", inputs={}) for i in range(50_000)]
    owners = attribute(records, ["serve"])
    assert owners["u49999"] == "serve" and len(owners) == 50_000
