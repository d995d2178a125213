"""Tracing: events for runs, task calls, model calls and their attempts, script runs,
loop iterations and sequential steps, linked into a tree.

Each interpreter has one :class:`EventHub` (``interp.events``). Code that does
something worth tracing opens a :class:`Span` (:meth:`EventHub.open`) and closes it
with :meth:`EventHub.finish`; spans opened meanwhile in the same branch become its
children. The hub builds an :class:`Event` only when someone listens, so an untraced
run pays one list test per event. ``interp.on_event(fn)`` subscribes; :class:`JsonlWriter`
writes events as JSON lines (``--trace run.jsonl``); watchers (the terminal progress
line, OpenTelemetry) also hear when a span opens.

The innermost open span of a branch is its context's ``trace_parent``: the
interpreter's ``runtime.current()`` (a parallel branch's own :class:`~interpreter.evaluator.Branch`,
which starts under the form's ``parallel`` span, else the root runtime). A hub without
a runtime keeps it itself.
"""

from __future__ import annotations

import json
import secrets
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from ... import __version__
from ...datatypes import TailCall
from ...errors import SchemeError
from ...evaluator import apply_procedure
from .progress import TerminalProgress, first_line

__all__ = [
    "Event",
    "EventHub",
    "JsonlWriter",
    "Span",
    "TerminalProgress",
    "first_line",
    "now",
    "trace_task",
]

Subscriber = Callable[["Event"], None]

#: Fields of an event's ``info`` that hold texts (model calls, step and script outputs, an evaluator's
#: feedback); ``--trace-redact`` leaves them out.
TEXT_FIELDS = ("system", "prompt", "response", "output", "stderr", "feedback")
#: Characters of a script's output kept in its event (the end of it: where errors are).
SCRIPT_OUTPUT_KEPT = 4000


class Event(BaseModel):
    """One traced action: what ran (``kind``, ``name``), where in the tree (``id``,
    ``parent_id``, ``run_id``), when, how long, and how it ended (``status``, ``error``)."""

    model_config = ConfigDict(defer_build=True)  # validators built on first use: fast start-up

    kind: str
    name: str
    id: str = ""
    parent_id: str | None = None
    run_id: str = ""
    start: float
    end: float | None
    duration: float | None = None
    status: str
    error: dict[str, str] | None = None
    usage: dict[str, int] | None = None
    info: dict[str, Any] = Field(default_factory=dict)

    def __str__(self) -> str:
        took = f" in {self.duration * 1000:.1f} ms" if self.duration is not None else ""
        text = f"{self.kind} {self.name}: {self.status}{took}"
        if self.usage:
            text += " (" + ", ".join(f"{k} {v}" for k, v in self.usage.items()) + ")"
        if self.error:
            text += f": {self.error.get('message', '')}"
        return text


@dataclass
class Span:
    """An action under way: its id, its parent span and when it began."""

    kind: str
    name: str
    id: str
    parent: Span | None
    run_id: str
    start: float
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def parent_id(self) -> str | None:
        return self.parent.id if self.parent is not None else None


class Watcher(Protocol):
    """Hears spans open and close (the progress line, OpenTelemetry)."""

    def opened(self, span: Span) -> None: ...

    def closed(self, span: Span, event: Event) -> None: ...


def new_id(nbytes: int = 8) -> str:
    """A random id in hex: 8 bytes for spans, 16 for runs (the sizes OpenTelemetry uses)."""
    return secrets.token_hex(nbytes)


def error_info(err: BaseException) -> dict[str, str]:
    """An event's ``error``: the error's type (task error type or kind) and message."""
    kind = getattr(err, "error_type", None) or getattr(err, "kind", None) or type(err).__name__
    record = getattr(err, "details", None)
    message = getattr(record, "message", None) or getattr(err, "message", None) or str(err)
    return {"type": str(kind), "message": str(message)}


