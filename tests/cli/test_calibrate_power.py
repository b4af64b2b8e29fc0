"""Power draw in (issue 38): `accelfit calibrate` reads DCGM_FI_DEV_POWER_USAGE from a dcgm-exporter export and
records it per accelerator; a plan on owned servers prices their energy with it instead of the catalog's board
power, says so, and the stack's nodes carry it, so the preview prices the same; an impossible draw is exit 2."""

from __future__ import annotations

import pytest
import yaml

from accelfit.calibration import store
from accelfit.cli.main import main
from accelfit.preview.run import preview_stack
from accelfit.pricing.onprem import HOST_POWER_FACTOR, MEASURED_POWER_ANNOTATION as POWER_ANNOTATION
from tests.preview.test_preview_stack import with_secrets_set

H100 = 'modelName="NVIDIA H100 80GB HBM3",Hostname="gpu-01"'
POWER_EXPORT = f"""\
# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{{gpu="0",UUID="GPU-a",{H100}}} 610.0
DCGM_FI_DEV_POWER_USAGE{{gpu="1",UUID="GPU-b",{H100}}} 590.0
DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{{gpu="0",UUID="GPU-a",{H100}}} 0.44
"""
STACK = "example-onprem-h100"


@pytest.fixture()
def team_file(tmp_path, monkeypatch):
    path = tmp_path / "share" / "efficiency.yaml"
    monkeypatch.setenv(store.ENV_VAR, str(path))
    return path


def calibrate(capsys, tmp_path, text: str) -> tuple[int, str, str]:
    export = tmp_path / "dcgm.prom"
    export.write_text(text)
    code = main(["calibrate", str(export), "--kind", "training"])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_power_draw_is_recorded_per_accelerator(capsys, tmp_path, team_file):
    code, out, err = calibrate(capsys, tmp_path, POWER_EXPORT)
    assert code == 0, err
    written = yaml.safe_load(team_file.read_text())
    assert written["power"] == [{"accelerator": "h100-80gb", "power_w": 600.0, "gpus": 2,
                                 "source": "dcgm.prom (2 GPUs)"}]
    assert written["training"][0]["mfu"] == pytest.approx(0.44)  # the efficiency figure as before
    assert "600 W per GPU" in out


def test_an_export_of_power_alone_records_the_power_alone(capsys, tmp_path, team_file):
    only_power = "".join(line + "\n" for line in POWER_EXPORT.splitlines() if "TENSOR" not in line)
    code, _, err = calibrate(capsys, tmp_path, only_power)
    assert code == 0, err
    written = yaml.safe_load(team_file.read_text())
    assert written["power"][0]["power_w"] == 600.0 and written["training"] == []


def test_an_impossible_draw_is_exit_2_naming_the_line(capsys, tmp_path, team_file):
    code, _, err = calibrate(capsys, tmp_path, POWER_EXPORT.replace("610.0", "610000"))  # milliwatts
    assert code == 2 and "line 3" in err and "watts" in err and "Traceback" not in err
    assert not team_file.exists()


def owned_energy(document: dict) -> float:
    """The energy kW the plan's owned-server statement gives."""
    [statement] = [text for text in document["plan"]["estimate"]["cost_assumptions"]
                   if text.startswith("Owned servers")]
    return float(statement.split("at full use (")[1].split(" kW")[0])


def test_owned_plans_price_energy_with_the_measured_draw_and_the_preview_agrees(capsys, tmp_path, team_file):
    before = preview_stack(STACK, with_secrets_set(STACK)).document
    assert calibrate(capsys, tmp_path, POWER_EXPORT)[0] == 0
    after = preview_stack(STACK, with_secrets_set(STACK)).document
    # 8 GPUs x 600 W x the host factor, against the catalog's 700 W H100 SXM before.
    assert owned_energy(after) == pytest.approx(round(8 * 600 * HOST_POWER_FACTOR / 1000, 1), abs=0.05)
    assert owned_energy(before) == pytest.approx(round(8 * 700 * HOST_POWER_FACTOR / 1000, 1), abs=0.05)
    measured = [pool.get("measured_power_w") for pool in after["plan"]["node_pools"] if pool["role"] == "gpu"]
    assert measured == [600.0] and all("measured_power_w" not in pool for pool in before["plan"]["node_pools"])
    assert after["plan"]["estimate"]["run_total_usd"] < before["plan"]["estimate"]["run_total_usd"]
    for document in (before, after):  # plan = preview, each way
        assert document["cost"]["run_total_usd"] == pytest.approx(document["plan"]["estimate"]["run_total_usd"],
                                                                  abs=0.05)
        assert document["cost"]["monthly_usd"] == pytest.approx(document["plan"]["estimate"]["monthly_usd"],
                                                                abs=0.05)
    patches = [row["inputs"]["metadata"] for row in after["resources"] if row["type"] == "kubernetes:core/v1:NodePatch"]
    assert patches and all(patch["annotations"][POWER_ANNOTATION] == "600" for patch in patches)
