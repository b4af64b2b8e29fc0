"""The cloud registry (accelfit/clouds): lookups, errors, and that each record agrees with what it describes."""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

import pytest

from accelfit.buying import buying_model
from accelfit.clouds import (
    FEATURES, Cloud, UnknownCloud, all_clouds, cloud_named, cloud_of_platform, cloud_of_scheme,
    clouds_supporting, register, unregister,
)
from accelfit.planner.model import Platform

CATALOG_DATA = Path(__file__).resolve().parents[2] / "accelfit" / "catalog" / "data"


def test_the_shipped_clouds_in_order():
    assert [cloud.name for cloud in all_clouds()] == ["gcp", "aws", "onprem"]


def test_every_plan_platform_belongs_to_exactly_one_cloud():
    owners = {platform.value: [c.name for c in all_clouds() if c.offers(platform.value)] for platform in Platform}
    assert all(len(names) == 1 for names in owners.values()), owners
    assert {p for cloud in all_clouds() for p in cloud.platforms} == {platform.value for platform in Platform}


def test_lookup_by_platform_and_name():
    assert cloud_of_platform("eks-gpu").name == "aws"
    assert cloud_of_platform(Platform.gke_tpu).name == "gcp"
    assert cloud_named("onprem").owned


def test_an_unknown_name_is_a_clear_error_with_the_closest_match():
    with pytest.raises(UnknownCloud, match=r"unknown cloud 'gpc' \(did you mean 'gcp'\?\); known: gcp, aws, onprem"):
        cloud_named("gpc")
    with pytest.raises(UnknownCloud, match="unknown platform 'aks-gpu'"):
        cloud_of_platform("aks-gpu")


def test_catalog_files_exist():
    for cloud in all_clouds():
        for name in cloud.catalog_files:
            assert ((cloud.catalog_dir or CATALOG_DATA) / name).is_file(), (cloud.name, name)


def test_preflight_readers_resolve():
    for cloud in all_clouds():
        if cloud.preflight_reader:
            module, _, name = cloud.preflight_reader.partition(":")
            assert callable(getattr(import_module(module), name))


def test_features_are_data_with_reasons():
    assert [cloud.name for cloud in clouds_supporting("model-server")] == ["gcp", "aws"]
    assert [cloud.name for cloud in clouds_supporting("tpu")] == ["gcp"]
    assert "owned servers" in (cloud_named("onprem").unsupported_reason("fallback-tiers") or "")
    for cloud in all_clouds():
        assert {feature for feature, _ in cloud.unsupported} <= set(FEATURES)
    with pytest.raises(ValueError, match="unknown cloud feature"):
        cloud_named("gcp").supports("teleport")


def test_buying_models_and_storage_schemes():
    # Who sells a buying model is the buying-model table's (accelfit/buying: sold_by), named by cloud.
    assert buying_model("flex-start").sold_by == ("gcp",) and buying_model("capacity-block").sold_by == ("aws",)
    assert all(buying_model("spot").sold_on(cloud.name) for cloud in all_clouds())
    assert cloud_of_scheme("s3").name == "aws" and cloud_of_scheme("hf") is None


def test_register_a_new_cloud_and_refuse_clashes():
    fake = Cloud(name="fakecloud-reg", title="Fake", platforms=("fake-reg-gpu",))
    register(fake)
    try:
        assert cloud_of_platform("fake-reg-gpu") is fake
        with pytest.raises(ValueError, match="already registered"):
            register(fake)
    finally:
        unregister("fakecloud-reg")
    with pytest.raises(ValueError, match="belong to another cloud"):
        register(Cloud(name="other", title="Other", platforms=("gke-gpu",)))
    with pytest.raises(ValueError, match="shipped"):
        unregister("gcp")
    assert "fakecloud-reg" not in [cloud.name for cloud in all_clouds()]


def test_each_cloud_lists_exactly_the_types_its_pricer_module_prices():
    from accelfit.pricing.pricers import CROSS_CLOUD, priced_types, types_priced_by

    for cloud in all_clouds():
        assert types_priced_by(cloud.pricer_module) == frozenset(cloud.priced_resource_types), cloud.name
    listed = {token for cloud in all_clouds() for token in cloud.priced_resource_types}
    cross = {token for module in CROSS_CLOUD for token in types_priced_by(module)}
    assert priced_types() == frozenset(listed | cross)


def test_a_type_has_one_pricer():
    from accelfit.pricing.pricers import prices

    def again(resource, book):
        return None

    again.__module__ = "somewhere.else"  # a different module claiming a type GCP's pricers own
    with pytest.raises(ValueError, match=r"priced by accelfit\.pricing\.pricers\.gcp already"):
        prices("gcp:container/nodePool:NodePool")(again)


def test_node_disk_services_agree_with_the_pricing_constants():
    from accelfit.pricing.node_disks import EKS_ROOT_VOLUME_SERVICE, GKE_DEFAULT_DISK_TYPE

    assert cloud_named("gcp").node_disk_service == GKE_DEFAULT_DISK_TYPE
    assert cloud_named("aws").node_disk_service == EKS_ROOT_VOLUME_SERVICE


def test_zones_of_a_region():
    assert cloud_named("aws").zones_of_region("us-east-1") == ("us-east-1a", "us-east-1b")
    assert cloud_named("gcp").zones_of_region("us-east1") == ("us-east1-b",)
    assert cloud_named("gcp").zones_of_region("us-central1") == ("us-central1-a",)
