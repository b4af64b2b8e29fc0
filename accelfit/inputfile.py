"""Reading a user's input file safely: only regular files, bounded in size, decoded strictly as UTF-8.

Every FILE argument and every file a spec names goes through here, so a FIFO or /dev/zero never hangs a command
(the file is opened non-blocking and checked with fstat before a byte is read), a directory, a symlink loop or a
path too long for the OS is an `InputError` rather than a traceback, and a binary or non-UTF-8 file is refused
with the byte offset where decoding failed.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from accelfit.errors import InputError, problem

# Integers longer than this are refused by both readers: far outside any allowed range, and Python refuses to
# convert strings of 4,300+ digits at all.
MAX_INT_DIGITS = 30

# Specs, stack files, inventories and preview documents are kilobytes; a real `pulumi preview --json` of a large
# stack is a few megabytes. Anything bigger is not one of ours.
MAX_INPUT_BYTES = 16 * 1024 * 1024
# Paths longer than this are refused before the OS sees them (Linux PATH_MAX is 4096).
MAX_PATH_CHARS = 4096

_WHY = {
    errno.ENOENT: ("file not found", "check the path (relative paths are resolved from the current directory or "
                   "the file that names them)"),
    errno.ENOTDIR: ("a part of the path is not a directory", "check the path"),
    errno.EISDIR: ("is a directory, not a file", "pass the path of a file inside it"),
    errno.ELOOP: ("too many symbolic links (a symlink loop?)", "point the path at a real file"),
    errno.ENAMETOOLONG: ("the path is too long for the operating system", "use a shorter path"),
    errno.EACCES: ("permission denied", "make the file readable by this user"),
    errno.EPERM: ("permission denied", "make the file readable by this user"),
}


def _refuse(path: str, message: str, fix: str) -> InputError:
    return InputError([problem(_shown(path), "", message, fix)])


def _shown(path: str) -> str:
    """A path as error messages print it: bounded, so a 100 kB argument does not make a 100 kB message."""
    return path if len(path) <= 200 else f"{path[:120]}...{path[-60:]} ({len(path)} characters)"


def os_error(path: Path | str, error: OSError) -> InputError:
    message, fix = _WHY.get(error.errno or 0, (f"cannot read the file ({error.strerror or error})",
                                               "check that it is a readable file"))
    return _refuse(str(path), message, fix)


def is_regular_file(path: Path | str) -> bool:
    """True for an existing regular file (after symlinks); False for anything else, never an exception."""
    try:
        if len(str(path)) > MAX_PATH_CHARS or "\0" in str(path):
            return False
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def read_bytes(path: Path | str, max_bytes: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a regular file of at most `max_bytes`; anything else is an InputError naming the path."""
    name = str(path)
    if "\0" in name:
        raise _refuse(name, "the path contains a NUL character", "pass a real file path")
    if len(name) > MAX_PATH_CHARS:
        raise _refuse(name, "the path is too long", f"use a path of at most {MAX_PATH_CHARS} characters")
    try:
        # O_NONBLOCK: opening a FIFO with no writer must not block; fstat then refuses it before any read.
        descriptor = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise os_error(name, error) from None
    try:
        info = os.fstat(descriptor)
        if stat.S_ISDIR(info.st_mode):
            raise _refuse(name, "is a directory, not a file", "pass the path of a file inside it")
        if not stat.S_ISREG(info.st_mode):
            raise _refuse(name, "is not a regular file (a device, FIFO or socket)",
                          "save the content to a file and pass that file")
        if info.st_size > max_bytes:
            raise _refuse(name, f"is {info.st_size:,} bytes, more than the {max_bytes:,} an input file may have",
                          "pass the right file (specs, stack files and previews are far smaller)")
        chunks: list[bytes] = []
        total = 0
        while total <= max_bytes:
            chunk = os.read(descriptor, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > max_bytes:  # the file grew while we read it
            raise _refuse(name, f"is more than the {max_bytes:,} bytes an input file may have",
                          "pass the right file")
        return b"".join(chunks)
    except OSError as error:
        raise os_error(name, error) from None
    finally:
        os.close(descriptor)


def decode_text(data: bytes, source: str) -> str:
    """Strict UTF-8 (an optional BOM is dropped); a NUL byte means a binary file."""
    nul = data.find(b"\0")
    if nul >= 0:
        raise _refuse(source, f"looks like a binary file (a NUL byte at offset {nul})",
                      "pass a UTF-8 text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise _refuse(source, f"is not valid UTF-8 (byte offset {error.start})",
                      "save the file as UTF-8 text") from None


def read_text(path: Path | str, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """A regular UTF-8 text file's content, or an InputError naming the path and the fix."""
    return decode_text(read_bytes(path, max_bytes), _shown(str(path)))
