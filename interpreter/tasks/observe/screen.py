"""The one live display on a terminal: everything that moves while a program runs
(spinners, the line a model is streaming, a loop's progress, a batch's bar) is drawn by
one :class:`Screen`, built on ``rich``'s ``Live``.

Parts of the display are *sources* (:class:`Source`): each says what it would show now.
The screen draws them together below everything else, redraws about ten times a second
from a ticker thread while any source has something in flight, and erases itself when
none has (``rich`` is imported only then, so a program that never shows progress never
loads it). Text meant to stay (streamed model lines, the program's own output) is
printed *above* the live area: :meth:`Screen.print_above` for the display's own lines,
and :class:`GuardedStream` for the program's standard output and error, which steps the
live area aside for each write and keeps it away while the program's line is open.

:meth:`Screen.close` erases the display and shows the cursor again; the command line
calls it on every way out (normal exit, errors, Ctrl-C, ``--timeout``), and so does
``atexit``.
"""

from __future__ import annotations

import atexit
import sys
import threading
import time
from typing import IO, Any, Protocol


class Source(Protocol):
    """A part of the live display."""

    def pending(self) -> bool:
        """True while something is in flight (the ticker keeps running)."""
        ...

    def renderables(self, moment: float) -> list[Any]:
        """What to show at wall-clock time ``moment``: ``rich`` renderables, one line each."""
        ...


class Screen:
    """The live area at the bottom of one terminal stream, shared by every source drawing there."""

    def __init__(self, stream: IO[str] | None = None, interval: float = 0.1) -> None:
        self._stream = stream
        self.interval = interval
        self.sources: list[Source] = []
        self.lock = threading.RLock()
        #: The program's output left a line open: the live area waits until it ends.
        self.held = False
        self._console: Any = None
        self._live: Any = None
        self._ticker: threading.Thread | None = None

    @property
    def stream(self) -> IO[str]:
        return self._stream if self._stream is not None else sys.stderr

    @property
    def showing(self) -> bool:
        return self._live is not None

    @property
    def busy(self) -> bool:
        """True while the display may draw (program writes then go through the lock)."""
        return self._live is not None or self._ticker is not None

    # -- sources ------------------------------------------------------------------------
    def add(self, source: Source) -> None:
        with self.lock:
            if source not in self.sources:
                self.sources.append(source)
        self.wake()

    def remove(self, source: Source) -> None:
        with self.lock:
            if source in self.sources:
                self.sources.remove(source)
            self.refresh()

    def wake(self) -> None:
        """Start the ticker (something began that may need drawing)."""
        with self.lock:
            if self._ticker is None:
                self._ticker = threading.Thread(target=self._tick, name="taskscheme-screen", daemon=True)
                self._ticker.start()

    def _tick(self) -> None:
        while True:
            time.sleep(self.interval)
            with self.lock:
                if not any(source.pending() for source in self.sources):
                    self._ticker = None
                    self.refresh()
                    return
                self.refresh()

    # -- drawing --------------------------------------------------------------------------
    def refresh(self) -> None:
        """Draw what the sources show now; erase the area when they show nothing."""
        with self.lock:
            if self.held:
                return
            shown = self._compose()
            if shown is None:
                self._stop()
                return
            self._start().update(shown, refresh=True)

    def _compose(self) -> Any:
        """What the sources show now, as one renderable; None when they show nothing."""
        moment = time.time()
        parts = [part for source in list(self.sources) for part in source.renderables(moment)]
        if not parts:
            return None
        from rich.console import Group  # start-up laziness, as for Live below

        return Group(*parts)

    def print_above(self, text: str, style: str = "") -> None:
        """A line that stays, printed above the live area (or plainly when nothing is shown)."""
        with self.lock:
            from rich.text import Text  # start-up laziness, as for Live below

            if self._live is not None:  # redrawn below the line as it is now, not as it was
                shown = self._compose()
                if shown is None:
                    self._stop()
                else:
                    self._live.update(shown, refresh=False)
            self._console_for().print(Text(text, style=style), soft_wrap=True)

    def write_through(self, stream: IO[str], text: str) -> None:
        """The program writes ``text`` to ``stream`` (on the same terminal): the area steps aside."""
        with self.lock:
            self._stop()
            stream.write(text)
            stream.flush()
            self.held = not text.endswith("\n")
        if not self.held and self.sources:
            self.wake()

    def close(self) -> None:
        """Erase the live area and give the cursor back (every way out of a program calls this)."""
        with self.lock:
            self._stop()
            self.held = False

    def _console_for(self) -> Any:
        if self._console is None:
            from rich.console import Console  # start-up laziness, as for Live below

            self._console = Console(file=self.stream, force_terminal=True, highlight=False, markup=False)
        return self._console

    def _start(self) -> Any:
        if self._live is None:
            # start-up laziness: rich is 90 ms of imports, paid when a live display first draws
            from rich.live import Live

            self._live = Live(
                console=self._console_for(),
                auto_refresh=False,
                transient=True,
                redirect_stdout=False,
                redirect_stderr=False,
                vertical_overflow="visible",
            )
            self._live.start()
        return self._live

    def _stop(self) -> None:
        live, self._live = self._live, None
        if live is not None:
            from rich.console import Group  # start-up laziness, as for Live below

            live.update(Group(), refresh=False)
            live.stop()
            self.stream.flush()


class GuardedStream:
    """Standard output or error on the terminal the screen draws on: each write first
    steps the live area aside, so the program's text is never drawn over."""

    def __init__(self, stream: IO[str], screen: Screen) -> None:
        self.stream = stream
        self.screen = screen

    def write(self, text: str) -> int:
        screen = self.screen
        if screen.busy or screen.held:
            screen.write_through(self.stream, text)
        else:
            self.stream.write(text)
            if text:
                screen.held = not text.endswith("\n")
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


_screens: dict[int, Screen] = {}
_screens_lock = threading.Lock()


def screen_for(stream: IO[str] | None = None) -> Screen:
    """The one screen of ``stream`` (standard error by default), made on first use."""
    target = stream if stream is not None else sys.stderr
    with _screens_lock:
        screen = _screens.get(id(target))
        if screen is None:
            screen = _screens[id(target)] = Screen(stream)
        return screen


def is_terminal(stream: IO[str] | None) -> bool:
    """True for a stream that is an interactive terminal (a closed or fake stream is not)."""
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def guard_output(stream: IO[str]) -> IO[str]:
    """``stream`` guarded by the standard-error screen when both are one terminal; else itself."""
    if isinstance(stream, GuardedStream) or not (is_terminal(stream) and is_terminal(sys.stderr)):
        return stream
    return GuardedStream(stream, screen_for())  # type: ignore[return-value]


def close_screens() -> None:
    """Erase every live area (the command line's ways out, and ``atexit``)."""
    for screen in list(_screens.values()):
        screen.close()


atexit.register(close_screens)
