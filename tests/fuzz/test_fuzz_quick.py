"""A fixed sample of the fuzz corpus, run in-process so it takes seconds: no traceback, no hang, the right exit
code, and files left intact. The whole corpus runs out of process with `.venv/bin/python tests/fuzz/run_fuzz.py`."""

from __future__ import annotations

import hashlib
import json
import signal
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fuzz_corpus import SURFACE_PREFIXES, all_cases
from hostile_corpus import HOSTILE_PREFIXES
from injection_oracle import injections
from run_fuzz import argv_for, make_project, make_special, output_limit, quick_sample

from accelfit.catalog import loader
from accelfit.cli.main import main

CASE_TIMEOUT_S = 30
SAMPLE = quick_sample(all_cases(), size=40)
# The surfaces of issue 29 (catalog import and cache, calibration, lock writes, settings, secrets): a sample of
# their own, so the general sample's spread does not leave them out.
SURFACE_SAMPLE = [case for case in quick_sample([case for case in all_cases() if case.id.startswith(SURFACE_PREFIXES)],
                                                size=24) if case.id not in {sample.id for sample in SAMPLE}]
# Issue 36's families (hostile_corpus.py): a spread of the light cases, and three previews the injection oracle
# reads (a shell-metacharacter s3 key, an IAM wildcard, a 40-character multi-node server with a standby pool).
_HOSTILE = [case for case in all_cases() if case.id.startswith(HOSTILE_PREFIXES)]
HOSTILE_SAMPLE = [case for case in quick_sample(_HOSTILE, size=20) if case.id not in {c.id for c in SAMPLE}] + [
    case for case in _HOSTILE if case.id in ("preview-uri-s3-ampersand", "preview-iam-star-suffix", "preview-names-40")]


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return make_project(tmp_path_factory.mktemp("fuzz") / "project")


def _alarm(signum, frame):  # noqa: ARG001
    raise TimeoutError(f"no exit after {CASE_TIMEOUT_S} s: a hang")


@pytest.mark.parametrize("case", SAMPLE + SURFACE_SAMPLE + HOSTILE_SAMPLE,
                         ids=[case.id for case in SAMPLE + SURFACE_SAMPLE + HOSTILE_SAMPLE])
def test_fuzz_case(case, project, tmp_path, monkeypatch, capsys):
    cwd = project if case.own_project is None else make_project(tmp_path / "own", case.own_project)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("ACCELFIT_LOCKED", "")
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(cwd)
    loader.forget_active()
    for command in case.setup:
        assert main(list(command)) == 0, f"setup {command} failed: {capsys.readouterr().err[-500:]}"
    capsys.readouterr()
    for relative, data in case.files.items():
        (cwd / relative).parent.mkdir(parents=True, exist_ok=True)
        (cwd / relative).write_bytes(data)
    for kind, relative in case.specials:
        make_special(kind, cwd / relative)
    argv = argv_for(case)
    if any("\0" in part for part in argv):
        pytest.skip("no process receives a NUL in an argument")
    kept = (cwd / case.keep_intact).read_bytes() if case.keep_intact else None
    always = (cwd / case.keep_always).read_bytes() if case.keep_always else None
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_TIMEOUT_S)
    try:
        code = main(argv)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    out, err = capsys.readouterr()
    assert code in case.expected, f"exit {code}, expected {sorted(case.expected)}: {err[-500:]}"
    assert len(out) + len(err) < output_limit(case), "unbounded output"
    if code == 2:
        assert "error: " in err, "exit 2 must explain itself on stderr"
    if kept is not None and code != 0:
        assert hashlib.sha256((cwd / case.keep_intact).read_bytes()).digest() == hashlib.sha256(kept).digest()
    if always is not None:
        assert (cwd / case.keep_always).read_bytes() == always, f"{case.keep_always} damaged"
    if case.secret:
        assert case.secret not in out + err, "the planted secret is in the output"
    if case.oracle and code == 0:
        assert injections(json.loads(out)) == [], "user text became syntax in the preview"
    if case.followup is not None and code == 0:
        loader.forget_active()
        assert main(list(case.followup)) == 0, f"{case.followup} fails afterwards: {capsys.readouterr().err[-500:]}"
    loader.forget_active()


def test_the_corpus_covers_every_kind_of_input():
    ids = [case.id for case in all_cases()]
    for prefix in ("check-spec-", "check-inv-", "check-stack-", "plan-project-", "diff-", "cost-", "check-odd-",
                   "lock-layout-", "preview-stack-", "check-uri-s3-", "check-uri-gs-", "check-uri-hf-",
                   "check-optsep-", "preview-iam-", "check-cred-", "preview-names-"):
        assert any(case_id.startswith(prefix) for case_id in ids), prefix
    assert len(ids) > 1000
