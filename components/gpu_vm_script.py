"""The GPU VM startup script (GCE startup-script metadata, EC2 user data), rendered from
templates/gpu_vm_startup.sh.tmpl: the autostop idle check as a systemd timer, and the job (training.code,
training.image, training.command) as a systemd unit that runs at every boot until it succeeds once. Pure.

Every `{{ name }}` placeholder is filled with a shell-quoted value (shlex.quote); rendering fails on a placeholder
without a value and on a value without a placeholder. The command reaches the VM base64-encoded, so no quoting in
it can break the script; the code and image were validated by accelfit.spec.job_source and are passed to gcloud,
aws, git and docker as quoted arguments only.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from accelfit.clouds import cloud_named
from accelfit.planner.software import baremetal_gpu_driver
from accelfit.spec.job_source import parse_code, parse_image
from accelfit.cloudrules.baremetal.host_software import host_packages, repositories, words

TEMPLATES = Path(__file__).parent / "templates"
TEMPLATE = TEMPLATES / "gpu_vm_startup.sh.tmpl"
# Shared shell parts: the fingerprint-checked apt repository and pinned install functions of host preparation.
SHARED_PARTS = Path(__file__).parent / "baremetal" / "templates"
_PLACEHOLDER = re.compile(r"\{\{ ([a-z_]+) \}\}")
_INCLUDE = re.compile(r"^# @include (\S+)$", re.MULTILINE)
# A GPU at or above this utilization (percent, nvidia-smi's sampled utilization.gpu) counts as busy: a job that
# loads data between steps still shows single-digit figures, an idle GPU shows 0.
BUSY_UTILIZATION_PCT = 5


@dataclass(frozen=True)
class GpuVmJob:
    """What the VM runs: the spec's training.command, code and image (all optional)."""

    command: str | None = None
    code: str | None = None
    image: str | None = None

    @property
    def key(self) -> str:
        """Identifies the job: a changed command, code or image is a new job that runs again."""
        text = "\0".join(value or "" for value in (self.command, self.code, self.image))
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@functools.cache
def _template() -> str:
    text = TEMPLATE.read_text(encoding="utf-8")
    return _INCLUDE.sub(lambda match: (SHARED_PARTS / match.group(1)).read_text(encoding="utf-8").rstrip("\n"), text)


def _job_values(job: GpuVmJob) -> dict[str, str]:
    code = parse_code(job.code) if job.code else None
    image = parse_image(job.image) if job.image else None
    auth = "" if image is None or image.cloud is None else cloud_named(image.cloud).registry_auth
    return {
        "job_key": job.key,
        "encoded_command": base64.b64encode(job.command.encode()).decode() if job.command else "",
        "code_kind": code.kind if code else "", "code_url": code.url if code else "",
        "code_commit": (code.commit or "") if code else "",
        "image": image.reference if image else "", "image_registry": image.registry if image else "",
        "image_auth": auth, "ecr_region": (image.ecr_region or "") if image else "",
    }


def _toolkit_values() -> dict[str, str]:
    repository = repositories()["container_toolkit"]
    return {"toolkit_repo_url": repository.url, "toolkit_key_url": repository.key_url,
            "toolkit_fingerprint": repository.fingerprint, "toolkit_keyring": repository.keyring,
            "toolkit_list": repository.list, "toolkit_version": baremetal_gpu_driver()["container_toolkit"],
            "toolkit_packages": words(host_packages()["packages"]["container_toolkit"])}


def render_startup_script(cloud: str, idle_minutes: int, action: str, job: GpuVmJob, *, bucket_url: str,
                          group: str = "") -> str:
    """The script for one VM. `bucket_url`: the stack's bucket (gs://NAME or s3://NAME), given to the job as
    $ACCELFIT_BUCKET_URL. `group`: on Compute Engine, the managed instance group autostop acts through."""
    if not cloud_named(cloud).vm_platform or action not in ("stop", "delete") or idle_minutes < 1:
        raise ValueError(f"unsupported GPU VM script: cloud {cloud!r}, action {action!r}, {idle_minutes} min")
    if cloud_named(cloud).vm_in_instance_group != bool(group):
        raise ValueError("a Compute Engine VM's script names its managed instance group; an EC2 one none")
    values = {
        "cloud": cloud, "idle_minutes": str(int(idle_minutes)), "action": action,
        "busy_utilization_pct": str(BUSY_UTILIZATION_PCT), "group": group, "bucket_url": bucket_url,
        **_job_values(job), **_toolkit_values(),
    }
    template = _template()
    names = set(_PLACEHOLDER.findall(template))
    if names != set(values):
        raise ValueError(f"template and values differ: {sorted(names ^ set(values))}")
    return _PLACEHOLDER.sub(lambda match: shlex.quote(values[match.group(1)]), template)
