"""The one timing helper the benchmark scripts share."""

from __future__ import annotations

import time
from collections.abc import Callable


def best(fn: Callable[[], object], repeat: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """The fastest of ``repeat`` runs of ``fn``, in seconds of ``clock`` (wall clock by default;
    ``time.thread_time`` counts only this thread's CPU, steadier on a busy machine)."""
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append(clock() - start)
    return min(times)
