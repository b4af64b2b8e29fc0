"""Write `accelfit:selection` into a stack file without disturbing the rest of it (comments, order, layout), and
without ever leaving it half-written.

PyYAML would drop comments on a round trip, so the selection block is edited as text: only lines inside the
top-level `config:` block, at that block's own indentation, can be the selection key, so a block scalar elsewhere
that contains a look-alike line is never touched. The result is parsed back and compared with the original: every
value except the selection must be unchanged, or nothing is written.

The write is atomic (`accelfit.atomicwrite`): a temporary file created exclusively in the same directory, fsynced,
given the original's mode and owner, then renamed over the original, so a full disk, an I/O error or a kill leaves
either the old file or the new one, never an empty or partial one, and no copy behind. A symlinked stack file has
its target written (the link stays); a hard-linked one is refused rather than split. Concurrent `accelfit lock`
runs on one file take turns through an advisory lock on the file itself; a file system without locks (NFS without
lockd: ENOLCK) is a clear error. What the user wrote is kept: a UTF-8 BOM, line endings (LF or CRLF), a missing
final newline, and comments, including ones written inside the selection block (they move to its top). Workload
names that YAML would read as something else (`on`, `no`, `null`, `1e3`) are quoted.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import stat
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import yaml

from accelfit.atomicwrite import real_target, remove_stale, write_atomically
from accelfit.errors import InputError, problem
from accelfit.inputfile import decode_text, os_error
from accelfit.planner.lock import Selection
from accelfit.yamlio import parse_yaml

_BOM = "\ufeff"

LOCK_WAIT_S = 60.0
_OWN_COMMENTS = ("# Written by `accelfit lock`", "# still meets the spec, so a price change")
_CONFIG_LINE = re.compile(r"""^(?P<quote>["']?)config(?P=quote)[ \t]*:[ \t]*(?P<rest>.*)$""")


def _fields(selection: Selection, indent: str) -> list[str]:
    # json.dumps of a string is a valid YAML double-quoted scalar, whatever characters it holds.
    # Unset optional fields (a lock without an overflow) are left out: such locks read and write as before.
    return [f"{indent}{field}: {json.dumps(value)}"
            for field, value in selection.model_dump(mode="json", exclude_none=True).items()]


def yaml_key(name: str) -> str:
    """A mapping key YAML reads back as this exact string: plain when it is, else double-quoted (`on`, `no`, `null`,
    `1e3` and `0x10` would otherwise be read as a boolean, null or a number)."""
    try:  # the reader accelfit and the program use, and PyYAML's own: both must read the key back as written
        plain = parse_yaml(f"{name}: 0", "<key>")
        plain = plain if yaml.safe_load(f"{name}: 0") == plain else None
    except (InputError, yaml.YAMLError):
        plain = None
    return name if plain == {name: 0} else json.dumps(name)


def _render(key: str, selection: Selection | Mapping[str, Selection], indent: str,
            kept_comments: list[str] | None = None) -> list[str]:
    """The selection block; a fleet's is a map by workload name (each workload locked on its own)."""
    if isinstance(selection, Selection):
        day, lines = selection.locked_on, _fields(selection, f"{indent}  ")
    else:
        day = max(item.locked_on for item in selection.values())
        lines = []
        for name, item in selection.items():
            lines += [f"{indent}  {yaml_key(name)}:", *_fields(item, f"{indent}    ")]
    return [f"{indent}# Written by `accelfit lock` on {day}: the program builds this option while it",
            f"{indent}# still meets the spec, so a price change never replaces running capacity by itself.",
            f"{indent}{key}:", *(kept_comments or []), *lines]


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
    start, end = _config_block(lines, source)
    indent = _config_indent(lines, start, end, source)
    key_line = re.compile(rf"""^{indent}(?P<quote>["']?){re.escape(key)}(?P=quote)[ \t]*:""")
    found = next((index for index in range(start + 1, end) if key_line.match(lines[index])), None)
    if found is not None:
        new_lines = _replace_entry(lines, start, end, found, indent, key, selection)
    else:
        new_lines = lines[:end] + _render(key, selection, indent) + lines[end:]
    return newline.join(new_lines) + (newline if ends_with_newline else "")


def _config_block(lines: list[str], source: str) -> tuple[int, int]:
    """The `config:` line's index and the end of its indented block (exclusive; trailing blank lines and comments
    left to what follows); an InputError when there is none or it is written in flow style."""
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
    return start, end


def _config_indent(lines: list[str], start: int, end: int, source: str) -> str:
    """The config keys' indent (two spaces for an empty block); an InputError when it is not made of spaces."""
    body = [index for index in range(start + 1, end) if _is_content(lines[index])]
    if not body:
        return "  "
    indent = " " * _indent_of(lines[body[0]])
    if not indent or lines[body[0]].startswith("\t"):
        raise InputError([problem(source, "config", "the config block is not indented with spaces",
                                  "indent config keys with spaces (YAML does not allow tabs)")])
    return indent


def _replace_entry(lines: list[str], start: int, end: int, found: int, indent: str, key: str,
                   selection: Selection | Mapping[str, Selection]) -> list[str]:
    """The lines with the entry at `found` (its value's lines, and the comments lock wrote above it) replaced."""
    stop = found + 1
    while stop < end and (not lines[stop].strip() or _indent_of(lines[stop]) > len(indent)):
        stop += 1
    while stop > found + 1 and not lines[stop - 1].strip():
        stop -= 1
    first = found
    while first > start + 1 and lines[first - 1].strip().startswith(_OWN_COMMENTS) \
            and _indent_of(lines[first - 1]) == len(indent):
        first -= 1
    # The user's own comments inside the old block (not the two lines lock writes) are kept, at its top.
    comments = [line for line in lines[found + 1:stop] if line.strip().startswith("#")
                and not line.strip().startswith(_OWN_COMMENTS)]
    return lines[:first] + _render(key, selection, indent, comments) + lines[stop:]


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
        except OSError as error:
            os.close(descriptor)
            if error.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL):
                raise InputError([problem(str(path), "", "the file system does not support file locks "
                                          f"({error.strerror or error}; NFS without a lock daemon?), so lock cannot "
                                          "keep two runs from overwriting each other; nothing was written",
                                          "run lock on a checkout on a local disk, or enable NFS locking (lockd)")]) \
                    from None
            raise os_error(path, error) from None
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


