"""`accelfit calibrate` end to end: measured runs (CSV, JSON, a DCGM export) -> the team efficiency file -> plans
that use it and say so; impossible or incomplete measurements exit 2 naming the field and write nothing."""

from __future__ import annotations

import json

import pytest
import yaml

from accelfit.calibration import store
from accelfit.cli.main import main

# 0.5 MFU on 64 H100: 6 x 8e9 x tokens/s = 0.5 x 64 x 989e12  ->  659,333 tokens/s.
RUNS_CSV = """\
kind,accelerator,count,model,precision,tokens_per_second,requests_per_second,input_tokens,output_tokens,latency_p99_ms,note
training,H100,64,8B,bf16,659333,,,,,pretraining week 3
serving,l4,4,8B,bf16,,6,512,128,,vLLM load test at saturation
"""

TRAINING_SPEC = """\
name: pretrain
kind: training
framework: pytorch
model: {parameters: 8B, precision: bf16}
training: {tokens: 200B, deadline_days: 14}
placement: {clouds: [aws], accelerators: [h100-80gb]}
"""

SERVING_SPEC = """\
name: chat
kind: inference
framework: pytorch
model: {parameters: 8B, precision: bf16}
inference: {requests_per_second: 4, input_tokens: 512, output_tokens: 128, latency_p99_ms: 60000, traffic: steady}
placement: {clouds: [aws], accelerators: [l4]}
"""

DCGM_EXPORT = """\
# HELP DCGM_FI_PROF_PIPE_TENSOR_ACTIVE Ratio of cycles the tensor (HMMA) pipe is active.
# TYPE DCGM_FI_PROF_PIPE_TENSOR_ACTIVE gauge
DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu="0",UUID="GPU-a",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 0.44
DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu="1",UUID="GPU-b",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 0.46
DCGM_FI_PROF_DRAM_ACTIVE{gpu="0",UUID="GPU-a",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 0.31
"""


@pytest.fixture()
def team_file(tmp_path, monkeypatch):
    path = tmp_path / "share" / "efficiency.yaml"
    monkeypatch.setenv(store.ENV_VAR, str(path))
    return path


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def plan_json(capsys, tmp_path, text):
    spec = tmp_path / "spec.yaml"
    spec.write_text(text)
    code, out, err = run(capsys, "plan", str(spec), "--json")
    assert code == 0, err
    return json.loads(out)


def test_measured_runs_become_the_team_figures_plans_use(capsys, tmp_path, monkeypatch, team_file):
    before_training = plan_json(capsys, tmp_path, TRAINING_SPEC)
    before_serving = plan_json(capsys, tmp_path, SERVING_SPEC)
    measurements = tmp_path / "runs.csv"
    measurements.write_text(RUNS_CSV)

    code, out, err = run(capsys, "calibrate", str(measurements))
    assert code == 0, err
    assert f"wrote {team_file}" in out
    written = yaml.safe_load(team_file.read_text())
    (training,) = written["training"]
    assert training["accelerator"] == "h100-80gb" and training["mfu"] == pytest.approx(0.5, abs=0.001)
    (serving,) = written["serving"]
    assert serving["accelerator"] == "l4" and 0 < serving["decode_bandwidth"] <= 1

    after_training = plan_json(capsys, tmp_path, TRAINING_SPEC)
    assert after_training["estimate"]["mfu"] == pytest.approx(0.5, abs=0.001)
    assert before_training["estimate"]["mfu"] == pytest.approx(0.4)
    assert after_training["estimate"]["accelerator_hours"] < before_training["estimate"]["accelerator_hours"]
    assert any(reason.startswith("Calibration: MFU 50%") and str(team_file) in reason
               for reason in after_training["reasons"])
    assert not any(reason.startswith("Calibration:") for reason in before_training["reasons"])

    after_serving = plan_json(capsys, tmp_path, SERVING_SPEC)
    assert any(reason.startswith("Calibration: serving efficiency for l4") for reason in after_serving["reasons"])
    # 6 req/s measured on 4 L4 is slower than the catalog's figures predict: the plan asks for at least as many.
    assert after_serving["accelerator"]["count"] >= before_serving["accelerator"]["count"]


def test_json_runs_and_a_dcgm_export(capsys, tmp_path, team_file):
    runs = tmp_path / "runs.json"
    runs.write_text(json.dumps({"runs": [{"kind": "training", "accelerator": "a100-80gb", "count": 8,
                                          "model": "7B", "step_time_s": 4.0, "tokens_per_step": 131072}]}))
    assert run(capsys, "calibrate", str(runs))[0] == 0
    export = tmp_path / "dcgm.prom"
    export.write_text(DCGM_EXPORT)
    code, _out, err = run(capsys, "calibrate", str(export), "--kind", "training")
    assert code == 0, err
    written = yaml.safe_load(team_file.read_text())
    figures = {figure["accelerator"]: figure for figure in written["training"]}
    assert figures["h100-80gb"]["mfu"] == pytest.approx(0.45) and figures["h100-80gb"]["runs"] == 1
    assert figures["a100-80gb"]["mfu"] == pytest.approx(6 * 7e9 * 131072 / 4.0 / (8 * 312e12), abs=1e-4)


