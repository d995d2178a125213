"""The records of an error: :class:`Frame` (one line of a DSL backtrace) and :class:`ErrorRecord`
(a JSON-serialisable picture of a :class:`~interpreter.errors.SchemeError`).

They are pydantic models, so this module loads pydantic's model machinery: ``interpreter.errors``
imports it on first use (the first backtrace frame or record, or ``from interpreter.errors import
ErrorRecord``). Both classes say ``interpreter.errors`` is their module, where they are public:
they print, pickle and cross to an isolated child under that name.
"""

from pydantic import BaseModel, ConfigDict, Field

# No ``from __future__ import annotations``: the fields' types are objects here, so nothing is
# looked up by name in ``interpreter.errors`` (whose namespace holds these classes only on demand).


class Frame(BaseModel):
    """One line of a DSL backtrace: the call, where it is, and the procedure it is in."""

    __module__ = "interpreter.errors"

    model_config = ConfigDict(defer_build=True)  # validators built on first use: fast start-up

    expr: str
    location: str | None = None
    procedure: str | None = None

    def line(self, width: int) -> str:
        parts = [f"  at {self.expr:<{width}}"]
        if self.location:
            parts.append(f"  {self.location}")
        if self.procedure:
            parts.append(f"   in {self.procedure}")
        return "".join(parts).rstrip()


class ErrorRecord(BaseModel):
    """A JSON-serialisable picture of a :class:`SchemeError` for hosts and logs."""

    __module__ = "interpreter.errors"

    model_config = ConfigDict(defer_build=True)  # validators built on first use: fast start-up

    kind: str
    message: str
    irritants: list[str] = Field(default_factory=list)
    location: str | None = None
    backtrace: list[Frame] = Field(default_factory=list)
