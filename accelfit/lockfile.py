"""Write `accelfit:selection` into a stack file without disturbing the rest of it (comments, order, layout), and
without ever leaving it half-written.

PyYAML would drop comments on a round trip, so the selection block is edited as text: only lines inside the
top-level `config:` block, at that block's own indentation, can be the selection key, so a block scalar elsewhere
that contains a look-alike line is never touched. The result is parsed back and compared with the original: every
value except the selection must be unchanged, or nothing is written.

The write is atomic: a temporary file in the same directory, flushed and fsynced, given the original's mode, then
renamed over the original (POSIX rename is atomic), so a full disk, an I/O error or a kill leaves either the old
file or the new one, never an empty or partial one. Concurrent `accelfit lock` runs on one file take turns through
an advisory lock on the file itself. Line endings (LF or CRLF) and a missing final newline are kept.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import stat
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

from accelfit.errors import InputError, problem
from accelfit.inputfile import decode_text, os_error
from accelfit.planner.lock import Selection
from accelfit.yamlio import parse_yaml

LOCK_WAIT_S = 60.0
_OWN_COMMENTS = ("# Written by `accelfit lock`", "# still meets the spec, so a price change")
_CONFIG_LINE = re.compile(r"""^(?P<quote>["']?)config(?P=quote)[ \t]*:[ \t]*(?P<rest>.*)$""")


def _fields(selection: Selection, indent: str) -> list[str]:
    return [f"{indent}{field}: {value}" if not isinstance(value, str) else f"{indent}{field}: \"{value}\""
            for field, value in selection.model_dump(mode="json").items()]


def _render(key: str, selection: Selection | Mapping[str, Selection], indent: str) -> list[str]:
    """The selection block; a fleet's is a map by workload name (each workload locked on its own)."""
    if isinstance(selection, Selection):
        day, lines = selection.locked_on, _fields(selection, f"{indent}  ")
    else:
        day = max(item.locked_on for item in selection.values())
        lines = []
        for name, item in selection.items():
            lines += [f"{indent}  {name}:", *_fields(item, f"{indent}    ")]
    return [f"{indent}# Written by `accelfit lock` on {day}: the program builds this option while it",
            f"{indent}# still meets the spec, so a price change never replaces running capacity by itself.",
            f"{indent}{key}:", *lines]


def _parsed(value: object, selection: Selection | Mapping[str, Selection]) -> object:
    if isinstance(selection, Selection):
        return Selection.model_validate(value)
    return {name: Selection.model_validate(item) for name, item in value.items()} if isinstance(value, dict) else None


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def edit_selection(text: str, key: str, selection: Selection | Mapping[str, Selection], source: str) -> str:
    """The stack file's text with `key` set to `selection`; an InputError when the layout cannot be edited safely."""
    newline = "\r\n" if "\r\n" in text else "\n"
    ends_with_newline = text.endswith(newline)
    lines = text.split(newline)
    if ends_with_newline:
        lines.pop()
    start = next((index for index, line in enumerate(lines) if _CONFIG_LINE.match(line)), None)
    if start is None:
        raise InputError([problem(source, "config", "no top-level `config:` block to write the selection into",
                                  "put the stack's settings under `config:`")])
    rest = _CONFIG_LINE.match(lines[start]).group("rest").strip()  # type: ignore[union-attr]
    if rest and not rest.startswith("#"):
        raise InputError([problem(source, "config", "`config:` is written in flow style on one line",
                                  "write config as an indented block (one key per line) so lock can edit it")])
    # The block: every following line that is blank, a comment, or indented; it ends at the next top-level key.
    end = start + 1
    while end < len(lines) and (not _is_content(lines[end]) or lines[end].startswith((" ", "\t"))):
        end += 1
    while end > start + 1 and not _is_content(lines[end - 1]):
        end -= 1  # trailing blank lines and comments belong to what follows
    body = [index for index in range(start + 1, end) if _is_content(lines[index])]
    if not body:
        indent = "  "
    else:
        indent = " " * _indent_of(lines[body[0]])
        if not indent or lines[body[0]].startswith("\t"):
            raise InputError([problem(source, "config", "the config block is not indented with spaces",
                                      "indent config keys with spaces (YAML does not allow tabs)")])
    key_line = re.compile(rf"""^{indent}(?P<quote>["']?){re.escape(key)}(?P=quote)[ \t]*:""")
    found = next((index for index in range(start + 1, end) if key_line.match(lines[index])), None)
    if found is not None:
        stop = found + 1
        while stop < end and (not lines[stop].strip() or _indent_of(lines[stop]) > len(indent)):
            stop += 1
        while stop > found + 1 and not lines[stop - 1].strip():
            stop -= 1
        first = found
        while first > start + 1 and lines[first - 1].strip().startswith(_OWN_COMMENTS) \
                and _indent_of(lines[first - 1]) == len(indent):
            first -= 1
        new_lines = lines[:first] + _render(key, selection, indent) + lines[stop:]
    else:
        new_lines = lines[:end] + _render(key, selection, indent) + lines[end:]
    return newline.join(new_lines) + (newline if ends_with_newline or found is None and end == len(lines) else "")


def _check_edit(before: str, after: str, key: str, selection: Selection | Mapping[str, Selection],
                source: str) -> None:
    """Everything but the selection parses to the same values; the selection parses back to itself."""
    old, new = parse_yaml(before, source), parse_yaml(after, source)
    if not isinstance(old, dict) or not isinstance(old.get("config"), dict):
        raise InputError([problem(source, "config", "a stack file needs a `config:` mapping",
                                  "put the stack's settings under `config:`")])
    unchanged = isinstance(new, dict) and isinstance(new.get("config"), dict) and {
        k: v for k, v in new.items() if k != "config"} == {k: v for k, v in old.items() if k != "config"} and {
        k: v for k, v in new["config"].items() if k != key} == {k: v for k, v in old["config"].items() if k != key}
    if not unchanged or _parsed(new["config"][key], selection) != (
            selection if isinstance(selection, Selection) else dict(selection)):
        raise InputError([problem(source, f"config.{key}", "the file's layout is too unusual to edit safely; "
                                  "nothing was written", f"set {key} by hand, or simplify the config block")])


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[int]:
    """An exclusive advisory lock on the stack file as it is now; yields its open descriptor.

    After `os.replace` the path names a new inode, so a waiter that locked the old one re-checks and retries."""
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError as error:
            raise os_error(path, error) from None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            if time.monotonic() > deadline:
                raise InputError([problem(str(path), "", f"another `accelfit lock` has held this file for "
                                          f"{LOCK_WAIT_S:.0f} s", "wait for it to finish, then run lock again")]) \
                    from None
            time.sleep(0.05)
            continue
        try:
            same = os.fstat(descriptor).st_ino == os.stat(path).st_ino
        except OSError:
            same = False
        if same:
            break
        os.close(descriptor)  # replaced while we waited: lock the new file instead
    try:
        yield descriptor
    finally:
        os.close(descriptor)


def _read_locked(descriptor: int, path: Path) -> tuple[str, os.stat_result]:
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode):
        raise InputError([problem(str(path), "", "is not a regular file", "pass a stack file")])
    chunks = []
    while chunk := os.read(descriptor, 1 << 20):
        chunks.append(chunk)
    return decode_text(b"".join(chunks), str(path)), info


