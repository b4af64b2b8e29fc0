"""Needs -> the cloud's reader -> comparison, per cloud the stack uses. The readers are looked up here so tests
can hand in readers built on recorded responses."""

from __future__ import annotations

from typing import Any

from accelfit.preflight.compare import compare
from accelfit.preflight.model import Needs, Report


def gcp_reader(needs: Needs) -> Any:
    from accelfit.preflight.gcp import GcpReader

    return GcpReader(needs.project)


def aws_reader(needs: Needs) -> Any:
    from accelfit.preflight.aws import AwsReader

    return AwsReader()


READERS = {"gcp": gcp_reader, "aws": aws_reader}


def check(needs_by_cloud: dict[str, Needs]) -> list[Report]:
    reports = []
    for cloud, needs in needs_by_cloud.items():
        observed = READERS[cloud](needs).read(needs)
        reports.append(compare(needs, observed, cloud))
    return reports
