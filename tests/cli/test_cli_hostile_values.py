"""Hostile values through the command line (issue 36): secrets are refused and never printed, the bare-metal join
settings are checked where the stack file is read, and a weights key that would be syntax somewhere is refused by
`check` with the field and the fix (exit 2, no traceback)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from accelfit.cli.main import main
from accelfit.stackfile import load_stack
from tests.stackrules.stack_copies import project as copied_project

ROOT = Path(__file__).resolve().parents[2]
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
HF_TOKEN = "hf_" + "Zq7" * 12
OAUTH = "ya29.a0AfH6SMB" + "k4" * 20


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(copied_project(tmp_path))  # every shipped stack and the policy config
    return tmp_path


def stack_config(name: str) -> dict:
    return copy.deepcopy(yaml.safe_load((ROOT / "stacks" / f"Pulumi.{name}.yaml").read_text(encoding="utf-8")))


def write(project: Path, name: str, document: dict) -> str:
    (project / "stacks" / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump(document, sort_keys=False),
                                                            encoding="utf-8")
    return f"stacks/Pulumi.{name}.yaml"


def run(capsys, *args: str) -> tuple[int, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out + err


@pytest.mark.parametrize("weights, secret", [
    (f"s3://AKIAIOSFODNN7EXAMPLE:{AWS_SECRET}@acme-ml-models/x", AWS_SECRET),
    (f"s3://acme-ml-models/x?X-Amz-Signature={AWS_SECRET}", AWS_SECRET)])
def test_check_refuses_weights_holding_a_secret_without_printing_it(project, capsys, weights, secret):
    document = stack_config("example-aws-vllm-serving")
    document["config"]["accelfit:workload"]["model"]["weights"] = weights
    for command in (("check", write(project, "t", document)), ("plan", "--stack", "t"), ("lock", "--stack", "t")):
        code, printed = run(capsys, *command)
        assert code == 2 and "model.weights" in printed and "****" in printed, command
        assert secret not in printed and "Traceback" not in printed, command


def test_check_refuses_a_training_command_holding_a_secret(project, capsys):
    spec = yaml.safe_load((ROOT / "examples" / "jax-pretrain.yaml").read_text(encoding="utf-8"))
    spec["training"]["command"] = f"export AWS_SECRET_ACCESS_KEY={AWS_SECRET} && torchrun train.py"
    path = project / "job.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    code, printed = run(capsys, "check", "job.yaml")
    assert code == 2 and "training.command" in printed and AWS_SECRET not in printed


@pytest.mark.parametrize("weights, words", [
    ("gs://acme-ml-models/x,uid=0,gid=0", "','"), ("gs://acme-ml-models/x,key-file=/etc/k", "','"),
    ("gs://acme-ml-models/x,token-url=http://169.254.169.254", "','")])
def test_check_refuses_a_folder_that_would_add_mount_options(project, capsys, weights, words):
    document = stack_config("example-gcp-vllm-serving")
    document["config"]["accelfit:workload"]["model"]["weights"] = weights
    code, printed = run(capsys, "check", write(project, "t", document))
    assert code == 2 and "model.weights" in printed and words in printed and "Fix:" in printed


@pytest.mark.parametrize("key, value", [("accelfit:joinEndpoint", "10.20.0.5:6443\n"),
                                        ("accelfit:joinCaCertHash", "sha256:" + "ab" * 32 + "\n"),
                                        ("accelfit:kubernetesVersion", "1.35\n"),
                                        ("accelfit:joinEndpoint", "10.20.0.5:6443\ncontrolPlane: {}")])
def test_check_refuses_join_settings_with_a_trailing_line(project, capsys, key, value):
    document = stack_config("example-onprem-h100")
    document["config"][key] = value
    code, printed = run(capsys, "check", write(project, "t", document))
    assert code == 2 and f"config.{key}" in printed


def test_a_credential_shaped_plain_value_is_a_plaintext_secret_whatever_its_key(project, capsys):
    document = stack_config("dev")
    document["config"]["gcp:accessTokenHint"] = OAUTH  # a provider-namespace key, not named like a secret
    path = write(project, "t", document)
    code, printed = run(capsys, "check", path)
    assert code == 0 and "gcp:accessTokenHint is set in plain text" in printed and OAUTH not in printed
    stack = load_stack("t", project)
    assert OAUTH in stack.secret_values() and "gcp:accessTokenHint" in stack.secret_keys()
    document["config"]["accelfit:environment"] = "prod"
    code, printed = run(capsys, "check", write(project, "t", document))
    assert code == 2 and "plain text" in printed and OAUTH not in printed