@pytest.mark.parametrize(("text", "suffix", "field", "extra"), [
    ("kind,accelerator,count,model,tokens_per_second\ntraining,h100,8,70B,90000\n", ".csv",
     "rows[0].tokens_per_second", ()),  # MFU about 4.8: impossible
    ("kind,accelerator,count,model,mfu\ntraining,h100,8,70B,1.3\n", ".csv", "rows[0].mfu", ()),
    ("kind,accelerator,count,model,requests_per_second,input_tokens\nserving,l4,1,8B,2,512\n", ".csv",
     "rows[0].output_tokens", ()),
    ("kind,accelerator,count,model\ntraining,h100,8,70B\n", ".csv", "rows[0].tokens_per_second", ()),
    ("kind,accelerator,count,model,requests_per_second,input_tokens,output_tokens\n"
     "serving,l4,1,1B,900,512,512\n", ".csv", "rows[0].requests_per_second", ()),
    ("kind,accelerator,count,model,mfu\ntraining,h900,8,70B,0.4\n", ".csv", "rows[0].accelerator", ()),
    (DCGM_EXPORT, ".prom", "--kind", ()),
    (DCGM_EXPORT.replace("0.44", "44"), ".prom", "line 3", ("--kind", "training")),
    (DCGM_EXPORT.replace(',modelName="NVIDIA H100 80GB HBM3"', ""), ".prom", "line 3.modelName",
     ("--kind", "training")),
])
def test_bad_measurements_exit_2_naming_the_field_and_write_nothing(capsys, tmp_path, team_file, text, suffix,
                                                                    field, extra):
    measurements = tmp_path / f"bad{suffix}"
    measurements.write_text(text)
    code, _, err = run(capsys, "calibrate", str(measurements), *extra)
    assert code == 2
    assert f"{measurements}: {field}" in err
    assert "Traceback" not in err
    assert not team_file.exists()


def test_the_documented_example_file_calibrates(capsys, tmp_path):
    from pathlib import Path

    example = Path(__file__).parents[2] / "examples" / "calibration" / "measured-runs.csv"
    output = tmp_path / "team.yaml"
    code, _out, err = run(capsys, "calibrate", str(example), "--output", str(output))
    assert code == 0, err
    written = yaml.safe_load(output.read_text())
    assert {figure["accelerator"] for figure in written["training"]} == {"h100-80gb", "a100-80gb"}
    assert {figure["accelerator"] for figure in written["serving"]} == {"h100-80gb", "l4"}


def test_a_prometheus_query_api_export_for_serving(capsys, tmp_path, team_file):
    def series(metric, gpu, values):
        return {"metric": {"__name__": metric, "gpu": gpu, "modelName": "NVIDIA L4", "Hostname": "n1"},
                "values": [[1700000000 + index * 15, str(value)] for index, value in enumerate(values)]}

    export = tmp_path / "query.json"
    export.write_text(json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [
        series("DCGM_FI_PROF_DRAM_ACTIVE", "0", [0.6, 0.7]),
        series("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "0", [0.2, 0.3]),
    ]}}))
    code, _, err = run(capsys, "calibrate", str(export), "--kind", "serving")
    assert code == 0, err
    (figure,) = yaml.safe_load(team_file.read_text())["serving"]
    assert figure["accelerator"] == "l4"
    assert figure["decode_bandwidth"] == pytest.approx(0.65) and figure["prefill_compute"] == pytest.approx(0.25)


MOE_RUNS_CSV = """\
kind,accelerator,count,model,active_parameters,experts,experts_per_token,precision,tokens_per_second,note
training,h100-80gb,1024,671B,37B,256,8,fp8,1328128,DeepSeek-V3 at 1297 tokens/s per GPU (Megatron-Bridge 25.09)
"""

MOE_SPEC = """\
name: moe
kind: training
framework: pytorch
model: {parameters: 671B, active_parameters: 37B, experts: 256, experts_per_token: 8, precision: fp8}
training: {tokens: 1T, deadline_days: 30}
placement: {clouds: [aws], accelerators: [h100-80gb]}
"""


def test_moe_runs_calibrate_from_the_active_parameters(capsys, tmp_path, team_file):
    """6 x 37B x tokens/s over 1,024 H100: MFU 0.29 against BF16; the MoE (x0.64) and FP8 (x1.3) factors the planner
    applies are divided out, so the plan of the same model runs at the measured MFU again."""
    measurements = tmp_path / "moe.csv"
    measurements.write_text(MOE_RUNS_CSV)
    code, _out, err = run(capsys, "calibrate", str(measurements))
    assert code == 0, err
    (training,) = yaml.safe_load(team_file.read_text())["training"]
    measured = 6 * 37e9 * 1328128 / (1024 * 989e12)
    assert training["mfu"] == pytest.approx(measured / (0.64 * 1.3), abs=0.002)
    planned = plan_json(capsys, tmp_path, MOE_SPEC)
    assert planned["estimate"]["mfu"] == pytest.approx(measured, rel=0.05)


def test_moe_run_with_more_active_than_total_is_refused(capsys, tmp_path, team_file):
    measurements = tmp_path / "bad.csv"
    measurements.write_text(MOE_RUNS_CSV.replace("671B,37B", "37B,671B"))
    code, _, err = run(capsys, "calibrate", str(measurements))
    assert code == 2 and "active_parameters" in err and not team_file.exists()