class EventHub:
    """The subscribers and watchers of one interpreter, its open runs, and its progress line."""

    def __init__(self, runtime: Any = None) -> None:
        #: Whose ``current()`` context holds the trace parent (None: this hub holds it).
        self.runtime = runtime
        self.trace_parent: Span | None = None
        self.subscribers: list[Subscriber] = []
        self.watchers: list[Watcher] = []
        self.progress = TerminalProgress()
        #: Leave prompts, system texts and responses out of events (``--trace-redact``).
        self.redact = False
        self._lock = threading.RLock()
        self._run: Span | None = None  # the run under way: parent of spans from branches with no context
        self._loose_run_id = new_id(16)  # the run id of spans opened outside any run

    def subscribe(self, fn: Subscriber) -> Callable[[], None]:
        """Call ``fn(event)`` for every event from now on; returns a function that unsubscribes."""
        self.subscribers.append(fn)
        return _remover(self.subscribers, fn)

    def watch(self, watcher: Watcher) -> Callable[[], None]:
        """Tell ``watcher`` when spans open and close; returns a function that stops it."""
        self.watchers.append(watcher)
        return _remover(self.watchers, watcher)

    @property
    def active(self) -> bool:
        return bool(self.subscribers or self.watchers)

    def use_progress(self, progress: TerminalProgress) -> None:
        """Draw progress with ``progress``; it watches spans (spinner, streamed text) when it is enabled."""
        if self.progress in self.watchers:
            self.watchers.remove(self.progress)
        self.progress = progress
        if progress.enabled():
            self.watchers.append(progress)

    # -- spans -----------------------------------------------------------------------
    def _context(self) -> Any:
        """The calling branch's context, whose ``trace_parent`` is the innermost open span."""
        return self.runtime.current() if self.runtime is not None else self

    def open(self, kind: str, name: str, info: dict[str, Any] | None = None) -> Span | None:
        """Begin a span under the current one; None (and no cost) when nobody listens."""
        if not (self.subscribers or self.watchers):
            return None
        context = self._context()
        parent = context.trace_parent or self._run
        run_id = parent.run_id if parent is not None else self._loose_run_id
        span = Span(kind, name, new_id(), parent, run_id, now(), info or {})
        context.trace_parent = span
        self._notify_open(span)
        return span

    def finish(
        self,
        kind: str,
        name: str,
        start: Span | float | None,
        status: str,
        usage: dict[str, int] | None = None,
        info: dict[str, Any] | None = None,
        error: BaseException | dict[str, str] | None = None,
    ) -> None:
        """Close the span ``start`` (from :meth:`open`) or report an action that began at
        ``start`` (a :func:`now` value) and ends now."""
        span = start if isinstance(start, Span) else None
        if span is not None:
            context = self._context()
            if context.trace_parent is span:
                context.trace_parent = span.parent
        if not (self.subscribers or self.watchers):
            return
        if span is None:
            parent = self._context().trace_parent or self._run
            begun = start if isinstance(start, float | int) else now()
            run_id = parent.run_id if parent is not None else self._loose_run_id
            span = Span(kind, name, new_id(), parent, run_id, float(begun))
        end = now()
        details = {**span.info, **(info or {})}
        if self.redact:
            details = {k: v for k, v in details.items() if k not in TEXT_FIELDS}
        event = Event(
            kind=kind,
            name=name,
            id=span.id,
            parent_id=span.parent_id,
            run_id=span.run_id,
            start=span.start,
            end=end,
            duration=round(end - span.start, 6),
            status=status,
            error=error_info(error) if isinstance(error, BaseException) else error,
            usage=usage,
            info=details,
        )
        self._notify_close(span, event)
        self.emit(event)

    @staticmethod
    def script_info(result: Any) -> dict[str, Any]:
        """A script event's ``info``: the end of its standard output and error."""
        info: dict[str, Any] = {}
        for key, field_name in (("output", "stdout"), ("stderr", "stderr")):
            text = getattr(result, field_name, None)
            if isinstance(text, str) and text:
                info[key] = text[-SCRIPT_OUTPUT_KEPT:]
        return info

    # -- runs ------------------------------------------------------------------------
    def begin_run(self, program: str, argv: list[str]) -> Span | None:
        """Start a run: a ``run`` event (argv, program, version) goes out at once, before
        the run's other events; :meth:`end_run` sends its closing event with the same id."""
        if not (self.subscribers or self.watchers):
            return None
        info = {"program": program, "argv": list(argv), "version": __version__}
        span = Span("run", program, new_id(), None, new_id(16), now(), info)
        self._context().trace_parent = span
        self._run = span
        self.emit(
            Event(
                kind="run",
                name=program,
                id=span.id,
                run_id=span.run_id,
                start=span.start,
                end=None,
                status="started",
                info=info,
            )
        )
        self._notify_open(span)
        return span

    def end_run(self, span: Span | None, error: BaseException | None = None) -> None:
        if span is None:
            return
        if self._run is span:
            self._run = None
        self._context().trace_parent = None
        code = getattr(error, "code", None)
        if isinstance(code, int):  # (exit n) ends a run normally
            self.finish("run", span.name, span, f"exit {code}", error=error if code else None)
        else:
            self.finish("run", span.name, span, "error" if error is not None else "ok", error=error)

    # -- delivery --------------------------------------------------------------------
    def _notify_open(self, span: Span) -> None:
        for watcher in list(self.watchers):
            self._safely(watcher, lambda w=watcher: w.opened(span))

    def _notify_close(self, span: Span, event: Event) -> None:
        for watcher in list(self.watchers):
            self._safely(watcher, lambda w=watcher: w.closed(span, event))

    def emit(self, event: Event) -> None:
        """Hand ``event`` to every subscriber, one event at a time even from many threads.
        One that fails is warned about and dropped, so a broken trace file does not end
        the program it traces; one past a limit (a trace file at its byte cap) is dropped
        and its ``resource-exhaustion`` error raised."""
        with self._lock:
            for fn in list(self.subscribers):
                self._safely(fn, lambda f=fn: f(event))

    def _safely(self, who: Any, call: Callable[[], None]) -> None:
        try:
            call()
        except Exception as exc:
            for group in (self.subscribers, self.watchers):
                if who in group:
                    group.remove(who)
            if getattr(exc, "kind", None) == "resource-exhaustion":  # a full trace file (disk.py) ends the run
                raise
            print(f"warning: trace subscriber dropped after {type(exc).__name__}: {exc}", file=sys.stderr)


