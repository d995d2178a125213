"""Capabilities: what a program may reach beyond its own data, checked in one place.

=================  ===========================================================
``allow_scripts``  run processes (``run-script``, script tasks) and read the
                   environment variables (they often hold credentials)
``allow_files``    read and write files (``load``, ``include``, ``import``, file
                   ports, ``file-exists?``, ``delete-file``); ``True`` for any
                   file, or a list of folders the files must lie in
``allow_python``   reach Python objects the host did not define: ``python-import``,
                   ``python-ref``, ``python-call``
=================  ===========================================================

All are off for ``Interpreter()``. A refusal is a ``permission`` :class:`SchemeError`
naming the capability; ``details`` holds ``{"capability": name}``. Functions the host
defines itself (``@interp.primitive``, ``interp.define``) are always callable.

A path is confined by where it really leads: it is resolved (``..`` folded, every
symbolic link followed, even a dangling one) and must then lie inside one of the
resolved folders, so neither ``..`` nor a link pointing out of a folder escapes it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .errors import SchemeError

#: The capability flags of an :class:`~interpreter.Interpreter`.
CAPABILITIES = ("allow_scripts", "allow_files", "allow_python")

FileCapability = bool | Sequence[str | os.PathLike[str]]


def permission_denied(who: str, capability: str, what: str) -> SchemeError:
    """``who: permission denied: <what> needs the <capability> capability``."""
    return SchemeError(
        f"{who}: permission denied: {what} needs the {capability} capability",
        kind="permission",
        details={"capability": capability},
    )


def require_scripts(interp: Any, who: str, what: str = "running scripts") -> None:
    """Refuse unless the interpreter may run processes."""
    if getattr(interp, "allow_scripts", False) is not True:
        raise permission_denied(who, "allow_scripts", what)


def require_python(interp: Any, who: str) -> None:
    """Refuse unless the interpreter may reach arbitrary Python objects."""
    if getattr(interp, "allow_python", False) is not True:
        raise permission_denied(who, "allow_python", "reaching Python objects")


def check_file_access(allowed: FileCapability, path: str | os.PathLike[str], who: str) -> Path:
    """The real path of ``path`` if ``allowed`` grants it, else a permission error.

    ``allowed`` is ``False`` (no files), ``True`` (any file) or a list of folders.
    """
    if allowed is False or allowed is None:
        raise permission_denied(who, "allow_files", "reading and writing files")
    real = Path(os.path.realpath(path))
    if allowed is True:
        return real
    folders = [allowed] if isinstance(allowed, (str, os.PathLike)) else list(allowed)
    for folder in folders:
        root = Path(os.path.realpath(folder))
        if real == root or root in real.parents:
            return real
    listed = ", ".join(str(f) for f in folders) or "none"
    raise SchemeError(
        f"{who}: permission denied: {path} is outside the folders allowed by allow_files ({listed})",
        kind="permission",
        details={"capability": "allow_files", "path": str(path)},
    )
