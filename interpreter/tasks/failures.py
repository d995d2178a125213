"""Nothing fails in silence: what a FAILED TaskResult or LoopResult says about its failure.

The command line warns (or, under ``--strict``, stops) when a top-level form's value is such a
result and the program drops it; the REPL shows a failed result's error before the record.

The front ends import this module at start-up; the task records it looks for load with the task
runtime, when a program first uses it. Until then no value can be a result, and nothing here
imports them (start-up laziness: the records are pydantic models, ~45 ms with the runtime).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from itertools import islice
from typing import TYPE_CHECKING, Any

from ..datatypes import Pair, Span, spine
from ..errors import SchemeError
from ..printer import write_string

if TYPE_CHECKING:
    from .errors import TaskError


def is_failed_result(value: Any) -> bool:
    """True for a TaskResult (or EvaluationResult) or LoopResult whose status is FAILED."""
    records, loop = sys.modules.get("interpreter.tasks.records"), sys.modules.get("interpreter.tasks.compose.loop")
    kinds = tuple(kind for kind in (getattr(records, "TaskResult", None), getattr(loop, "LoopResult", None)) if kind)
    return bool(kinds) and isinstance(value, kinds) and value.status == "FAILED"


def failure_summary(value: Any) -> str:
    """``error in iteration 0 (director): message (at prog.scm:5:3)`` for a failed result: the
    error type, where it happened (iteration and phase, or step), the message and its place."""
    from .records import TaskResult  # reason: start-up laziness: the records (see the module's docstring)

    error = getattr(value, "error", None)
    if error is not None:  # a LoopResult
        where = f" in iteration {error.iteration} ({error.phase})"
        return f"{error.type}{where}: {error.message}{_at(error.location)}"
    notes = value.notes if isinstance(value, TaskResult) and isinstance(value.notes, dict) else {}
    where = f" in step {notes['failed_step']}" if "failed_step" in notes else ""
    info = notes.get("error")
    if where and isinstance(info, dict) and "iteration" in info:
        phase = f", {info['phase']}" if info.get("phase") else ""
        where += f" (iteration {info['iteration']}{phase})"
    if isinstance(info, dict) and "message" in info:
        return f"{info.get('type', 'TASK_FAILURE')}{where}: {info['message']}{_at(info.get('location'))}"
    content = (getattr(value, "content", "") or "").strip() or "no message"
    return f"TASK_FAILURE{where}: {content}"


#: Longest output shown per step or iteration of a partial result on the command line.
SHOWN_WIDTH = 100


def partial_report(partial: Any) -> str:
    """What the command line prints after an error that ended a loop or pipeline (``err.partial``):
    the completed steps' or iterations' outputs, one line each, cut at ``SHOWN_WIDTH``."""
    from .compose.loop import LoopResult  # reason: start-up laziness (see the module's docstring)
    from .records import TaskResult  # reason: as above

    if isinstance(partial, LoopResult):
        entries = [(f"iteration {i.iteration}", i.output) for i in partial.iteration_history]
        count = f"{partial.iterations_completed} iteration{'s' if partial.iterations_completed != 1 else ''}"
        lines = [f"completed before it ended (partial LoopResult): {count}"]
        lines += [f"  {name}: {_shown(output)}" for name, output in entries if output is not None]
        if partial.final_output is not None and len(entries) < partial.iterations_completed:
            lines.append(f"  final output: {_shown(partial.final_output)}")
        return "\n".join(lines)
    notes = partial.notes if isinstance(partial, TaskResult) and isinstance(partial.notes, dict) else {}
    steps = notes.get("partial_results", [])
    lines = [f"completed before it ended (partial TaskResult): {len(steps)} step{'s' if len(steps) != 1 else ''}"]
    lines += [f"  step {entry.step}: {_shown(entry.output)}" for entry in steps]
    return "\n".join(lines)


def _shown(output: Any) -> str:
    """One line for an output kept in a history: a result's content, else the written value."""
    from .records import TaskResult  # reason: start-up laziness (see the module's docstring)
    from .values import to_scheme  # reason: as above
    if isinstance(output, TaskResult):
        text = output.content if isinstance(output.content, str) else write_string(to_scheme(output.content))
        text = text or "(notes only)"
    else:
        text = write_string(to_scheme(output))
    text = " ".join(text.split())
    return text if len(text) <= SHOWN_WIDTH else text[: SHOWN_WIDTH - 1] + "…"


def _at(location: Any) -> str:
    return f" (at {location})" if location else ""


#: How many elements of a dropped list or vector are looked at for failed results.
MAX_SCANNED = 100_000


def dropped_failures(value: Any) -> list[Any]:
    """The failed results in a value a program drops: the value itself, or the failed elements of a
    list or vector of results (as ``parallel-map … #:on-error 'collect`` returns)."""
    if is_failed_result(value):
        return [value]
    if isinstance(value, list):
        items: Iterable[Any] = value
    elif isinstance(value, Pair):
        items = (pair.car for pair in spine(value))
    else:
        return []
    try:
        return [item for item in islice(items, MAX_SCANNED) if is_failed_result(item)]
    except SchemeError:  # a circular list: not a list of results
        return []


def dropped_description(value: Any, failed: list[Any]) -> str:
    """``dropped a FAILED LoopResult: …``, or for a list, how many it holds and the first one."""
    first = failed[0]
    what = f"a FAILED {type(first).__name__}: {failure_summary(first)}"
    if first is value:
        return f"dropped {what}"
    count = f"{len(failed)} FAILED results" if len(failed) > 1 else "a FAILED result"
    return f"dropped a {'vector' if isinstance(value, list) else 'list'} holding {count}; the first is {what}"


def dropped_failure_warning(value: Any, failed: list[Any], span: Span | None) -> str:
    """The one-line warning for failed results that a top-level form drops."""
    place = f"{span}: " if span is not None else ""
    return f"warning: {place}{dropped_description(value, failed)}"


def dropped_failure_error(value: Any, failed: list[Any], span: Span | None) -> TaskError:
    """The error ``--strict`` raises instead of :func:`dropped_failure_warning`."""
    from .errors import TaskError  # reason: start-up laziness (see the module's docstring)
    from .records import TaskFailure  # reason: as above

    err = TaskError(TaskFailure(reason="dropped_failed_result", message=dropped_description(value, failed)))
    err.span = span
    return err
