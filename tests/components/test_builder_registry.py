"""components/build.py's builders by cloud (issue 35): every shipped cloud that offers a cluster or a GPU VM has
its builders, an unknown cloud is refused by name, and a registered cloud's builders are what `build` calls."""

from __future__ import annotations

import pytest

from accelfit.clouds import UnknownCloud, all_clouds
from components import build as builds


def test_every_cloud_platform_kind_has_a_builder():
    for cloud in all_clouds():
        if cloud.owned:
            continue
        assert (cloud.name in builds.CLUSTER_BUILDERS) == bool(cloud.cluster_platform), cloud.name
        assert cloud.name in builds.CLUSTER_PROBLEMS
        assert cloud.name in builds.VM_BUILDERS


def test_builders_of_an_unknown_cloud_are_refused():
    with pytest.raises(UnknownCloud, match="unknown cloud 'nimbus'"):
        builds.register_builders("nimbus", vms=lambda plan, ownership, catalog: None)
    assert "nimbus" not in builds.VM_BUILDERS
