"""Nothing fails in silence: what a FAILED TaskResult or LoopResult says about its failure.

The command line warns (or, under ``--strict``, stops) when a top-level form's value is such a
result and the program drops it; the REPL shows a failed result's error before the record.
"""

from __future__ import annotations

from typing import Any

from ..datatypes import Span
from .errors import TaskError
from .records import TaskFailure, TaskResult


def is_failed_result(value: Any) -> bool:
    """True for a TaskResult (or EvaluationResult) or LoopResult whose status is FAILED."""
    from .loop import LoopResult  # loop.py imports much of the task layer; only needed here

    return isinstance(value, (TaskResult, LoopResult)) and value.status == "FAILED"


def failure_summary(value: Any) -> str:
    """``error in iteration 0 (director): message (at prog.scm:5:3)`` for a failed result: the
    error type, where it happened (iteration and phase, or step), the message and its place."""
    error = getattr(value, "error", None)
    if error is not None:  # a LoopResult
        where = f" in iteration {error.iteration} ({error.phase})"
        return f"{error.type}{where}: {error.message}{_at(error.location)}"
    notes = value.notes if isinstance(value, TaskResult) and isinstance(value.notes, dict) else {}
    where = f" in step {notes['failed_step']}" if "failed_step" in notes else ""
    info = notes.get("error")
    if isinstance(info, dict) and "message" in info:
        return f"{info.get('type', 'TASK_FAILURE')}{where}: {info['message']}{_at(info.get('location'))}"
    content = (getattr(value, "content", "") or "").strip() or "no message"
    return f"TASK_FAILURE{where}: {content}"


def _at(location: Any) -> str:
    return f" (at {location})" if location else ""


def dropped_failure_warning(value: Any, span: Span | None) -> str:
    """The one-line warning for a failed result that a top-level form drops."""
    place = f"{span}: " if span is not None else ""
    return f"warning: {place}dropped a FAILED {type(value).__name__}: {failure_summary(value)}"


def dropped_failure_error(value: Any, span: Span | None) -> TaskError:
    """The error ``--strict`` raises instead of :func:`dropped_failure_warning`."""
    err = TaskError(
        TaskFailure(
            reason="dropped_failed_result",
            message=f"dropped a FAILED {type(value).__name__}: {failure_summary(value)}",
        )
    )
    err.span = span
    return err
