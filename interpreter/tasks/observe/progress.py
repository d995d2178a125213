"""What a terminal shows while a program runs: a spinner naming the model call or script
in flight with its elapsed time and how many run at once, a loop's progress, and model
text streaming in as it arrives. It is one source of the terminal's live display
(:mod:`.screen`), which the batch progress bar shares.

All of it goes to standard error, and only when that is a terminal (not in pipes, not
in CI). Under ``NO_COLOR`` or ``TERM=dumb`` there is no live display: streamed text and
a loop's progress come as plain lines. ``TASKSCHEME_PROGRESS=1`` forces the live
display on and ``=0`` everything off, whatever the stream is (tests use this).

Everything a run left in flight (a script stopped by Ctrl-C or ``--timeout``, a model
call cut off while streaming) is dropped when the run ends, so nothing outlives it.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, Literal

from .screen import Screen, screen_for

if TYPE_CHECKING:
    from .tracing import Event, Span

#: Set to 1 or 0 to force the progress display on or off.
PROGRESS_ENV = "TASKSCHEME_PROGRESS"
#: Kinds of span the display follows; model calls and scripts are what "(N running)" counts.
SPIN_KINDS = frozenset({"model", "script", "step", "parallel", "iteration"})
COUNTED_KINDS = frozenset({"model", "script"})
#: How many streamed texts are remembered (the REPL prints a result whose text was streamed short).
STREAMED_KEPT = 32
#: Seconds between plain progress lines (``NO_COLOR``, ``TERM=dumb``).
PLAIN_INTERVAL = 1.0

Mode = Literal["live", "plain", "off"]


def display_mode(stream: IO[str] | None) -> Mode:
    """``live`` on a terminal, ``plain`` on a terminal without colour or cursor control, else ``off``."""
    forced = os.environ.get(PROGRESS_ENV)
    if forced in ("0", "1"):
        return "live" if forced == "1" else "off"
    if os.environ.get("CI"):
        return "off"
    try:
        terminal = stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        terminal = False
    if not terminal:
        return "off"
    if "NO_COLOR" in os.environ or os.environ.get("TERM") == "dumb":
        return "plain"
    return "live"


@dataclass
class Streaming:
    """A model call's text so far: the lines printed, the line still arriving."""

    span: Span
    partial: str = ""
    header_shown: bool = False
    text: list[str] = field(default_factory=list)


