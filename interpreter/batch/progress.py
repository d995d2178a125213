"""The batch's bar on a terminal (done/failed/total, rate, ETA, tokens), one part of the
terminal's live display (:mod:`..tasks.observe.screen`) beside the spinners of the calls its
items make, and its summary at the end (:mod:`.summary`).

Off a terminal there is no bar; under ``NO_COLOR`` or ``TERM=dumb`` a plain line comes
every few seconds instead."""

from __future__ import annotations

import time
from typing import IO, Any

from ..tasks.observe.progress import display_mode
from ..tasks.observe.screen import screen_for
from .summary import BatchSummary

#: Seconds between plain progress lines.
PLAIN_EVERY = 5.0


class BatchProgress:
    """Counts records (:meth:`add`); shows the bar while the batch runs when ``live``."""

    def __init__(
        self, stream: IO[str], total: int, skipped: int, live: bool, pass_threshold: float = 1.0
    ) -> None:
        self.stream = stream
        self.summary = BatchSummary(total, skipped, pass_threshold)
        self.mode = display_mode(stream) if live else "off"
        self.running = False
        self.plain_at = time.monotonic()
        self._bar: Any = None
        if self.mode == "live":
            self.running = True
            screen_for(stream).add(self)

    @property
    def failed(self) -> int:
        return self.summary.failed

    def add(self, record: dict[str, Any]) -> None:
        self.summary.add(record)
        if self.mode == "plain" and time.monotonic() - self.plain_at >= PLAIN_EVERY:
            self.plain_at = time.monotonic()
            self.stream.write(self.line() + "\n")
            self.stream.flush()

    def line(self) -> str:
        """``3/6 done, 0 failed, 2.1 items/s, ETA 2 s, 120 tokens``."""
        s = self.summary
        rate = s.done / max(s.elapsed, 1e-9)
        left = s.total - s.skipped - s.done
        eta = f"{left / rate:.0f} s" if rate > 0 else "?"
        return (
            f"batch: {s.skipped + s.done}/{s.total} done, {s.failed} failed, "
            f"{rate:.1f} items/s, ETA {eta}, {s.tokens} tokens"
        )

    # -- a source of the live display ------------------------------------------------------
    def pending(self) -> bool:
        return self.running

    def renderables(self, moment: float) -> list[Any]:
        if not self.running:
            return []
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn  # lazy: only a live bar needs rich

        if self._bar is None:
            self._bar = Progress(
                SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[line]}")
            )
            self._task = self._bar.add_task("batch", total=max(self.summary.total, 1), line="")
        s = self.summary
        self._bar.update(self._task, completed=s.skipped + s.done, line=self.line().removeprefix("batch: "))
        return [self._bar.get_renderable()]

    def finish(self, quiet: bool = False) -> None:
        """Take the bar down; print the summary unless ``quiet``."""
        self.close()
        if not quiet:
            self.stream.write("\n".join(self.summary.lines()) + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self.running:
            self.running = False
            screen_for(self.stream).remove(self)
