"""The calling thread's branch context (see :class:`interpreter.evaluator.Branch`).

A ``ContextVar``, so threads and ``asyncio`` tasks each see their own. It is
unset (None) outside parallel forms: serial code runs in the interpreter's root
context, the runtime itself, and never reads it on the hot path.
"""

from __future__ import annotations

import contextvars
from typing import Any

CURRENT: contextvars.ContextVar[Any] = contextvars.ContextVar("taskscheme_branch", default=None)
