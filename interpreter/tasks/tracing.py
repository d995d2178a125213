"""Tracing: events for task calls, model calls, script runs, loop iterations and sequential steps.

Each interpreter has one :class:`EventHub` (``interp.events``). Code that does
something worth tracing records when it started and calls :meth:`EventHub.finish`;
the hub builds an :class:`Event` only when someone listens, so an untraced run pays
one list test per event. ``interp.on_event(fn)`` subscribes; :class:`JsonlWriter`
writes events as JSON lines (``--trace run.jsonl``). :class:`TerminalProgress` draws
a loop's progress on standard error when it is a terminal, and nothing otherwise.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from typing import IO, Any

from pydantic import BaseModel, ConfigDict, Field

from ..current import CURRENT

Subscriber = Callable[["Event"], None]


class Event(BaseModel):
    """One traced action: what ran (``kind``, ``name``), when, how long, and how it ended."""

    model_config = ConfigDict(defer_build=True)  # validators built on first use: fast start-up

    kind: str
    name: str
    start: float
    end: float
    duration: float
    status: str
    usage: dict[str, int] | None = None
    info: dict[str, Any] = Field(default_factory=dict)

    def __str__(self) -> str:
        text = f"{self.kind} {self.name}: {self.status} in {self.duration * 1000:.1f} ms"
        if self.usage:
            text += " (" + ", ".join(f"{k} {v}" for k, v in self.usage.items()) + ")"
        return text


class EventHub:
    """The subscribers of one interpreter, and its progress line."""

    def __init__(self) -> None:
        self.subscribers: list[Subscriber] = []
        self.progress = TerminalProgress()

    def subscribe(self, fn: Subscriber) -> Callable[[], None]:
        """Call ``fn(event)`` for every event from now on; returns a function that unsubscribes."""
        self.subscribers.append(fn)

        def unsubscribe() -> None:
            if fn in self.subscribers:
                self.subscribers.remove(fn)

        return unsubscribe

    @property
    def active(self) -> bool:
        return bool(self.subscribers)

    def finish(
        self,
        kind: str,
        name: str,
        start: float,
        status: str,
        usage: dict[str, int] | None = None,
        info: dict[str, Any] | None = None,
    ) -> None:
        """Report an action that began at ``start`` (a :func:`now` value) and ends now."""
        if not self.subscribers:
            return
        end = now()
        parent = trace_parent()
        if parent is not None:
            info = {"parent": parent, **(info or {})}
        event = Event(
            kind=kind,
            name=name,
            start=start,
            end=end,
            duration=round(end - start, 6),
            status=status,
            usage=usage,
            info=info or {},
        )
        self.emit(event)

    def emit(self, event: Event) -> None:
        """Hand ``event`` to every subscriber. One that fails is warned about and dropped,
        so a broken trace file does not end the program it traces."""
        for fn in list(self.subscribers):
            try:
                fn(event)
            except Exception as exc:
                self.subscribers.remove(fn)
                print(f"warning: trace subscriber dropped after {type(exc).__name__}: {exc}", file=sys.stderr)


def trace_parent() -> Any:
    """The span the calling branch's events nest under (a parallel form's id), or None."""
    ctx = CURRENT.get()
    return ctx.trace_parent if ctx is not None else None


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
    return total.calls, total.input_tokens, total.output_tokens


class JsonlWriter:
    """A subscriber writing each event as one JSON line, flushed at once."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def __call__(self, event: Event) -> None:
        self.stream.write(json.dumps(event.model_dump(), default=str) + "\n")
        self.stream.flush()


class TerminalProgress:
    """A one-line progress display on standard error, drawn only when it is a terminal.

    A loop calls :meth:`begin`, :meth:`update` each iteration and :meth:`end`. The line
    appears once a loop has run for ``delay`` seconds (short loops draw nothing), is
    redrawn at most every ``interval`` seconds, and is erased at the end.
    """

    def __init__(self, stream: IO[str] | None = None, delay: float = 0.5, interval: float = 0.1) -> None:
        self._stream = stream
        self.delay = delay
        self.interval = interval
        self.started: list[float] = []
        self.drawn = False
        self.active = False
        self.last_draw = 0.0

    @property
    def stream(self) -> IO[str]:
        return self._stream if self._stream is not None else sys.stderr

    def enabled(self) -> bool:
        """Draw only on a terminal that is not dumb, and never in CI."""
        if os.environ.get("CI") or os.environ.get("TERM") == "dumb":
            return False
        try:
            return self.stream.isatty()
        except (AttributeError, ValueError):
            return False

    def begin(self) -> None:
        if not self.started:
            self.active = self.enabled()
        self.started.append(time.monotonic())

    def update(self, text: str) -> None:
        if not self.started or not self.active:
            return
        moment = time.monotonic()
        if moment - self.started[0] < self.delay or moment - self.last_draw < self.interval:
            return
        self.last_draw = moment
        width = _width() - 1
        line = text.replace("\n", " ")
        if len(line) > width:
            line = line[: width - 1] + "…"
        self.stream.write("\r\x1b[K" + line)
        self.stream.flush()
        self.drawn = True

    def end(self) -> None:
        if self.started:
            self.started.pop()
        if self.drawn and not self.started:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False


def _width() -> int:
    try:
        return os.get_terminal_size(sys.stderr.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 80


def first_line(text: str, limit: int = 80) -> str:
    """The first non-empty line of ``text``, cut to ``limit`` characters."""
    for line in text.splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""


def trace_task(hub: EventHub, usage: Any, name: str, run: Callable[[], Any]) -> Any:
    """Run a task call and report it as a ``task`` event with the model usage it caused.

    A procedure task's body is run here rather than left to the trampoline, so the
    event's end is the body's end (tracing costs tail-call elimination across task calls).
    """
    from ..datatypes import TailCall
    from ..errors import SchemeError
    from ..evaluator import apply_procedure

    start, mark = now(), usage_mark(usage)
    try:
        result = run()
        if type(result) is TailCall:
            result = apply_procedure(result.proc, result.args)
    except SchemeError as err:
        hub.finish("task", name, start, "error", usage_delta(mark, usage_mark(usage)), {"error": err.message})
        raise
    status = getattr(result, "status", None)
    hub.finish("task", name, start, status if isinstance(status, str) else "ok", usage_delta(mark, usage_mark(usage)))
    return result
