"""placement.reservations and the buying models of budget.pricing (issue 25): a bad entry is exit 2 naming the file,
the field and the fix, with no traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from accelfit.errors import InputError
from accelfit.spec import load_workload

SPEC = {"name": "buy", "kind": "training", "framework": "pytorch", "model": {"parameters": "7B"},
        "training": {"tokens": "50B", "deadline_days": 5}}


def _write(tmp_path, placement=None, budget=None):
    document = {**SPEC, **({"placement": placement} if placement else {}), **({"budget": budget} if budget else {})}
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(document))
    return path


def _error(tmp_path, **parts) -> str:
    with pytest.raises(InputError) as failure:
        load_workload(_write(tmp_path, **parts))
    return "\n".join(problem.render() if hasattr(problem, "render") else str(problem)
                     for problem in failure.value.problems)


def _reservation(**fields):
    return {"reservations": [{"name": "h100-res", "zone": "us-central1-a", "instance_type": "a3-highgpu-8g",
                              "count": 2, **fields}]}


@pytest.mark.parametrize(("fields", "words"), [
    ({"zone": "us-central1"}, "not a zone of a region accelfit knows"),
    ({"zone": "mars-north1-a"}, "not a zone of a region accelfit knows"),
    ({"instance_type": "a3-highgpu-9g"}, "did you mean 'a3-highgpu-8g'"),
    ({"instance_type": "p5.48xlarge"}, "not a gcp GPU type in the catalog"),
    ({"name": "Res_A"}, "not a GCP reservation name"),
    ({"zone": "us-east-1a", "instance_type": "p5.48xlarge"}, "not an EC2 Capacity Reservation id"),
    ({"capacity_block": True}, "Capacity Blocks are AWS's"),
    ({"count": 0}, "count"),
])
def test_a_bad_reservation_names_its_field_and_the_fix(tmp_path, fields, words):
    placement = {"clouds": ["gcp", "aws"], **_reservation(**fields)}
    message = _error(tmp_path, placement=placement)
    assert "spec.yaml: placement.reservations[0]." in message and words in message


def test_the_cloud_follows_from_the_zone_and_must_be_allowed(tmp_path):
    message = _error(tmp_path, placement={"clouds": ["aws"], **_reservation()})
    assert "placement.reservations.0.zone (line 9): us-central1-a is a gcp zone but clouds is [aws]" in message
    assert "Fix: add gcp to clouds or remove the reservation" in message


def test_reservation_pricing_without_a_reservation_says_what_to_add(tmp_path):
    message = _error(tmp_path, budget={"pricing": ["reservation", "on-demand"]})
    assert "budget.pricing" in message and "placement.reservations lists none" in message


def test_each_buying_model_is_accepted_alone_or_in_a_preference_list(tmp_path):
    loaded = load_workload(_write(tmp_path, placement={"clouds": ["gcp", "aws"], **_reservation()},
                                  budget={"pricing": ["reservation", "flex-start", "capacity-block", "spot"]}))
    assert [pricing.value for pricing in loaded.spec.budget.pricing_options] == [
        "reservation", "flex-start", "capacity-block", "spot"]
    assert loaded.spec.placement.reservations[0].cloud == "gcp"


def test_the_cli_refuses_a_bad_reservation_with_exit_2_and_no_traceback(tmp_path):
    path = _write(tmp_path, placement={"clouds": ["gcp"], **_reservation(instance_type="a3-highgpu-9g")})
    result = subprocess.run([sys.executable, "-m", "accelfit.cli.main", "check", str(path)], capture_output=True,
                            text=True, check=False)
    output = result.stdout + result.stderr
    assert result.returncode == 2 and "Traceback" not in output
    assert "spec.yaml: placement.reservations[0].instance_type (line 11)" in output
    assert "Fix: did you mean 'a3-highgpu-8g'?" in output
