"""The selection lock: written into the stack file, honoured by the program, and stale when the spec moves on."""

import datetime as dt
import shutil
from pathlib import Path

import pytest
import yaml

from accelfit.catalog import Catalog, load_catalog
from accelfit.cli.main import main
from accelfit.planner import Environment
from accelfit.planner.lock import Selection, plan_with_lock
from accelfit.preview.run import preview_stack
from accelfit.spec import WorkloadSpec

ROOT = Path(__file__).parents[2]


@pytest.fixture
def project(tmp_path):
    (tmp_path / "stacks").mkdir()
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    shutil.copytree(ROOT / "policies" / "config", tmp_path / "policies" / "config")
    shutil.copy(ROOT / "stacks" / "Pulumi.dev.yaml", tmp_path / "stacks" / "Pulumi.dev.yaml")
    return tmp_path


def dev_spec():
    document = yaml.safe_load((ROOT / "stacks" / "Pulumi.dev.yaml").read_text())
    return WorkloadSpec.model_validate(document["config"]["accelfit:workload"])


def test_lock_writes_the_selection_and_keeps_comments(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    assert main(["lock", "--stack", "dev"]) == 0
    text = (project / "stacks" / "Pulumi.dev.yaml").read_text()
    assert text.startswith("# Dev: a small run")  # the user's comments survive
    selection = yaml.safe_load(text)["config"]["accelfit:selection"]
    assert selection["option"].startswith("gke-tpu/gcp/us-central1/tpu-v6e/")
    assert main(["lock", "--stack", "dev"]) == 0
    assert "kept:" in capsys.readouterr().out
    assert (project / "stacks" / "Pulumi.dev.yaml").read_text().count("accelfit:selection") == 1


def test_program_builds_the_locked_option(project, monkeypatch):
    monkeypatch.chdir(project)
    assert main(["lock", "--stack", "dev"]) == 0
    document = preview_stack("dev", project).document
    assert document["lock"]["state"] == "used"
    assert document["plan"]["reasons"][0].startswith("Locked selection")


def test_a_price_change_does_not_move_a_locked_plan(project):
    catalog = load_catalog()
    spec = dev_spec()
    fresh, _ = plan_with_lock(spec, catalog, Environment("dev"), None)
    selection = Selection.from_plan(fresh, dt.date(2026, 11, 1))
    # v6e spot doubles in price: a fresh plan would choose something else, the lock keeps the running choice.
    data = catalog.model_dump()
    for price in data["prices"]:
        if price["sku"] == "tpu-v6e":
            price["hourly_usd"] *= 3
    dearer = Catalog.model_validate(data)
    plan, status = plan_with_lock(spec, dearer, Environment("dev"), selection)
    assert plan.option == fresh.option and status.state == "used"
    assert status.fresh_option != fresh.option
    assert "would save" in status.message and status.fresh_monthly_delta_usd < 0


def test_a_lock_that_no_longer_fits_the_spec_is_stale():
    catalog = load_catalog()
    spec = dev_spec()
    fresh, _ = plan_with_lock(spec, catalog, Environment("dev"), None)
    selection = Selection.from_plan(fresh, dt.date(2026, 11, 1))
    bigger = spec.model_copy(update={"training": spec.training.model_copy(update={"tokens": spec.training.tokens * 8})})
    plan, status = plan_with_lock(bigger, catalog, Environment("dev"), selection)
    assert status.state == "stale" and "no longer fits" in status.message
    assert plan.option != selection.option


def test_a_lock_larger_than_the_spec_now_needs_is_built_as_locked():
    # Issue 13: a lock that still meets the spec is built as locked, also when the spec now needs less.
    catalog = load_catalog()
    document = yaml.safe_load((ROOT / "stacks" / "Pulumi.example-gcp-gke-h100-training.yaml").read_text())
    spec = WorkloadSpec.model_validate(document["config"]["accelfit:workload"])
    environment = Environment("staging")
    fresh, _ = plan_with_lock(spec, catalog, environment, None)
    assert fresh.accelerator.nodes >= 2
    selection = Selection.from_plan(fresh, dt.date(2026, 11, 1))
    smaller = spec.model_copy(update={"training": spec.training.model_copy(
        update={"tokens": spec.training.tokens // 4})})
    needed, _ = plan_with_lock(smaller, catalog, environment, None)
    assert needed.accelerator.nodes < fresh.accelerator.nodes
    plan, status = plan_with_lock(smaller, catalog, environment, selection)
    assert status.state == "used" and plan.option == selection.option
    assert plan.accelerator.nodes == fresh.accelerator.nodes
    assert f"the lock has {fresh.accelerator.nodes} nodes, the spec now needs {needed.accelerator.nodes} node" \
        in status.message
    # Priced at what is built: the locked size runs the smaller job in less time than the fewest nodes would.
    assert plan.estimate.hours < needed.estimate.hours


def test_locked_preview_fails_when_the_lock_is_stale_or_missing(project, monkeypatch, capsys):
    from accelfit.planner.lock import LockRequired

    monkeypatch.chdir(project)
    assert main(["preview", "--stack", "dev", "--locked"]) == 1
    err = capsys.readouterr().err
    # The fix names this stack, ready to paste (it once said a literal `<stack>`).
    assert "lock required: no selection is locked" in err and "run `accelfit lock --stack dev` and commit" in err
    assert main(["lock", "--stack", "dev"]) == 0
    assert main(["preview", "--stack", "dev", "--locked", "--json"]) == 0
    capsys.readouterr()
    path = project / "stacks" / "Pulumi.dev.yaml"
    path.write_text(path.read_text().replace("tokens: 20B", "tokens: 400B").replace("deadline_days: 2",
                                                                                       "deadline_days: 4"))
    # The CI setting: ACCELFIT_LOCKED=1 fails instead of building a fresh plan.
    monkeypatch.setenv("ACCELFIT_LOCKED", "1")
    assert main(["preview", "--stack", "dev"]) == 1
    err = capsys.readouterr().err
    assert "no longer fits the spec" in err and "the lock has" in err
    assert "run `accelfit lock --stack dev --fresh`" in err and "<stack>" not in err
    with pytest.raises(LockRequired):
        preview_stack("dev", project, locked=True)


def test_plan_of_a_stack_shows_its_lock(project, monkeypatch, capsys):
    monkeypatch.chdir(project)
    assert main(["lock", "--stack", "dev"]) == 0
    capsys.readouterr()
    assert main(["plan", "--stack", "dev"]) == 0
    assert "Lock:     built the locked selection" in capsys.readouterr().out
    assert main(["plan", "--stack", "dev", "--json"]) == 0
    import json

    assert json.loads(capsys.readouterr().out)["lock"]["state"] == "used"
