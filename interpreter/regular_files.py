"""Programs read and write regular files only: a FIFO, a device or a socket in an allowed
folder would block a read or a write past any timeout (the call waits in the kernel,
where no limit reaches), or never end (``/dev/zero``).

- :func:`open_regular` opens a file without blocking (``O_NONBLOCK``) and checks what it
  opened (``fstat``): file ports, ``include``, ``load-task-templates`` and attachments
  read and write through it.
- :func:`refuse_special` checks a path before ``load`` hands it to ``eval_file`` (which
  a host may point at a pipe: ``taskscheme <(…)``). ``import`` and ``index-files`` take
  regular files only already (``is_file``), and ``file-exists?`` and ``delete-file``
  open nothing.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import IO, Any

from .errors import SchemeError

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def special_file(who: str, path: str | os.PathLike[str], mode: int) -> SchemeError:
    """``who: PATH is a FIFO: only regular files and folders can be opened``."""
    return SchemeError(
        f"{who}: {path} is {_kind(mode)}: only regular files and folders can be opened",
        kind="file-error",
        irritants=[str(path)],
        details={"path": str(path)},
    )


def refuse_special(path: str | os.PathLike[str], who: str) -> None:
    """A ``file-error`` if ``path`` exists and is neither a regular file nor a folder."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return  # missing (a writer creates it) or unreadable: the open reports it
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise special_file(who, path, mode)


def open_regular(path: Path, who: str, mode: str) -> IO[Any]:
    """``open(path, mode)`` for ``r``, ``rb``, ``w`` or ``wb``, refusing anything but a
    regular file without ever blocking in the open. ``OSError`` as ``open`` raises it."""
    writing = "w" in mode
    flags = (os.O_WRONLY | os.O_CREAT | os.O_TRUNC) if writing else os.O_RDONLY
    try:
        fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError:
        refuse_special(path, who)  # a FIFO with no reader fails to open for writing (ENXIO)
        raise
    try:
        st_mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(st_mode):
            raise special_file(who, path, st_mode)
        os.set_blocking(fd, True)
        if "b" in mode:
            return os.fdopen(fd, mode)
        return os.fdopen(fd, mode, encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise
