"""Owned servers priced for what they cost (issue 38): acquisition amortized, energy at the site's price and PUE,
a share of a rack, staff. Each inventory figure reaches the plan and the preview; bad figures are refused."""

from __future__ import annotations

import datetime as dt
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from accelfit.catalog import load_catalog
from accelfit.planner import Environment, plan
from accelfit.pricing import NeutralResource, PricingContext, price_resources
from accelfit.pricing.onprem import (
    OWNERSHIP_FIGURES,
    figures_from_annotations,
    owned_defaults,
    owned_server_cost,
    ownership_annotations,
)
from accelfit.spec import load_workload
from accelfit.spec.inventory import Inventory

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "onprem-training.yaml"
INVENTORY = ROOT / "examples" / "inventories" / "lab-rack-a.yaml"
# A figure per input, each unlike its default, so changing it must change the price.
CHANGED = {"purchase_usd_per_server": 250000, "amortization_months": 48, "energy_usd_per_kwh": 0.2, "pue": 1.2,
           "rack_power_kw": 40, "colocation_usd_per_rack_month": 5000, "staff_usd_per_server_year": 12000}


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def inventory_with(ownership: dict) -> Inventory:
    data = yaml.safe_load(INVENTORY.read_text())
    return Inventory.model_validate({**data, "ownership": ownership})


def planned(catalog, ownership: dict):
    spec = load_workload(EXAMPLE).spec
    return plan(spec, catalog, Environment("dev", inventory_with(ownership)))


def preview_hourly(catalog, annotations: dict[str, str]) -> float:
    """What the preview prices one owned node at, from the NodePatch the stack builds (labels + annotations)."""
    patch = NeutralResource("kubernetes:core/v1:NodePatch", "gpu-01", {"metadata": {
        "name": "gpu-01", "labels": {"accelfit.io/gpu-model": "h100-80gb", "accelfit.io/gpu-count": "8"},
        "annotations": annotations}})
    report = price_resources([patch], catalog, PricingContext())
    return report.resources[0].full_scale_monthly_usd / 730.0


def test_the_defaults_are_sourced_dated_rows():
    defaults = owned_defaults()
    assert set(defaults.defaults) == set(OWNERSHIP_FIGURES)
    for name, row in defaults.defaults.items():
        assert row.source and row.found <= dt.date(2026, 11, 29) and row.unit, name
    # The published survey figures are verified; the list price and staff figure are not.
    assert defaults.defaults["pue"].verified and not defaults.defaults["purchase_usd_per_server"].verified


def test_the_four_terms_by_hand():
    cost = owned_server_cost(700, 8, {"purchase_usd_per_server": 240000, "amortization_months": 24,
                                      "energy_usd_per_kwh": 0.10, "pue": 1.5, "rack_power_kw": 20,
                                      "colocation_usd_per_rack_month": 3000, "staff_usd_per_server_year": 12000})
    assert cost.server_kw == pytest.approx(8.4)  # 700 W x 8 x 1.5 host factor
    assert cost.acquisition_monthly_usd == pytest.approx(10000)
    assert cost.energy_hourly_usd == pytest.approx(8.4 * 1.5 * 0.10)
    assert cost.servers_per_rack == 2 and cost.rack_monthly_usd == pytest.approx(1500)
    assert cost.staff_monthly_usd == pytest.approx(1000)
    assert cost.hourly_usd == pytest.approx(12500 / 730 + 1.26)
    assert cost.defaulted == ()


@pytest.mark.parametrize("figure", OWNERSHIP_FIGURES)
def test_each_inventory_figure_changes_the_plan_and_the_preview_alike(catalog, figure):
    before, after = planned(catalog, {}), planned(catalog, {figure: CHANGED[figure]})
    assert after.estimate.monthly_usd != pytest.approx(before.estimate.monthly_usd, rel=1e-6), figure
    statement = next(line for line in after.estimate.cost_assumptions if line.startswith("Owned servers"))
    assert figure not in statement.split("used for:")[1], statement  # no longer a default
    # The plan's server-hour equals what the preview prices the node at, with the annotations the stack writes.
    server_hour = owned_server_cost(700, 8, {figure: CHANGED[figure]}).hourly_usd
    assert after.estimate.full_scale_monthly_usd == pytest.approx(4 * server_hour * 730, abs=0.05)
    annotations = ownership_annotations(inventory_with({figure: CHANGED[figure]}).ownership.model_dump())
    assert preview_hourly(catalog, annotations) == pytest.approx(server_hour, abs=1e-5)
    assert preview_hourly(catalog, {}) == pytest.approx(owned_server_cost(700, 8, {}).hourly_usd, abs=1e-5)
    assert preview_hourly(catalog, annotations) != pytest.approx(preview_hourly(catalog, {}), rel=1e-6)


