"""Every stack config key the program reads drives what is built (issue 33): for each key, a shipped stack with the
key changed is run through the Pulumi program under mocks, and the change reaches the recorded resources (or, for
the keys that decide whether to build at all, the outcome). A key the program reads that changes nothing fails
here; a key added to what the program reads without a row here fails the completeness test."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from accelfit import stackkeys
from accelfit.errors import InputError
from accelfit.planner import NoFeasiblePlan
from accelfit.planner.lock import LockRequired
from accelfit.preview.recorder import record
from accelfit.stackfile import PROJECT_KEYS, load_stack, secret_named
from tests.stackrules.stack_copies import DELETE, ROOT, project, shipped, strings, write_stack

# The provider keys accelfit reads itself (the rest of a provider's keys are the provider's: credentials, profiles):
# the key table's, which the stack-file schema describes too.
PROVIDER_KEYS = tuple(key.name for key in stackkeys.PROVIDER_KEYS)


def outcome(root: Path, name: str, secrets: dict[str, str] | None = None) -> tuple[list[str], Exception | None]:
    """Every string in the inputs of every resource the program records for stack `name` (its config as the CLI
    sends it, `secrets` as the decrypted values the CLI would send), and the error that stopped it, if any."""
    from accelfit.preview.run import with_unset_secrets
    from components.program import run

    stack = load_stack(name, root)
    config, unset = with_unset_secrets(stack)
    config.update(secrets or {})
    caught: list[Exception] = []

    def program() -> None:
        try:
            run(root)
        except (InputError, NoFeasiblePlan, LockRequired) as error:
            caught.append(error)

    recording = record(program, project=stack.project, stack=name, config=config,
                       secret_keys=[*stack.secret_keys(), *unset, *(secrets or {})])
    found = [text for resource in recording.resources for text in strings(resource.inputs)]
    found += [resource.name for resource in recording.resources]
    return found, (caught[0] if caught else None)


@pytest.fixture(autouse=True)
def secrets_shown(monkeypatch):
    """The recorder blinds every secret input as [secret] (as `pulumi preview --json` does); here each shows its
    value, so a secret key's value can be followed into the resources it reaches."""
    from collections.abc import Mapping

    from accelfit.preview import recorder

    blinding = recorder.plain

    def plain(value):
        if isinstance(value, Mapping) and value.get(recorder._SIG_KEY) == recorder._SECRET_SIG:
            return f"[secret:{blinding(value.get('value'))}]"
        return blinding(value)

    monkeypatch.setattr(recorder, "plain", plain)


def shows(value: str) -> Callable[[list[str], list[str]], bool]:
    """The changed stack records `value` somewhere, and the shipped one nowhere."""
    return lambda base, changed: any(value in text for text in changed) and not any(value in text for text in base)


@functools.cache
def _alternative_selection() -> dict:
    """A valid lock of the dev stack on another accelerator than its fresh plan (TPU v5e instead of v6e)."""
    import datetime as dt
    import tempfile

    from accelfit.catalog import load_catalog
    from accelfit.stack_plan import plan_stack_fleet, single_view
    from accelfit.planner.lock import Selection

    root = project(Path(tempfile.mkdtemp()))
    name = write_stack(root, "dev", "v5e", spec={"placement.accelerators": ["tpu-v5e"]})
    plan, _ = single_view(*plan_stack_fleet(load_stack(name, root), load_catalog()))
    return Selection.from_plan(plan, dt.date(2026, 11, 25)).model_dump(mode="json")


ONPREM, DEV, AWS, FLEET = "example-onprem-h100", "dev", "example-aws-l4-inference", "example-gcp-fleet"
FIRST_ZONE_IDS = {"us-east-1a": "use1-az1", "us-east-1b": "use1-az2"}  # both offer g6 (gpu_availability.yaml)

