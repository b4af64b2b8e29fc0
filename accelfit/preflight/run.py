"""Needs -> the cloud's reader -> comparison, per cloud the stack uses. Each cloud's reader is the class its record
names (accelfit/preflight/readers.py); tests hand in readers built on recorded responses by replacing its
`for_needs`."""

from __future__ import annotations

from accelfit.preflight.compare import compare
from accelfit.preflight.model import Needs, Report
from accelfit.preflight.readers import reader_class


def check(needs_by_cloud: dict[str, Needs]) -> list[Report]:
    reports = []
    for cloud, needs in needs_by_cloud.items():
        observed = reader_class(cloud).for_needs(needs).read(needs)
        reports.append(compare(needs, observed, cloud))
    return reports
