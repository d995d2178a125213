"""The REPL's comma commands (``,help``, ``,load FILE`` …), one small function each.

A command is found by its full name or an unambiguous prefix (``,q`` is ``,quit``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .describe import describe, summary, task_definition, task_names, task_summary

if TYPE_CHECKING:
    from .session import ReplSession


class CommandError(Exception):
    """A command was used wrongly; the REPL prints ``error: <message>`` and goes on."""


@dataclass(frozen=True)
class Command:
    name: str
    args: str
    help: str
    run: Callable[[ReplSession, str], None]

    @property
    def usage(self) -> str:
        return f",{self.name} {self.args}".rstrip()


#: Every command by name, in the order ``,help`` lists them.
COMMANDS: dict[str, Command] = {}


def command(name: str, args: str, help: str) -> Callable[[Callable[[ReplSession, str], None]], Any]:
    """Register the decorated function as the command ``,name``."""

    def register(fn: Callable[[ReplSession, str], None]) -> Callable[[ReplSession, str], None]:
        COMMANDS[name] = Command(name, args, help, fn)
        return fn

    return register


def find_command(word: str) -> Command:
    """The command ``word`` names (exactly or by unique prefix); CommandError otherwise."""
    if word in COMMANDS:
        return COMMANDS[word]
    matches = [c for name, c in COMMANDS.items() if name.startswith(word)] if word else []
    if len(matches) == 1:
        return matches[0]
    names = " ".join(f",{c.name}" for c in (matches or COMMANDS.values()))
    what = "ambiguous" if matches else "unknown"
    raise CommandError(f"{what} command ,{word}; commands: {names}")


def is_command(text: str) -> bool:
    """Input starting with ``,`` is a command (but not ``,(`` or ``,@``, which are unquoted data)."""
    stripped = text.strip()
    return stripped.startswith(",") and not stripped.startswith((",(", ",@"))


def run_command(session: ReplSession, line: str) -> None:
    """Run ``line`` (the text after the comma)."""
    parts = line.strip().split(None, 1)
    word = parts[0] if parts else ""
    find_command(word).run(session, parts[1].strip() if len(parts) > 1 else "")


def _need(arg: str, usage: str) -> str:
    if not arg:
        raise CommandError(f"usage: {usage}")
    return arg


def _unquote(arg: str) -> str:
    return arg[1:-1] if len(arg) >= 2 and arg[0] == arg[-1] and arg[0] in "\"'" else arg


KEYS_HELP = """\
keys: Enter evaluates a complete expression (an incomplete one continues on the next line);
      Alt-Enter always inserts a new line; Tab completes; Ctrl-R searches history;
      Ctrl-C clears the input, or interrupts a running program (twice: at once);
      Ctrl-D on an empty line exits."""


@command("help", "", "this list")
def help_(session: ReplSession, arg: str) -> None:
    width = max(len(c.usage) for c in COMMANDS.values())
    lines = [f"  {c.usage:<{width}}  {c.help}" for c in COMMANDS.values()]
    session.say("commands (a unique prefix will do):\n" + "\n".join(lines) + "\n" + KEYS_HELP)


@command("load", "FILE", "evaluate a file here (remembered for ,reload)")
def load(session: ReplSession, arg: str) -> None:
    path = Path(_unquote(_need(arg, ",load FILE")))
    session.load(path)
    session.say(f"; loaded {path}")


@command("reload", "", "evaluate again every file loaded in this session")
def reload(session: ReplSession, arg: str) -> None:
    if not session.loaded:
        raise CommandError("nothing loaded yet; use ,load FILE")
    for path in session.loaded:
        session.interp.eval_file(path)
        session.say(f"; reloaded {path}")


@command("tasks", "", "the task library: name, type, parameters, description")
def tasks(session: ReplSession, arg: str) -> None:
    names = task_names(session.interp)
    if not names:
        session.say("; no tasks defined")
        return
    width = max(len(n) for n in names)
    rows = [f"  {name:<{width}}  {task_summary(task_definition(session.interp, name))}" for name in names]
    session.say("\n".join(rows))


@command("describe", "NAME", "a procedure's parameters and source, a task's definition")
def describe_(session: ReplSession, arg: str) -> None:
    session.say(describe(session.interp, _need(arg, ",describe NAME"), session.sources))


@command("env", "", "the names you have defined, with their values")
def env(session: ReplSession, arg: str) -> None:
    bindings = session.user_bindings()
    if not bindings:
        session.say("; nothing defined yet")
        return
    width = min(max(len(n) for n in bindings), 24)
    lines = []
    for name in sorted(bindings):
        text = summary(bindings[name]).replace("\n", " ")
        lines.append(f"  {name:<{width}}  {text if len(text) <= 70 else text[:69] + '…'}")
    session.say("\n".join(lines))


@command("time", "EXPR", "evaluate EXPR, then show the wall time (and model usage)")
def time_(session: ReplSession, arg: str) -> None:
    source = _need(arg, ",time EXPR")
    before = _usage_snapshot(session)
    start = time.perf_counter()
    name = f"<repl-{session.count}>"
    session.sources[name] = source
    session.evaluate(source, name)
    elapsed = time.perf_counter() - start
    text = f"; time: {elapsed:.3f} s"
    delta = _usage_delta(before, _usage_snapshot(session))
    if delta:
        text += "; usage: " + ", ".join(f"{k} {_signed(v)}" for k, v in delta.items())
    session.say(text)


def _usage_snapshot(session: ReplSession) -> dict[str, float]:
    """The numeric fields of the usage totals (calls, tokens, seconds)."""
    fields = session.interp.usage.total.model_dump()
    return {k: v for k, v in fields.items() if isinstance(v, int | float) and not isinstance(v, bool)}


def _signed(value: float) -> str:
    return f"{value:+.2f}" if isinstance(value, float) else f"{value:+d}"


def _usage_delta(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    return {k: v - before.get(k, 0) for k, v in after.items() if v != before.get(k, 0)}


@command("trace", "on|off", "print task and model events as they happen")
def trace(session: ReplSession, arg: str) -> None:
    if arg not in ("on", "off"):
        raise CommandError(f"usage: ,trace on|off (tracing is {'on' if session.tracing else 'off'})")
    if arg == "on":
        session.attach_trace()
    session.tracing = arg == "on"
    session.say(f"; trace {arg}")


@command("usage", "", "model calls and tokens used so far")
def usage(session: ReplSession, arg: str) -> None:
    session.say(str(session.interp.usage))


@command("model", "NAME", "switch the default model (no NAME: show it)")
def model(session: ReplSession, arg: str) -> None:
    models = session.interp.models
    if arg:
        wanted = _unquote(arg)
        models.get(wanted)  # an unknown id is refused here (a TASK_FAILURE with a did-you-mean), not at the next call
        models.default = wanted
    try:
        name = models.default_name()
    except Exception as exc:  # llm may have no default model configured
        name = f"none ({exc})"
    session.say(f"; default model: {name}")


@command("reset", "", "start again with a fresh environment")
def reset(session: ReplSession, arg: str) -> None:
    session.reset()
    session.say("; environment reset")


@command("quit", "", "leave the REPL (so does Ctrl-D)")
def quit_(session: ReplSession, arg: str) -> None:
    session.done = True
