"""Golden files: the full resource list of each AWS example stack (regenerate with ACCELFIT_UPDATE_GOLDEN=1)."""

from __future__ import annotations

import pytest
from aws_golden import check_text, resource_list
from aws_plans import ACCESS, EXAMPLES

import components.aws as aws_components
from accelfit.preview.recorder import record


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_resource_list_matches_golden(example, catalog):
    make, owner = EXAMPLES[example]
    plan = make()
    recording = record(lambda: aws_components.build(plan, owner(plan), catalog, ACCESS))
    check_text(f"{example}.json", resource_list(recording))
