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