# (key, base stack, config changes, spec changes, what the change must show in the recorded resources)
TRACES = [
    ("environment", DEV, {"accelfit:environment": "staging"}, {}, shows("staging")),
    ("team", DEV, {"accelfit:team": "team-zq"}, {}, shows("team-zq")),
    ("costCenter", DEV, {"accelfit:costCenter": "cc-7731"}, {}, shows("cc-7731")),
    ("workload", DEV, {}, {"name": "zq-pretrain"}, shows("zq-pretrain")),
    ("workloads", FLEET, {}, {}, None),  # a fleet's list: see test_a_fleets_workloads_reach_the_recorded_resources
    ("fleet", FLEET, {"accelfit:fleet": "zq-fleet"}, {}, shows("zq-fleet")),
    ("selection", DEV, {"accelfit:selection": "ALTERNATIVE"}, {}, shows("ct5lp-")),
    ("teamNamespaces", DEV, {"accelfit:teamNamespaces": ["zq-research", "zq-applied"]}, {}, shows("zq-applied")),
    ("sshPrivateKey", ONPREM, {"accelfit:sshPrivateKey": "MOCK-KEY-zq41"}, {}, shows("MOCK-KEY-zq41")),
    ("joinToken", ONPREM, {"accelfit:joinToken": "zq41ab.0123456789zqzqzq"}, {}, shows("zq41ab.0123456789zqzqzq")),
    ("kubeconfig", ONPREM, {"accelfit:kubeconfig": "apiVersion: v1\nkind: Config  # MOCK-KUBECONFIG-zq41\n"}, {},
     shows("MOCK-KUBECONFIG-zq41")),
    ("joinEndpoint", ONPREM, {"accelfit:joinEndpoint": "10.20.0.77:6443"}, {}, shows("10.20.0.77:6443")),
    ("managerKubeconfig", "example-hybrid-onprem-gke",
     {"accelfit:managerKubeconfig": "apiVersion: v1\nkind: Config  # MOCK-MANAGER-zq41\n"}, {},
     shows("MOCK-MANAGER-zq41")),
    ("joinCaCertHash", ONPREM, {"accelfit:joinCaCertHash": "sha256:" + "cd" * 32}, {}, shows("cd" * 32)),
    ("kubernetesVersion", ONPREM, {"accelfit:kubernetesVersion": "1.33"}, {}, shows("1.33")),
    ("eksAdminPrincipals", AWS, {"accelfit:eksAdminPrincipals": ["arn:aws:iam::111122223333:role/zq-admin"]}, {},
     shows("role/zq-admin")),
    ("eksPublicAccessCidrs", AWS, {"accelfit:eksPublicAccessCidrs": ["198.51.100.0/24"]}, {},
     shows("198.51.100.0/24")),
    ("eksPrivateAccessCidrs", AWS, {"accelfit:eksPrivateAccessCidrs": ["10.77.0.0/16"]}, {}, shows("10.77.0.0/16")),
    ("eksEndpointAccess", AWS, {"accelfit:eksEndpointAccess": "private", "accelfit:eksPublicAccessCidrs": DELETE},
     {}, None),  # a boolean on the cluster: see test_the_eks_endpoint_mode_reaches_the_cluster
    ("awsZoneIds", AWS, {"accelfit:awsZoneIds": {"us-east-1a": "use1-az3", "us-east-1b": "use1-az5"}}, {},
     ("refused", "g6.12xlarge is not offered in us-east-1a (use1-az3 in this account)")),
    ("controlPlane", DEV, {"accelfit:controlPlane": {"authorizedCidrs": ["198.51.100.7/32"]}}, {},
     shows("198.51.100.7/32")),
    ("requireLock", "example-gcp-gke-h100-training", {"accelfit:requireLock": True}, {},
     ("refused", "no selection is locked and a lock is required")),
    ("expiresAt", DEV, {"accelfit:expiresAt": "2031-04-05T06:07:08Z"}, {}, shows("20310405t060708z")),
    ("expiresAt", AWS, {"accelfit:expiresAt": "2031-04-05T06:07:08Z"}, {}, shows("20310405t060708z")),
    ("hfToken", "example-gcp-vllm-mixed-fleet", {"accelfit:hfToken": "hf_zqtoken41"}, {}, shows("hf_zqtoken41")),
    ("gcp:project", DEV, {"gcp:project": "zq-project-41"}, {}, shows("zq-project-41")),
    ("gcp:region", DEV, {"gcp:region": "us-east5"}, {}, shows("us-east5")),
    ("gcp:zone", "example-gcp-gke-h100-training", {"gcp:zone": "us-central1-b"}, {}, shows("us-central1-b")),
    ("aws:region", AWS, {"aws:region": "us-west-2"}, {"placement.regions": ["us-east-1", "us-west-2"]},
     shows("us-west-2")),
]
SPECIAL = {"workloads", "eksEndpointAccess"}


