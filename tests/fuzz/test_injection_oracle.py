"""The fuzz runner's injection check catches each kind of injection issue 36 found, and passes the builders' own
output for hostile values (so a fuzz run's "0 injections" means something)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "components" / "kubernetes"))

from injection_oracle import injections
from test_container_commands import ACCEPTED, REFUSED, with_weights
from test_container_commands import multi_node  # noqa: F401  (the fixture)

from components.aws.iam_documents import weights_read_policy
from components.kubernetes.serving import manifests


def document(weights: str, *resources: tuple[str, dict]) -> dict:
    return {"spec": {"model": {"weights": weights}},
            "resources": [{"type": kind, "name": "r", "inputs": inputs} for kind, inputs in resources]}


def server_objects(settings, target) -> list[tuple[str, dict]]:
    return [("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet", manifests.leader_worker_set(settings, target)),
            ("kubernetes:apps/v1:Deployment", manifests.deployment(settings, target))]


@pytest.mark.parametrize("key", ACCEPTED + REFUSED)
def test_the_builders_output_is_clean_for_every_hostile_key(multi_node, key):
    settings = with_weights(multi_node[0], f"s3://acme-models/{key}")
    objects = server_objects(settings, multi_node[1])
    objects.append(("aws:iam/rolePolicy:RolePolicy", {"policy": weights_read_policy(f"s3://acme-models/{key}")}))
    assert injections(document(f"s3://acme-models/{key}", *objects)) == []


def test_a_leader_pasting_its_arguments_into_shell_text_is_caught(multi_node):
    weights = "s3://acme-models/x;echo${IFS}PWNED;#"
    body = manifests.leader_worker_set(with_weights(multi_node[0], weights), multi_node[1])
    leader = body["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0]
    leader["command"] = ["sh", "-c", leader["command"][2].replace('exec "$@"', " ".join(leader.pop("args")))]
    found = injections(document(weights, ("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet", body)))
    assert any("printed" in item or "--model changed" in item for item in found)


def test_unescaped_kubernetes_variables_are_caught(multi_node):
    weights = "s3://acme-models/$(AWS_REGION)"
    body = manifests.deployment(with_weights(multi_node[0], weights), multi_node[1])
    container = body["spec"]["template"]["spec"]["containers"][0]
    container["args"] = [part.replace("$$", "$") for part in container["args"]]
    assert any("--model changed" in item for item in injections(document(weights, ("kubernetes:apps/v1:Deployment",
                                                                                     body))))


def test_added_mount_options_are_caught():
    volume = {"spec": {"volumes": [{"csi": {"volumeAttributes": {
        "mountOptions": "implicit-dirs,only-dir=x,uid=0,gid=0"}}}]}}
    assert injections(document("gs://b/x,uid=0,gid=0", ("kubernetes:apps/v1:Deployment", volume)))


def test_iam_wildcards_and_variables_from_the_location_are_caught():
    for value in ("arn:aws:s3:::b/team-a*/*", "arn:aws:s3:::b/${aws:username}/*", "arn:aws:s3:::b/a?/*"):
        policy = json.dumps({"Statement": [{"Sid": "ReadWeights", "Resource": value}]})
        assert injections(document("s3://b/team-a", ("aws:iam/rolePolicy:RolePolicy", {"policy": policy})))


def test_a_leader_worker_set_name_its_workers_cannot_carry_is_caught():
    name = "a-forty-character-workload-name-abcdefgh-vllm-gpu-fb2"
    lws = {"metadata": {"name": name}, "spec": {"replicas": 1}}
    assert injections(document("s3://b/x", ("kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet", lws)))
