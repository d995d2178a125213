"""``sequential``: run steps in order, keep their history, stop at the first failure.

The :class:`~interpreter.tasks.compose.nodes.Sequential` node compiles the steps and
calls :func:`run_sequence`, which owns the history, the accumulation of
``previous-outputs`` and the shape of the result.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from ...datatypes import NIL, PAIR_WRITE_TICKS, PAIR_WRITES, MString, Pair, Span, cons
from ...errors import SchemeError
from ...printer import display_string, write_string
from ..errors import TaskError, error_info, task_failure
from ..observe.tracing import EventHub
from ..records import ContextManagement, SchemeRecord, TaskResult
from ..values import to_python, to_scheme

#: Longest summary kept for a step value that is not a record.
SUMMARY_WIDTH = 120
#: Values a record holds as they are.
ATOMS = (bool, int, float, str)


class SequentialEntry(SchemeRecord):
    """One step of a sequence (seed 002's TaskOutput): its name, its output (cut at the context's
    ``max_stored_chars``), its notes, when it started and ended, and the model usage during it."""

    step: str
    output: Any = None
    notes: Any = None
    timestamp: float
    start_time: float | None = None
    resource_usage: dict[str, Any] | None = None


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
    if value is None or type(value) in ATOMS:
        return value
    try:
        return to_python(value, "sequential")
    except SchemeError:
        return write_string(value)


def summary(value: Any) -> str:
    """A short written form of a value, for notes."""
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
    return display_string(value)


def failed_status(value: Any) -> bool:
    """A step's value that ends the pipeline: a FAILED result, or an escalated quality gate
    (seed 003: out of iterations, the gate escalates; the pipeline must not publish its draft)."""
    return isinstance(value, SchemeRecord) and getattr(value, "status", None) in ("FAILED", "ESCALATE")


def failure_info(value: Any) -> dict[str, Any]:
    """``{type, message …}`` for a step that returned a FAILED result: the inner error's type and
    message (the root cause's, however deep), and, for a failed loop or pipeline, its own error
    as ``cause`` (seed 002: where it happened, nested: the iteration and phase of a loop, the
    step of a pipeline, and their causes in turn)."""
    loop_error = getattr(value, "error", None)
    if getattr(value, "status", None) == "ESCALATE":
        return escalation_info(value)
    if loop_error is not None and hasattr(loop_error, "iteration"):  # a FAILED LoopResult
        cause = {k: v for k, v in loop_error.model_dump().items() if v is not None}
        info = {"type": loop_error.type, "message": loop_error.message}
        return {**info, "iteration": loop_error.iteration, "phase": loop_error.phase, "cause": cause}
    notes = getattr(value, "notes", None) or {}
    error = notes.get("error") if isinstance(notes, dict) else None
    if isinstance(error, dict) and "message" in error:
        info = {k: v for k, v in error.items() if k in ("type", "reason", "message")}
        info.setdefault("type", "TASK_FAILURE")
        info["message"] = str(info["message"])
        if "failed_step" in notes:  # an inner pipeline: its error (with its step) is the cause
            info["cause"] = dict(error)
        return info
    message = content_of(value).strip() or "the step returned a FAILED result"
    return {"type": "TASK_FAILURE", "message": message}


def escalation_info(gate: Any) -> dict[str, Any]:
    """The error of a pipeline whose step is an escalated quality gate: reason ``escalated``,
    the iteration it ended in and its last feedback."""
    evaluation = getattr(gate, "final_evaluation", None)
    feedback = evaluation.notes.feedback if evaluation is not None else ""
    count = getattr(gate, "iterations_completed", 0)
    message = f"escalated: the quality gate did not pass in {count} iteration{'s' if count != 1 else ''}"
    info: dict[str, Any] = {
        "type": "TASK_FAILURE",
        "reason": "escalated",
        "message": message + (f" ({feedback})" if feedback else ""),
    }
    if count:
        info["iteration"] = count - 1
    return info


def truncated(text: str, limit: int) -> str:
    """``text``, or its first ``limit`` characters and a marker saying how many were cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…[truncated {len(text) - limit} chars]"


def stored(value: Any, limit: int) -> Any:
    """A step's value as the history keeps it: text (a result's content) cut at ``limit``."""
    if isinstance(value, TaskResult) and len(value.content) > limit:
        return value.model_copy(update={"content": truncated(value.content, limit)})
    if isinstance(value, (str, MString)):
        text = str(value)
        return truncated(text, limit) if len(text) > limit else value
    return value


class History:
    """Seed 002's SequentialHistory: the entries, the start time, the current step and the
    model usage so far (the difference of the run's usage totals since the start)."""

    def __init__(self, usage: Callable[[], Any] | None, limit: int) -> None:
        self.entries: list[SequentialEntry] = []
        self.start_time = time.time()
        self.current_step = 0
        self.usage = usage
        self.limit = limit
        self.at_start = self.figures()

    def figures(self) -> dict[str, Any]:
        total = self.usage() if self.usage is not None else None
        if total is None:
            return {"calls": 0, "input_tokens": 0, "output_tokens": 0, "duration_s": 0.0}
        return {
            "calls": total.calls,
            "input_tokens": total.input_tokens,
            "output_tokens": total.output_tokens,
            "duration_s": total.duration_s,
        }

    def since(self, before: dict[str, Any]) -> dict[str, Any]:
        after = self.figures()
        used = {key: after[key] - before[key] for key in before}
        used["duration_s"] = round(used["duration_s"], 6)
        return used

    def add(self, name: str, value: Any, notes: Any, started: float, before: dict[str, Any]) -> None:
        """Append the entry of step ``name``, whose value is ``value`` (``notes_of(value)``: ``notes``)."""
        usage = self.since(before)
        usage["seconds"] = round(time.time() - started, 6)
        self.entries.append(
            SequentialEntry(
                step=name,
                output=plain(stored(value, self.limit)),
                notes=plain(notes),
                timestamp=time.time(),
                start_time=started,
                resource_usage=usage,
            )
        )

    def notes(self) -> dict[str, Any]:
        """The metadata of the history, for the result's notes."""
        return {
            "start_time": self.start_time,
            "current_step": self.current_step,
            "resource_usage": self.since(self.at_start),
        }


class PreviousOutputs:
    """``previous-outputs``: one Scheme list per run of a sequence, oldest output first, grown
    in place at its last pair as steps finish (seed 002's SequentialHistory), so a step costs
    the same however many came before it. A step sees the outputs of the steps before it; a
    list a step keeps grows with the later steps (``list-copy`` keeps a snapshot). An output
    that holds the list itself (or a tail of it) joins it as a copy, so the list never
    contains itself."""

    __slots__ = ("head", "last", "spine")

    def __init__(self) -> None:
        self.head: Any = NIL
        self.last: Pair | None = None
        self.spine: set[int] = set()  # ids of the list's own pairs

    def append(self, value: Any) -> None:
        if type(value) in (Pair, list) and self._holds_spine(value):
            value = _copied(value, self.spine)
        pair = cons(value, NIL)
        if self.last is None:
            self.head = pair
        else:
            self.last.cdr = pair  # a list the program may hold grows: indexes of it are stale
            PAIR_WRITES[0] = next(PAIR_WRITE_TICKS)
        self.last = pair
        self.spine.add(id(pair))

    def _holds_spine(self, value: Any) -> bool:
        """Whether ``value`` reaches a pair of this list (a walk over its pairs and vectors)."""
        seen: set[int] = set()
        todo = [value]
        while todo:
            x = todo.pop()
            if id(x) in seen:
                continue
            seen.add(id(x))
            if type(x) is Pair:
                if id(x) in self.spine:
                    return True
                todo.append(x.car)
                todo.append(x.cdr)
            elif type(x) is list:
                todo.extend(x)
        return False


def _copied(value: Any, spine: set[int]) -> Any:
    """``value`` with fresh pairs and vectors wherever it reaches ``spine`` (shared and circular
    structure kept as it is elsewhere)."""
    copies: dict[int, Any] = {}

    def copy(x: Any) -> Any:
        if type(x) is not Pair and type(x) is not list:
            return x
        done = copies.get(id(x))
        if done is not None:
            return done
        if type(x) is list:
            fresh_vector: list[Any] = []
            copies[id(x)] = fresh_vector
            fresh_vector.extend(copy(item) for item in x)
            return fresh_vector
        first = fresh = cons(None, NIL)
        while True:  # iterative along the cdrs, so long lists need no deep recursion
            copies[id(x)] = fresh
            fresh.car = copy(x.car)
            x = x.cdr
            if type(x) is not Pair or id(x) in copies:
                fresh.cdr = copy(x)
                return first
            fresh.cdr = cons(None, NIL)
            fresh = fresh.cdr

    return copy(value)


def run_sequence(
    steps: list[Step],
    context: ContextManagement,
    frame: Callable[[Any], Any],
    strict: bool,
    hub: EventHub,
    label: str,
    usage: Callable[[], Any] | None = None,
) -> TaskResult:
    """Run ``steps``; ``frame(previous_outputs)`` makes the frame a step runs in; ``usage()``
    gives the run's model usage totals (for each step's ``resource_usage``)."""
    history = History(usage, context.max_stored_chars)
    entries = history.entries
    previous = PreviousOutputs()
    accumulate, full, limit = context.accumulate_data, context.accumulation_format == "full_output", history.limit
    final = len(steps) - 1
    last: Any = None
    for index, step in enumerate(steps):
        history.current_step = index
        start = hub.open("step", f"{label}/{step.name}", {"index": index, "of": len(steps)})
        started, before = time.time(), history.figures()
        try:
            value = step.run(frame(previous.head))
        except SchemeError as err:
            if is_runtime_limit(err):
                hub.finish("step", f"{label}/{step.name}", start, "error", info={"index": index}, error=err)
                err.partial = _ended_by_limit(step, err, history)
                raise
            if err.span is None:
                err.span = step.span
            hub.finish("step", f"{label}/{step.name}", start, "error", info={"index": index}, error=err)
            return _failed(step, {**error_info(err), "step": step.name}, history, strict, err)
        if failed_status(value):
            hub.finish("step", f"{label}/{step.name}", start, "FAILED", info=_step_info(hub, index, value))
            info = failure_info(value)
            if step.span is not None:
                info["location"] = str(step.span)
            info["step"] = step.name
            history.add(step.name, value, notes_of(value), started, before)
            failed = entries.pop()
            extra = {"reason": "escalated", "gate": value} if info.get("reason") == "escalated" else {}
            return _failed(step, info, history, strict, None, failed.output, extra)
        notes = notes_of(value)
        history.add(step.name, value, notes, started, before)
        if accumulate and index < final:  # after the last step no one reads it
            previous.append(_accumulated(value, notes, full, limit))
        last = value
        hub.finish("step", f"{label}/{step.name}", start, "ok", info=_step_info(hub, index, value))
    return TaskResult(content=content_of(last), status="COMPLETE", notes={"steps": entries, **history.notes()})


def _ended_by_limit(step: Step, err: SchemeError, history: History) -> TaskResult:
    """What the host gets, as ``err.partial``, of a sequence a runtime limit ended during ``step``:
    the FAILED result with the completed steps. The outermost form's partial wins; what an inner
    loop or pipeline had is kept as the failed step's ``failed_output``."""
    info = error_info(err)
    if "location" not in info and step.span is not None:
        info["location"] = str(step.span)
    inner = err.partial
    return _failed(step, info, history, False, err, plain(inner) if inner is not None else None)


def _step_info(hub: EventHub, index: int, value: Any) -> dict[str, Any]:
    """A step event's info: its index and, when someone listens, the full output (the history
    may keep it cut)."""
    info: dict[str, Any] = {"index": index}
    if hub.subscribers:
        info["output"] = content_of(value)
    return info


def _accumulated(value: Any, notes: Any, full: bool, limit: int) -> Any:
    """What a later step sees of ``value`` (whose notes are ``notes``) in ``previous-outputs``."""
    if full:
        return stored(value.content if isinstance(value, TaskResult) else value, limit)
    return to_scheme(notes)


def _failed(
    step: Step,
    error: dict[str, Any],
    history: History,
    strict: bool,
    cause: SchemeError | None,
    output: Any = None,
    extra: dict[str, Any] | None = None,
) -> TaskResult:
    """The FAILED result (or, for ``sequential/strict``, the TASK_FAILURE raised); ``extra``
    goes into its notes (an escalated gate's record)."""
    message = f"step {step.name} failed: {error['type']}: {error['message']}"
    if strict:
        err = task_failure(str(error.get("reason", "step_failed")), message, list(history.entries))
        err.record.notes.update({"error": error, **(extra or {})})  # type: ignore[attr-defined]
        err.span = cause.span if cause is not None and cause.span is not None else step.span
        raise err from cause
    notes: dict[str, Any] = {
        "error": error,
        "failed_step": step.name,
        "partial_results": history.entries,
        **history.notes(),
    }
    if output is not None:
        notes["failed_output"] = output
    notes.update(extra or {})
    return TaskResult(content=message, status="FAILED", notes=notes)
