"""A third cloud registered from one test-only module (tests/clouds/fake_cloud.py) is looked up, priced by the
preview's pricing and refused where it lacks a feature, without any file outside that module changing (issue 35).
Planning it needs catalog rows and placement.clouds values for it: the spec and catalog still hold the shipped
clouds as enums (the unification of the three cloud enums is still to do)."""

from __future__ import annotations

import pytest

from accelfit.catalog import load_catalog
from accelfit.clouds import all_clouds, cloud_named, cloud_of_platform, clouds_supporting, register, unregister
from accelfit.pricing import NeutralResource, PricingContext, price_resources
from accelfit.pricing.pricers import priced_types
from tests.clouds import fake_cloud


@pytest.fixture
def third_cloud():
    register(fake_cloud.CLOUD)
    try:
        yield fake_cloud.CLOUD
    finally:
        unregister(fake_cloud.CLOUD.name)


def test_the_registry_knows_it(third_cloud):
    assert cloud_named("fakecloud") is third_cloud
    assert cloud_of_platform("fake-gpu") is third_cloud
    assert third_cloud not in clouds_supporting("tpu")
    assert "fakecloud" in [cloud.name for cloud in clouds_supporting("model-server")]


def test_the_preview_prices_its_resource(third_cloud):
    node = NeutralResource(type=fake_cloud.NODE_TYPE, name="gpu", props={"machineType": fake_cloud.MACHINE_TYPE,
                                                                         "nodes": 2}, urn="urn:fake:gpu")
    report = price_resources([node], load_catalog(), PricingContext())
    assert fake_cloud.NODE_TYPE in priced_types()
    (cost,) = report.resources
    assert cost.monthly_usd == pytest.approx(2 * 10.0 * 730, rel=0.01)
    assert "fk-h100-8 on demand $10/h" in cost.basis
    assert report.unpriced == ()


def test_an_unknown_machine_is_reported_unpriced(third_cloud):
    node = NeutralResource(type=fake_cloud.NODE_TYPE, name="gpu", props={"machineType": "fk-none"})
    report = price_resources([node], load_catalog(), PricingContext())
    assert report.resources == () and "gpu (fakecloud:compute/gpuNode:GpuNode)" in report.unpriced[0]


def test_unregistering_removes_it_and_its_pricers():
    register(fake_cloud.CLOUD)
    assert fake_cloud.NODE_TYPE in priced_types()
    unregister(fake_cloud.CLOUD.name)
    assert "fakecloud" not in [cloud.name for cloud in all_clouds()]
    assert fake_cloud.NODE_TYPE not in priced_types()
