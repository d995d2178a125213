"""The clock: ``current-second``, ``current-jiffy``, ``jiffies-per-second`` and ``current-time``.

Each reading is a nondeterministic result: a durable run journals it, and a resumed
run reads it back from the journal (docs/durable.md), so the program sees the times
it saw before. A jiffy is a microsecond of this process's monotonic clock: after a
resume, measure time across the stop with ``current-second``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..durable import Source
from .registry import primitive

#: Clock readings, as journal entries of kind ``clock``.
CLOCK: Source[Any] = Source("clock")


def reading(name: str, read: Callable[[], Any]) -> Any:
    """``read()``, journaled as a reading of the clock ``name``."""
    return CLOCK({"source": name}, read)


@primitive("current-second")
def current_second() -> float:
    """Seconds since the epoch (1970-01-01 UTC), as an inexact number."""
    return reading("current-second", time.time)


@primitive("current-jiffy")
def current_jiffy() -> int:
    """Microseconds of a monotonic clock: for measuring intervals."""
    return reading("current-jiffy", lambda: time.perf_counter_ns() // 1000)


@primitive("jiffies-per-second")
def jiffies_per_second() -> int:
    return 1_000_000


@primitive("current-time")
def current_time() -> str:
    """The date and time now, in UTC, as ISO 8601 text: ``"2026-11-28T01:55:12Z"``."""
    return reading("current-time", lambda: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
