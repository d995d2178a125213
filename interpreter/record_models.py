"""The base of the pydantic models that ``define-record-type`` records become when they cross
to Python (:mod:`interpreter.conversion`), in a module of its own: it loads pydantic's models,
which a run that hands no record to Python never needs."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class RecordModel(BaseModel):
    """Base of the pydantic models that ``define-record-type`` records become."""

    model_config = ConfigDict(arbitrary_types_allowed=True, protected_namespaces=(), defer_build=True)
