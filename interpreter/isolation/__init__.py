"""``Interpreter(isolate=True)`` / ``--isolate``: evaluation in a child process under OS limits.

- :mod:`.host`: the host's side (starting, limits past their grace, calls back to the host);
- :mod:`.child`: the child process (``RLIMIT_AS``, ``RLIMIT_CPU``, serving requests);
- :mod:`.wire`: the framed, allow-listed pickle messages between them.

See docs/limits.md, "Isolation".
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .host import IsolatedProcedure, Isolation

__all__ = ["IsolatedProcedure", "Isolation"]


def __getattr__(name: str) -> Any:
    """The host's names, imported when first asked for: the child process imports only
    :mod:`.child`, not the host's side and what it imports (the model backends' errors, the
    worker threads): a child's start went from about 215 to 205 ms of CPU."""
    if name in __all__:
        return getattr(import_module(".host", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
