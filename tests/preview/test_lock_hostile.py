"""`accelfit lock` keeps what the user has (issue 29): YAML-special workload names, comments inside the selection
block, a BOM, a missing final newline, a symlinked stack file (its target written), the owner, hard links (refused,
never split), no temporary copy left by an error or a kill, a file system without locks (ENOLCK), and a
`gcp:project` that is not a project id fails plan and lock as it fails check."""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from accelfit import atomicwrite, lockfile
from accelfit.cli.main import main
from accelfit.errors import InputError
from accelfit.planner.lock import Selection

ROOT = Path(__file__).resolve().parents[2]
DEV = (ROOT / "stacks" / "Pulumi.dev.yaml").read_text(encoding="utf-8")
SELECTION = Selection(option="gke-tpu/gcp/us-central1/tpu-v6e/v6e-4/x1/spot", locked_on=dt.date(2026, 11, 23),
                      catalog_as_of=dt.date(2026, 11, 21), monthly_usd=57.98, total_usd=48.21)
KEY = "accelfit:selection"
MINIMAL = "config:\n  accelfit:team: research\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "Pulumi.yaml", tmp_path / "Pulumi.yaml")
    (tmp_path / "stacks").mkdir()
    return tmp_path


def _stack(project: Path, text: str | bytes) -> Path:
    path = project / "stacks" / "Pulumi.dev.yaml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def _leftovers(folder: Path) -> list[str]:
    return [path.name for path in folder.iterdir() if path.name.endswith(".tmp")]


@pytest.mark.parametrize("name", ["on", "off", "yes", "no", "true", "false", "null", "y", "n", "1e3", "0x10",
                                  "NULL", "plain-name"])
def test_yaml_special_workload_names_lock(project, name):
    path = _stack(project, MINIMAL)
    lockfile.write_selection(path, "accelfit", {name: SELECTION, "other": SELECTION})
    written = yaml.safe_load(path.read_text())["config"][KEY]
    assert set(written) == {name, "other"}
    assert Selection.model_validate(written[name]) == SELECTION


def test_a_comment_indented_under_the_selection_block_survives_relock(project):
    path = _stack(project, MINIMAL)
    lockfile.write_selection(path, "accelfit", SELECTION)
    text = path.read_text().replace(f"  {KEY}:\n", f"  {KEY}:\n    # pinned after the capacity review, see TICKET-12\n")
    path.write_text(text)
    later = SELECTION.model_copy(update={"monthly_usd": 60.0})
    lockfile.write_selection(path, "accelfit", later)
    after = path.read_text()
    assert "    # pinned after the capacity review, see TICKET-12\n" in after
    assert Selection.model_validate(yaml.safe_load(after)["config"][KEY]) == later
    lockfile.write_selection(path, "accelfit", SELECTION)
    assert path.read_text().count("TICKET-12") == 1


@pytest.mark.parametrize("bom", [True, False])
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("final", [True, False])
def test_bom_line_endings_and_final_newline_are_kept(project, bom, newline, final):
    body = MINIMAL.replace("\n", newline)
    if not final:
        body = body[: -len(newline)]
    data = ("\ufeff" if bom else "").encode() + body.encode()
    path = _stack(project, data)
    lockfile.write_selection(path, "accelfit", SELECTION)
    after = path.read_bytes()
    assert after.startswith("\ufeff".encode()) == bom
    assert after.endswith(newline.encode()) == final
    assert (b"\r\n" in after) == (newline == "\r\n") and (newline == "\r\n" or b"\r" not in after)


def test_a_symlinked_stack_file_stays_a_link_and_its_target_is_written(project, tmp_path):
    real = tmp_path / "shared" / "Pulumi.dev.yaml"
    real.parent.mkdir()
    real.write_text(MINIMAL)
    link = project / "stacks" / "Pulumi.dev.yaml"
    link.symlink_to(real)
    lockfile.write_selection(link, "accelfit", SELECTION)
    assert link.is_symlink() and KEY in real.read_text()
    assert _leftovers(real.parent) == [] and _leftovers(link.parent) == []


def test_a_hard_linked_stack_file_is_refused_not_split(project, tmp_path):
    path = _stack(project, MINIMAL)
    other = tmp_path / "other-name.yaml"
    os.link(path, other)
    with pytest.raises(InputError) as caught:
        lockfile.write_selection(path, "accelfit", SELECTION)
    assert "hard links" in caught.value.problems[0].message and "nothing was written" in caught.value.problems[0].message
    assert path.read_text() == MINIMAL and os.stat(path).st_ino == os.stat(other).st_ino


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_the_owner_and_mode_are_kept(project):
    path = _stack(project, MINIMAL)
    os.chown(path, 4321, 4322)
    os.chmod(path, 0o640)
    lockfile.write_selection(path, "accelfit", SELECTION)
    info = os.stat(path)
    assert (info.st_uid, info.st_gid, info.st_mode & 0o777) == (4321, 4322, 0o640)