@functools.cache
def _base(stack: str) -> tuple[str, ...]:
    import tempfile

    found, error = outcome(project(Path(tempfile.mkdtemp())), stack)
    assert error is None, error
    return tuple(found)


def _resolved(config: dict) -> dict:
    return {key: _alternative_selection() if value == "ALTERNATIVE" else value for key, value in config.items()}


@pytest.mark.parametrize(("key", "base", "config", "spec", "evidence"),
                         [pytest.param(*row, id=row[0]) for row in TRACES if row[0] not in SPECIAL])
def test_a_changed_key_reaches_the_recorded_resources(tmp_path, monkeypatch, key, base, config, spec, evidence):
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    # A secret is written encrypted, as `pulumi config set --secret` does; the CLI hands the program its value.
    secrets = {key: value for key, value in config.items() if secret_named(key)}
    written = {**_resolved(config), **{key: {"secure": "v1:AAAAAAAAAAAAAAAA"} for key in secrets}}
    name = write_stack(tmp_path, base, "changed", written, spec)
    changed, error = outcome(project(tmp_path), name, secrets)
    if isinstance(evidence, tuple):  # a key that decides whether the stack may be built as planned
        assert error is not None and evidence[1] in str(error), (key, error)
        return
    assert error is None, (key, error)
    assert evidence(list(_base(base)), changed), key


def test_the_eks_endpoint_mode_reaches_the_cluster(tmp_path):
    from accelfit.preview.run import preview_stack

    def vpc(document) -> dict:
        (cluster,) = [r for r in document["resources"] if r["type"] == "aws:eks/cluster:Cluster"]
        return cluster["inputs"]["vpcConfig"]

    assert vpc(preview_stack(AWS, ROOT).document)["endpointPublicAccess"] is True
    name = write_stack(tmp_path, AWS, "private", {"accelfit:eksEndpointAccess": "private",
                                                  "accelfit:eksPublicAccessCidrs": DELETE,
                                                  "accelfit:eksPrivateAccessCidrs": ["10.77.0.0/16"]})
    assert vpc(preview_stack(name, project(tmp_path)).document)["endpointPublicAccess"] is False


def test_a_fleets_workloads_reach_the_recorded_resources(tmp_path):
    document = shipped(FLEET)
    first = document["config"]["accelfit:workloads"][0]
    renamed = [{**first, "name": "zq-train"}, *document["config"]["accelfit:workloads"][1:]]
    name = write_stack(tmp_path, FLEET, "renamed", {"accelfit:workloads": renamed, "accelfit:selection": DELETE})
    changed, error = outcome(project(tmp_path), name)
    assert error is None, error
    assert shows("zq-train")(list(_base(FLEET)), changed)


def test_a_valid_zone_id_map_is_used_as_given(tmp_path):
    """awsZoneIds decides which zones the account's offerings are checked against: a map where the planned zones
    offer the type builds (nothing else changes), one where they do not is refused (the row above)."""
    name = write_stack(tmp_path, AWS, "zones", {"accelfit:awsZoneIds": FIRST_ZONE_IDS})
    _, error = outcome(project(tmp_path), name)
    assert error is None, error


def test_every_key_the_program_reads_has_a_trace():
    """PROJECT_KEYS is every accelfit:* key the program reads (the loader refuses others as typos); with the
    provider keys accelfit reads, each needs a row above. Provider keys a shipped stack sets must be among them."""
    keys = {row[0] for row in TRACES}
    assert keys == set(PROJECT_KEYS) | set(PROVIDER_KEYS)
    set_in_stacks = set()
    for path in (ROOT / "stacks").glob("Pulumi.*.yaml"):
        set_in_stacks |= {key for key in yaml.safe_load(path.read_text())["config"] if not key.startswith("accelfit:")}
    assert set_in_stacks <= set(PROVIDER_KEYS)
    assert all(re.fullmatch(r"(gcp|aws):[a-z]+", key) for key in PROVIDER_KEYS)
