"""Every case of the hostile-credential-files fuzz family (tests/fuzz/fuzz_credentials.py), in process: exit 2 as a
credentials error with the login command (not some other refusal), no traceback, no hang (each case under an
alarm), bounded output. Files are laid out by the corpus runner's own `prepare`."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fuzz_credentials import PREFIX, credential_cases
from run_fuzz import argv_for, make_project, prepare

from accelfit.cli.main import main

pytest.importorskip("boto3", reason="the preflight extra is not installed")
pytest.importorskip("google.cloud.compute_v1", reason="the preflight extra is not installed")

CASES = credential_cases()


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return make_project(tmp_path_factory.mktemp("fuzz-credentials") / "project")


def _alarm(signum, frame):  # noqa: ARG001
    raise TimeoutError("no exit after 30 s: a hang")


@pytest.mark.parametrize("case", CASES, ids=[case.id.removeprefix(PREFIX) for case in CASES])
def test_hostile_credentials_case(case, project, tmp_path, monkeypatch, capsys):
    cwd = tmp_path / "project"
    cwd.symlink_to(project, target_is_directory=True)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(cwd)
    prepare(case, cwd)
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(30)
    try:
        code = main(argv_for(case))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    out, err = capsys.readouterr()
    assert code == 2, out[-300:] + err[-500:]
    assert "Traceback" not in err and len(out) + len(err) < 20_000
    cloud = "gcp" if "gcp" in case.argv[-1] else "aws"
    assert f"error: {cloud} credentials: " in err, err[-500:]
    assert ("gcloud auth application-default login" if cloud == "gcp" else "aws configure") in err


def test_the_family_covers_every_hostile_kind_for_every_file():
    ids = {case.id.removeprefix(PREFIX) for case in CASES}
    for kind in ("directory", "fifo", "dev-zero", "huge", "symlink-loop", "binary"):
        for where in ("gac", "gcloud-adc", "aws-config", "aws-credentials"):
            assert f"{where}-{kind}" in ids
    assert {"aws-profile-missing", "gac-missing", "aws-config-garbage", "aws-credentials-garbage"} <= ids
