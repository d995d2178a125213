"""What a terminal shows while a program runs: a spinner with elapsed time, a loop's
progress line, and model text streaming in as it arrives.

All of it goes to standard error, only when that is a terminal (not in pipes, not in
CI, not with ``TERM=dumb``). ``TASKSCHEME_PROGRESS=1`` forces it on and ``=0`` off,
whatever the stream is (tests use this to check the display without a terminal).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from .tracing import Event, Span

#: Set to 1 or 0 to force the progress display on or off.
PROGRESS_ENV = "TASKSCHEME_PROGRESS"
#: Kinds of span that get a spinner while they run.
SPIN_KINDS = frozenset({"model", "script", "step", "parallel", "iteration"})
FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
DIM = "\x1b[2m"
RESET = "\x1b[0m"
CLEAR = "\r\x1b[K"


class TerminalProgress:
    """The one status line on standard error, and streamed model text above it.

    A loop calls :meth:`begin`, :meth:`update` each iteration and :meth:`end`. As a
    watcher of the event hub it also hears spans open and close: while a model call,
    script, step, iteration or parallel form runs for longer than ``delay`` seconds a
    spinner with the elapsed time is drawn, redrawn every ``interval`` seconds by a
    background thread, and erased at the end. :meth:`stream_text` shows a model's text
    as it arrives, dimmed under a header naming the model.
    """

    def __init__(self, stream: IO[str] | None = None, delay: float = 0.5, interval: float = 0.1) -> None:
        self._stream = stream
        self.delay = delay
        self.interval = interval
        self.started: list[float] = []
        self.drawn = False
        self.active = False
        self.last_draw = 0.0
        #: Stream model text as it arrives (``--no-stream`` turns it off).
        self.stream_models = True
        self.status = ""
        self.spinning: dict[str, Span] = {}
        self.streaming: str | None = None  # the span whose text is being shown
        self._lock = threading.RLock()
        self._ticker: threading.Thread | None = None

    @property
    def stream(self) -> IO[str]:
        return self._stream if self._stream is not None else sys.stderr

    def enabled(self) -> bool:
        """Draw only on a terminal that is not dumb, and never in CI (unless forced)."""
        forced = os.environ.get(PROGRESS_ENV)
        if forced in ("0", "1"):
            return forced == "1"
        if os.environ.get("CI") or os.environ.get("TERM") == "dumb":
            return False
        try:
            return self.stream.isatty()
        except (AttributeError, ValueError):
            return False

    # -- a loop's progress line ---------------------------------------------------------
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
        self.status = text
        self._draw(text)

    def end(self) -> None:
        if self.started:
            self.started.pop()
        if not self.started:
            self.status = ""
            if not self.spinning:
                self._clear()

    # -- spinner (as a watcher of the event hub) --------------------------------------------
    def opened(self, span: Span) -> None:
        if span.kind not in SPIN_KINDS:
            return
        with self._lock:
            self.spinning[span.id] = span
            if self._ticker is None:
                self._ticker = threading.Thread(target=self._tick, name="taskscheme-progress", daemon=True)
                self._ticker.start()

    def closed(self, span: Span, event: Event) -> None:
        with self._lock:
            if self.streaming == span.id:
                self.stream.write(RESET + "\n")
                self.stream.flush()
                self.streaming = None
            if self.spinning.pop(span.id, None) is not None and not self.spinning and not self.started:
                self._clear()

    def _tick(self) -> None:
        frame = 0
        while True:
            time.sleep(self.interval)
            with self._lock:
                if not self.spinning:
                    self._ticker = None
                    return
                if self.streaming is not None:
                    continue
                newest = max(self.spinning.values(), key=lambda s: s.start)
                oldest = min(s.start for s in self.spinning.values())
                elapsed = time.time() - oldest
                if elapsed < self.delay:
                    continue
                frame += 1
                count = f" ({len(self.spinning)} running)" if len(self.spinning) > 1 else ""
                status = f" · {self.status}" if self.status else ""
                self._draw(
                    f"{FRAMES[frame % len(FRAMES)]} {newest.kind} {newest.name}{count} · {elapsed:.1f} s{status}"
                )

    # -- streamed model text ------------------------------------------------------------------
    def stream_text(self, span: Span, chunk: str) -> None:
        """Show ``chunk`` of the text a model is sending; one call's text at a time."""
        with self._lock:
            if self.streaming not in (None, span.id):
                return
            if self.streaming is None:
                self._clear()
                self.streaming = span.id
                self.stream.write(f"{DIM}┌ {span.kind} {span.name}\n")
            self.stream.write(DIM + chunk)
            self.stream.flush()

    # -- drawing ------------------------------------------------------------------------------
    def _draw(self, text: str) -> None:
        with self._lock:
            self.last_draw = time.monotonic()
            width = _width() - 1
            line = text.replace("\n", " ")
            if len(line) > width:
                line = line[: width - 1] + "…"
            self.stream.write(CLEAR + line)
            self.stream.flush()
            self.drawn = True

    def _clear(self) -> None:
        with self._lock:
            if self.drawn:
                self.stream.write(CLEAR)
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
