"""``Interpreter(isolate=True)`` / ``--isolate``: evaluation in a child process under OS limits.

- :mod:`.host`: the host's side (starting, limits past their grace, calls back to the host);
- :mod:`.child`: the child process (``RLIMIT_AS``, ``RLIMIT_CPU``, serving requests);
- :mod:`.wire`: the framed, allow-listed pickle messages between them.

See docs/limits.md, "Isolation".
"""

from .host import IsolatedProcedure, Isolation

__all__ = ["IsolatedProcedure", "Isolation"]
