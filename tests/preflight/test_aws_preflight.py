"""`accelfit preflight` on the AWS H100 example (stacks/Pulumi.example-aws-h100-training.yaml: 8 x p5.48xlarge
on EKS in us-east-1) against recorded Service Quotas, CloudWatch and EC2 answers, through botocore's Stubber."""

from __future__ import annotations

import datetime as dt
import json

import boto3
import pytest
from botocore.stub import ANY, Stubber

from accelfit.catalog import load_catalog
from accelfit.cli.main import main
from accelfit.preflight import run
from accelfit.preflight.aws import AwsReader
from accelfit.preflight.needs import Member, stack_needs
from accelfit.preflight.stack import stack_members
from accelfit.stackfile import load_stack

STACK = "example-aws-h100-training"
NOW = dt.datetime(2026, 11, 26, 2, 0, tzinfo=dt.UTC)
P_ON_DEMAND, STANDARD, P_SPOT = "L-417A185B", "L-1216C47A", "L-7212CCBC"


def usage_metric(resource_class: str) -> dict:
    # As Service Quotas names it for the EC2 vCPU limits (AWS/Usage, Resource vCPU, Class per family class).
    return {"MetricNamespace": "AWS/Usage", "MetricName": "ResourceCount", "MetricStatisticRecommendation": "Maximum",
            "MetricDimensions": {"Class": resource_class, "Resource": "vCPU", "Service": "EC2", "Type": "Resource"}}


class Recorded:
    """Stubbed boto3 clients, one per service, answering in the order the reader asks."""

    def __init__(self):
        credentials = dict(region_name="us-east-1", aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="x")
        self.clients = {name: boto3.client(name, **credentials) for name in ("service-quotas", "cloudwatch", "ec2")}
        self.stubs = {name: Stubber(client) for name, client in self.clients.items()}

    def quota(self, code: str, name: str, value: float, used: float | None, resource_class: str = "") -> None:
        quota = {"ServiceCode": "ec2", "QuotaCode": code, "QuotaName": name, "Value": value, "Unit": "None"}
        if used is not None:
            quota["UsageMetric"] = usage_metric(resource_class)
        self.stubs["service-quotas"].add_response("get_service_quota", {"Quota": quota},
                                                  {"ServiceCode": "ec2", "QuotaCode": code})
        if used is not None:
            self.stubs["cloudwatch"].add_response("get_metric_statistics", {
                "Label": "ResourceCount", "Datapoints": [{"Timestamp": NOW, "Maximum": used, "Unit": "None"}]},
                {"Namespace": "AWS/Usage", "MetricName": "ResourceCount", "Dimensions": ANY, "StartTime": ANY,
                 "EndTime": ANY, "Period": 300, "Statistics": ["Maximum"]})

    def offerings(self, pairs: list[tuple[str, str]]) -> None:
        self.stubs["ec2"].add_response("describe_instance_type_offerings", {"InstanceTypeOfferings": [
            {"InstanceType": t, "LocationType": "availability-zone", "Location": z} for z, t in pairs]})

    def error(self, service: str, method: str, code: str, status: int = 400) -> None:
        self.stubs[service].add_client_error(method, service_error_code=code, service_message=code,
                                             http_status_code=status)

    def __enter__(self):
        for stub in self.stubs.values():
            stub.activate()
        return self

    def __exit__(self, *exc):
        for stub in self.stubs.values():
            stub.deactivate()

    def reader(self, needs) -> AwsReader:
        return AwsReader(lambda service, region: self.clients[service], sleep=lambda s: None, now=lambda: NOW)


ALL_OFFERED = [("us-east-1a", "m6i.xlarge"), ("us-east-1b", "m6i.xlarge"), ("us-east-1a", "p5.48xlarge")]


@pytest.fixture
def recorded(monkeypatch):
    with Recorded() as rec:
        monkeypatch.setattr(AwsReader, "for_needs", classmethod(lambda cls, needs: rec.reader(needs)))
        yield rec


