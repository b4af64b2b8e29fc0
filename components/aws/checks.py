"""Shared plumbing for argument checks: collect every problem, then raise one InputError before any resource."""

from __future__ import annotations

from collections.abc import Sequence

from accelfit.errors import InputError, Problem, problem

# Problems found in a component's hand-filled args name the args field; problems in a Plan say "plan".
ARGS_FILE = "component args"


def raise_if_any(problems: Sequence[Problem]) -> None:
    if problems:
        raise InputError(problems)


def args_problem(component: str, field: str, message: str, fix: str, *value: object) -> Problem:
    return problem(f"{ARGS_FILE} ({component})", field, message, fix, *value)
