"""The batch's live line on a terminal (done/failed/total, rate, ETA, tokens) and its summary."""

from __future__ import annotations

import time
from typing import IO, Any


class BatchProgress:
    """Counts records; draws one line at most every ``interval`` seconds when ``live``."""

    def __init__(self, stream: IO[str], total: int, skipped: int, live: bool, interval: float = 0.1) -> None:
        self.stream, self.total, self.skipped, self.live, self.interval = stream, total, skipped, live, interval
        self.done = self.failed = self.tokens = 0
        self.start = time.monotonic()
        self.drawn_at = 0.0

    def add(self, record: dict[str, Any]) -> None:
        self.done += 1
        self.failed += record.get("status") == "FAILED"
        usage = record.get("usage") or {}
        self.tokens += int(usage.get("input_tokens", 0)) + int(usage.get("output_tokens", 0))
        if self.live and time.monotonic() - self.drawn_at >= self.interval:
            self.drawn_at = time.monotonic()
            self.stream.write("\r\x1b[K" + self.line())
            self.stream.flush()

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.start, 1e-9)
        rate = self.done / elapsed
        left = self.total - self.skipped - self.done
        eta = f"{left / rate:.0f} s" if rate > 0 else "?"
        finished = self.skipped + self.done
        return (
            f"batch: {finished}/{self.total} done, {self.failed} failed, "
            f"{rate:.1f} items/s, ETA {eta}, {self.tokens} tokens"
        )

    def summary(self) -> str:
        elapsed = time.monotonic() - self.start
        skipped = f", {self.skipped} already done" if self.skipped else ""
        return (
            f"batch: {self.done} items in {elapsed:.2f} s ({self.done - self.failed} complete, "
            f"{self.failed} failed{skipped}), {self.tokens} tokens"
        )

    def finish(self) -> None:
        if self.live and self.drawn_at:
            self.stream.write("\r\x1b[K")
        self.stream.write(self.summary() + "\n")
        self.stream.flush()
