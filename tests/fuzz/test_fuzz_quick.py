"""A fixed sample of the fuzz corpus, run in-process so it takes seconds: no traceback, no hang, the right exit
code, and files left intact. The whole corpus runs out of process with `.venv/bin/python tests/fuzz/run_fuzz.py`."""

from __future__ import annotations

import hashlib
import signal
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fuzz_corpus import all_cases  # noqa: E402
from run_fuzz import argv_for, make_project, make_special, quick_sample  # noqa: E402

from accelfit.cli.main import main  # noqa: E402

CASE_TIMEOUT_S = 30
SAMPLE = quick_sample(all_cases(), size=40)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return make_project(tmp_path_factory.mktemp("fuzz") / "project")


def _alarm(signum, frame):  # noqa: ARG001
    raise TimeoutError(f"no exit after {CASE_TIMEOUT_S} s: a hang")


@pytest.mark.parametrize("case", SAMPLE, ids=[case.id for case in SAMPLE])
def test_fuzz_case(case, project, tmp_path, monkeypatch, capsys):
    cwd = project if case.own_project is None else make_project(tmp_path / "own", case.own_project)
    for relative, data in case.files.items():
        (cwd / relative).parent.mkdir(parents=True, exist_ok=True)
        (cwd / relative).write_bytes(data)
    for kind, relative in case.specials:
        make_special(kind, cwd / relative)
    argv = argv_for(case)
    if any("\0" in part for part in argv):
        pytest.skip("no process receives a NUL in an argument")
    kept = (cwd / case.keep_intact).read_bytes() if case.keep_intact else None
    monkeypatch.chdir(cwd)
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_TIMEOUT_S)
    try:
        code = main(argv)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    out, err = capsys.readouterr()
    assert code in case.expected, f"exit {code}, expected {sorted(case.expected)}: {err[-500:]}"
    assert len(out) + len(err) < 200_000, "unbounded output"
    if code == 2:
        assert "error: " in err, "exit 2 must explain itself on stderr"
    if kept is not None and code != 0:
        assert hashlib.sha256((cwd / case.keep_intact).read_bytes()).digest() == hashlib.sha256(kept).digest()


def test_the_corpus_covers_every_kind_of_input():
    ids = [case.id for case in all_cases()]
    for prefix in ("check-spec-", "check-inv-", "check-stack-", "plan-project-", "diff-", "cost-", "check-odd-",
                   "lock-layout-", "preview-stack-"):
        assert any(case_id.startswith(prefix) for case_id in ids), prefix
    assert len(ids) > 1000
