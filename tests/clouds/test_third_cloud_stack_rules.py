"""The stack rules follow the registry (issue 35): the keys the stack-region and provider-config checks read are
each registered cloud's (`Cloud.region_key`, `zone_key`, `provider_config_keys`), listed when asked rather than when
accelfit.stackrules was first imported; a cloud's zone key, the shape of its zones and how an error describes them
are fields of its record, so a registered cloud's zone places and is checked as `gcp:zone` is."""

from __future__ import annotations

import dataclasses

import pytest

from accelfit.cli.main import main
from accelfit.clouds import register, unregister
from accelfit.errors import problem
from accelfit.planner.stack_placement import StackPlacement
from accelfit.stackrules import AFTER_PLAN, BEFORE_PLAN
from accelfit.stackrules.regions import region_problems, stack_placement
from tests.clouds import fake_cloud
from tests.clouds.test_third_cloud import STACK_FILE, _project

ZONED = dataclasses.replace(fake_cloud.CLOUD, zone_key="fakecloud:zone",
                            zone_pattern=r"^(?P<region>fk-[a-z]+[0-9]+)-[a-z]\Z",
                            zone_form="a FakeCloud region and a letter: fk-east1-a",
                            zones_of_region=lambda region: (f"{region}-a",))


def _keys(checks: tuple, name: str) -> tuple[str, ...]:
    return next(check for check in checks if check.name == name).keys


def test_the_stack_region_check_lists_a_cloud_registered_after_import():
    """accelfit.stackrules is imported above, before the cloud is registered: its keys still come with it."""
    assert _keys(BEFORE_PLAN, "stack-region") == ("gcp:region", "aws:region", "gcp:zone")
    register(ZONED)
    try:
        assert _keys(BEFORE_PLAN, "stack-region") == ("gcp:region", "aws:region", "fakecloud:region", "gcp:zone",
                                                      "fakecloud:zone")
    finally:
        unregister(ZONED.name)
    assert "fakecloud:region" not in _keys(BEFORE_PLAN, "stack-region")


@pytest.fixture
def zoned_cloud():
    register(ZONED)
    try:
        yield ZONED
    finally:
        unregister(ZONED.name)


def test_its_zone_places_the_stack_and_implies_its_region(zoned_cloud):
    assert stack_placement({"fakecloud:zone": "fk-east1-b"}) == StackPlacement(
        regions=(("fakecloud", fake_cloud.REGION),), zones=(("fakecloud", "fk-east1-b"),))
    assert region_problems({"fakecloud:zone": "fk-east1-b"}, [], "Pulumi.s.yaml") == []


@pytest.mark.parametrize(("zone", "message", "fix"), [
    ("fk-east1", "not a FakeCloud zone (a FakeCloud region and a letter: fk-east1-a)",
     "set fakecloud:zone to a zone of fakecloud:region, e.g. fk-east1-a, or remove it"),
    ("fk-west9-a", "not a FakeCloud zone (a FakeCloud region and a letter: fk-east1-a)",
     "set fakecloud:zone to a zone of fakecloud:region, e.g. fk-east1-a, or remove it"),
])
def test_its_zone_rules_refuse_a_zone_not_of_its_regions(zoned_cloud, zone, message, fix):
    (found,) = region_problems({"fakecloud:zone": zone}, [], "Pulumi.s.yaml")
    assert (found.field, found.message, found.fix, found.value) == ("config.fakecloud:zone", message, fix, zone)


def needs_an_account(stack) -> list:  # noqa: ANN001
    """A provider-config check for the test below: FakeCloud's provider needs the account it bills."""
    if stack.config.get("fakecloud:account"):
        return []
    return [problem(str(stack.path), "config.fakecloud:account", "FakeCloud's provider needs the account it bills",
                    "set fakecloud:account")]


def test_its_provider_config_keys_are_listed_and_checked(tmp_path, capsys, monkeypatch):
    cloud = dataclasses.replace(fake_cloud.CLOUD, provider_config_check=f"{__name__}:needs_an_account",
                                provider_config_keys=("fakecloud:account",))
    assert _keys(AFTER_PLAN, "provider-config") == ("gcp:project", "aws:region")
    register(cloud)
    try:
        assert _keys(AFTER_PLAN, "provider-config") == ("gcp:project", "aws:region", "fakecloud:account")
        monkeypatch.chdir(_project(tmp_path))
        assert main(["check", f"stacks/{STACK_FILE.name}"]) == 2
        assert "config.fakecloud:account" in capsys.readouterr().err
    finally:
        unregister(cloud.name)