def test_an_owner_that_cannot_be_kept_is_refused(project, monkeypatch):
    path = _stack(project, MINIMAL)

    def not_allowed(*_args):
        raise PermissionError(errno.EPERM, "Operation not permitted")

    real_stat = os.stat

    def owned_by_someone_else(target, *args, **kwargs):
        info = real_stat(target, *args, **kwargs)
        if str(target).endswith("Pulumi.dev.yaml"):
            return os.stat_result((info.st_mode, info.st_ino, info.st_dev, info.st_nlink, 4321, 4321, *info[6:]))
        return info

    monkeypatch.setattr(os, "fchown", not_allowed)
    monkeypatch.setattr(atomicwrite.os, "stat", owned_by_someone_else)
    with pytest.raises(InputError) as caught:
        atomicwrite.write_atomically(path, b"config: {}\n", what="the stack file")
    assert "another user" in caught.value.problems[0].message
    assert path.read_text() == MINIMAL and _leftovers(path.parent) == []


def test_a_failed_write_leaves_no_temporary_copy(project, monkeypatch):
    path = _stack(project, MINIMAL)

    def full(*_args):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomicwrite.os, "fsync", full)
    with pytest.raises(InputError) as caught:
        lockfile.write_selection(path, "accelfit", SELECTION)
    assert "No space left" in caught.value.problems[0].message
    assert path.read_text() == MINIMAL and _leftovers(path.parent) == []


KILLED = textwrap.dedent("""
    import os, sys, time, datetime as dt
    from pathlib import Path
    from accelfit import atomicwrite, lockfile
    from accelfit.planner.lock import Selection
    real = atomicwrite.os.fsync
    def slow(fd):
        print("writing", flush=True)
        time.sleep(30)
        real(fd)
    atomicwrite.os.fsync = slow
    selection = Selection(option="gke-tpu/gcp/us-central1/tpu-v6e/v6e-4/x1/spot", locked_on=dt.date(2026, 11, 23),
                          catalog_as_of=dt.date(2026, 11, 21), monthly_usd=57.98, total_usd=48.21)
    lockfile.write_selection(Path(sys.argv[1]), "accelfit", selection)
""")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_kill_during_the_write_leaves_the_file_and_no_copy(project, signum):
    path = _stack(project, MINIMAL + "  accelfit:joinToken: plaintext-secret\n")
    before = path.read_bytes()
    child = subprocess.Popen([sys.executable, "-c", KILLED, str(path)], stdout=subprocess.PIPE, cwd=ROOT)
    assert child.stdout.readline().strip() == b"writing"
    child.send_signal(signum)
    child.wait(timeout=20)
    assert child.returncode != 0
    assert path.read_bytes() == before and _leftovers(path.parent) == []


def test_a_sigkill_copy_is_removed_by_the_next_lock(project):
    path = _stack(project, MINIMAL)
    stale = path.parent / f".{path.name}.abc123{atomicwrite.TEMP_SUFFIX}"
    stale.write_text("copy with secrets")
    lockfile.write_selection(path, "accelfit", SELECTION)
    assert not stale.exists()


def test_enolck_is_a_clear_error(project, monkeypatch):
    path = _stack(project, MINIMAL)

    def no_locks(*_args):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    with pytest.raises(InputError) as caught:
        lockfile.write_selection(path, "accelfit", SELECTION)
    problem = caught.value.problems[0]
    assert "does not support file locks" in problem.message and "NFS" in problem.message and problem.fix
    assert path.read_text() == MINIMAL


@pytest.mark.parametrize("command", ["check", "plan", "lock"])
@pytest.mark.parametrize("value", ["true", "123", "[a]", "Not_A_Project"])
def test_a_gcp_project_that_is_not_a_project_id_fails_every_stack_command(project, monkeypatch, capsys, command,
                                                                          value):
    text = DEV
    if "gcp:project:" in text:
        text = "\n".join(f"  gcp:project: {value}" if line.strip().startswith("gcp:project:") else line
                         for line in text.splitlines()) + "\n"
    else:
        text = text.replace("config:\n", f"config:\n  gcp:project: {value}\n", 1)
    path = _stack(project, text)
    before = path.read_bytes()
    monkeypatch.chdir(project)
    code = main(["check", str(path)] if command == "check" else [command, "--stack", "dev"])
    err = capsys.readouterr().err
    assert code == 2 and "gcp:project" in err and "Traceback" not in err
    assert path.read_bytes() == before
