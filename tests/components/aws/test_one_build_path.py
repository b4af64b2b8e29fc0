"""One build path for EKS: the single form's cluster of its own and a fleet's shared cluster make every node group
through the one function (components/aws/stack.py build_node_groups), so a new pool type is added in one place; and
the single form keeps the URNs stacks were created with (nothing moves, so no alias is needed)."""

from __future__ import annotations

import sys
from pathlib import Path

from aws_plans import ACCESS, EXAMPLES

import components.aws as aws_components
import components.aws.fleet_stack as fleet_stack
import components.aws.stack as stack
from accelfit.preview.recorder import record

NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"


def counting(monkeypatch) -> list[str]:
    """The pools build_node_groups turned into node groups, wherever it is called from."""
    built: list[str] = []
    real = stack.build_node_groups

    def spy(owner, name, pools, items, tags, region):
        built.extend(f"{name}-pool-{pool.name}" for pool in pools)
        return real(owner, name, pools, items, tags, region)

    monkeypatch.setattr(stack, "build_node_groups", spy)
    monkeypatch.setattr(fleet_stack, "build_node_groups", spy)
    return built


def test_the_single_form_builds_every_node_group_through_the_shared_builder(monkeypatch):
    built = counting(monkeypatch)
    make, owner = EXAMPLES["example-aws-h100-training"]
    plan = make()
    recording = record(lambda: aws_components.build(plan, owner(plan), access=ACCESS))
    groups = recording.of_type(NODE_GROUP)
    assert groups and sorted(built) == sorted(pool_names(recording, groups))
    # The URNs single stacks were created with: every resource under the one EksGpuStack named after the workload.
    by_urn = {resource.urn: resource for resource in recording.resources}
    components = [by_urn[group.parent] for group in groups]
    assert {component.urn.split("::", 2)[2] for component in components} == {
        f"accelfit:aws:EksGpuStack$accelfit:aws:ManagedNodeGroup::{plan.workload}-pool-{pool.name}"
        for pool in plan.node_pools}
    assert {by_urn[component.parent].urn.split("::", 2)[2] for component in components} == {
        f"accelfit:aws:EksGpuStack::{plan.workload}"}


def test_a_shared_cluster_builds_every_node_group_through_the_same_builder(monkeypatch):
    sys.path.append(str(Path(__file__).parents[1] / "fleet"))
    from fleet_plans import aws_cluster, aws_config, record_cluster

    built = counting(monkeypatch)
    recording, error = record_cluster(aws_cluster(), aws_config())
    assert error is None
    groups = recording.of_type(NODE_GROUP)
    assert len(groups) > 2 and sorted(built) == sorted(pool_names(recording, groups))


def pool_names(recording, groups) -> list[str]:
    """Each node group's component name (the ManagedNodeGroup it belongs to)."""
    by_urn = {resource.urn: resource for resource in recording.resources}
    return [by_urn[group.parent].name for group in groups]
