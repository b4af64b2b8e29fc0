"""The replacement table: path matching, and that each row carries a reason."""

from __future__ import annotations

import re

import pytest

from accelfit.diff.inputs import MISSING, changed_paths
from accelfit.diff.replacement import ANY_INPUT, REPLACEMENT_RULES, replacement_reason

POOL = "gcp:container/nodePool:NodePool"


@pytest.mark.parametrize("type_token, path, replaces", [
    (POOL, "nodeConfig.spot", True),
    (POOL, "nodeConfig.guestAccelerators[0].count", True),  # under a listed path
    (POOL, "nodeConfig.spotInstances", False),  # a prefix of the name is not the path
    (POOL, "nodeConfig.machineType", False),  # updated in place by current providers (rolling nodes)
    (POOL, "autoscaling.totalMaxNodeCount", False),  # resizing
    ("gcp:tpu/v2Vm:V2Vm", "acceleratorConfig.topology", True),
    ("gcp:tpu/v2QueuedResource:V2QueuedResource", "tpu.nodeSpecs[0].node.labels.x", True),  # "*": any input
    ("gcp:storage/bucket:Bucket", "location", True),
    ("gcp:storage/bucket:Bucket", "publicAccessPrevention", False),
    ("aws:eks/nodeGroup:NodeGroup", "instanceTypes", True),
    ("aws:eks/nodeGroup:NodeGroup", "amiType", True),
    ("aws:eks/nodeGroup:NodeGroup", "scalingConfig.maxSize", False),
    ("aws:eks/cluster:Cluster", "accessConfig.bootstrapClusterCreatorAdminPermissions", True),
    ("gcp:filestore/instance:Instance", "name", True),
    ("gcp:compute/routerNat:RouterNat", "name", True),
    ("gcp:compute/routerNat:RouterNat", "logConfig.filter", False),
    ("aws:eks/cluster:Cluster", "accessConfig.authenticationMode", False),  # EKS moves it forward in place
    ("gcp:compute/instance:Instance", "bootDisk.initializeParams.image", True),  # a GPU VM's image: a new VM
    ("gcp:compute/instance:Instance", "machineType", False),  # stopped and started, not replaced
    ("gcp:compute/instance:Instance", "metadata.startup-script", False),
    ("aws:ec2/instance:Instance", "subnetId", True),
    ("aws:ec2/instance:Instance", "userData", False),
    ("kubernetes:helm.sh/v3:Release", "version", False),  # a type with no rows
])
def test_replacement_reason(type_token, path, replaces):
    assert (replacement_reason(type_token, path) is not None) is replaces


def test_every_row_has_a_type_token_a_path_and_a_reason():
    token = re.compile(r"^[a-z0-9-]+:[A-Za-z0-9./-]+:[A-Z][A-Za-z0-9]+$")
    for type_token, rules in REPLACEMENT_RULES.items():
        assert token.match(type_token), type_token
        assert rules, type_token
        for rule in rules:
            assert rule.path == ANY_INPUT or re.match(r"^[a-z][A-Za-z0-9.]*$", rule.path), (type_token, rule.path)
            assert len(rule.reason) > 20, (type_token, rule.path)


def test_changed_paths_reports_leaves_added_and_dropped_inputs():
    old = {"a": {"b": 1, "c": [1, 2]}, "d": [{"x": 1}], "gone": True, "n": 100}
    new = {"a": {"b": 2, "c": [1, 2, 3]}, "d": [{"x": 2}], "added": "v", "n": 100.0}
    assert list(changed_paths(old, new)) == [("a.b", 1, 2), ("a.c", [1, 2], [1, 2, 3]), ("added", MISSING, "v"),
                                             ("d[0].x", 1, 2), ("gone", True, MISSING)]


def test_a_boolean_is_not_the_number_one():
    assert list(changed_paths({"spot": True}, {"spot": 1})) == [("spot", True, 1)]
