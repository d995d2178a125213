"""Model usage: calls, input and output tokens and time, summed per task, per model and in total."""

from __future__ import annotations

from pydantic import Field

from .records import SchemeRecord


class UsageFigures(SchemeRecord):
    """Totals for some set of model calls."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    duration_s: float = 0.0

    def add(self, input_tokens: int, output_tokens: int, duration_s: float) -> None:
        self.calls += 1
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        self.duration_s = round(self.duration_s + duration_s, 6)

    def line(self) -> str:
        calls = f"{self.calls} call{'s' if self.calls != 1 else ''}"
        return f"{calls}, {self.input_tokens} input tokens, {self.output_tokens} output tokens, {self.duration_s:.2f} s"


class Usage(SchemeRecord):
    """Usage of the whole run, and by task (the innermost task making the call) and by model."""

    total: UsageFigures = Field(default_factory=UsageFigures.model_construct)
    by_task: dict[str, UsageFigures] = Field(default_factory=dict)
    by_model: dict[str, UsageFigures] = Field(default_factory=dict)

    def add(self, task: str, model: str, input_tokens: int, output_tokens: int, duration_s: float) -> None:
        """Count one model call."""
        for figures in (self.total, self.by_task.setdefault(task, UsageFigures())):
            figures.add(input_tokens, output_tokens, duration_s)
        self.by_model.setdefault(model, UsageFigures()).add(input_tokens, output_tokens, duration_s)

    def __str__(self) -> str:
        lines = [f"usage: {self.total.line()}"]
        width = max((len(name) for name in [*self.by_task, *self.by_model]), default=0)
        lines.extend(f"  task  {name:<{width}}  {figures.line()}" for name, figures in self.by_task.items())
        lines.extend(f"  model {name:<{width}}  {figures.line()}" for name, figures in self.by_model.items())
        return "\n".join(lines)
