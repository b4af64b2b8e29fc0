"""Replace a user's file without ever leaving it half-written, and without changing what the user has around it.

Used by `accelfit lock` (the stack file) and `accelfit calibrate` (the efficiency file). The new content goes to a
temporary file created exclusively (`mkstemp`: a random name, O_EXCL, mode 0600, so nothing planted under a fixed
name is followed and no other user can read a copy that holds plaintext secrets) in the same directory as the real
file, is written in full, given the original's mode and owner, fsynced, and renamed over the original (POSIX
rename is atomic); the directory is then fsynced so the rename itself survives a crash. Every exit path removes
the temporary file: errors, Ctrl-C, and SIGTERM/SIGHUP, which raise while a write is under way instead of killing
the process between the write and the rename (only SIGKILL cannot be caught; `remove_stale` cleans up after it).

What the user has is kept: a symbolic link is followed and its target written (the link stays a link), the owner
and group are kept (a file the user cannot give back to its owner is refused, not taken over), and a file with more
than one hard link is refused, because a rename would split the links.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
import time
from pathlib import Path

from accelfit.errors import InputError, problem
from accelfit.unwind import signals_unwind

TEMP_SUFFIX = ".tmp"


def real_target(path: Path) -> Path:
    """The file a path names after following symbolic links (the path itself when it does not exist yet)."""
    return Path(os.path.realpath(path))


def temporary_name_prefix(target: Path) -> str:
    return f".{target.name}."


def remove_stale(target: Path, older_than_s: float = 0.0) -> None:
    """Remove temporary files an earlier writer of `target` left when it was killed (SIGKILL, power loss).

    Callers that hold the file's lock pass 0: no other writer can be mid-write."""
    now = time.time()
    with contextlib.suppress(OSError):
        for entry in target.parent.iterdir():
            if entry.name.startswith(temporary_name_prefix(target)) and entry.name.endswith(TEMP_SUFFIX):
                with contextlib.suppress(OSError):
                    if entry.is_file() and not entry.is_symlink() and now - entry.lstat().st_mtime >= older_than_s:
                        entry.unlink()


def write_atomically(path: Path, data: bytes, *, what: str = "the file") -> Path:
    """Replace the file `path` names (following symlinks) with `data`; returns the file written.

    InputError (nothing changed) when the file has several hard links, belongs to someone it cannot be given back
    to, or cannot be written; the message names the file and the fix."""
    target = real_target(path)
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise _refuse(path, f"cannot read {what} ({error.strerror or error})",
                      "check the path and its permissions") from error
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise _refuse(path, f"{what} is not a regular file", "point at a regular file")
    if info is not None and info.st_nlink > 1:
        raise _refuse(path, f"{what} has {info.st_nlink} hard links; replacing it would split them (the other "
                      "names would keep the old content); nothing was written",
                      "remove the other links (or copy the file) and run the command again")
    with signals_unwind():
        temporary = None
        try:
            handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=temporary_name_prefix(target),
                                                 suffix=TEMP_SUFFIX)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(handle, view):]
                if info is not None:
                    own = os.fstat(handle)
                    if (own.st_uid, own.st_gid) != (info.st_uid, info.st_gid):
                        try:
                            os.fchown(handle, info.st_uid, info.st_gid)
                        except PermissionError:
                            raise _refuse(path, f"{what} belongs to another user (uid {info.st_uid}); replacing "
                                          "it would make it yours; nothing was written",
                                          "run the command as the file's owner") from None
                    os.fchmod(handle, stat.S_IMODE(info.st_mode))
                os.fsync(handle)
            finally:
                os.close(handle)
            os.replace(temporary, target)
            temporary = None
        except OSError as error:
            raise _refuse(path, f"could not write {what} ({error.strerror or error}); it is unchanged",
                          "free disk space or fix the folder's permissions, then run the command again") from None
        finally:
            if temporary is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
    with contextlib.suppress(OSError):
        directory = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
    return target


def _refuse(path: Path, message: str, fix: str) -> InputError:
    return InputError([problem(str(path), "", message, fix)])
