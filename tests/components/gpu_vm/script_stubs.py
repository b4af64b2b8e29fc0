"""Stub binaries for running the rendered GPU VM startup script and its helpers on the test machine: each stub
records its argument vector (NUL-separated, one call per line group) and does the least its real counterpart does
that the script depends on (copy an archive, print a GPU utilization, answer the metadata server)."""

from __future__ import annotations

import os
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

# Every stub appends "name\0arg1\0arg2...\n" to $STUB_LOG, holding a lock while it does: the two ends of a pipe
# (`aws ecr get-login-password | docker login`) run at once, and their records must not interleave.
_RECORD = '{ flock 9; printf "%s" "$(basename "$0")" >> "$STUB_LOG"; ' \
          'for a in "$@"; do printf "\\0%s" "$a" >> "$STUB_LOG"; done; printf "\\n" >> "$STUB_LOG"; } 9>>"$STUB_LOG.lock"\n'

STUBS = {
    # Copies the test archive to the destination of `storage cp SRC DST`; other calls only record.
    "gcloud": 'if [ "$1" = storage ] && [ "$2" = cp ]; then cp "$STUB_ARCHIVE" "$4"; fi\n',
    "aws": ('if [ "$1" = s3 ] && [ "$2" = cp ]; then cp "$STUB_ARCHIVE" "$4"; fi\n'
            'if [ "$1" = ecr ]; then echo ecr-token; fi\n'),
    "git": 'if [ "$3" = rev-parse ]; then echo "$STUB_COMMIT"; fi\n',
    "docker": 'if [ "$1" = login ]; then cat > "$STUB_LOG.stdin"; fi\n',
    "nvidia-smi": 'printf "%s\\n" ${STUB_GPU_UTILIZATION:-0 0}\n',
    "nvidia-ctk": "",
    "systemctl": ('if [ "$1" = is-active ]; then echo "${STUB_JOB_STATE:-inactive}"; '
                  '[ "${STUB_JOB_STATE:-}" = active ]; exit; fi\n'),
    "curl": ('case "$*" in *instance/name) echo vm-1 ;; *instance/zone) echo projects/123/zones/us-central1-a ;; '
             'esac\n'),
    "logger": "",
    "shutdown": "",
}


@dataclass
class StubbedVm:
    """A root directory for the script, stub binaries on PATH, and the calls they recorded."""

    root: Path
    bin: Path
    log: Path
    archive: Path
    commit: str = "0123456789abcdef0123456789abcdef01234567"

    @classmethod
    def make(cls, tmp_path: Path) -> StubbedVm:
        root, stubs = tmp_path / "root", tmp_path / "bin"
        root.mkdir()
        stubs.mkdir()
        for name, body in STUBS.items():
            path = stubs / name
            path.write_text("#!/bin/bash\n" + _RECORD + body, encoding="utf-8")
            path.chmod(0o755)
        source = tmp_path / "code"
        source.mkdir()
        (source / "train.py").write_text("print('train')\n", encoding="utf-8")
        archive = tmp_path / "code.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(source / "train.py", arcname="train.py")
        return cls(root=root, bin=stubs, log=tmp_path / "calls.log", archive=archive)

    def env(self, **extra: str) -> dict[str, str]:
        return {"PATH": f"{self.bin}:/usr/bin:/bin", "ACCELFIT_ROOT": str(self.root), "STUB_LOG": str(self.log),
                "STUB_ARCHIVE": str(self.archive), "STUB_COMMIT": self.commit, "HOME": str(self.root),
                "LANG": "C.UTF-8", **extra}

    def run(self, script: Path | str, **extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", str(script)], env=self.env(**extra), capture_output=True, text=True,
                              timeout=60, check=False)

    def helper(self, name: str, **extra: str) -> subprocess.CompletedProcess:
        return self.run(self.root / "usr/local/sbin" / name, **extra)

    def calls(self, name: str | None = None) -> list[list[str]]:
        if not self.log.exists():
            return []
        rows = [line.split("\0") for line in self.log.read_text(encoding="utf-8").splitlines()]
        return [row[1:] for row in rows if name is None or row[0] == name] if name else rows

    def forget(self) -> None:
        if self.log.exists():
            os.remove(self.log)

    @property
    def job_dir(self) -> Path:
        return self.root / "var/lib/accelfit/job"
