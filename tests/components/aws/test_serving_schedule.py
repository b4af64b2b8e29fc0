"""ServingSchedule: its recurrences and the rules it checks before creating anything."""

import pytest

from accelfit.errors import InputError
from components.aws.schedule import ServingScheduleArgs, ServingSchedule, recurrences, validate_schedule_args


def test_recurrences_cross_midnight():
    assert recurrences("08:00", 12) == ("0 8 * * *", "0 20 * * *")
    assert recurrences("20:30", 8) == ("30 20 * * *", "30 4 * * *")


@pytest.mark.parametrize("change, field", [
    ({"start_utc": "8am"}, "start_utc"),
    ({"hours_per_day": 24}, "hours_per_day"),
    ({"min_size": 3, "desired_size": 2}, "desired_size"),
])
def test_bad_schedule_args_are_refused_naming_the_field(change, field):
    args = ServingScheduleArgs(**{"autoscaling_group_name": "asg", "start_utc": "08:00", "hours_per_day": 12,
                                  **change})
    problems = validate_schedule_args(args)
    assert problems and field in str(problems[0])
    with pytest.raises(InputError):
        ServingSchedule("bad", args)


@pytest.mark.parametrize("scheduled", [False, True])
def test_a_scheduled_group_leaves_its_min_and_max_to_the_schedule(monkeypatch, scheduled):
    # An update during off-hours must not restore the planned min/max and bring the nodes back: a scheduled
    # group ignores them (its scheduled actions own them); every group ignores the autoscaler's desired size.
    import pulumi_aws as aws

    from accelfit.preview.recorder import record
    from components.aws import node_group
    from components.aws.node_group import ManagedNodeGroup, ManagedNodeGroupArgs

    seen = {}
    real = aws.eks.NodeGroup

    def capture(name, *args, opts=None, **kwargs):
        seen[name] = opts
        return real(name, *args, opts=opts, **kwargs)

    monkeypatch.setattr(node_group.aws.eks, "NodeGroup", capture)

    def program():
        ManagedNodeGroup("svc", ManagedNodeGroupArgs(
            cluster_name="c", node_role_arn="arn:aws:iam::123456789012:role/nodes", subnet_ids=["subnet-1"],
            security_group_ids=["sg-1"], instance_type="g6.xlarge", min_size=0, max_size=4, desired_size=1,
            scheduled=scheduled, region="us-east-1"))

    record(program)
    ignored = set(seen["svc-ng"].ignore_changes)
    assert "scalingConfig.desiredSize" in ignored
    assert ({"scalingConfig.minSize", "scalingConfig.maxSize"} <= ignored) is scheduled
