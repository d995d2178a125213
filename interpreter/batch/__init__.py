"""Batch runs: one task over many inputs, on threads, processes or a Dask cluster.

``interp.batch(task, inputs, …)`` (Python) and ``taskscheme batch`` (the command line)
yield one record per input as items complete (:mod:`.items`); the command line
appends them to a resumable JSONL file (:mod:`.output`) and draws a progress line
(:mod:`.progress`). Where items run is a backend (:mod:`.backends`).
"""

from __future__ import annotations

from .backends import run_batch
from .items import ItemRecord
from .spec import ProgramSpec

__all__ = ["ItemRecord", "ProgramSpec", "run_batch"]