def replace_atomically(path: Path, data: bytes, mode: int) -> None:
    """Write `data` to a temporary file beside `path`, fsync it, give it `mode`, rename it over `path`."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(handle, view)
                view = view[written:]
            os.fchmod(handle, stat.S_IMODE(mode))
            os.fsync(handle)
        finally:
            os.close(handle)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    with contextlib.suppress(OSError):  # the rename itself is durable once the directory is synced
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)


def write_selection(path: Path, project: str, selection: Selection | Mapping[str, Selection]) -> None:
    """Write one selection (single form) or a map of them by workload name (fleet form)."""
    key = f"{project}:selection"
    with _locked(path) as descriptor:
        text, info = _read_locked(descriptor, path)
        if not info.st_mode & stat.S_IWUSR:
            raise InputError([problem(str(path), "", "the stack file is read-only; nothing was written",
                                      f"make it writable (chmod u+w {path}) and run lock again")])
        updated = edit_selection(text, key, selection, str(path))
        _check_edit(text, updated, key, selection, str(path))
        try:
            replace_atomically(path, updated.encode("utf-8"), info.st_mode)
        except OSError as error:
            raise InputError([problem(str(path), "", f"could not write the stack file ({error.strerror or error}); "
                                      "it is unchanged", "free disk space or fix the folder's permissions, then run "
                                      "lock again")]) from None
