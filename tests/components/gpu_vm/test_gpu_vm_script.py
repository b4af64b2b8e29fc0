"""The GPU VM startup script: golden files, shellcheck, and the script run for real against stub binaries
(gcloud, aws, git, docker, nvidia-smi, systemctl...) under a scratch root, asserting what it installs and what each
helper calls with which arguments."""

from __future__ import annotations

import base64
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from components.gpu_vm_script import GpuVmJob, render_startup_script
from tests.components.gpu_vm.script_stubs import StubbedVm

GOLDEN = Path(__file__).parent / "golden"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
GIT = f"https://github.com/acme/lora-ft.git@{COMMIT}"
AR_IMAGE = "us-docker.pkg.dev/acme-ml/jobs/lora-ft:v3"
ECR_IMAGE = "123456789012.dkr.ecr.us-east-1.amazonaws.com/lora-ft:v3"
CASES = {
    "startup-gcp-stop.sh": ("gcp", 30, "stop", GpuVmJob("torchrun train.py", "gs://acme-jobs/lora/code.tar.gz"),
                            "gs://lora-ft-data-1234", "lora-ft-gpu"),
    "startup-aws-delete.sh": ("aws", 45, "delete", GpuVmJob(), "s3://lora-ft-data-1234", ""),
    "startup-aws-image.sh": ("aws", 30, "stop", GpuVmJob("python train.py", image=ECR_IMAGE),
                             "s3://lora-ft-data-1234", ""),
}
HELPERS = ("accelfit-idle-check", "accelfit-fetch", "accelfit-run-job", "accelfit-job-pending",
           "accelfit-job-finished")
needs_shellcheck = pytest.mark.skipif(shutil.which("shellcheck") is None,
                                      reason="shellcheck not installed (./dev test installs it as root with apt)")


def _render(name: str) -> str:
    cloud, minutes, action, job, bucket, group = CASES[name]
    return render_startup_script(cloud, minutes, action, job, bucket_url=bucket, group=group)


def _script(tmp_path: Path, cloud: str, job: GpuVmJob, action: str = "stop") -> Path:
    path = tmp_path / "startup.sh"
    path.write_text(render_startup_script(cloud, 30, action, job, bucket_url=f"{'gs' if cloud == 'gcp' else 's3'}"
                                          "://lora-ft-data-1234", group="lora-ft-gpu" if cloud == "gcp" else ""),
                    encoding="utf-8")
    return path


def _booted(tmp_path: Path, cloud: str, job: GpuVmJob, action: str = "stop") -> StubbedVm:
    vm = StubbedVm.make(tmp_path)
    result = vm.run(_script(tmp_path, cloud, job, action))
    assert result.returncode == 0, result.stderr
    return vm


@pytest.mark.parametrize("name", sorted(CASES))
def test_script_matches_golden(name):
    assert _render(name) == (GOLDEN / name).read_text(encoding="utf-8")


