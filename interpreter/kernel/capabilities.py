"""What a kernel's programs may reach, changed while it runs: ``,allow CAP`` and ``,deny CAP``.

The kernel starts with the command line's capabilities (files, scripts and ``llm`` models;
not Python), adjusted by its ``--allow`` / ``--deny`` arguments (``taskscheme kernel install
--deny scripts`` writes them into the kernel spec). A change applies from the next call on.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..repl.commands import CommandError, command

if TYPE_CHECKING:
    from ..interpreter import Interpreter
    from ..repl.session import ReplSession

#: The names ``,allow`` takes, and what each grants.
CAPABILITY_NAMES: dict[str, str] = {
    "files": "read and write files (load, include, file ports)",
    "scripts": "run processes and read environment variables",
    "models": "call any model installed with llm",
    "python": "reach Python objects (python-import, python-call)",
}
#: What the command line grants, and so a kernel unless told otherwise.
CLI_CAPABILITIES = frozenset({"files", "scripts", "models"})


def check_names(names: Iterable[str]) -> list[str]:
    """``names`` as capability names; an unknown one is a :class:`CommandError` listing the known."""
    checked = []
    for name in names:
        if name not in CAPABILITY_NAMES:
            raise CommandError(f"unknown capability {name!r}; capabilities: {', '.join(CAPABILITY_NAMES)}")
        checked.append(name)
    return checked


def set_capability(interp: Interpreter, name: str, granted: bool) -> None:
    """Grant or withdraw one capability of ``interp`` (everywhere the interpreter keeps it)."""
    if name == "models":
        interp.allow_models = granted
        interp.models.allow = granted
    else:
        setattr(interp, f"allow_{name}", granted)
        if name == "files":
            interp.tasks.gateway.may_write_files = granted
    interp.settings[f"allow_{name}"] = granted


def granted(interp: Interpreter) -> list[str]:
    """The capabilities ``interp`` has (a folder list for files counts as granted)."""
    return [name for name in CAPABILITY_NAMES if getattr(interp, f"allow_{name}", False) not in (False, None)]


def apply(interp: Interpreter, allow: Iterable[str], deny: Iterable[str]) -> None:
    for name in check_names(allow):
        set_capability(interp, name, True)
    for name in check_names(deny):
        set_capability(interp, name, False)


def _change(session: ReplSession, arg: str, grant: bool) -> None:
    names = check_names(arg.replace(",", " ").split())
    for name in names:
        set_capability(session.interp, name, grant)
    have = granted(session.interp)
    session.say(f"; capabilities: {' '.join(have) if have else 'none'}")


@command("allow", "[CAP …]", "grant files, scripts, models or python (no CAP: show what is granted)")
def allow(session: ReplSession, arg: str) -> None:
    _change(session, arg, True)


@command("deny", "CAP …", "withdraw files, scripts, models or python")
def deny(session: ReplSession, arg: str) -> None:
    if not arg:
        raise CommandError("usage: ,deny CAP …  (" + ", ".join(CAPABILITY_NAMES) + ")")
    _change(session, arg, False)
