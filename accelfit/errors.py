"""User-facing input errors.

Every invalid spec, inventory, stack file or catalog row becomes one `Problem` that names the file, the field
path, the bad value and the fix. Loaders collect all problems and raise one `InputError`, so a user sees
everything that is wrong at once; the CLI prints them and exits 2 without a traceback.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

EXIT_OK = 0
EXIT_POLICY_OR_INFEASIBLE = 1
EXIT_INVALID_INPUT = 2


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one field of one input file."""

    file: str | None
    field: str
    message: str
    fix: str
    value: object = None
    has_value: bool = False

    def render(self) -> str:
        where = f"{self.file}: " if self.file else ""
        field = self.field or "(top level)"
        got = f" (got {self.value!r})" if self.has_value else ""
        return f"{where}{field}: {self.message}{got}. Fix: {self.fix}"


class InputError(Exception):
    """Invalid user input; carries every problem found, never just the first."""

    def __init__(self, problems: Sequence[Problem]):
        if not problems:
            raise ValueError("InputError needs at least one problem")
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__(self.render())

    def render(self) -> str:
        return "\n".join(problem.render() for problem in self.problems)


def problem(file: str | None, field: str, message: str, fix: str, *values: object) -> Problem:
    """Build a Problem; pass the bad value as an extra positional argument to have it quoted."""
    return Problem(file=file, field=field, message=message, fix=fix,
                   value=values[0] if values else None, has_value=bool(values))


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """The closest choice to a misspelt word, or None when nothing is close."""
    choices = list(choices)
    lowered = {choice.lower(): choice for choice in choices}
    matches = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
    return lowered[matches[0]] if matches else None


def join_path(*parts: str | int) -> str:
    """Join a field path: ("servers", 2, "gpu_model") -> "servers[2].gpu_model"."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part:
            out += f".{part}" if out else str(part)
    return out