def test_annotations_round_trip():
    given = {"purchase_usd_per_server": 123456.5, "pue": 1.31, "amortization_months": 30}
    read = figures_from_annotations(ownership_annotations(given))
    assert {name: value for name, value in read.items() if value is not None} == given


def test_plan_states_acquisition_energy_rack_staff_and_sunk_vs_marginal(catalog):
    result = planned(catalog, {"purchase_usd_per_server": 219000, "purchased": "2025-03-01"})
    statement = next(line for line in result.estimate.cost_assumptions if line.startswith("Owned servers"))
    for term in ("acquisition $6,083", "energy $", "rack $", "staff $", "Sunk", "marginal: energy",
                 "amortized until 2028-03", "used for: amortization_months"):
        assert term in statement, (term, statement)


@pytest.mark.parametrize(("field", "value", "fix"), [
    ("purchase_usd_per_server", -1, "allowed is at least 0"), ("amortization_months", 0, "allowed is at least 1"),
    ("pue", 0.9, "allowed is at least 1"), ("rack_power_kw", 0, "allowed is more than 0")])
def test_a_bad_figure_is_refused_naming_file_field_and_fix(tmp_path, field, value, fix):
    (tmp_path / "inventories").mkdir()
    data = yaml.safe_load(INVENTORY.read_text())
    (tmp_path / "inventories" / "lab-rack-a.yaml").write_text(yaml.safe_dump({**data, "ownership": {field: value}}))
    (tmp_path / "spec.yaml").write_text(EXAMPLE.read_text())
    done = subprocess.run([str(Path(sys.executable).parent / "accelfit"), "plan", str(tmp_path / "spec.yaml")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "lab-rack-a.yaml" in done.stderr and f"ownership.{field}" in done.stderr and fix in done.stderr
    assert "Fix:" in done.stderr and "Traceback" not in done.stderr


def test_the_budget_policy_prices_an_owned_node_as_the_plan_does():
    # The cost policy prices the NodePatch the stack builds with the same figures as the plan: a budget between
    # the default-priced node and the node priced with the inventory's (dearer) figures passes one, refuses the other.
    from policies.accelfit_policies.cost import check_budget
    from policies.accelfit_policies.view import ResourceView

    dear = {"purchase_usd_per_server": 400000, "amortization_months": 12}
    def node(annotations: dict[str, str]) -> ResourceView:
        return ResourceView("kubernetes:core/v1:NodePatch", "gpu-01", {"metadata": {
            "name": "gpu-01", "labels": {"accelfit.io/gpu-model": "h100-80gb", "accelfit.io/gpu-count": "8"},
            "annotations": annotations}})
    limit = (owned_server_cost(700, 8, {}).hourly_usd + owned_server_cost(700, 8, dear).hourly_usd) / 2 * 730
    settings = {"maxMonthlyUsd": limit, "figure": "full_scale_monthly_usd"}
    assert check_budget([node({})], settings) == []
    [(message, _)] = check_budget([node(ownership_annotations(dear))], settings)
    assert "gpu-01" in message and "over by" in message


POWER_EXPORT = """\
# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-a",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-01"} 512.0
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-b",modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-01"} 488.0
"""


def test_measured_power_draw_is_the_energy_term_of_plan_and_preview_alike(catalog, tmp_path, monkeypatch, capsys):
    # calibrate reads DCGM's power draw (no --kind: power alone) into the team file; the plan's energy term then
    # uses 500 W per GPU instead of the catalog's 700 W, says so, and the node carries it for the preview.
    from accelfit.calibration.store import load_team_efficiency
    from accelfit.cli.main import main

    export, team_path = tmp_path / "power.prom", tmp_path / "efficiency.yaml"
    export.write_text(POWER_EXPORT)
    assert main(["calibrate", str(export), "--output", str(team_path)]) == 0
    assert "power     h100-80gb    500 W per GPU (mean over 2 GPUs)" in capsys.readouterr().out
    team = load_team_efficiency(team_path)
    assert team is not None and team.power_for("h100-80gb").power_w == 500.0 and not team.training

    spec = load_workload(EXAMPLE).spec
    measured = plan(spec, catalog, Environment("dev", inventory_with({}), efficiency=team))
    catalog_power = planned(catalog, {})
    [pool] = [pool for pool in measured.node_pools if pool.role == "gpu"]
    assert pool.measured_power_w == 500.0
    statement = next(line for line in measured.estimate.cost_assumptions if line.startswith("Owned servers"))
    assert "from 500 W per GPU measured by `accelfit calibrate`" in statement
    # Only the energy (marginal, for the run's hours) moves: by 500/700 of the catalog power's.
    assert measured.estimate.monthly_usd < catalog_power.estimate.monthly_usd
    energy = [float(re.search(r"energy \$([\d,]+) at full use", line).group(1).replace(",", ""))
              for plan_ in (measured, catalog_power) for line in plan_.estimate.cost_assumptions
              if line.startswith("Owned servers")]
    assert energy[0] / energy[1] == pytest.approx(500 / 700, rel=0.01)
    annotations = ownership_annotations({}, pool.measured_power_w)
    assert preview_hourly(catalog, annotations) == pytest.approx(owned_server_cost(500, 8, {}).hourly_usd)
    assert preview_hourly(catalog, ownership_annotations({})) == pytest.approx(owned_server_cost(700, 8, {}).hourly_usd)


@pytest.mark.parametrize("watts", ["0", "-5", "2500"])
def test_an_impossible_power_draw_exits_2_and_writes_nothing(tmp_path, capsys, watts):
    from accelfit.cli.main import main

    export, team_path = tmp_path / "power.prom", tmp_path / "efficiency.yaml"
    export.write_text(POWER_EXPORT.replace("512.0", watts))
    assert main(["calibrate", str(export), "--output", str(team_path)]) == 2
    err = capsys.readouterr().err
    assert "DCGM_FI_DEV_POWER_USAGE" in err and "watts" in err and not team_path.exists()


def test_past_the_amortizations_end_the_servers_are_paid_for_in_plan_and_preview(catalog):
    # Bought in 2020 and amortized over 36 months: by today the acquisition is paid; plan and preview (which reads
    # the purchase date off the node) both charge rack, staff and energy only, and the plan says why.
    old = {"purchase_usd_per_server": 215000, "purchased": "2020-01-01", "amortization_months": 36}
    result = planned(catalog, old)
    statement = next(line for line in result.estimate.cost_assumptions if line.startswith("Owned servers"))
    assert "acquisition $0" in statement and "amortized until 2023-01: paid for since then" in statement
    figures = {key: value for key, value in old.items() if key != "purchased"}
    annotations = ownership_annotations(figures, purchased=dt.date(2020, 1, 1))
    assert annotations["accelfit.io/owned-purchased"] == "2020-01-01"
    paid = owned_server_cost(700, 8, figures, dt.date(2020, 1, 1), as_of=dt.date.today())
    assert paid.acquisition_monthly_usd == 0 and preview_hourly(catalog, annotations) == pytest.approx(paid.hourly_usd)
    # Bought recently: still paying, in both.
    recent = owned_server_cost(700, 8, figures, dt.date.today().replace(day=1), as_of=dt.date.today())
    assert recent.acquisition_monthly_usd == pytest.approx(215000 / 36)
    assert preview_hourly(catalog, ownership_annotations(figures, purchased=dt.date.today().replace(day=1))) == \
        pytest.approx(recent.hourly_usd)
    # The day the amortization ends, the charge stops.
    ends = dt.date(2023, 1, 1)
    assert owned_server_cost(700, 8, figures, dt.date(2020, 1, 1), as_of=ends - dt.timedelta(days=1)) \
        .acquisition_monthly_usd > 0
    assert owned_server_cost(700, 8, figures, dt.date(2020, 1, 1), as_of=ends).acquisition_monthly_usd == 0
