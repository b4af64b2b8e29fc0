"""`accelfit tco` (issue 38): buy versus rent over a utilization curve, with a break-even checked by hand from the
stated inputs, the curve's three forms, the chart, and bad curves refused with exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from accelfit.cli.main import cli
from accelfit.pricing.onprem import owned_server_cost
from accelfit.pricing.tco import RentOption, break_even_utilization, compare

ROOT = Path(__file__).resolve().parents[2]
# Every figure given, so the break-even below rests on stated inputs only (no default).
OWNERSHIP = {"purchase_usd_per_server": 240000, "amortization_months": 24, "energy_usd_per_kwh": 0.10, "pue": 1.5,
             "rack_power_kw": 20, "colocation_usd_per_rack_month": 3000, "staff_usd_per_server_year": 12000}


def project(tmp_path: Path, ownership: dict = OWNERSHIP) -> Path:
    (tmp_path / "inventories").mkdir(parents=True)
    data = yaml.safe_load((ROOT / "examples" / "inventories" / "lab-rack-a.yaml").read_text())
    (tmp_path / "inventories" / "lab-rack-a.yaml").write_text(yaml.safe_dump({**data, "ownership": ownership}))
    spec = tmp_path / "spec.yaml"
    spec.write_text((ROOT / "examples" / "onprem-training.yaml").read_text())
    return spec


def run(*args: str):
    return CliRunner().invoke(cli, ["tco", *args])


def test_break_even_by_hand_from_the_stated_inputs(tmp_path):
    done = run(str(project(tmp_path)), "--utilization", "0.5", "--months", "30", "--json")
    assert done.exit_code == 0, done.output
    document = json.loads(done.output)
    assert document["owned"]["defaults"] == []  # every figure is an input
    assert document["inputs"]["server_kw"] == pytest.approx(8.4)  # 700 W board x 8 GPUs x 1.5 host
    servers = document["inputs"]["servers"]
    # Per server-month: acquisition 240000/24 = 10000, rack 3000 / (20 kW // 8.4 kW = 2 per rack) = 1500,
    # staff 12000/12 = 1000; energy at full use 8.4 kW x 1.5 x $0.10 x 730 h = 919.80.
    assert document["owned"]["per_server_monthly_usd"] == {"acquisition": 10000.0, "rack": 1500.0, "staff": 1000.0,
                                                           "energy_at_full_use": 919.8}
    on_demand = next(row for row in document["options"] if row["cloud"] == "gcp" and row["pricing"] == "on-demand")
    rent_full = on_demand["hourly_usd"] * 730  # per instance-month at full use
    # Owning = 12500 + 919.8 u, renting = rent_full u per server: equal at u = 12500 / (rent_full - 919.8).
    assert on_demand["break_even_utilization"] == pytest.approx(12500 / (rent_full - 919.8), abs=1e-4)
    # Cumulative, at u = 0.5: owning pays 240000 up front then 2500 + 459.9 a month; renting 0.5 x rent_full.
    month = next(m for m in range(1, 31) if m * 0.5 * rent_full >= 240000 + m * (2500 + 459.9))
    assert on_demand["break_even_month"] == month
    assert on_demand["cumulative_usd"][-1] == pytest.approx(servers * 30 * 0.5 * rent_full, abs=0.05)
    assert document["owned"]["cumulative_usd"][-1] == pytest.approx(servers * (240000 + 30 * 2959.9), abs=0.05)


def test_committed_use_bills_the_whole_term_and_spot_the_hours():
    owned = owned_server_cost(700, 8, OWNERSHIP)
    committed = RentOption("gcp", "a3-highgpu-8g", "committed-3y", "us-central1", 40.0, 1, True)
    spot = RentOption("gcp", "a3-highgpu-8g", "spot", "us-central1", 10.0, 1, True)
    result = compare(owned, 1, (committed, spot), (0.1, 0.1))
    assert result.comparisons[0].cumulative_usd == (40.0 * 730, 80.0 * 730)
    assert result.comparisons[1].cumulative_usd == pytest.approx((730.0, 1460.0))


def test_break_even_verdicts():
    assert break_even_utilization(100, 50, 0, 200) == (pytest.approx(100 / 150), "owning is cheaper above 67% "
                                                                               "utilization")
    assert break_even_utilization(100, 50, 1000, 0)[1] == "owning is cheaper at every utilization"
    assert break_even_utilization(1000, 50, 0, 200)[1] == "renting is cheaper at every utilization"


def test_an_input_moves_the_answer(tmp_path):
    cheap = json.loads(run(str(project(tmp_path / "a")), "--utilization", "0.5", "--json").output)
    dear = json.loads(run(str(project(tmp_path / "b", {**OWNERSHIP, "purchase_usd_per_server": 480000})),
                          "--utilization", "0.5", "--json").output)
    pick = lambda doc: next(r for r in doc["options"] if r["cloud"] == "gcp" and r["pricing"] == "on-demand")  # noqa: E731
    assert pick(dear)["break_even_utilization"] > pick(cheap)["break_even_utilization"]


def test_monthly_figures_and_a_csv_set_the_horizon(tmp_path):
    spec = project(tmp_path)
    listed = json.loads(run(str(spec), "--utilization", "0.2,0.4,0.8", "--json").output)
    assert listed["months"] == 3 and listed["inputs"]["utilization"] == [0.2, 0.4, 0.8]
    curve = tmp_path / "curve.csv"
    curve.write_text("month,utilization\n1,0.2\n2,0.4\n3,0.8\n")
    from_csv = json.loads(run(str(spec), "--utilization", str(curve), "--json").output)
    assert from_csv["options"] == listed["options"]


def test_the_chart_is_written(tmp_path):
    chart = tmp_path / "tco.png"
    done = run(str(project(tmp_path)), "--utilization", "0.6", "--months", "12", "--chart", str(chart))
    assert done.exit_code == 0, done.output
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "assumptions:" in done.output and "pays back" in done.output


@pytest.mark.parametrize(("curve", "months", "said"), [
    ("1.5", None, "1.5 is outside 0 to 1"), ("sixty", None, "'sixty' is not a number"),
    ("0.2,,0.4", None, "'' is not a number"), ("0.2,0.4", "5", "5 months, but the curve has 2 figures")])
def test_a_bad_curve_exits_2_naming_the_flag_and_fix(tmp_path, curve, months, said):
    args = [str(project(tmp_path)), "--utilization", curve] + (["--months", months] if months else [])
    done = run(*args)
    assert done.exit_code == 2, done.output
    assert said in done.output and "Fix:" in done.output
    assert ("--months" if months else "--utilization") in done.output


def test_a_cloud_spec_is_refused(tmp_path):
    done = run(str(ROOT / "examples" / "jax-pretrain.yaml"), "--utilization", "0.5")
    assert done.exit_code == 2 and "placement.inventory" in done.output
