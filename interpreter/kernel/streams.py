"""Text for the notebook: what a program writes, and a model's text as it arrives, as ``stream`` messages."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..tasks.observe.tracing import Event, Span

#: Send ``text`` as a ``stream`` message named ``stdout`` or ``stderr`` to the cell that runs.
Send = Callable[[str, str], None]

#: A buffer holding more than this many characters is sent even without a newline.
FLUSH_AT = 4096


class CellStream:
    """A writable text stream for one of the cell's outputs; whole lines go out as they end.

    Thread-safe: ``parallel-map`` branches write through the same port."""

    def __init__(self, send: Send, name: str) -> None:
        self.send = send
        self.name = name
        self._buffer: list[str] = []
        self._size = 0
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        with self._lock:
            self._buffer.append(text)
            self._size += len(text)
            ready = "\n" in text or self._size >= FLUSH_AT
        if ready:
            self.flush()
        return len(text)

    def flush(self) -> None:
        with self._lock:
            text = "".join(self._buffer)
            self._buffer.clear()
            self._size = 0
        if text:
            self.send(self.name, text)

    def isatty(self) -> bool:
        return False


class NotebookProgress:
    """The interpreter's progress display in a notebook (the role ``TerminalProgress`` plays on a
    terminal, through the same methods): no spinner or status line, since the notebook marks the
    cell busy, but a model's text is written into the cell as it arrives, under a header naming
    the call, one call at a time (other calls of parallel branches still run, unshown)."""

    #: Stream model text as it arrives.
    stream_models = True

    def __init__(self, out: CellStream) -> None:
        self.out = out
        self.streaming: str | None = None  # the span whose text is being shown
        self._lock = threading.RLock()

    def enabled(self) -> bool:
        return True

    # a loop's progress line: the notebook has none
    def begin(self) -> None:
        pass

    def update(self, text: str) -> None:
        pass

    def end(self) -> None:
        pass

    def was_streamed(self, text: str) -> bool:
        return False  # a cell's result is shown in full

    # -- as a watcher of the event hub -------------------------------------------------------
    def opened(self, span: Span) -> None:
        pass

    def closed(self, span: Span, event: Event) -> None:
        with self._lock:
            if self.streaming == span.id:
                self.out.write("\n")
                self.out.flush()
                self.streaming = None

    def stream_text(self, span: Span, chunk: str) -> None:
        with self._lock:
            if self.streaming not in (None, span.id):
                return
            if self.streaming is None:
                self.streaming = span.id
                self.out.write(f"┌ {span.kind} {span.name}\n")
            self.out.write(chunk)
            self.out.flush()