class TerminalProgress:
    """Spinner, loop progress and streamed text of one interpreter, drawn on the terminal's screen.

    A loop calls :meth:`begin`, :meth:`update` each iteration and :meth:`end`. As a
    watcher of the event hub it hears spans open and close: once a model call, script,
    step, iteration or parallel form has run ``delay`` seconds a spinner shows the newest
    model call or script (else the innermost form) with the elapsed time.
    :meth:`stream_text` prints a model's text as it arrives: whole lines above the live
    area, the line still arriving in it.
    """

    def __init__(self, stream: IO[str] | None = None, delay: float = 0.5, interval: float = 0.1) -> None:
        self._stream = stream
        self.delay = delay
        self.interval = interval
        #: Stream model text as it arrives (``--no-stream`` turns it off).
        self.stream_models = True
        self.inflight: dict[str, Span] = {}
        self.loops: list[list[Any]] = []  # [began, status text] per loop under way
        self.streams: dict[str, Streaming] = {}
        self.streamed: deque[str] = deque(maxlen=STREAMED_KEPT)
        #: Runs that ended: a model thread still sending text for one of them is not shown.
        self.ended_runs: deque[str] = deque(maxlen=STREAMED_KEPT)
        self.last_draw = 0.0
        self._plain_streaming: str | None = None
        self._lock = threading.RLock()
        self._screen: Screen | None = None
        self._mode: Mode | None = None

    @property
    def stream(self) -> IO[str]:
        return self._stream if self._stream is not None else sys.stderr

    @property
    def screen(self) -> Screen:
        if self._screen is None:
            self._screen = screen_for(self._stream)
            self._screen.interval = min(self._screen.interval, max(self.interval, 0.01))
        return self._screen

    def mode(self) -> Mode:
        if self._mode is None:
            self._mode = display_mode(self.stream)
        return self._mode

    def enabled(self) -> bool:
        """Anything to show at all (live or plain)."""
        return self.mode() != "off"

    # -- a loop's progress ---------------------------------------------------------------
    def begin(self) -> None:
        with self._lock:
            self.loops.append([time.time(), ""])

    def update(self, text: str) -> None:
        with self._lock:
            if not self.loops:
                return
            self.loops[-1][1] = text
            moment = time.monotonic()
            if moment - self.last_draw < (PLAIN_INTERVAL if self.mode() == "plain" else self.interval):
                return
            self.last_draw = moment
        mode = self.mode()
        if mode == "live":
            self._show()
        elif mode == "plain" and time.time() - self.loops[0][0] >= self.delay:
            self._plain(text + "\n")

    def end(self) -> None:
        with self._lock:
            if self.loops:
                self.loops.pop()
        self._settle()

    # -- spans (as a watcher of the event hub) --------------------------------------------
    def opened(self, span: Span) -> None:
        if span.kind not in SPIN_KINDS or span.run_id in self.ended_runs:
            return
        with self._lock:
            self.inflight[span.id] = span
        if self.mode() == "live":
            self.screen.add(self)  # drawn at the screen's next tick, not here: a span costs no drawing

    def closed(self, span: Span, event: Event) -> None:
        if span.kind == "run":  # whatever the run left in flight ends with it
            self.ended_runs.append(span.run_id)
            self.reset()
            return
        with self._lock:
            self.inflight.pop(span.id, None)
            streaming = self.streams.pop(span.id, None)
        if streaming is not None:
            self._finish_stream(streaming)
        elif self._plain_streaming == span.id:
            self._plain_streaming = None
            self._plain("\n")
        self._settle()

    def reset(self) -> None:
        """Forget everything in flight (a run ended): its streamed lines end, the area is erased."""
        with self._lock:
            streams = list(self.streams.values())
            self.inflight.clear()
            self.streams.clear()
            self.loops.clear()
        for streaming in streams:
            self._finish_stream(streaming)
        if self._plain_streaming is not None:
            self._plain_streaming = None
            self._plain("\n")
        self._settle()

    # -- streamed model text --------------------------------------------------------------
    def stream_text(self, span: Span, chunk: str) -> None:
        """Show ``chunk`` of the text a model is sending (not once its run has ended)."""
        if span.run_id in self.ended_runs:
            return
        if self.mode() == "plain":
            self._plain_chunk(span, chunk)
            return
        with self._lock:
            streaming = self.streams.get(span.id)
            if streaming is None:
                streaming = self.streams[span.id] = Streaming(span)
            streaming.text.append(chunk)
            *lines, streaming.partial = (streaming.partial + chunk).split("\n")
        for line in lines:
            self._stream_line(streaming, line)
        if self.mode() == "live":
            self.screen.add(self)  # the line still arriving shows at the next tick

    def was_streamed(self, text: str) -> bool:
        """True when ``text`` is a model's answer this display streamed (the REPL prints it short)."""
        return bool(text) and text in self.streamed

    def _stream_line(self, streaming: Streaming, line: str) -> None:
        screen = self.screen
        if not streaming.header_shown:
            streaming.header_shown = True
            screen.print_above(f"┌ {streaming.span.kind} {streaming.span.name}", "dim")
        screen.print_above(f"│ {line}", "dim")

    def _finish_stream(self, streaming: Streaming) -> None:
        if streaming.partial or not streaming.header_shown:
            self._stream_line(streaming, streaming.partial)
        self.streamed.append("".join(streaming.text))

    def _plain_chunk(self, span: Span, chunk: str) -> None:
        with self._lock:
            if self._plain_streaming not in (None, span.id):
                return
            if self._plain_streaming is None:
                self._plain_streaming = span.id
                chunk = f"┌ {span.kind} {span.name}\n{chunk}"
        self._plain(chunk)

    def _plain(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()

    # -- the live area --------------------------------------------------------------------
    def _show(self) -> None:
        screen = self.screen
        screen.add(self)
        screen.refresh()

    def _settle(self) -> None:
        """Leave the screen once nothing is in flight (what remains is redrawn at the next tick)."""
        if self._screen is not None and not self.pending():
            self._screen.remove(self)

    def pending(self) -> bool:
        return bool(self.inflight or self.loops or self.streams)

    def renderables(self, moment: float) -> list[Any]:
        # start-up laziness: rich is 90 ms of imports, paid when a live display first draws
        from rich.spinner import Spinner
        from rich.text import Text

        with self._lock:
            partial = [s.partial for s in self.streams.values() if s.partial]
            line = self.status_line(moment)
        parts: list[Any] = [Text(f"│ {text}", style="dim", no_wrap=True, overflow="ellipsis") for text in partial]
        if line:
            parts.append(Spinner("dots", Text(line, no_wrap=True, overflow="ellipsis"), style="cyan"))
        return parts

    def status_line(self, moment: float) -> str:
        """The spinner's words: what runs, for how long, how many at once, the loop's progress."""
        spans = list(self.inflight.values())
        counted = [s for s in spans if s.kind in COUNTED_KINDS]
        began = [s.start for s in spans] + [loop[0] for loop in self.loops]
        if not began or moment - min(began) < self.delay:
            return ""
        status = next((loop[1] for loop in reversed(self.loops) if loop[1]), "")
        if not spans:
            return status
        newest = max(counted or spans, key=lambda s: s.start)
        parts = [f"{newest.kind} {newest.name} · {moment - min(s.start for s in spans):.1f} s"]
        if len(counted) > 1:
            parts[0] += f" ({len(counted)} running)"
        steps = [s for s in spans if s.kind == "step" and s is not newest]
        if steps:
            step = max(steps, key=lambda s: s.start)
            where = step.info
            of = f" ({where['index'] + 1} of {where['of']})" if "index" in where and "of" in where else ""
            parts.append(f"step {step.name}{of}")
        if status:
            parts.append(status)
        return " · ".join(parts)


def first_line(text: str, limit: int = 80) -> str:
    """The first non-empty line of ``text``, cut to ``limit`` characters."""
    for line in text.splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""
