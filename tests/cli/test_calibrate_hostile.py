"""`accelfit calibrate` on hostile input (issue 29): implausible or idle measurements, Prometheus JSON of the wrong
shape, binary and latin-1 files, an Excel BOM, booleans for numbers, huge exports, FIFOs: exit 2 naming the file
and field, no traceback, the efficiency file untouched; the file is written through an exclusive temporary file
(a symlink planted at the old fixed temporary name is never followed) and a symlinked efficiency file stays a
link."""

from __future__ import annotations

import json
import os
import time

import pytest

from accelfit.calibration import store
from accelfit.cli.main import main

HEADER = "kind,accelerator,count,model,precision,tokens_per_second,mfu\n"
GOOD = HEADER + "training,H100,64,8B,bf16,659333,\n"


@pytest.fixture()
def team_file(tmp_path, monkeypatch):
    path = tmp_path / "share" / "efficiency.yaml"
    monkeypatch.setenv(store.ENV_VAR, str(path))
    return path


def run(capsys, *args):
    code = main([str(arg) for arg in args])
    out, err = capsys.readouterr()
    return code, out, err


def _good(tmp_path, capsys, team_file) -> bytes:
    runs = tmp_path / "good.csv"
    runs.write_text(GOOD)
    assert run(capsys, "calibrate", runs)[0] == 0
    return team_file.read_bytes()


PROM = {"status": "success", "data": {"resultType": "matrix", "result": None}}


def _prom(result) -> str:
    return json.dumps({**PROM, "data": {**PROM["data"], "result": result}})


CASES = {
    "tiny-mfu.csv": (HEADER + "training,H100,64,8B,bf16,,0.00001\n", [], "rows[0].mfu"),
    "one-token.csv": (HEADER + "training,H100,64,8B,bf16,1,\n", [], "rows[0].tokens_per_second"),
    "count-true.yaml": ("- {kind: training, accelerator: H100, count: true, model: 8B, mfu: 0.4}\n", [],
                        "count"),
    "mfu-inf.yaml": ("- {kind: training, accelerator: H100, count: 8, model: 8B, mfu: .inf}\n", [], "mfu"),
    "extra-cells.csv": (HEADER + "training,H100,64,8B,bf16,659333,,x,y\n", [], "more cells"),
    "idle.prom": ('DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu="0",modelName="NVIDIA H100 80GB HBM3"} 0.0\n',
                  ["--kind", "training"], "idle"),
    "map.json": (_prom({"a": 1}), ["--kind", "training"], "data.result"),
    "string.json": (_prom("DCGM"), ["--kind", "training"], "data.result"),
    "int.json": (_prom(3), ["--kind", "training"], "data.result"),
    "item-string.json": (_prom(["x"]), ["--kind", "training"], "data.result[0]"),
    "metric-list.json": (_prom([{"metric": [1], "values": [[0, "0.5"]]}]), ["--kind", "training"], "data.result[0]"),
    "values-map.json": (_prom([{"metric": {"__name__": "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"}, "values": {"a": 1}}]),
                        ["--kind", "training"], "values"),
    "bool-sample.json": (_prom([{"metric": {"__name__": "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"}, "values": [[0, True]]}]),
                         ["--kind", "training"], "values[0]"),
    "nan-sample.prom": ('DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu="0",modelName="NVIDIA H100 80GB HBM3"} NaN\n',
                        ["--kind", "training"], "ratio"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_measurements_are_exit_2_and_keep_the_file(tmp_path, capsys, team_file, name):
    before = _good(tmp_path, capsys, team_file)
    text, options, field = CASES[name]
    path = tmp_path / name
    path.write_text(text)
    code, out, err = run(capsys, "calibrate", path, *options)
    assert code == 2, out + err
    assert field in err and "Fix:" in err and "Traceback" not in err
    assert team_file.read_bytes() == before


@pytest.mark.parametrize(("name", "data", "words"), [
    ("binary.csv", b"\x00\x01\x02kind\n", "binary"),
    ("latin1.csv", HEADER.encode() + "training,H100,64,8B,bf16,659333,caf\xe9\n".encode("latin-1"), "UTF-8"),
    ("latin1.prom", 'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{modelName="caf\xe9"} 0.4\n'.encode("latin-1"), "UTF-8"),
    ("latin1.json", b'{"data": {"resultType": "vector", "result": [], "x": "\xe9"}}', "UTF-8"),
])
def test_binary_and_latin1_files_are_exit_2(tmp_path, capsys, team_file, name, data, words):
    path = tmp_path / name
    path.write_bytes(data)
    code, _, err = run(capsys, "calibrate", path, "--kind", "training")
    assert code == 2 and words in err and "Traceback" not in err
    assert not team_file.exists()


def test_an_excel_bom_csv_is_read(tmp_path, capsys, team_file):
    path = tmp_path / "excel.csv"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.replace("\n", "\r\n").encode())
    code, out, err = run(capsys, "calibrate", path)
    assert code == 0, err
    assert "MFU 50.0%" in out


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "directory"])
def test_not_regular_files_are_refused_at_once(tmp_path, capsys, team_file, kind):
    path = tmp_path / "runs.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    started = time.monotonic()
    code, _, err = run(capsys, "calibrate", path, "--kind", "training")
    assert code == 2 and str(path) in err and time.monotonic() - started < 10


def test_a_two_million_point_export_is_refused_quickly(tmp_path, capsys, team_file):
    points = ",".join(f"[{i},\"0.5\"]" for i in range(2_000_000))
    text = ('{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":'
            '"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE","modelName":"NVIDIA H100 80GB HBM3"},"values":[' + points + "]}]}}")
    path = tmp_path / "range.json"
    path.write_text(text)
    started = time.monotonic()
    code, _, err = run(capsys, "calibrate", path, "--kind", "training")
    assert code == 2 and time.monotonic() - started < 30, err
    assert "more than" in err


def test_a_symlink_planted_at_the_old_temporary_name_is_not_followed(tmp_path, capsys, team_file):
    _good(tmp_path, capsys, team_file)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (team_file.parent / "efficiency.yaml.tmp").symlink_to(victim)
    runs = tmp_path / "again.csv"
    runs.write_text(GOOD)
    assert run(capsys, "calibrate", runs)[0] == 0
    assert victim.read_text() == "keep me"
    assert [path.name for path in team_file.parent.iterdir() if path.name.startswith(".")] == []


def test_a_symlinked_efficiency_file_stays_a_link(tmp_path, capsys, team_file):
    real = tmp_path / "shared" / "team.yaml"
    real.parent.mkdir()
    team_file.parent.mkdir(parents=True)
    team_file.symlink_to(real)
    runs = tmp_path / "good.csv"
    runs.write_text(GOOD)
    assert run(capsys, "calibrate", runs)[0] == 0
    assert team_file.is_symlink() and "mfu: 0.5" in real.read_text()
