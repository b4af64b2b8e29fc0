"""The stack's region is where it builds (issue 33): `gcp:region`, `gcp:zone` and `aws:region` place every workload of
their cloud, every regional resource and every region a server is told follow them, `placement.regions` must agree,
and a region that is not one of its cloud's is refused (exit 2) by check, plan, lock and preview alike."""

from __future__ import annotations

import re

import pytest

from accelfit.cli.main import main
from accelfit.planner.options import RawRejection
from accelfit.planner.stack_placement import StackPlacement, placed_offers
from accelfit.preview.run import preview_stack
from accelfit.stackrules.regions import stack_placement
from tests.stackrules.stack_copies import DELETE, ROOT, project, strings, write_stack

COMMANDS = [("check", "stacks/Pulumi.{name}.yaml"), ("plan", "--stack", "{name}"), ("lock", "--stack", "{name}"),
            ("preview", "--stack", "{name}")]


def run(capsys, monkeypatch, root, *args: str) -> tuple[int, str]:
    monkeypatch.chdir(root)
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out + err


def recorded_strings(document) -> list[str]:
    return [text for resource in document["resources"] for text in strings(resource["inputs"])]


# One shipped stack of each kind per cloud: EKS serving (the model server's AWS_REGION), EKS training, an EC2 GPU
# VM, GKE serving, GKE training, a GCE GPU VM and a GKE fleet.
MOVES = [("example-aws-vllm-serving", "aws:region", "us-east-1", "us-west-2"),
         ("example-aws-h100-training", "aws:region", "us-east-1", "us-west-2"),
         ("example-aws-lora-vm", "aws:region", "us-east-1", "us-west-2"),
         ("example-gcp-vllm-serving", "gcp:region", "us-central1", "europe-west4"),
         ("example-gcp-gke-h100-training", "gcp:region", "us-central1", "europe-west4"),
         ("example-gcp-lora-vm", "gcp:region", "us-central1", "europe-west4"),
         ("example-gcp-vllm-mixed-fleet", "gcp:region", "us-central1", "europe-west4")]


@pytest.mark.parametrize(("base", "key", "old", "new"), MOVES, ids=[move[0] for move in MOVES])
def test_a_changed_stack_region_moves_every_regional_resource(tmp_path, base, key, old, new):
    shipped = recorded_strings(preview_stack(base, ROOT).document)
    assert sum(old in text for text in shipped) >= 5  # the shipped stack does carry its region
    # The spec allows both regions: only the stack's region can move the plan.
    spec_changes = {"placement.regions": [old, new]}
    if base == "example-aws-lora-vm":  # the team's job image moves with it (an ECR registry is regional)
        spec_changes["training.image"] = f"123456789012.dkr.ecr.{new}.amazonaws.com/lora-ft:v1"
    name = write_stack(tmp_path, base, "moved", {key: new}, spec_changes)
    document = preview_stack(name, project(tmp_path)).document
    plan = document["plan"]
    plans = [member["plan"] for member in plan["workloads"]] if "workloads" in plan else [plan]
    assert {plan["region"] for plan in plans} == {new}
    moved = recorded_strings(document)
    assert [text for text in moved if old in text] == []  # nothing left in the old region (ARNs, zones, URLs too)
    assert sum(new in text for text in moved) >= 5


def test_the_model_server_is_told_the_stack_region(tmp_path):
    """vLLM's S3 client reads its weights in the region it is told: the stack's, not a default."""
    name = write_stack(tmp_path, "example-aws-vllm-serving", "west", {"aws:region": "us-west-2"},
                       {"placement.regions": ["us-east-1", "us-west-2"]})
    document = preview_stack(name, project(tmp_path)).document
    told = {env["value"] for resource in document["resources"] if resource["type"].startswith("kubernetes:")
            for container in _containers(resource["inputs"]) for env in container.get("env") or []
            if env.get("name") == "AWS_REGION"}
    assert told == {"us-west-2"}


def _containers(inputs) -> list[dict]:
    spec = (inputs.get("spec") or {})
    pod = ((spec.get("template") or {}).get("spec")) or ((spec.get("leaderWorkerTemplate") or {}).get(
        "workerTemplate") or {}).get("spec") or {}
    return list(pod.get("containers") or [])


@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: command[0])
def test_a_region_typo_is_refused_by_every_command(tmp_path, capsys, monkeypatch, command):
    root = project(tmp_path)
    name = write_stack(root, "dev", "typo", {"gcp:region": "us-central-1"})
    before = (root / "stacks" / "Pulumi.typo.yaml").read_bytes()
    code, output = run(capsys, monkeypatch, root, *(part.format(name=name) for part in command))
    assert code == 2, output
    assert "Pulumi.typo.yaml" in output and "config.gcp:region" in output and "did you mean gcp:region: us-central1" \
        in output and "Traceback" not in output
    assert (root / "stacks" / "Pulumi.typo.yaml").read_bytes() == before  # lock wrote nothing


