"""User-facing input errors.

Every invalid spec, inventory, stack file or catalog row becomes one `Problem` that names the file, the field
path, the bad value and the fix. Loaders collect all problems and raise one `InputError`, so a user sees
everything that is wrong at once; the CLI prints them and exits 2 without a traceback.
"""

from __future__ import annotations

import dataclasses
import reprlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from accelfit.values import mask_credentials

EXIT_OK = 0
EXIT_POLICY_OR_INFEASIBLE = 1
EXIT_INVALID_INPUT = 2

# Error output stays readable and bounded whatever the input: a 100 kB name or a 50,000-key mapping must not turn
# into megabytes of messages.
MAX_VALUE_CHARS = 120
MAX_FIELD_CHARS = 160
MAX_PROBLEMS_SHOWN = 20

_VALUE_REPR = reprlib.Repr()
_VALUE_REPR.maxstring = MAX_VALUE_CHARS
_VALUE_REPR.maxother = MAX_VALUE_CHARS
_VALUE_REPR.maxlong = 40
_VALUE_REPR.maxlevel = 3
_VALUE_REPR.maxlist = _VALUE_REPR.maxtuple = _VALUE_REPR.maxdict = _VALUE_REPR.maxset = 6

# Field path -> line, per source file, recorded by the YAML reader, so a problem can say where its field is.
_LINES: dict[str, Mapping[str, int]] = {}


def remember_lines(source: str, lines: Mapping[str, int]) -> None:
    _LINES[source] = lines


def remembered_lines(source: str) -> Mapping[str, int]:
    """What `remember_lines` holds for `source` (empty when nothing was read from it)."""
    return _LINES.get(source, {})


def line_of(source: str | None, field: str) -> int | None:
    """The line of `field` in `source`, or of its nearest enclosing field the reader recorded."""
    lines = _LINES.get(source or "")
    while lines and field:
        if field in lines:
            return lines[field]
        cut = max(field.rfind("."), field.rfind("["))
        field = field[:cut] if cut > 0 else ""
    return None


def shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit - 20]}...({len(text):,} characters)"


# Pulumi marks a secret in JSON (a `pulumi preview --json`, a state export) with this key and value
# (pulumi/pulumi sdk/go/common/resource/sig/sig.go: Key, Secret); such a value is never quoted in a message.
SECRET_SIG_KEY = "4dabf18193072939515e22adb298388d"
SECRET_SIG = "1b47061264138c4ac30d75fd1eb44270"
SECRET_SHOWN = "(a secret value, not shown)"


def holds_secret(value: object, budget: int = 2000) -> bool:
    """Whether a value is or contains a Pulumi secret envelope (or its text); a value too big to search in
    `budget` steps counts as one, so a message never quotes what it could not check."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        budget -= 1
        if budget < 0 or depth > 20:
            return True
        if isinstance(item, str):
            if SECRET_SIG_KEY in item or SECRET_SIG in item:
                return True
        elif isinstance(item, dict):
            if SECRET_SIG_KEY in item:
                return True
            stack.extend((part, depth + 1) for pair in item.items() for part in pair)
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend((part, depth + 1) for part in item)
    return False


def short_repr(value: object) -> str:
    """repr() bounded in length and depth, whatever the value (reprlib never walks the whole structure); a value
    holding a Pulumi secret envelope is withheld."""
    if holds_secret(value):
        return SECRET_SHOWN
    return shorten(_VALUE_REPR.repr(value), MAX_VALUE_CHARS + 40)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one field of one input file."""

    file: str | None
    field: str
    message: str
    fix: str
    value: object = None
    has_value: bool = False
    line: int | None = None

    def render(self) -> str:
        where = f"{shorten(self.file, MAX_FIELD_CHARS)}: " if self.file else ""
        field = shorten(self.field or "(top level)", MAX_FIELD_CHARS)
        at = f" (line {self.line})" if self.line else ""
        got = f" (got {short_repr(self.value)})" if self.has_value else ""
        # Whatever a user wrote may be quoted here: a credential-shaped part of it never is (accelfit.values).
        return mask_credentials(f"{where}{field}{at}: {shorten(self.message, 400)}{got}. Fix: {shorten(self.fix, 600)}")


class InputError(Exception):
    """Invalid user input; carries every problem found, never just the first."""

    def __init__(self, problems: Sequence[Problem]):
        if not problems:
            raise ValueError("InputError needs at least one problem")
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__(self.render())

    def render(self, limit: int | None = None) -> str:
        return "\n".join(self.lines(limit))

    def naming_file(self, file: str, placeholders: tuple[str | None, ...] = ("stack", None)) -> InputError:
        """The same problems, with a placeholder file name (components say "stack") replaced by the real file."""
        return InputError([dataclasses.replace(item, file=file, line=item.line or line_of(file, f"config.{item.field}"))
                           if item.file in placeholders else item for item in self.problems])

    def lines(self, limit: int | None = MAX_PROBLEMS_SHOWN) -> list[str]:
        """One line per problem, at most `limit` of them, then how many more there were."""
        shown = self.problems if limit is None else self.problems[:limit]
        lines = [problem.render() for problem in shown]
        if len(shown) < len(self.problems):
            lines.append(f"... and {len(self.problems) - len(shown):,} more problems like these")
        return lines


def problem(file: str | None, field: str, message: str, fix: str, *values: object) -> Problem:
    """Build a Problem; pass the bad value as an extra positional argument to have it quoted."""
    return Problem(file=file, field=field, message=message, fix=fix,
                   value=values[0] if values else None, has_value=bool(values), line=line_of(file, field))


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """The closest choice to a misspelt word, or None when nothing is close."""
    choices = list(choices)
    lowered = {choice.lower(): choice for choice in choices}
    import difflib  # only when a word is unknown: every command imports this module

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
