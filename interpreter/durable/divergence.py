"""The error that stops a resumed run whose request differs from the journal's.

It shows the journal line and the new request side by side, field by field, and says
how to go on: keep the lines before it (``--resume-from N``) or start a new journal.
It ends the run (``guard`` does not catch it, and a parallel form or a loop does not
turn it into a FAILED result): an answer journaled for another request is never used.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ..errors import SchemeError

if TYPE_CHECKING:
    from .journal import JournalFile, Loaded

#: Characters of a value each column shows.
WIDTH = 38
KIND_NAMES = {"model": "a model call", "script": "a script run", "clock": "a clock reading"}
KIND_NAMES.update({"random": "a random number", "stdin": "a read from standard input"})


class JournalDivergence(SchemeError):
    """A resumed run asked for something other than what its journal answered."""

    #: Not caught by ``guard``: the run stops (see nodes/control.py).
    uncatchable = True

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message, kind="resource-exhaustion")
        #: The journal line the run diverged at: ``--resume-from`` it to go on from there.
        self.line = line


def branch_name(branch: str) -> str:
    return "the program's main branch" if not branch else f"parallel branch {branch}"


def divergence(
    file: JournalFile, found: Loaded, branch: str, n: int, kind: str, request: dict[str, Any]
) -> JournalDivergence:
    old = found.entry
    announced = file.started.get((branch, n))
    line = found.line
    start = min(line, announced.line) if announced is not None else line  # the line the request began at
    what = (
        f"{KIND_NAMES.get(kind, kind)} that differs from the journaled one"
        if old.kind == kind
        else f"{KIND_NAMES.get(kind, kind)} where the journal has {KIND_NAMES.get(old.kind, old.kind)}"
    )
    head = (
        f"the run diverged from its journal {file.path} at line {line}: request {n} of {branch_name(branch)} "
        f"is {what}"
    )
    table = side_by_side(f"journal line {line}", {"kind": old.kind, **old.request}, {"kind": kind, **request})
    kept = start - 1
    keep = (
        f"To keep the {kept} line{'s' if kept != 1 else ''} before this request and run the rest live: "
        f"--resume-from {start} (Python: resume_from={start}). "
        if kept
        else ""
    )
    advice = (
        "The program no longer asks what it asked when the journal was written (edited source, another model "
        f"or prompt), so the journal's answers do not fit it. {keep}To start afresh: use a new journal file"
        f"{' (or --resume-from 1, which moves every line aside)' if not kept else ''}."
    )
    return JournalDivergence(f"{head}\n{table}\n{advice}", start)


def side_by_side(title: str, old: dict[str, Any], new: dict[str, Any]) -> str:
    """A table of every field of either request: the journal's value beside this run's; ``≠`` marks a difference."""
    keys = list(old) + [key for key in new if key not in old]
    label = max(len(key) for key in keys)
    rows = [f"  {'':<{label}}  {title:<{WIDTH}}  this run"]
    for key in keys:
        before, after = old.get(key, MISSING), new.get(key, MISSING)
        a, b = shown(before), shown(after)
        differs = shown_json(before) != shown_json(after)
        if differs:
            a, b = around_difference(a, b)
        rows.append(f"{'≠' if differs else ' '} {key:<{label}}  {clip(a):<{WIDTH}}  {clip(b)}")
    return "\n".join(rows)


class _Missing:
    def __repr__(self) -> str:
        return "(none)"


MISSING = _Missing()


def shown_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def shown(value: Any) -> str:
    if value is MISSING:
        return "(none)"
    return shown_json(value)


def around_difference(a: str, b: str) -> tuple[str, str]:
    """Both texts from a little before their first difference, so the column shows where they part."""
    start = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    if start < WIDTH - 10:
        return a, b
    cut = start - 10
    return "…" + a[cut:], "…" + b[cut:]


def clip(text: str) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= WIDTH else text[: WIDTH - 1] + "…"
