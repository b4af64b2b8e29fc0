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
