"""What a batch did, from its records: items complete and failed, model tokens, cache hits,
retries, item times (p50, p95) and the metric (mean, pass rate, count), as the lines the
command line prints at the end and the figures its live bar shows."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile of ``values`` (0 for none)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(math.ceil(fraction * len(ordered)), 1)
    return ordered[rank - 1]


@dataclass
class BatchSummary:
    """Figures accumulated record by record (:meth:`add`)."""

    total: int
    skipped: int = 0
    pass_threshold: float = 1.0
    done: int = 0
    failed: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    seconds: list[float] = field(default_factory=list)
    scores: list[float | bool] = field(default_factory=list)
    unscored: int = 0  # items with a metric but no score (the task raised, or the metric failed)
    scored: bool = False
    started: float = field(default_factory=time.monotonic)

    def add(self, record: dict[str, Any]) -> None:
        self.done += 1
        self.failed += record.get("status") != "COMPLETE"
        usage = record.get("usage") or {}
        self.calls += int(usage.get("calls", 0))
        self.input_tokens += int(usage.get("input_tokens", 0))
        self.output_tokens += int(usage.get("output_tokens", 0))
        self.cache_hits += int(usage.get("cache_hits", 0))
        self.retries += int(usage.get("retries", 0))
        if isinstance(record.get("seconds"), int | float):
            self.seconds.append(float(record["seconds"]))
        if "metric" in record:
            self.scored = True
            value = record["metric"]
            if isinstance(value, bool | int | float):
                self.scores.append(value)
            else:
                self.unscored += 1

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    # -- the metric -------------------------------------------------------------------------
    @property
    def metric_count(self) -> int:
        return len(self.scores) + self.unscored

    def metric_mean(self) -> float:
        """The mean score, booleans as 1 and 0, an item without a score as 0 (as DSPy's Evaluate)."""
        count = self.metric_count
        return sum(float(v) for v in self.scores) / count if count else 0.0

    def passed(self) -> int:
        """Items whose score is #t, or a number at least the pass threshold."""
        return sum(1 for v in self.scores if (v is True) or (type(v) is not bool and v >= self.pass_threshold))

    # -- what is printed ----------------------------------------------------------------------
    def lines(self) -> list[str]:
        skipped = f", {self.skipped} already done" if self.skipped else ""
        lines = [
            f"batch: {self.done} items in {self.elapsed:.2f} s ({self.done - self.failed} complete, "
            f"{self.failed} failed{skipped})",
            f"  model: {self.calls} calls, {self.tokens} tokens ({self.input_tokens} in, {self.output_tokens} out), "
            f"{self.cache_hits} cache hits, {self.retries} retries",
            f"  item time: p50 {percentile(self.seconds, 0.5):.3f} s, p95 {percentile(self.seconds, 0.95):.3f} s",
        ]
        if self.scored:
            count = self.metric_count
            rate = self.passed() / count if count else 0.0
            unscored = f", {self.unscored} without a score (counted 0)" if self.unscored else ""
            lines.append(
                f"  metric: mean {self.metric_mean():.3f}, pass rate {rate:.1%} ({self.passed()}/{count}), "
                f"count {count}{unscored}"
            )
        return lines
