"""``sequential``: run steps in order, keep their history, stop at the first failure.

The :class:`~interpreter.nodes.composition.Sequential` node compiles the steps and
calls :func:`run_sequence`, which owns the history, the accumulation of
``previous-outputs`` and the shape of the result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from ..datatypes import Span, make_list
from ..errors import SchemeError
from .errors import TaskError, task_failure
from .records import ContextManagement, SchemeRecord, TaskResult
from .tracing import EventHub, now

#: Longest summary kept for a step value that is not a record.
SUMMARY_WIDTH = 120


class SequentialEntry(SchemeRecord):
    """One step of a sequence: its name, its output, its notes and when it ended."""

    step: str
    output: Any = None
    notes: Any = None
    timestamp: float


class SequentialHistory(SchemeRecord):
    """The history of a sequence, oldest step first."""

    entries: list[SequentialEntry] = Field(default_factory=list)


@dataclass
class Step:
    """A compiled step: its name, its code (run in the step's frame) and where it is."""

    name: str
    run: Callable[[Any], Any]
    span: Span | None


def is_runtime_limit(err: SchemeError) -> bool:
    """Errors that end the program rather than a phase: interruption and the runtime's own
    step, time and depth limits (a task's RESOURCE_EXHAUSTION is an ordinary failure)."""
    return err.kind == "resource-exhaustion" and not isinstance(err, TaskError)


def plain(value: Any) -> Any:
    """``value`` as JSON-like data for a record (records stay records); else its written form."""
    from ..printer import write_string
    from .values import to_python

    try:
        return to_python(value, "sequential")
    except SchemeError:
        return write_string(value)


def summary(value: Any) -> str:
    """A short written form of a value, for notes."""
    from ..printer import write_string

    text = write_string(value)
    return text if len(text) <= SUMMARY_WIDTH else text[: SUMMARY_WIDTH - 1] + "…"


def notes_of(value: Any) -> Any:
    """A record's notes, or a short summary of any other value."""
    notes = getattr(value, "notes", None)
    if isinstance(value, SchemeRecord) and notes is not None:
        return notes
    return summary(value)


def content_of(value: Any) -> str:
    """The text a value stands for: a result's content, a string itself, else its display form."""
    if isinstance(value, str):
        return value
    if isinstance(value, TaskResult):
        return value.content
    final = getattr(value, "final_output", None)
    if isinstance(final, TaskResult):
        return final.content
    from ..printer import display_string

    return display_string(value)


def failed_status(value: Any) -> bool:
    return isinstance(value, SchemeRecord) and getattr(value, "status", None) == "FAILED"


def error_info(err: SchemeError) -> dict[str, Any]:
    """``{type, message, location}`` of an error."""
    kind = err.error_type if isinstance(err, TaskError) else err.kind
    info: dict[str, Any] = {"type": kind, "message": err.full_message()}
    if err.span is not None:
        info["location"] = str(err.span)
    return info


def failure_info(value: Any) -> dict[str, Any]:
    """``{type, message}`` for a step that returned a FAILED result."""
    notes = getattr(value, "notes", None) or {}
    error = notes.get("error") if isinstance(notes, dict) else None
    if isinstance(error, dict) and "message" in error:
        return {"type": str(error.get("type", "TASK_FAILURE")), "message": str(error["message"])}
    message = content_of(value).strip() or "the step returned a FAILED result"
    return {"type": "TASK_FAILURE", "message": message}


def run_sequence(
    steps: list[Step],
    context: ContextManagement,
    frame: Callable[[Any], Any],
    strict: bool,
    hub: EventHub,
    label: str,
) -> TaskResult:
    """Run ``steps``; ``frame(previous_outputs)`` makes the frame a step runs in."""
    entries: list[SequentialEntry] = []
    accumulated: list[Any] = []
    last: Any = None
    for index, step in enumerate(steps):
        start = now()
        previous = make_list(accumulated) if context.accumulate_data else make_list([])
        try:
            value = step.run(frame(previous))
        except SchemeError as err:
            if is_runtime_limit(err):
                raise
            if err.span is None:
                err.span = step.span
            hub.finish("step", f"{label}/{step.name}", start, "error", info={"index": index})
            return _failed(step, error_info(err), entries, strict, err)
        if failed_status(value):
            hub.finish("step", f"{label}/{step.name}", start, "FAILED", info={"index": index})
            info = failure_info(value)
            if step.span is not None:
                info["location"] = str(step.span)
            entries.append(_entry(step.name, value))
            return _failed(step, info, entries[:-1], strict, None, value)
        entries.append(_entry(step.name, value))
        if context.accumulate_data:
            accumulated.append(_accumulated(value, context.accumulation_format))
        last = value
        hub.finish("step", f"{label}/{step.name}", start, "ok", info={"index": index})
    return TaskResult(content=content_of(last), status="COMPLETE", notes={"steps": entries})


def _entry(name: str, value: Any) -> SequentialEntry:
    return SequentialEntry(step=name, output=plain(value), notes=plain(notes_of(value)), timestamp=time.time())


def _accumulated(value: Any, fmt: str) -> Any:
    """What a later step sees of ``value`` in ``previous-outputs``."""
    from .values import to_scheme

    if fmt == "full_output":
        return value.content if isinstance(value, TaskResult) else value
    return to_scheme(notes_of(value))


def _failed(
    step: Step,
    error: dict[str, Any],
    entries: list[SequentialEntry],
    strict: bool,
    cause: SchemeError | None,
    value: Any = None,
) -> TaskResult:
    """The FAILED result (or, for ``sequential/strict``, the TASK_FAILURE raised)."""
    message = f"step {step.name} failed: {error['type']}: {error['message']}"
    if strict:
        err = task_failure("step_failed", message, list(entries))
        err.span = cause.span if cause is not None and cause.span is not None else step.span
        raise err from cause
    notes: dict[str, Any] = {"error": error, "failed_step": step.name, "partial_results": entries}
    if value is not None:
        notes["failed_output"] = plain(value)
    return TaskResult(content=message, status="FAILED", notes=notes)