@pytest.mark.parametrize(("config", "words"), [
    ({"aws:region": "us-central1"}, "not an AWS region (us-central1 is a Google Cloud region)"),
    ({"gcp:region": "eu-west-1"}, "eu-west-1 is an AWS region"),
    ({"gcp:region": ["us-central1"]}, "must be the name of a Google Cloud region"),
    ({"gcp:zone": "us-central1a"}, "not a Google Cloud zone"),
    ({"gcp:zone": "us-east5-a"}, "is in us-east5, but gcp:region is us-central1"),
])
def test_a_region_or_zone_that_is_not_its_clouds_is_refused(tmp_path, capsys, monkeypatch, config, words):
    root = project(tmp_path)
    name = write_stack(root, "dev", "bad", config)
    code, output = run(capsys, monkeypatch, root, "check", f"stacks/Pulumi.{name}.yaml")
    assert code == 2 and words in output, output


def test_placement_regions_must_include_the_stack_region(tmp_path, capsys, monkeypatch):
    root = project(tmp_path)
    name = write_stack(root, "example-aws-vllm-serving", "apart", {"aws:region": "us-west-2"})
    for command in COMMANDS:
        code, output = run(capsys, monkeypatch, root, *(part.format(name=name) for part in command))
        assert code == 2, (command, output)
        assert "Pulumi.apart.yaml" in output and "placement.regions" in output and "us-west-2" in output \
            and "['us-east-1']" in output and "add us-west-2 to placement.regions, or set aws:region" in output


def test_a_fleet_workload_disagreeing_is_named_by_its_index(tmp_path, capsys, monkeypatch):
    root = project(tmp_path)
    name = write_stack(root, "example-gcp-fleet", "apart", {"gcp:region": "us-east5"})
    code, output = run(capsys, monkeypatch, root, "check", f"stacks/Pulumi.{name}.yaml")
    assert code == 2 and "accelfit:workloads[0].placement.regions" in output \
        and "accelfit:workloads[1].placement.regions" in output, output


def test_a_reservation_outside_the_stack_region_is_refused(tmp_path, capsys, monkeypatch):
    root = project(tmp_path)
    name = write_stack(root, "example-gcp-gke-h100-training", "held", spec={
        "placement.regions": [], "placement.reservations": [
            {"name": "h100-east", "zone": "us-east4-a", "instance_type": "a3-highgpu-8g", "count": 2}]})
    code, output = run(capsys, monkeypatch, root, "check", f"stacks/Pulumi.{name}.yaml")
    assert code == 2 and "placement.reservations[0].zone" in output and "reservation h100-east is in us-east4" \
        in output and "gcp:region" in output, output


def test_a_stack_zone_places_the_pools_there(tmp_path):
    shipped = recorded_strings(preview_stack("example-gcp-gke-h100-training", ROOT).document)
    assert "us-central1-a" in shipped and "us-central1-b" not in shipped
    name = write_stack(tmp_path, "example-gcp-gke-h100-training", "zoned", {"gcp:zone": "us-central1-b"})
    document = preview_stack(name, project(tmp_path)).document
    zones = {text for text in recorded_strings(document) if re.fullmatch(r"us-central1-[a-z]", text)}
    assert document["plan"]["zones"] == ["us-central1-b"] and zones == {"us-central1-b"}


def test_a_stack_region_that_offers_nothing_says_which_key_to_change(tmp_path, capsys, monkeypatch):
    root = project(tmp_path)
    name = write_stack(root, "example-gcp-tpu-jax-pretrain", "nowhere", {"gcp:zone": "us-east5-b"})
    code, output = run(capsys, monkeypatch, root, "plan", "--stack", name)
    assert code == 1 and "stack-zone" in output and "gcp:zone" in output, output


def test_a_cloud_without_a_stack_region_is_placed_freely(tmp_path, capsys, monkeypatch):
    root = project(tmp_path)
    name = write_stack(root, "example-gcp-lora-vm", "free", {"gcp:region": DELETE}, {"placement.regions": []})
    code, output = run(capsys, monkeypatch, root, "check", f"stacks/Pulumi.{name}.yaml")
    assert code == 0, output


def test_stack_placement_reads_the_config():
    assert stack_placement({"gcp:region": "us-east5", "aws:region": "us-west-2"}) == StackPlacement(
        regions=(("aws", "us-west-2"), ("gcp", "us-east5")))
    assert stack_placement({"gcp:zone": "europe-west4-b"}) == StackPlacement(
        regions=(("gcp", "europe-west4"),), zones=(("gcp", "europe-west4-b"),))
    assert stack_placement({}) == StackPlacement()


def test_offers_elsewhere_are_rejected_naming_the_key():
    from accelfit.catalog import load_catalog
    from accelfit.planner.candidates import offers_for
    from accelfit.stackfile import load_stack_file

    stack = load_stack_file(ROOT / "stacks" / "Pulumi.dev.yaml", "dev", ROOT)
    offers = offers_for(stack.spec, load_catalog(), None).offers
    assert {offer.region for offer in offers} > {"us-central1"}  # the spec alone allows more than the stack
    allowed, rejected = placed_offers(offers, StackPlacement(regions=(("gcp", "us-central1"),)))
    assert {(offer.cloud, offer.region) for offer in allowed if offer.cloud == "gcp"} == {("gcp", "us-central1")}
    assert all(isinstance(item, RawRejection) and item.rule == "stack-region" and "gcp:region" in item.reason
               for item in rejected) and rejected
    zoned, _ = placed_offers(allowed, StackPlacement(regions=(("gcp", "us-central1"),),
                                                     zones=(("gcp", "us-central1-b"),)))
    assert zoned and all(offer.zones == ("us-central1-b",) for offer in zoned if offer.cloud == "gcp")
