"""components/build.py's builders by cloud (issue 35): each shipped cloud that offers a cluster or a GPU VM names its
builders in its Cloud record (`component_builders`), an unknown cloud is refused by name, and a record that names
something else is refused. A registered cloud's builders (tests/clouds/test_third_cloud.py) are what `build` calls."""

from __future__ import annotations

import dataclasses

import pytest

from accelfit.clouds import UnknownCloud, all_clouds, register, unregister
from components import build as builds
from tests.clouds import fake_cloud


def test_every_cloud_platform_kind_has_a_builder():
    for cloud in all_clouds():
        found = builds.builders_of(cloud.name)
        if cloud.owned:  # built by the bare-metal path, not by name
            assert found == builds.CloudBuilders()
            continue
        assert (found.cluster is not None) == bool(cloud.cluster_platform), cloud.name
        assert found.cluster_problems is not None, cloud.name
        assert (found.vms is not None) == bool(cloud.vm_platform), cloud.name


def test_builders_of_an_unknown_cloud_are_refused():
    with pytest.raises(UnknownCloud, match="unknown cloud 'nimbus'"):
        builds.builders_of("nimbus")


def test_a_record_naming_no_builders_is_refused():
    register(dataclasses.replace(fake_cloud.CLOUD, component_builders="components.build:build"))
    try:
        with pytest.raises(TypeError, match=r"is not a components\.build\.CloudBuilders"):
            builds.builders_of(fake_cloud.CLOUD.name)
    finally:
        unregister(fake_cloud.CLOUD.name)
