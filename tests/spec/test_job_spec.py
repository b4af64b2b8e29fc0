"""training.code and training.image (GPU VMs): the forms that parse, and each bad one refused with exit 2 naming the
field and the fix (accelfit.spec.job_source)."""

from __future__ import annotations

import copy

import pytest
import yaml

from accelfit.cli.main import main
from accelfit.errors import InputError
from accelfit.spec import workload_from_document
from accelfit.spec.job_source import parse_code, parse_image

COMMIT = "0123456789abcdef0123456789abcdef01234567"
JOB = {
    "name": "lora-ft", "kind": "fine-tuning", "framework": "pytorch",
    "model": {"parameters": "8B", "precision": "bf16"},
    "training": {"tokens": "200M", "deadline_days": 2, "method": "lora"},
    "placement": {"clouds": ["gcp", "aws"], "orchestration": "vms"},
}


def document(training=None, placement=None):
    doc = copy.deepcopy(JOB)
    doc["training"].update(training or {})
    doc["placement"].update(placement or {})
    return doc


def refused(training=None, placement=None):
    with pytest.raises(InputError) as caught:
        workload_from_document(document(training, placement), "spec.yaml")
    found = caught.value.problems[0]
    assert found.file == "spec.yaml"
    return found.field, f"{found.message}; {found.fix}"


@pytest.mark.parametrize(("code", "kind", "url", "commit"), [
    ("gs://acme-jobs/lora/code-v1.tar.gz", "archive", "gs://acme-jobs/lora/code-v1.tar.gz", None),
    ("s3://acme-jobs/lora/code.tgz", "archive", "s3://acme-jobs/lora/code.tgz", None),
    ("gs://acme_jobs/code.tar", "archive", "gs://acme_jobs/code.tar", None),
    (f"https://github.com/acme/lora-ft.git@{COMMIT}", "git", "https://github.com/acme/lora-ft.git", COMMIT),
    (f"https://gitlab.example.com:8443/ml/team/lora.git@{COMMIT}", "git",
     "https://gitlab.example.com:8443/ml/team/lora.git", COMMIT),
])
def test_code_forms_parse(code, kind, url, commit):
    spec = workload_from_document(document({"code": code, "command": "python train.py"}), "spec.yaml")[0]
    assert spec.training.code == code
    source = parse_code(code)
    assert (source.kind, source.url, source.commit) == (kind, url, commit)


@pytest.mark.parametrize(("code", "says"), [
    ("gs://acme-jobs/lora/code.zip", "must be a tar file"),
    ("gs://acme-jobs/lora/", "not a valid gs:// archive"),
    ("gs://acme-jobs/$(reboot).tar.gz", "not a valid gs:// archive"),
    ("gs://acme-jobs/a b.tar.gz", "not a valid gs:// archive"),
    ("s3://Acme-Jobs/code.tar", "not a valid s3:// archive"),
    ("https://github.com/acme/lora-ft.git@main", "full 40-character commit"),
    ("https://github.com/acme/lora-ft.git", "full 40-character commit"),
    (f"https://token@github.com/acme/lora-ft.git@{COMMIT}", "no user or token"),
    (f"http://github.com/acme/lora-ft.git@{COMMIT}", "give gs://BUCKET/PATH.tar.gz"),
    (f"git@github.com:acme/lora-ft.git@{COMMIT}", "give gs://BUCKET/PATH.tar.gz"),
    (f"https://github.com/acme/lora-ft.git@{COMMIT};reboot", "full 40-character commit"),
])
def test_bad_code_is_refused_naming_the_field_and_the_form(code, says):
    field, message = refused({"code": code, "command": "python train.py"})
    assert field == "training.code" and says in message


@pytest.mark.parametrize(("image", "cloud"), [
    ("nvcr.io/nvidia/pytorch:24.12-py3", None),
    ("pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime", None),
    ("us-docker.pkg.dev/acme-ml/jobs/lora-ft@sha256:" + "a" * 64, "gcp"),
    ("gcr.io/acme-ml/lora-ft:v1", "gcp"),
    ("123456789012.dkr.ecr.us-east-1.amazonaws.com/lora-ft:v1", "aws"),
    ("localhost:5000/lora-ft:v1", None),
])
def test_image_forms_parse(image, cloud):
    spec = workload_from_document(document({"image": image}), "spec.yaml")[0]
    assert spec.training.image == image and parse_image(image).cloud == cloud


@pytest.mark.parametrize(("image", "says"), [
    ("nvcr.io/nvidia/pytorch", "not pinned"),
    ("nvcr.io/nvidia/pytorch:latest", "not pinned"),
    ("nvcr.io/nvidia/PyTorch:24.12", "not a container image reference"),
    ("nvcr.io/nvidia/pytorch:24.12;reboot", "not a container image reference"),
    ("nvcr.io/nvidia/pytorch:$(id)", "not a container image reference"),
    ("nvcr.io/nvidia/pytorch@sha256:abc", "not a container image reference"),
])
def test_bad_image_is_refused(image, says):
    field, message = refused({"image": image})
    assert field == "training.image" and says in message


def test_code_and_image_are_alternatives():
    field, message = refused({"code": "gs://acme-jobs/c.tar.gz", "command": "x",
                              "image": "nvcr.io/nvidia/pytorch:24.12-py3"})
    assert field == "training.image" and "not both" in message


def test_code_needs_a_command():
    field, message = refused({"code": "gs://acme-jobs/c.tar.gz"})
    assert field == "training.command" and "required with training.code" in message


@pytest.mark.parametrize("job", [{"command": "python train.py"}, {"image": "nvcr.io/nvidia/pytorch:24.12-py3"},
                                 {"code": "gs://acme-jobs/c.tar.gz", "command": "x"}])
def test_a_job_on_kubernetes_is_refused(job):
    field, message = refused(job, {"orchestration": "kubernetes"})
    assert field == f"training.{next(iter(job))}" and "set orchestration: vms (or any)" in message


@pytest.mark.parametrize(("job", "cloud"), [({"code": "s3://acme-jobs/c.tar.gz", "command": "x"}, "aws"),
                                            ({"image": "us-docker.pkg.dev/acme/jobs/x:v1"}, "gcp")])
def test_a_job_read_with_a_cloud_outside_placement_is_refused(job, cloud):
    other = "gcp" if cloud == "aws" else "aws"
    field, message = refused(job, {"clouds": [other]})
    assert field.startswith("training.") and f"read with the VM's {cloud} identity" in message


def test_unset_job_fields_serialize_as_before():
    spec = workload_from_document(document(), "spec.yaml")[0]
    assert "code" not in spec.training.model_dump() and "image" not in spec.training.model_dump()


def test_check_exits_2_naming_the_file_and_field(tmp_path, capsys):
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(document({"code": "gs://acme-jobs/code.zip", "command": "x"})), encoding="utf-8")
    code = main(["check", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and "job.yaml" in err and "training.code" in err and "Traceback" not in err
