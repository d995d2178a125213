"""Model usage: calls, attempts, cache hits, input and output tokens and time, summed
per task, per model and in total.

``calls`` counts calls a model answered, ``attempts`` every try including the ones
retried or failed, ``cached`` the calls answered from the response cache (their
tokens are not counted: nothing was spent). One lock guards the sums, so calls
overlapping on threads (``parallel-map``) add up exactly.
"""

from __future__ import annotations

import threading
import time

from pydantic import Field

from ..records import SchemeRecord

_LOCK = threading.Lock()


class UsageFigures(SchemeRecord):
    """Totals for some set of model calls."""

    calls: int = 0
    attempts: int = 0
    cached: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    duration_s: float = 0.0
    #: The largest prompt of one call, in tokens (seed 004's ``context.peakUsage``).
    peak_context_tokens: int = 0
    #: When the last call was answered, in seconds since the epoch (seed 004's ``turns.lastTurnAt``).
    last_turn_at: float | None = None
    #: Attempts after the first of each call (``attempts`` counts every request sent).
    retries: int = 0
    #: Seconds spent waiting for turns under a rate limit.
    rate_wait_s: float = 0.0

    def add(
        self, input_tokens: int, output_tokens: int, duration_s: float, attempts: int = 1, now: float | None = None
    ) -> None:
        """Count one answered call (``now``: when it was answered; the clock's time when None)."""
        fields = self.__dict__  # pydantic keeps fields here; writing it skips a validator-less setattr hook per field
        fields["calls"] += 1
        fields["attempts"] += attempts
        if attempts > 1:
            fields["retries"] += attempts - 1
        fields["input_tokens"] += input_tokens
        fields["output_tokens"] += output_tokens
        # whole microseconds: round(x) is ~10x cheaper than round(x, 6), and int / 1e6 reads back as it was written
        fields["duration_s"] = round((fields["duration_s"] + duration_s) * 1e6) / 1e6
        if input_tokens > fields.get("peak_context_tokens", 0):
            fields["peak_context_tokens"] = input_tokens
        fields["last_turn_at"] = time.time() if now is None else now

    def line(self) -> str:
        calls = f"{self.calls} call{'s' if self.calls != 1 else ''}"
        extra = ""
        if self.attempts != self.calls:
            extra += f" ({self.attempts} attempts), {self.retries} retr{'ies' if self.retries != 1 else 'y'}"
        if self.cached:
            extra += f", {self.cached} cached"
        if self.rate_wait_s:
            extra += f", {self.rate_wait_s:.2f} s waiting on the rate limit"
        return (
            f"{calls}{extra}, {self.input_tokens} input tokens, {self.output_tokens} output tokens, "
            f"{self.duration_s:.2f} s"
        )


class Usage(SchemeRecord):
    """Usage of the whole run, and by task (the innermost task making the call) and by model."""

    total: UsageFigures = Field(default_factory=UsageFigures.model_construct)
    by_task: dict[str, UsageFigures] = Field(default_factory=dict)
    by_model: dict[str, UsageFigures] = Field(default_factory=dict)

    def _figures(self, task: str, model: str) -> tuple[UsageFigures, ...]:
        by_task, by_model = self.by_task.get(task), self.by_model.get(model)  # made only when first seen
        if by_task is None:
            by_task = self.by_task[task] = UsageFigures()
        if by_model is None:
            by_model = self.by_model[model] = UsageFigures()
        return self.total, by_task, by_model

    def add(
        self, task: str, model: str, input_tokens: int, output_tokens: int, duration_s: float, attempts: int = 1
    ) -> None:
        """Count one model call that was answered after ``attempts`` tries."""
        now = time.time()
        with _LOCK:
            for figures in self._figures(task, model):
                figures.add(input_tokens, output_tokens, duration_s, attempts, now)

    def add_cached(self, task: str, model: str) -> None:
        """Count one call answered from the response cache."""
        with _LOCK:
            for figures in self._figures(task, model):
                figures.cached += 1

    def add_failed(self, task: str, model: str, attempts: int) -> None:
        """Count the attempts of a call that failed in the end."""
        with _LOCK:
            for figures in self._figures(task, model):
                figures.attempts += attempts
                figures.retries += max(attempts - 1, 0)

    def add_wait(self, task: str, model: str, seconds: float) -> None:
        """Count time a call spent waiting for its turns under a rate limit."""
        with _LOCK:
            for figures in self._figures(task, model):
                figures.rate_wait_s = round(figures.rate_wait_s + seconds, 6)

    def __str__(self) -> str:
        lines = [f"usage: {self.total.line()}"]
        width = max((len(name) for name in [*self.by_task, *self.by_model]), default=0)
        lines.extend(f"  task  {name:<{width}}  {figures.line()}" for name, figures in self.by_task.items())
        lines.extend(f"  model {name:<{width}}  {figures.line()}" for name, figures in self.by_model.items())
        return "\n".join(lines)