def _remover(group: list[Any], item: Any) -> Callable[[], None]:
    """A function taking ``item`` out of ``group`` (once; later calls do nothing)."""

    def remove() -> None:
        if item in group:
            group.remove(item)

    return remove


def now() -> float:
    """Wall-clock seconds, as events record them."""
    return time.time()


def usage_delta(before: tuple[int, int, int], after: tuple[int, int, int]) -> dict[str, int] | None:
    """Model usage between two :func:`usage_mark` readings, or None if there was none."""
    calls, inp, out = (a - b for a, b in zip(after, before))
    if not calls:
        return None
    return {"calls": calls, "input_tokens": inp, "output_tokens": out}


def usage_mark(usage: Any) -> tuple[int, int, int]:
    """(calls, input tokens, output tokens) so far, from a :class:`~.usage.Usage`."""
    total = usage.total
    return total.calls + total.cached, total.input_tokens, total.output_tokens


class JsonlWriter:
    """A subscriber writing each event as one JSON line, flushed at once."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def __call__(self, event: Event) -> None:
        self.stream.write(json.dumps(event.model_dump(), default=str) + "\n")
        self.stream.flush()


def trace_task(hub: EventHub, usage: Any, name: str, run: Callable[[], Any]) -> Any:
    """Run a task call and report it as a ``task`` event with the model usage it caused.

    A procedure task's body is run here rather than left to the trampoline, so the
    event's end is the body's end (tracing costs tail-call elimination across task calls).
    """
    span, mark = hub.open("task", name), usage_mark(usage)
    try:
        result = run()
        if type(result) is TailCall:
            result = apply_procedure(result.proc, result.args)
    except SchemeError as err:
        delta = usage_delta(mark, usage_mark(usage))
        hub.finish("task", name, span, "error", delta, {"error": err.message}, error=err)
        raise
    except BaseException:
        hub.finish("task", name, span, "interrupted", usage_delta(mark, usage_mark(usage)))
        raise
    status = getattr(result, "status", None)
    hub.finish("task", name, span, status if isinstance(status, str) else "ok", usage_delta(mark, usage_mark(usage)))
    return result