@needs_shellcheck
@pytest.mark.parametrize("name", sorted(CASES))
def test_script_passes_shellcheck(name, tmp_path):
    script = tmp_path / name
    script.write_text(_render(name), encoding="utf-8")
    result = subprocess.run(["shellcheck", "-s", "bash", str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


@needs_shellcheck
def test_installed_helpers_pass_shellcheck(tmp_path):
    vm = _booted(tmp_path, "gcp", GpuVmJob("python train.py", image=AR_IMAGE))
    helpers = [str(vm.root / "usr/local/sbin" / name) for name in HELPERS]
    result = subprocess.run(["shellcheck", "-s", "bash", *helpers], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


# --- what the script installs and starts -------------------------------------------------------------------------

def test_boot_installs_the_units_and_starts_the_job(tmp_path):
    vm = _booted(tmp_path, "gcp", GpuVmJob("torchrun train.py", "gs://acme-jobs/lora/code.tar.gz"))
    assert vm.calls("systemctl") == [["daemon-reload"], ["enable", "--now", "accelfit-idle.timer"],
                                     ["enable", "accelfit-job.service"], ["start", "--no-block", "accelfit-job.service"]]
    unit = (vm.root / "etc/systemd/system/accelfit-job.service").read_text()
    assert "ExecStartPre=/usr/local/sbin/accelfit-fetch" in unit and "TimeoutStartSec=infinity" in unit
    assert "ExecCondition=/usr/local/sbin/accelfit-job-pending" in unit and "WantedBy=multi-user.target" in unit
    assert (vm.root / "etc/accelfit/command.sh").read_text() == "torchrun train.py"
    assert not vm.calls("gcloud")  # nothing is fetched by the script itself: the unit does, at every boot


def test_a_vm_without_command_or_image_boots_idle(tmp_path):
    vm = _booted(tmp_path, "aws", GpuVmJob(), action="delete")
    assert vm.calls("systemctl") == [["daemon-reload"], ["enable", "--now", "accelfit-idle.timer"]]


def test_the_command_runs_only_as_the_job_never_in_the_startup_script(tmp_path):
    hostile = "touch \"$ACCELFIT_ROOT/pwned\"; echo 'it''s' $(echo ok) > said.txt"
    vm = _booted(tmp_path, "aws", GpuVmJob(hostile))
    script = _script(tmp_path, "aws", GpuVmJob(hostile)).read_text()
    assert hostile not in script and base64.b64encode(hostile.encode()).decode() in script
    assert not (vm.root / "pwned").exists()
    result = vm.helper("accelfit-run-job")
    assert result.returncode == 0, result.stderr
    assert (vm.root / "pwned").exists() and (vm.job_dir / "said.txt").read_text() == "its ok\n"


# --- fetching the code -------------------------------------------------------------------------------------------

def test_a_gcs_archive_is_copied_with_the_vms_identity_and_unpacked_once(tmp_path):
    vm = _booted(tmp_path, "gcp", GpuVmJob("python train.py", "gs://acme-jobs/lora/code.tar.gz"))
    result = vm.helper("accelfit-fetch")
    assert result.returncode == 0, result.stderr
    [copy] = vm.calls("gcloud")
    assert copy[:3] == ["storage", "cp", "gs://acme-jobs/lora/code.tar.gz"] and copy[3].endswith("/code.tar")
    assert (vm.job_dir / "train.py").read_text() == "print('train')\n"
    vm.forget()
    assert vm.helper("accelfit-fetch").returncode == 0 and not vm.calls("gcloud")  # a restart keeps the job dir


def test_an_s3_archive_is_copied_with_the_instance_role(tmp_path):
    vm = _booted(tmp_path, "aws", GpuVmJob("python train.py", "s3://acme-jobs/lora/code.tgz"))
    assert vm.helper("accelfit-fetch").returncode == 0
    [copy] = vm.calls("aws")
    assert copy[:3] == ["s3", "cp", "s3://acme-jobs/lora/code.tgz"]
    assert (vm.job_dir / "train.py").exists()


def test_a_git_commit_is_fetched_and_checked_out_exactly(tmp_path):
    vm = _booted(tmp_path, "gcp", GpuVmJob("python train.py", GIT))
    result = vm.helper("accelfit-fetch")
    assert result.returncode == 0, result.stderr
    job = str(vm.job_dir)
    calls = vm.calls("git")
    assert calls[0] == ["-C", job, "init", "-q"]
    assert calls[1] == ["-C", job, "fetch", "-q", "--depth", "1", "https://github.com/acme/lora-ft.git", COMMIT]
    assert calls[2] == ["-C", job, "-c", "advice.detachedHead=false", "checkout", "-q", "--force", COMMIT]
    assert calls[3] == ["-C", job, "rev-parse", "HEAD"]


def test_a_checkout_that_lands_elsewhere_fails_the_job(tmp_path):
    vm = _booted(tmp_path, "gcp", GpuVmJob("python train.py", GIT))
    result = vm.helper("accelfit-fetch", STUB_COMMIT="f" * 40)
    assert result.returncode == 1 and "not 0123456789abcdef" in result.stderr
    assert not (vm.root / "var/lib/accelfit/fetched").exists()  # the next start tries again


def test_the_command_runs_in_the_job_directory_with_the_bucket(tmp_path):
    vm = _booted(tmp_path, "gcp", GpuVmJob('echo "$ACCELFIT_BUCKET_URL $PWD" > where.txt',
                                           "gs://acme-jobs/lora/code.tar.gz"))
    assert vm.helper("accelfit-run-job").returncode == 0
    assert (vm.job_dir / "where.txt").read_text() == f"gs://lora-ft-data-1234 {vm.job_dir}\n"


# --- images ------------------------------------------------------------------------------------------------------

def test_an_artifact_registry_image_is_pulled_with_the_vms_identity_and_run_with_every_gpu(tmp_path):
    vm = _booted(tmp_path, "gcp", GpuVmJob("python train.py", image=AR_IMAGE))
    result = vm.helper("accelfit-fetch")
    assert result.returncode == 0, result.stderr
    assert vm.calls("gcloud") == [["auth", "configure-docker", "us-docker.pkg.dev", "--quiet"]]
    assert vm.calls("nvidia-ctk") == [["runtime", "configure", "--runtime=docker"]]
    assert vm.calls("docker") == [["pull", AR_IMAGE]]
    vm.forget()
    assert vm.helper("accelfit-run-job").returncode == 0
    assert vm.calls("docker")[-1] == [
        "run", "--rm", "--name", "accelfit-job", "--gpus", "all", "--ipc", "host", "--network", "host",
        "--volume", f"{vm.job_dir}:/workspace", "--workdir", "/workspace", "--env", "ACCELFIT_BUCKET_URL",
        "--env", "ACCELFIT_JOB_DIR=/workspace", "--entrypoint", "sh", AR_IMAGE, "-c", "python train.py"]


def test_an_ecr_image_logs_in_with_the_instance_role(tmp_path):
    vm = _booted(tmp_path, "aws", GpuVmJob(image=ECR_IMAGE))
    assert vm.helper("accelfit-fetch").returncode == 0
    assert vm.calls("aws") == [["ecr", "get-login-password", "--region", "us-east-1"]]
    assert vm.calls("docker")[0] == ["login", "--username", "AWS", "--password-stdin",
                                     "123456789012.dkr.ecr.us-east-1.amazonaws.com"]
    assert Path(f"{vm.log}.stdin").read_text() == "ecr-token\n"
    vm.forget()
    assert vm.helper("accelfit-run-job").returncode == 0
    assert vm.calls("docker")[-1][-1] == ECR_IMAGE  # no command: the image's own entrypoint runs


def test_a_public_image_needs_no_login(tmp_path):
    vm = _booted(tmp_path, "gcp", GpuVmJob(image="nvcr.io/nvidia/pytorch:24.12-py3"))
    assert vm.helper("accelfit-fetch").returncode == 0
    assert not vm.calls("gcloud") and vm.calls("docker") == [["pull", "nvcr.io/nvidia/pytorch:24.12-py3"]]


# --- done, rerun, autostop ---------------------------------------------------------------------------------------

def test_a_job_that_succeeded_does_not_run_again_until_it_changes(tmp_path):
    vm = _booted(tmp_path, "gcp", GpuVmJob("python train.py", "gs://acme-jobs/lora/code.tar.gz"))
    assert vm.helper("accelfit-job-pending").returncode == 0
    assert vm.helper("accelfit-job-finished", SERVICE_RESULT="exit-code", EXIT_STATUS="1").returncode == 0
    assert vm.helper("accelfit-job-pending").returncode == 0  # failed: runs again at the next boot
    assert vm.helper("accelfit-job-finished", SERVICE_RESULT="success", EXIT_STATUS="0").returncode == 0
    assert vm.helper("accelfit-job-pending").returncode == 1
    assert vm.run(_script(tmp_path, "gcp", GpuVmJob("python train.py --epochs 2",
                                                     "gs://acme-jobs/lora/code.tar.gz"))).returncode == 0
    assert vm.helper("accelfit-job-pending").returncode == 0  # a new command is a new job


def _idle_for(vm: StubbedVm, minutes: int) -> None:
    stamp = vm.root / "run/accelfit/last-busy"
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(f"{int(time.time()) - minutes * 60}\n")


@pytest.mark.parametrize(("action", "verb"), [("stop", "stop-instances"), ("delete", "delete-instances")])
def test_gce_autostop_goes_through_the_managed_instance_group(tmp_path, action, verb):
    vm = _booted(tmp_path, "gcp", GpuVmJob("python train.py"), action=action)
    _idle_for(vm, 31)
    vm.forget()
    assert vm.helper("accelfit-idle-check").returncode == 0
    assert vm.calls("gcloud") == [["compute", "instance-groups", "managed", verb, "lora-ft-gpu", "--instances=vm-1",
                                   "--zone=us-central1-a", "--quiet"]]
    assert not vm.calls("shutdown")


def test_ec2_autostop_shuts_down(tmp_path):
    vm = _booted(tmp_path, "aws", GpuVmJob("python train.py"))
    _idle_for(vm, 31)
    assert vm.helper("accelfit-idle-check").returncode == 0
    assert vm.calls("shutdown") == [["-h", "now"]]


@pytest.mark.parametrize("busy", [{"STUB_JOB_STATE": "activating"}, {"STUB_JOB_STATE": "active"},
                                  {"STUB_GPU_UTILIZATION": "0 40"}])
def test_a_starting_job_or_a_busy_gpu_keeps_the_vm(tmp_path, busy):
    vm = _booted(tmp_path, "aws", GpuVmJob("python train.py"))
    _idle_for(vm, 31)
    assert vm.helper("accelfit-idle-check", **busy).returncode == 0
    assert not vm.calls("shutdown")


def test_values_outside_the_validated_forms_are_never_rendered():
    for job in (GpuVmJob("x", code="gs://acme-jobs/$(reboot).tar.gz"), GpuVmJob(image="nvcr.io/a;reboot:1")):
        with pytest.raises(ValueError):
            render_startup_script("gcp", 30, "stop", job, bucket_url="gs://b", group="g")


def test_unknown_action_is_refused():
    with pytest.raises(ValueError):
        render_startup_script("gcp", 30, "hibernate", GpuVmJob(), bucket_url="gs://b", group="g")
