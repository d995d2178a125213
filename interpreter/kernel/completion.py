"""Tab completion and Shift-Tab inspection, from the REPL's sources: the bound names, macros,
special forms and tasks it completes, the comma commands, and the ``,describe`` text.

A match's ``type`` is its kind in one word (``procedure``, ``primitive``, ``task``, ``syntax``
for a special form, ``macro``, ``variable``, ``command``): front ends show it in a narrow
column (JupyterLab wraps it at a space or hyphen) and draw its first letter as an icon. The
REPL's one-line description goes in ``signature``; the full text is Shift-Tab's (JupyterLab
asks for it too).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..analyzer import SPECIAL_FORMS
from ..datatypes import Procedure
from ..evaluator import Closure
from ..interpreter import Interpreter
from ..repl.commands import COMMANDS
from ..repl.completion import DELIMITERS, candidates, word_before
from ..repl.describe import describe, task_names

NOT_FOUND = ": not bound, and not a task"


def cursor_in(code: str, cursor_pos: int | None) -> int:
    """The cursor as an index into ``code``: front ends send one past the end (JupyterLab, asking
    for a completion's documentation, counts the completed word twice) or none (the end)."""
    return len(code) if cursor_pos is None else max(0, min(cursor_pos, len(code)))


def complete(interp: Interpreter, code: str, cursor_pos: int | None) -> dict[str, Any]:
    """A ``complete_reply``: names starting with the word before the cursor, each with its kind."""
    cursor_pos = cursor_in(code, cursor_pos)
    before = code[:cursor_pos]
    line = before.rsplit("\n", 1)[-1].lstrip()
    found: list[tuple[str, str, str]]  # name, kind, one-line description
    if line.startswith(",") and " " not in line and not line.startswith((",(", ",@")):
        word = line[1:]
        found = [(name, "command", COMMANDS[name].help) for name in COMMANDS if name.startswith(word)]
    else:
        word = word_before(before)
        seen: dict[str, str] = {}
        for name, meta in candidates(interp):
            if name.startswith(word) and name not in seen:
                seen[name] = meta()
        kinds = name_kinds(interp)
        found = [(name, kinds.get(name, "variable"), meta) for name, meta in sorted(seen.items())]
    start = cursor_pos - len(word)
    return {
        "status": "ok",
        "matches": [name for name, _, _ in found],
        "cursor_start": start,
        "cursor_end": cursor_pos,
        "metadata": {
            "_jupyter_types_experimental": [
                {"start": start, "end": cursor_pos, "text": name, "type": kind, "signature": meta}
                for name, kind, meta in found
            ]
        },
    }


def name_kinds(interp: Interpreter) -> dict[str, str]:
    """What each completable name is, in a word or two (a task's procedure counts as the task)."""
    kinds: dict[str, str] = {}
    for symbol, value in interp.global_env.vars.items():
        kinds[symbol.name] = value_kind(value)
    for symbol in interp.analyzer.macros:
        kinds.setdefault(symbol.name, "macro")
    for symbol in SPECIAL_FORMS:
        kinds.setdefault(symbol.name, "syntax")
    for name in task_names(interp):
        kinds[name] = "task"
    return kinds


def value_kind(value: object) -> str:
    if isinstance(value, Closure):
        return "procedure"
    if isinstance(value, Procedure):
        return "primitive"
    return "variable"


def name_at(code: str, cursor_pos: int) -> str:
    """The symbol the cursor is in or just after; else the operator of the list around the cursor."""
    start = end = cursor_pos
    while start > 0 and code[start - 1] not in DELIMITERS:
        start -= 1
    while end < len(code) and code[end] not in DELIMITERS:
        end += 1
    if start < end:
        return code[start:end]
    return operator_before(code[:cursor_pos])


def operator_before(text: str) -> str:
    """The first symbol after the innermost ``(`` still open in ``text`` ('' if none)."""
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        char = text[i]
        if char in ")]":
            depth += 1
        elif char in "([":
            if depth == 0:
                rest = text[i + 1 :].lstrip()
                end = 0
                while end < len(rest) and rest[end] not in DELIMITERS:
                    end += 1
                return rest[:end]
            depth -= 1
    return ""


def inspect(interp: Interpreter, code: str, cursor_pos: int | None, sources: Mapping[str, str]) -> dict[str, Any]:
    """An ``inspect_reply``: the ``,describe`` text of the name at the cursor."""
    name = name_at(code, cursor_in(code, cursor_pos))
    if not name:
        return {"status": "ok", "found": False, "data": {}, "metadata": {}}
    text = describe(interp, name, sources)
    if text.endswith(NOT_FOUND) and text.count("\n") == 0:
        return {"status": "ok", "found": False, "data": {}, "metadata": {}}
    return {"status": "ok", "found": True, "data": {"text/plain": text}, "metadata": {}}
