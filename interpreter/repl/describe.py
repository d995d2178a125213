"""What the REPL says about values and names: summaries, one-line descriptions, ``,describe``."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..analyzer import SPECIAL_FORMS
from ..datatypes import Primitive, Procedure, Span, sym
from ..evaluator import Closure
from ..printer import write_string
from ..reader import is_complete
from .forms_help import form_help

if TYPE_CHECKING:
    from ..interpreter import Interpreter


def signature(proc: Procedure) -> str:
    """``(name a b . rest)`` for a closure; ``(name …)`` with its arity for anything else."""
    if isinstance(proc, Closure):
        parts = [proc.name, *(p.name for p in proc.params)]
        if proc.rest is not None:
            parts += [".", proc.rest.name]
        return "(" + " ".join(parts) + ")"
    return f"({proc.name} …)  {proc.arity_text()}"


def summary(value: Any, streamed: Callable[[str], bool] | None = None) -> str:
    """How the REPL prints a result: ``write``, but a closure also shows its parameters, and a
    task result whose text was streamed on the terminal (``streamed(text)``) is not printed again."""
    if isinstance(value, Closure):
        params = signature(value)[len(value.name) + 2 : -1]
        return f"#<procedure {value.name} ({params})>"
    # no result before the task runtime loads it (the class is defined once its module is, whatever thread imports it)
    result_type = getattr(sys.modules.get("interpreter.tasks.records"), "TaskResult", None)
    text = value.content if result_type is not None and isinstance(value, result_type) else None
    if streamed is not None and isinstance(text, str) and streamed(text):
        model = value.notes.get("model")
        by = f" from {model}" if isinstance(model, str) else ""
        return f"#<task-result {value.status}: {len(text)} characters{by}, streamed above>"
    return write_string(value)


def first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0] if text else ""


def short_description(value: Any) -> str:
    """A few words for the completion menu."""
    if isinstance(value, Closure):
        return signature(value)
    if isinstance(value, Primitive):
        return first_line(value.doc) or value.arity_text()
    if isinstance(value, Procedure):
        return f"procedure, {value.arity_text()}"
    text = write_string(value)
    return text if len(text) <= 40 else text[:39] + "…"


# -- tasks -----------------------------------------------------------------------------------
def task_names(interp: Interpreter) -> list[str]:
    """Names in the interpreter's task library, sorted (none before the task runtime is made)."""
    return sorted(interp.task_names.names())


def task_definition(interp: Interpreter, name: str) -> Any:
    """The task's definition (a pydantic ``TaskDefinition``), or None if there is no such task."""
    return interp.tasks.describe(name) if name in interp.task_names else None


def task_kind(definition: Any) -> str:
    return f"{definition.type}/{definition.subtype}" if definition.subtype else str(definition.type)


def task_params(definition: Any) -> str:
    """``(name text [style])``: optional parameters in brackets."""
    params = [p.name if p.required else f"[{p.name}]" for p in definition.params]
    return "(" + " ".join([definition.name, *params]) + ")"


def task_summary(definition: Any) -> str:
    """One line for ``,tasks`` and the completion menu."""
    return f"{task_kind(definition)} task {task_params(definition)}  {first_line(definition.description)}".rstrip()


def describe_task(interp: Interpreter, name: str) -> str | None:
    """A task's definition as ``field: value`` lines (defaults left out), or None."""
    definition = task_definition(interp, name)
    if definition is None:
        return None
    lines = [f"{task_params(definition)}  {task_kind(definition)} task"]
    described = [p for p in definition.params if p.description]
    if described:
        lines.append("inputs:")
        lines.extend(f"  {p.name}: {p.description}" for p in described)
    fields = definition.model_dump(mode="json", exclude_defaults=True, exclude={"name", "type", "subtype", "params"})
    for key, value in fields.items():
        if value in ({}, [], None, ""):
            continue
        text = str(value)
        if "\n" in text:
            lines.append(f"{key}:")
            lines.extend("  " + line for line in text.rstrip().split("\n"))
        else:
            lines.append(f"{key}: {text}")
    return "\n".join(lines)


# -- source --------------------------------------------------------------------------------
def source_text(span: Span | None, sources: Mapping[str, str], max_lines: int = 40) -> str | None:
    """The text of the form that starts at ``span``: from REPL input kept in ``sources`` or a file."""
    if span is None:
        return None
    text = sources.get(span.file)
    if text is None:
        try:
            text = Path(span.file).read_text(encoding="utf-8")
        except (OSError, ValueError):
            return None
    lines = text.split("\n")[span.line - 1 : span.line - 1 + max_lines]
    if not lines:
        return None
    lines[0] = " " * (span.col - 1) + lines[0][span.col - 1 :]
    for end in range(1, len(lines) + 1):
        chunk = "\n".join(lines[:end])
        if is_complete(chunk):
            return _dedent(chunk, span.col - 1)
    return _dedent("\n".join(lines), span.col - 1) + "\n…"


def _dedent(text: str, cols: int) -> str:
    out = []
    for line in text.split("\n"):
        pad = len(line) - len(line.lstrip(" "))
        out.append(line[min(pad, cols) :])
    return "\n".join(out)


# -- ,describe -----------------------------------------------------------------------------
def describe(interp: Interpreter, name: str, sources: Mapping[str, str]) -> str:
    """What ``,describe NAME`` prints: a procedure's parameters, location and source; a task's definition."""
    found: list[str] = []
    symbol = sym(name)
    if symbol in interp.global_env.vars:
        found.append(describe_value(name, interp.global_env.vars[symbol], sources))
    elif symbol in interp.analyzer.macros:
        found.append(f"{name}: a macro")
    elif symbol in SPECIAL_FORMS:
        found.append(form_help(name) or f"{name}: a special form")
    task = describe_task(interp, name)
    if task is not None:
        found.append(task)
    return "\n\n".join(found) if found else f"{name}: not bound, and not a task"


def describe_value(name: str, value: Any, sources: Mapping[str, str]) -> str:
    """A bound value: what it is, and for a procedure its signature, arity, doc and source."""
    if isinstance(value, Closure):
        lines = [f"{signature(value)}  procedure, {value.arity_text()}"]
        if value.span is not None:
            lines.append(f"defined at {value.span}")
            source = source_text(value.span, sources)
            if source:
                lines.append(source)
        return "\n".join(lines)
    if isinstance(value, Primitive):
        lines = [f"{signature(value)}  built-in procedure"]
        if value.doc:
            lines.append(value.doc)
        return "\n".join(lines)
    if isinstance(value, Procedure):
        return f"{name}: {write_string(value)}, {value.arity_text()}"
    return f"{name} = {summary(value)}"
