"""The record of one journal line (:mod:`.journal`); a pydantic model, so it is imported
where a journal is read or written, not when the package loads (start-up)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class JournalEntry(BaseModel):
    """One nondeterministic result, as a journal line holds it."""

    model_config = ConfigDict(defer_build=True, extra="ignore")

    branch: str = ""
    n: int = Field(ge=1)
    kind: str
    request: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    error: dict[str, Any] | None = None
    duration_s: float = 0.0
    at: str = ""
    #: A request under way, announced before it runs (its result follows on a later line).
    started: bool = False
    #: Characters written to each output port before the request began.
    out: dict[str, int] | None = None
