"""Special forms; importing this package registers them with the analyzer.

The task runtime's forms (``define-task``, ``sequential`` …) live in ``tasks/`` and register
themselves the same way when the facade imports ``interpreter.tasks.dsl``.
"""

from . import binding, control, core, parallel, syntax  # noqa: F401
