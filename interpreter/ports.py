"""Ports: where ``display`` writes and ``read-char`` reads."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import IO


class Port:
    """Base of input and output ports."""

    __slots__ = ("name", "closed")

    def __init__(self, name: str) -> None:
        self.name = name
        self.closed = False

    def close(self) -> None:
        self.closed = True


class OutputPort(Port):
    """A textual output port that hands text to ``sink`` (a file's write, a list's append …)."""

    __slots__ = ("sink", "flusher", "column")

    def __init__(
        self, sink: Callable[[str], object], name: str = "output", flusher: Callable[[], object] | None = None
    ) -> None:
        super().__init__(name)
        self.sink = sink
        self.flusher = flusher
        self.column = 0

    @classmethod
    def to_stream(cls, stream: IO[str], name: str = "stdout") -> OutputPort:
        return cls(stream.write, name, getattr(stream, "flush", None))

    def write(self, text: str) -> None:
        if text:
            self.sink(text)
            if "\n" in text:
                self.column = len(text) - text.rfind("\n") - 1
            else:
                self.column += len(text)

    def flush(self) -> None:
        if self.flusher is not None:
            self.flusher()


class StringOutputPort(OutputPort):
    """An output port that collects text in ``parts``; ``getvalue`` returns it.

    ``parts`` is a deque, which grows by small fixed blocks: a list is one buffer that
    ``realloc`` may copy as it grows, leaving old copies resident (the suspected cause of
    the memory budget's string-port gap, docs/limits.md). A write is one ``parts.append``
    (compiled code appends to ``parts`` itself: see ``compiler/fastpath.PORT_STATEMENTS``);
    the column is worked out from the parts when asked (``fresh-line``), not kept up to
    date on every write."""

    __slots__ = ("parts",)

    def __init__(self, name: str = "string") -> None:
        self.parts: deque[str] = deque()
        super().__init__(self.parts.append, name)

    def write(self, text: str) -> None:
        self.parts.append(text)

    @property  # type: ignore[override]
    def column(self) -> int:
        """Characters written since the last newline."""
        count = 0
        for part in reversed(self.parts):
            newline = part.rfind("\n")
            if newline >= 0:
                return count + len(part) - newline - 1
            count += len(part)
        return count

    @column.setter
    def column(self, value: int) -> None:
        """Ignored (``OutputPort.__init__`` sets it): the column follows from the text."""

    def getvalue(self) -> str:
        text = "".join(self.parts)
        self.parts.clear()
        if text:
            self.parts.append(text)
        return text


class InputPort(Port):
    """A textual input port over a text buffer (a string, a file read whole, or stdin lines)."""

    __slots__ = ("text", "pos", "more", "counted")

    def __init__(self, text: str = "", name: str = "string", more: Callable[[], str] | None = None) -> None:
        super().__init__(name)
        self.text = text
        self.pos = 0
        self.more = more  # called for more text when the buffer runs out; "" means end of file
        self.counted = (0, 1, 0)  # (offset, its line, where that line starts): see position()

    def position(self) -> tuple[int, int]:
        """The line of ``pos`` and the offset where that line starts, for ``read``'s spans.

        Lines are counted on from where the last call left off, so reading a port datum
        by datum counts each newline once (linear in the text, not quadratic)."""
        offset, line, line_start = self.counted
        if offset > self.pos:
            offset, line, line_start = 0, 1, 0
        newlines = self.text.count("\n", offset, self.pos)
        if newlines:
            line += newlines
            line_start = self.text.rindex("\n", offset, self.pos) + 1
        self.counted = (self.pos, line, line_start)
        return line, line_start

    def _fill(self, until: str | None = None) -> bool:
        """Append more text to the buffer; False at the end of the source.

        With ``until``, keep asking until a chunk contains it (or the source ends), and
        join the chunks once: a long line read in many chunks is copied once, not per chunk."""
        if self.more is None:
            return False
        chunks = []
        while True:
            chunk = self.more()
            if not chunk:
                self.more = None
                break
            chunks.append(chunk)
            if until is None or until in chunk:
                break
        if not chunks:
            return False
        line, line_start = self.position()
        self.counted = (0, line, line_start - self.pos)
        self.text = self.text[self.pos :] + "".join(chunks)
        self.pos = 0
        return True

    def read_char(self) -> str | None:
        if self.pos >= len(self.text) and not self._fill():
            return None
        ch = self.text[self.pos]
        self.pos += 1
        return ch

    def peek_char(self) -> str | None:
        if self.pos >= len(self.text) and not self._fill():
            return None
        return self.text[self.pos]

    def read_line(self) -> str | None:
        """The text up to the next newline (which is consumed), or None at the end.

        Linear in the length of the line: the search for the newline goes on from where
        it stopped, and more text is fetched and joined once."""
        end = self.text.find("\n", self.pos)
        if end < 0:
            searched = len(self.text) - self.pos  # _fill keeps the unread text, moved to 0
            if self._fill(until="\n"):
                end = self.text.find("\n", searched)
        if self.pos >= len(self.text):
            return None
        if end < 0:
            line, self.pos = self.text[self.pos :], len(self.text)
        else:
            line, self.pos = self.text[self.pos : end], end + 1
        return line

    def read_rest(self) -> str:
        while self._fill():
            pass
        rest = self.text[self.pos :]
        self.pos = len(self.text)
        return rest

    def char_ready(self) -> bool:
        return self.pos < len(self.text) or self.more is None
