"""accelfit.values (issue 36): each kind of value a user writes is checked where it enters, and nothing that looks
like a credential is ever accepted or printed."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from accelfit.errors import InputError, problem
from accelfit.spec import WorkloadSpec
from accelfit.spec.inventory import Inventory
from accelfit.validation import validate
from accelfit.values import (
    REVISION_HASH_CHARS, find_credential, fitted_name, is_ca_cert_hash, is_join_endpoint, is_kubernetes_minor,
    leader_worker_set_name_limit, mask_credentials, object_location,
)

ROOT = Path(__file__).resolve().parents[1]
# Planted secrets, each in the shape people paste (all fake).
AWS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
HF_TOKEN = "hf_" + "Ab3" * 12
OAUTH = "ya29.a0AfH6SMB" + "x9" * 20
CREDENTIAL_VALUES = {
    f"s3://{AWS_KEY_ID}:{AWS_SECRET}@bucket/x": AWS_SECRET,
    f"hf://user:{HF_TOKEN}@org/name": HF_TOKEN,
    f"gs://bucket/x?access_token={OAUTH}": OAUTH,
    f"export AWS_SECRET_ACCESS_KEY={AWS_SECRET} && torchrun train.py": AWS_SECRET,
    f"python train.py --hf-token={HF_TOKEN[3:]}": HF_TOKEN[3:],
    "python train.py --password hunter2-is-long": "hunter2-is-long",
    f"git clone https://x-access-token:{'g' * 30}@github.com/org/repo": "g" * 30,
    f"aws configure set aws_access_key_id {AWS_KEY_ID}": AWS_KEY_ID[4:],
    "-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXktdjEAAAA\\n": "b3BlbnNzaC1rZXktdjEAAAA",
}
# What a command or location may hold without being a credential.
ORDINARY = ("python train.py --max-tokens=4096 --num-tokens 2T", "torchrun train.py --hf-token=$HF_TOKEN",
            'HF_TOKEN="$(gcloud secrets versions access latest --secret=hf-token)" python x.py',
            "git clone ssh://git@github.com/org/repo", "pulumi config set --secret accelfit:hfToken hf_...",
            "s3://bucket/r&d/llama", "gs://bucket/tokens=4096/model", "--secret-name=my-token")


@pytest.mark.parametrize("text", list(CREDENTIAL_VALUES))
def test_credential_shapes_are_found_and_masked(text):
    assert find_credential(text)
    assert CREDENTIAL_VALUES[text] not in mask_credentials(text)


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_not_a_credential(text):
    assert find_credential(text) is None and mask_credentials(text) == text


def test_no_shipped_stack_or_example_holds_a_credential_shape():
    """The detector is not so eager that it refuses the project's own files."""
    for path in [*(ROOT / "stacks").glob("*.yaml"), *(ROOT / "examples").rglob("*.yaml")]:
        for value in _strings(yaml.safe_load(path.read_text(encoding="utf-8"))):
            assert find_credential(value) is None, (path.name, value[:80])


def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def test_a_problem_never_prints_a_credential_even_when_a_message_quotes_it():
    for text, secret in CREDENTIAL_VALUES.items():
        rendered = problem("f.yaml", "x", f"bad {text}", f"not {text}", text).render()
        assert secret not in rendered and "****" in rendered


INFERENCE = {"name": "chat", "kind": "inference", "framework": "pytorch",
             "model": {"parameters": "8B", "precision": "bf16", "weights": "s3://acme/llama"},
             "inference": {"requests_per_second": 2, "latency_p99_ms": 60000}, "placement": {"clouds": ["aws"]}}
TRAINING = {"name": "train", "kind": "training", "framework": "pytorch",
            "model": {"parameters": "8B", "precision": "bf16"}, "training": {"tokens": "1B", "deadline_days": 3},
            # a command runs on a GPU VM only (its startup script), so the spec asks for VMs
            "placement": {"orchestration": "vms"}}


@pytest.mark.parametrize("text", [text for text in CREDENTIAL_VALUES if "://" in text and not text.startswith("git")])
def test_weights_with_a_credential_are_refused_with_the_field_and_a_masked_form(text):
    data = copy.deepcopy(INFERENCE)
    data["model"]["weights"] = text
    with pytest.raises(InputError) as caught:
        validate(WorkloadSpec, data, "w.yaml")
    rendered = caught.value.render()
    assert caught.value.problems[0].field == "model.weights"
    assert CREDENTIAL_VALUES[text] not in rendered and "****" in rendered and "--secret" in rendered


