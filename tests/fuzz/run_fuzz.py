"""Run the fuzz corpus against the `accelfit` command and report tracebacks, hangs and wrong exit codes.

    .venv/bin/python tests/fuzz/run_fuzz.py                 # the whole corpus (several minutes on 2 cores)
    .venv/bin/python tests/fuzz/run_fuzz.py --quick         # a fixed sample of about 60 light cases
    .venv/bin/python tests/fuzz/run_fuzz.py --only lock-    # cases whose id starts with a prefix
    .venv/bin/python tests/fuzz/run_fuzz.py --surfaces      # catalog, calibration, lock writes, settings, secrets
    .venv/bin/python tests/fuzz/run_fuzz.py --hostile       # issue 36: URIs, option separators, IAM, credentials, names
    .venv/bin/python tests/fuzz/run_fuzz.py --report out.json

Each case runs `python -m accelfit.cli.main ARGS` in its own process, in a scratch copy of the project, with a
timeout. A case fails when the process prints a Python traceback, dies from a signal (a segfault), runs past the
timeout (a hang), exits with a code the case does not allow, changes a file it must leave intact ("damaged"),
prints a secret planted in its input ("leak"), builds user text into syntax (an "injection": a preview whose
document injection_oracle.py finds a command, mount option, IAM value or name that a value changed), or leaves a
file no longer accepted by the follow-up command (e.g. a locked stack file `check` refuses).
Every case runs with XDG_DATA_HOME in the scratch tree, so the user's own
catalog and efficiency file are never touched. Exit code 0 when every case passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from fuzz_corpus import ROOT, SURFACE_PREFIXES, Case, all_cases
from hostile_corpus import HOSTILE_PREFIXES
from injection_oracle import injections

TIMEOUT_S = 60.0
HEAVY_TIMEOUT_S = 180.0
PROJECT_PARTS = ("Pulumi.yaml", "stacks", "policies/config", "examples")


@dataclass
class Outcome:
    case: Case
    code: int | None
    seconds: float
    problem: str | None
    stderr_tail: str


def quick_sample(cases: list[Case], size: int = 60) -> list[Case]:
    """A fixed, spread-out sample of light cases: every kind of input is represented, the run stays short."""
    light = [case for case in cases if not case.heavy]
    step = max(1, len(light) // size)
    return light[::step][:size]


def make_project(target: Path, own: dict[str, bytes] | None = None) -> Path:
    target.mkdir(parents=True, exist_ok=True)
    for part in PROJECT_PARTS:
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, target / part, dirs_exist_ok=True)
        elif source.is_file():
            (target / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / part)
    for relative, data in (own or {}).items():
        (target / relative).write_bytes(data)
    return target


def make_special(kind: str, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        return
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "directory":
        path.mkdir()
    elif kind == "symlink-loop":
        path.symlink_to(path.name + "-b")
        (path.parent / (path.name + "-b")).symlink_to(path.name)
    elif kind == "long-path":
        # The name is replaced by a 5,000-character path at run time (see `argv_for`).
        path.write_text("name: x\n")
    elif kind == "binary":
        path.write_bytes(bytes(range(256)) * 8)
    elif kind == "latin1":
        path.write_bytes("name: caf\xe9\nkind: training\n".encode("latin-1"))
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "huge":
        with path.open("wb") as handle:
            handle.truncate(20 * 1024 * 1024)
    elif kind == "deep-json":
        path.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    elif kind == "deep-yaml":
        path.write_bytes(b"a: " + b"[" * 100_000 + b"]" * 100_000 + b"\n")
    elif kind == "alias-bomb":
        lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
        lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
        path.write_text("\n".join(lines) + "\nname: *a8\n")
    elif kind == "nul-in-name":
        path.write_text("name: x\n")
    elif kind == "symlink-to-victim":
        # A symlink planted where a careless writer would put its temporary file (`<file>.tmp`).
        path.symlink_to(path.parent / "victim.txt")
    else:
        raise ValueError(kind)


def argv_for(case: Case) -> list[str]:
    argv = list(case.argv)
    for kind, relative in case.specials:
        if kind == "long-path" and relative in argv:
            argv[argv.index(relative)] = "./" * 2500 + relative
        if kind == "nul-in-name" and relative in argv:
            argv[argv.index(relative)] = relative + "\0x"
    return argv


def case_env(case: Case, scratch: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONFAULTHANDLER": "1", "COLUMNS": "120", "XDG_DATA_HOME": str(scratch / "xdg"),
            "ACCELFIT_LOCKED": "", **case.env}


def prepare(case: Case, cwd: Path) -> None:
    for relative, data in case.files.items():
        target = cwd / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    for kind, relative in case.specials:
        target = cwd / relative
        if kind == "directory" and target.is_file():
            target.unlink()
        make_special(kind, target)


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "accelfit.cli.main", *argv], cwd=cwd, capture_output=True,
                          timeout=timeout, check=False, stdin=subprocess.DEVNULL, env=env)


def run_case(case: Case, shared: Path, scratch: Path) -> Outcome:
    cwd = shared
    if case.own_project is not None:
        cwd = make_project(scratch / "projects" / case.id, case.own_project)
    env = case_env(case, scratch)
    for command in case.setup:
        try:
            done = _run(list(command), cwd, env, HEAVY_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return Outcome(case, None, 0.0, "setup hang", "")
        if done.returncode != 0:
            return Outcome(case, done.returncode, 0.0, f"setup {' '.join(command)[:60]} exit {done.returncode}",
                           done.stderr.decode("utf-8", "replace")[-400:])
    prepare(case, cwd)
    before = _digest(cwd / case.keep_intact) if case.keep_intact else None
    always = _digest(cwd / case.keep_always) if case.keep_always else None
    argv = argv_for(case)
    if any("\0" in part for part in argv):
        # No process can receive a NUL in an argument; the OS refuses before accelfit runs. Nothing to test.
        return Outcome(case, 2, 0.0, None, "")
    timeout = HEAVY_TIMEOUT_S if case.heavy else TIMEOUT_S
    started = time.perf_counter()
    try:
        done = _run(argv, cwd, env, timeout)
    except subprocess.TimeoutExpired as expired:
        tail = (expired.stderr or b"").decode("utf-8", "replace")[-400:]
        return Outcome(case, None, time.perf_counter() - started, f"hang (no exit after {timeout:.0f} s)", tail)
    seconds = time.perf_counter() - started
    stderr = done.stderr.decode("utf-8", "replace")
    tail = stderr[-600:]
    problem = None
    if "Traceback (most recent call last)" in stderr or "Fatal Python error" in stderr:
        problem = "traceback"
    elif done.returncode < 0:
        problem = f"killed by signal {-done.returncode}"
    elif done.returncode not in case.expected:
        problem = f"exit {done.returncode}, expected {sorted(case.expected)}"
    elif before is not None and done.returncode != 0 and _digest(cwd / case.keep_intact) != before:
        problem = f"damaged: {case.keep_intact} changed although the command failed"
    elif always is not None and _digest(cwd / case.keep_always) != always:
        problem = f"damaged: {case.keep_always} changed"
    elif case.secret and (case.secret.encode() in done.stdout or case.secret.encode() in done.stderr):
        problem = "leak: the planted secret is in the output"
    elif case.oracle and done.returncode == 0 and (found := oracle_findings(done.stdout)):
        problem = f"injection: {found[0][:160]}"
    elif len(done.stderr) + len(done.stdout) > output_limit(case):
        problem = f"unbounded output ({len(done.stderr) + len(done.stdout):,} bytes)"
    elif _temporaries(cwd, case):
        problem = f"damaged: temporary files left behind ({', '.join(_temporaries(cwd, case))[:200]})"
    elif case.followup is not None and done.returncode == 0:
        follow = _run(list(case.followup), cwd, env, HEAVY_TIMEOUT_S)
        if follow.returncode != 0 or b"Traceback" in follow.stderr:
            problem = f"damaged: `{' '.join(case.followup)[:60]}` exits {follow.returncode} afterwards"
            tail = follow.stderr.decode("utf-8", "replace")[-600:]
    return Outcome(case, done.returncode, seconds, problem, tail)


def output_limit(case: Case) -> int:
    """Bytes a case may print: a `preview --json` document of a serving stack is a few hundred kB by design."""
    return 4_000_000 if case.oracle else 200_000


def oracle_findings(stdout: bytes) -> list[str]:
    """What injection_oracle finds in a `preview --json` document; output that is not one is itself a finding."""
    try:
        document = json.loads(stdout.decode("utf-8"))
    except ValueError:
        return ["the preview printed no JSON document to check"]
    return injections(document)


def _temporaries(cwd: Path, case: Case) -> list[str]:
    """Temporary copies a writer left next to the files this case wrote or kept (`.<name>.*.tmp`)."""
    left = []
    for relative in {*case.files, case.keep_intact, case.keep_always} - {None}:
        path = cwd / relative
        if path.parent.is_dir():
            left += [entry.name for entry in path.parent.glob(f".{path.name}.*.tmp")]
    return sorted(left)


def input_identity(case: Case) -> str:
    """What a case feeds accelfit, apart from the command line: its files, its project files, its special files."""
    digest = hashlib.sha256()
    for name, data in sorted({**case.files, **(case.own_project or {})}.items()):
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    digest.update(repr(case.specials).encode())
    return digest.hexdigest()


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="run the fixed light sample only")
    parser.add_argument("--only", metavar="PREFIX", help="only cases whose id starts with PREFIX")
    parser.add_argument("--skip-heavy", action="store_true", help="leave out the preview cases")
    parser.add_argument("--hostile", action="store_true",
                        help="only issue 36's families: shell metacharacters in every URI form, option separators, "
                             "IAM wildcards, credential shapes, derived-name lengths (hostile_corpus.py)")
    parser.add_argument("--surfaces", action="store_true",
                        help="only the cases of the catalog import and cache, calibration, lock writes, the lock "
                             "setting and secrets (fuzz_corpus.SURFACE_PREFIXES)")
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
    parser.add_argument("--report", type=Path, help="write every outcome as JSON here")
    args = parser.parse_args()

    cases = all_cases()
    if args.quick:
        cases = quick_sample(cases)
    if args.only:
        cases = [case for case in cases if case.id.startswith(args.only)]
    if args.surfaces:
        cases = [case for case in cases if case.id.startswith(SURFACE_PREFIXES)]
    if args.hostile:
        cases = [case for case in cases if case.id.startswith(HOSTILE_PREFIXES)]
    if args.skip_heavy:
        cases = [case for case in cases if not case.heavy]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="accelfit-fuzz-") as temporary:
        scratch = Path(temporary)
        shared = make_project(scratch / "project")
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            outcomes = list(pool.map(lambda case: run_case(case, shared, scratch), cases))
    failed = [outcome for outcome in outcomes if outcome.problem]
    kinds: dict[str, int] = {}
    for outcome in failed:
        key = outcome.problem.split(" (")[0].split(",")[0].split(":")[0] if outcome.problem else ""
        key = "wrong exit" if key.startswith("exit ") else key
        kinds[key] = kinds.get(key, 0) + 1
    for outcome in failed:
        last = outcome.stderr_tail.strip().splitlines()[-1:] or [""]
        print(f"FAIL {outcome.case.id}: {outcome.problem} :: {' '.join(argv_for(outcome.case))[:120]} :: "
              f"{last[0][:200]}")
    inputs = len({input_identity(case) for case in cases})
    print(f"\n{len(cases)} invocations over {inputs} inputs in {time.perf_counter() - started:.0f} s: "
          f"{len(cases) - len(failed)} passed, {len(failed)} failed "
          f"({', '.join(f'{count} {kind}' for kind, count in sorted(kinds.items())) or 'none'})")
    if args.report:
        args.report.write_text(json.dumps([{
            "id": o.case.id, "argv": argv_for(o.case)[:8], "code": o.code, "seconds": round(o.seconds, 2),
            "problem": o.problem, "stderr_tail": o.stderr_tail} for o in outcomes], indent=1), encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
