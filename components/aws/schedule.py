"""ServingSchedule: a part-day serving pool on EKS, scaled up and to zero every day by scheduled actions on the
managed node group's Auto Scaling group, so what `hours_per_day` prices is what runs.

- EKS makes one Auto Scaling group per managed node group and reports its name in the node group's resources
  (https://docs.aws.amazon.com/eks/latest/APIReference/API_AutoScalingGroup.html, as of 2026-11-23).
- A scheduled action sets the group's minimum, maximum and desired capacity on a cron recurrence in a time zone
  (https://docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-scheduled-scaling.html, as of
  2026-11-23). At the start the pool may grow again (the Cluster Autoscaler moves the desired capacity within the
  bounds); at the stop min = max = desired = 0 removes every node, whatever the autoscaler wants.
- The preview prices a node group `<pool>-ng` for `hours` a day only when it finds `<pool>-schedule-start` and
  `<pool>-schedule-stop` daily recurrences (accelfit/pricing/resources.py), so the figure rests on these resources.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from typing import TYPE_CHECKING

from accelfit.errors import Problem
from accelfit.planner.model import Plan
from components.aws.checks import args_problem, raise_if_any
from components.common import child_name

if TYPE_CHECKING:  # the fleet stack imports this module's schedules' builder
    from components.aws.fleet_stack import EksWorkload, EksWorkloadParts

_COMPONENT = "ServingSchedule"
_HH_MM = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)\Z")
TIME_ZONE = "Etc/UTC"


@dataclass(frozen=True)
class ServingScheduleArgs:
    autoscaling_group_name: pulumi.Input[str]
    start_utc: str = field(metadata={"doc": "HH:MM (UTC) the pool scales up each day."})
    hours_per_day: float = field(metadata={"doc": "Hours it serves; then it scales to zero until the next start."})
    min_size: int = 1
    max_size: int = 1
    desired_size: int = 1
    region: str | None = None


def recurrences(start_utc: str, hours_per_day: float) -> tuple[str, str]:
    """Daily cron recurrences ("M H * * *") of the start and the stop."""
    match = _HH_MM.match(start_utc)
    assert match, start_utc
    start = int(match.group(1)) * 60 + int(match.group(2))
    stop = (start + round(hours_per_day * 60)) % (24 * 60)
    return f"{start % 60} {start // 60} * * *", f"{stop % 60} {stop // 60} * * *"


def validate_schedule_args(args: ServingScheduleArgs) -> list[Problem]:
    problems: list[Problem] = []
    if not _HH_MM.match(args.start_utc):
        problems.append(args_problem(_COMPONENT, "start_utc", "not a time of day", "use HH:MM, e.g. 08:00",
                                     args.start_utc))
    if not 0 < args.hours_per_day < 24 or round(args.hours_per_day * 60) < 1:
        problems.append(args_problem(_COMPONENT, "hours_per_day", "a schedule needs 0 < hours_per_day < 24 (at 24 "
                                     "the pool simply runs all day)", "drop the schedule or change the hours",
                                     args.hours_per_day))
    if not 0 <= args.min_size <= args.desired_size <= args.max_size or args.max_size < 1:
        problems.append(args_problem(_COMPONENT, "desired_size", "sizes must satisfy 0 <= min <= desired <= max, "
                                     "max >= 1", "reorder the sizes", (args.min_size, args.desired_size,
                                                                       args.max_size)))
    return problems


class ServingSchedule(pulumi.ComponentResource):
    start: aws.autoscaling.Schedule
    stop: aws.autoscaling.Schedule

    def __init__(self, name: str, args: ServingScheduleArgs, opts: pulumi.ResourceOptions | None = None):
        raise_if_any(validate_schedule_args(args))
        super().__init__("accelfit:aws:ServingSchedule", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        start_cron, stop_cron = recurrences(args.start_utc, args.hours_per_day)
        self.start = aws.autoscaling.Schedule(
            child_name(name, "start"), autoscaling_group_name=args.autoscaling_group_name,
            scheduled_action_name=child_name(name, "start"), recurrence=start_cron, time_zone=TIME_ZONE,
            min_size=args.min_size, max_size=args.max_size, desired_capacity=args.desired_size, region=args.region,
            opts=child)
        self.stop = aws.autoscaling.Schedule(
            child_name(name, "stop"), autoscaling_group_name=args.autoscaling_group_name,
            scheduled_action_name=child_name(name, "stop"), recurrence=stop_cron, time_zone=TIME_ZONE,
            min_size=0, max_size=0, desired_capacity=0, region=args.region, opts=child)
        self.register_outputs({"start_recurrence": start_cron, "stop_recurrence": stop_cron})


def build_schedules(plan: Plan, stack: EksWorkload | EksWorkloadParts) -> dict[str, ServingSchedule]:
    """One ServingSchedule per plan pool that serves part of the day, under its node group component."""
    schedules: dict[str, ServingSchedule] = {}
    for pool in plan.node_pools:
        if pool.serving_start_utc is None or pool.serving_hours_per_day is None:
            continue
        group = stack.node_groups[pool.name]
        schedules[pool.name] = ServingSchedule(
            child_name(f"{plan.workload}-pool-{pool.name}", "schedule"), ServingScheduleArgs(
                autoscaling_group_name=group.autoscaling_group_name, start_utc=pool.serving_start_utc,
                hours_per_day=pool.serving_hours_per_day, min_size=pool.min_nodes,
                max_size=pool.max_nodes, desired_size=max(pool.initial_nodes, pool.min_nodes), region=plan.region),
            opts=pulumi.ResourceOptions(parent=group))
    return schedules
