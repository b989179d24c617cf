"""Reading a file the user names or a repository holds: regular files only.

Opening a FIFO for reading blocks until something writes to it, and a device such as ``/dev/zero`` never ends, so
``-f pipe.yaml`` or a ``*.yaml`` FIFO in a GitOps repository would hang the command. The file is opened without
blocking and its type checked on the open descriptor (no window between the check and the read), and only a
regular file is read. Every read of a file whose name comes from the user or a repository goes through here.
"""

from __future__ import annotations

import os
import stat

from .errors import InputError


def read_bytes(path: str | os.PathLike[str], where: str | None = None) -> bytes:
    """The bytes of the regular file ``path`` (a symlink is followed). Raises InputError naming ``where`` (default:
    the path) for a missing file, a dangling symlink, a directory, a FIFO, a device or a socket, or an unreadable
    one."""
    shown = where or os.fspath(path)
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        dangling = os.path.islink(path)
        raise InputError(f"cannot read {shown}: a symlink to nothing" if dangling else f"no such file: {shown}",
                         advice="fix or remove the symlink" if dangling else "") from None
    except IsADirectoryError:
        raise InputError(f"cannot read {shown}: it is a directory", advice="name a file") from None
    except OSError as error:
        raise InputError(f"cannot read {shown}: {error.strerror or type(error).__name__}") from None
    with os.fdopen(descriptor, "rb") as file:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(f"cannot read {shown}: not a regular file ({_kind(mode)})",
                             advice="save the content to a file and name that file")
        os.set_blocking(descriptor, True)
        try:
            return file.read()
        except OSError as error:
            raise InputError(f"cannot read {shown}: {error.strerror or type(error).__name__}") from None


def read_text(path: str | os.PathLike[str], where: str | None = None) -> str:
    """The file as UTF-8 text (a byte order mark dropped); InputError when it is not UTF-8."""
    shown = where or os.fspath(path)
    try:
        return read_bytes(path, where).decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"{shown} is not UTF-8 text (byte {error.start})",
                         advice="save it as UTF-8") from None


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a file"