def _read_locked(descriptor: int, path: Path) -> tuple[str, bool, os.stat_result]:
    """The stack file's text (without a BOM), whether it had one, and its stat."""
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode):
        raise InputError([problem(str(path), "", "is not a regular file", "pass a stack file")])
    chunks = []
    while chunk := os.read(descriptor, 1 << 20):
        chunks.append(chunk)
    data = b"".join(chunks)
    return decode_text(data, str(path)), data.startswith(_BOM.encode("utf-8")), info


def write_selection(path: Path, project: str, selection: Selection | Mapping[str, Selection]) -> None:
    """Write one selection (single form) or a map of them by workload name (fleet form)."""
    key = f"{project}:selection"
    target = real_target(path)  # a symlinked stack file: lock and write the file it points at
    with _locked(target) as descriptor:
        remove_stale(target)  # a killed lock's temporary copy (we hold the lock: nobody is mid-write)
        text, had_bom, info = _read_locked(descriptor, path)
        if not info.st_mode & stat.S_IWUSR:
            raise InputError([problem(str(path), "", "the stack file is read-only; nothing was written",
                                      f"make it writable (chmod u+w {path}) and run lock again")])
        updated = edit_selection(text, key, selection, str(path))
        _check_edit(text, updated, key, selection, str(path))
        write_atomically(path, ((_BOM if had_bom else "") + updated).encode("utf-8"), what="the stack file")