def cli(capsys, *args):
    code = main(["preflight", "--stack", STACK, *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_everything_fits(recorded, capsys):
    recorded.quota(STANDARD, "Running On-Demand Standard instances", 640, 32, "Standard/OnDemand")
    recorded.quota(P_ON_DEMAND, "Running On-Demand P instances", 1536, 0, "P/OnDemand")
    recorded.offerings(ALL_OFFERED)
    code, out, _ = cli(capsys)
    assert code == 0, out
    assert "quota L-417A185B (Running On-Demand P instances) in us-east-1: needed 1536, limit 1536, in use 0" in out
    for stub in recorded.stubs.values():
        stub.assert_no_pending_responses()


def test_p_instance_quota_shortfall_names_the_increase_request(recorded, capsys):
    recorded.quota(STANDARD, "Running On-Demand Standard instances", 640, 32, "Standard/OnDemand")
    recorded.quota(P_ON_DEMAND, "Running On-Demand P instances", 384, 192, "P/OnDemand")
    recorded.offerings(ALL_OFFERED)
    code, out, _ = cli(capsys)
    assert code == 1
    assert "quota L-417A185B (Running On-Demand P instances) in us-east-1: needed 1536, limit 384, in use 192" in out
    assert ("aws service-quotas request-service-quota-increase --service-code ec2 --quota-code L-417A185B "
            "--desired-value 1728 --region us-east-1") in out
    assert "llm-pretrain step 1 (gpu): short of L-417A185B" in out


def test_zone_without_the_instance_type_is_a_shortfall(recorded, capsys):
    recorded.quota(STANDARD, "Running On-Demand Standard instances", 640, 0, "Standard/OnDemand")
    recorded.quota(P_ON_DEMAND, "Running On-Demand P instances", 2000, 0, "P/OnDemand")
    recorded.offerings([("us-east-1a", "m6i.xlarge"), ("us-east-1b", "m6i.xlarge")])
    code, out, _ = cli(capsys)
    assert code == 1
    assert "us-east-1a does not offer p5.48xlarge" in out


def test_throttling_retried_then_answered(recorded, capsys):
    recorded.quota(STANDARD, "Running On-Demand Standard instances", 640, 0, "Standard/OnDemand")
    recorded.error("service-quotas", "get_service_quota", "TooManyRequestsException")
    recorded.error("service-quotas", "get_service_quota", "TooManyRequestsException")
    recorded.quota(P_ON_DEMAND, "Running On-Demand P instances", 2000, 0, "P/OnDemand")
    recorded.offerings(ALL_OFFERED)
    code, out, _ = cli(capsys)
    assert code == 0, out


def test_throttling_past_the_retries_is_not_checked(recorded, capsys):
    recorded.quota(STANDARD, "Running On-Demand Standard instances", 640, 0, "Standard/OnDemand")
    for _ in range(4):
        recorded.error("service-quotas", "get_service_quota", "TooManyRequestsException")
    recorded.offerings(ALL_OFFERED)
    code, out, _ = cli(capsys)
    assert code == 1
    assert "quota L-417A185B in us-east-1 (Service Quotas) (throttled: still refused after 4 tries)" in out


def test_permission_denied_is_a_named_could_not_check_line(recorded, capsys):
    recorded.quota(STANDARD, "Running On-Demand Standard instances", 640, 0, "Standard/OnDemand")
    recorded.quota(P_ON_DEMAND, "Running On-Demand P instances", 2000, 0, "P/OnDemand")
    recorded.error("ec2", "describe_instance_type_offerings", "UnauthorizedOperation", 403)
    code, out, _ = cli(capsys)
    assert code == 1
    assert "permission denied (UnauthorizedOperation)" in out
    assert "allow ec2:DescribeInstanceTypeOfferings for these credentials" in out


def test_partial_answer_quota_without_usage_metric(recorded, capsys):
    recorded.quota(STANDARD, "Running On-Demand Standard instances", 640, None)
    recorded.quota(P_ON_DEMAND, "Running On-Demand P instances", 2000, 0, "P/OnDemand")
    recorded.offerings(ALL_OFFERED)
    code, out, _ = cli(capsys)
    assert code == 0, out
    assert "usage not reported (0 assumed)" in out


def test_rejected_credentials_exit_2(recorded, capsys):
    recorded.error("service-quotas", "get_service_quota", "UnrecognizedClientException", 400)
    code, _, err = cli(capsys)
    assert code == 2
    assert "aws sso login" in err and "aws configure" in err
    assert "Traceback" not in err


def test_missing_credentials_exit_2(monkeypatch, capsys, tmp_path):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    code, _, err = cli(capsys)
    assert code == 2
    assert "no credentials in the default chain" in err


def _needs_with(**changes):
    catalog = load_catalog()
    (member,) = stack_members(load_stack(STACK), catalog)
    pools = tuple(pool.model_copy(update=changes) if pool.role == "gpu" else pool for pool in member.plan.node_pools)
    plan = member.plan.model_copy(update={"node_pools": pools})
    return stack_needs(STACK, [Member(name=member.name, plan=plan)], catalog)


def test_spot_pool_draws_on_the_p_spot_quota(recorded):
    needs = _needs_with(spot=True)
    assert [(q.metric, q.amount) for q in needs.quotas] == [(STANDARD, 12), (P_SPOT, 1536)]
    recorded.quota(STANDARD, "Running On-Demand Standard instances", 640, 0, "Standard/OnDemand")
    recorded.quota(P_SPOT, "All P Spot Instance Requests", 768, 0, "P/Spot")
    recorded.offerings(ALL_OFFERED)
    (report,) = run.check({"aws": needs})
    assert [(f.subject, f.needed, f.limit) for f in report.shortfalls] == [
        ("L-7212CCBC (All P Spot Instance Requests)", 1536, 768)]


def test_capacity_reservation_without_room(recorded):
    needs = _needs_with(reservation="cr-0123456789abcdef0")
    assert [q.metric for q in needs.quotas] == [STANDARD]  # the reservation's instances were counted when it was made
    recorded.quota(STANDARD, "Running On-Demand Standard instances", 640, 0, "Standard/OnDemand")
    recorded.offerings(ALL_OFFERED)
    recorded.stubs["ec2"].add_response("describe_capacity_reservations", {"CapacityReservations": [
        {"CapacityReservationId": "cr-0123456789abcdef0", "InstanceType": "p5.48xlarge", "State": "active",
         "TotalInstanceCount": 8, "AvailableInstanceCount": 2}]},
        {"CapacityReservationIds": ["cr-0123456789abcdef0"]})
    (report,) = run.check({"aws": needs})
    (short,) = report.shortfalls
    assert (short.kind, short.needed, short.limit, short.in_use) == ("reservation", 8, 8, 6)
    assert "aws ec2 modify-capacity-reservation --capacity-reservation-id cr-0123456789abcdef0 --instance-count 14" \
        in short.request


def test_json_document(recorded, capsys):
    recorded.quota(STANDARD, "Running On-Demand Standard instances", 640, 0, "Standard/OnDemand")
    recorded.quota(P_ON_DEMAND, "Running On-Demand P instances", 384, 192, "P/OnDemand")
    recorded.offerings(ALL_OFFERED)
    code, out, _ = cli(capsys, "--json")
    document = json.loads(out)
    assert code == 1 and document["fits"] is False
    assert document["reports"][0]["cloud"] == "aws"