@pytest.mark.parametrize("text", [text for text in CREDENTIAL_VALUES if "://" not in text or text.startswith("git")])
def test_a_training_command_with_a_secret_is_refused_unquoted(text):
    data = copy.deepcopy(TRAINING)
    data["training"]["command"] = text.replace("\\n", " ")
    with pytest.raises(InputError) as caught:
        validate(WorkloadSpec, data, "w.yaml")
    assert caught.value.problems[0].field == "training.command"
    assert CREDENTIAL_VALUES[text] not in caught.value.render()


def test_a_training_command_passing_its_secret_by_reference_is_accepted():
    data = copy.deepcopy(TRAINING)
    data["training"]["command"] = 'export AWS_SECRET_ACCESS_KEY="$(cat /run/secrets/aws)" && torchrun train.py'
    assert validate(WorkloadSpec, data, "w.yaml").training.command.startswith("export")


@pytest.mark.parametrize("field, value", [("ssh_user", "ops:hunter2-long-password"),
                                          ("address", "ops:hunter2-long-password@10.0.0.1"),
                                          ("labels", {"note": "password=hunter2-long-password"})])
def test_an_inventory_with_a_password_is_refused_unquoted(field, value):
    inventory = yaml.safe_load((ROOT / "examples/inventories/lab-rack-a.yaml").read_text(encoding="utf-8"))
    inventory["servers"][0][field] = value
    with pytest.raises(InputError) as caught:
        validate(Inventory, inventory, "inv.yaml")
    assert "hunter2" not in caught.value.render() and caught.value.problems[0].field.startswith("servers[0]")


# --- object locations ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("uri, key", [("s3://b-1/r&d/llama", "r&d/llama"), ("s3://b-1/llama(v2)/", "llama(v2)"),
                                      ("s3://b-1/team-a*", "team-a*"), ("gs://b-1/a=b:c", "a=b:c"),
                                      ("gs://b-1", ""), ("s3://b-1/x$y", "x$y")])
def test_keys_the_stores_allow_and_a_server_can_load_are_accepted(uri, key):
    assert object_location(uri).key == key


@pytest.mark.parametrize("uri, words", [
    ("gs://b-1/x,uid=0,gid=0", "','"), ("gs://b-1/x,key-file=/etc/k", "','"), ("gs://b-1/x,only-dir=y", "','"),
    ("gs://b-1/x,token-url=http://evil", "','"), ("gs://b-1/team*", "'*'"), ("s3://b-1/x?y", "'?'"),
    ("s3://b-1/a#b", "'#'"), ("s3://b-1/${aws:username}", "'{'"), ("s3://b-1/a b", "' '"), ("s3://b-1/a\nb", "'\\n'"),
    ("s3://b-1/a%2Fb", "'%'"), ("s3://b-1/a|b", "'|'"), ("s3://b-1/a`b", "'`'"), ('s3://b-1/a"b', "'\"'"),
    ("s3://b-1/a/../b", "'..'"), ("s3://b-1/a//b", "empty"), ("gs://b-1/.well-known/acme-challenge/x", "acme"),
    ("s3://b-1/" + "a" * 1025, "1024 bytes"), ("ftp://b-1/x", "gs://bucket/path")])
def test_keys_that_would_be_read_as_syntax_are_refused(uri, words):
    with pytest.raises(ValueError) as caught:
        object_location(uri)
    assert words in str(caught.value)


# --- addresses and hashes ------------------------------------------------------------------------------------------
def test_a_trailing_newline_is_not_part_of_an_address_or_hash():
    assert is_join_endpoint("10.20.0.5:6443") and not is_join_endpoint("10.20.0.5:6443\n")
    assert not is_join_endpoint("10.20.0.5:99999") and not is_join_endpoint("a:b:6443")
    assert is_ca_cert_hash("sha256:" + "ab" * 32) and not is_ca_cert_hash("sha256:" + "ab" * 32 + "\n")
    assert is_kubernetes_minor("1.35") and not is_kubernetes_minor("1.35\n") and not is_kubernetes_minor(1.35)


# --- derived Kubernetes names --------------------------------------------------------------------------------------
def test_a_leader_worker_set_name_leaves_room_for_its_worker_pods_revision_label():
    for groups in (1, 10, 11, 999, 1000, 1001):
        limit = leader_worker_set_name_limit(groups)
        worker_statefulset = "x" * limit + f"-{groups - 1}"
        assert len(f"{worker_statefulset}-{'h' * REVISION_HASH_CHARS}") == 63  # kubernetes#64023, lws#410


def test_fitted_names_are_unchanged_when_they_fit_and_distinct_when_cut():
    assert fitted_name("chat-vllm-gpu", 48) == "chat-vllm-gpu"
    one, two = fitted_name("a" * 40 + "-vllm-gpu-fb2", 48), fitted_name("a" * 40 + "-vllm-gpu-fb3", 48)
    assert len(one) <= 48 and len(two) <= 48 and one != two and one[-9] == "-"
