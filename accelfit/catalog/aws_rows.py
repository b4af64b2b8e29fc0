"""AWS's own catalog rule (issue 35), named by its Cloud record (accelfit/clouds/aws.py `availability_row_check`)
and run by accelfit/catalog/integrity.py for each AWS availability row: the row says where it was read."""

from __future__ import annotations

import re

from accelfit.catalog.integrity import Located
from accelfit.catalog.models import Availability
from accelfit.errors import Problem

# Where AWS publishes which instance types each zone offers: the EC2 offerings API (DescribeInstanceTypeOfferings,
# `aws ec2 describe-instance-type-offerings`) and AWS's own pages. A repository copy of that API's output (e.g. a
# SkyPilot catalog) is a citable second-hand source when it names the commit read.
_AWS_PRIMARY_MARKERS = ("describeinstancetypeofferings", "describe-instance-type-offerings", "docs.aws.amazon.com")
_COMMIT_REFERENCE = re.compile(r"@[0-9a-f]{7,40}\b")


def availability_source_problems(item: Located) -> list[Problem]:
    """An AWS availability row says where it was read (the EC2 offerings API or an AWS page, or a repository copy
    of it named by commit), and only a row read from AWS itself is verified."""
    row: Availability = item.row  # type: ignore[assignment]
    primary = any(marker in row.source.lower() for marker in _AWS_PRIMARY_MARKERS)
    copy = _COMMIT_REFERENCE.search(row.source) is not None
    if not (primary or copy):
        return [item.at("source", "an AWS availability row needs the source it was read from, not a recollection",
                        "cite the EC2 DescribeInstanceTypeOfferings output (aws ec2 describe-instance-type-offerings "
                        "--location-type availability-zone-id) or a repository copy of it as repo + path + @commit",
                        row.source)]
    if row.verified and copy:
        return [item.at("verified", "a repository copy of the EC2 offerings is second-hand",
                        "set verified: false (verified: true only for rows read from AWS itself)", row.verified)]
    return []
