"""What the task runtime needs of the interpreter that hosts it.

The task layer sits below the host facade (``interpreter/interpreter.py``) and never imports it.
The facade's ``Interpreter`` satisfies :class:`TaskHost` structurally: the task library, the task
nodes and the task primitives receive it as this protocol, and use only what it lists.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # type names only: this module loads nothing at run time
    from ..analyzer import Analyzer
    from ..capabilities import FileCapability
    from ..datatypes import Parameter
    from ..env import Env
    from ..evaluator import Runtime
    from .library import TaskLibrary
    from .memory.store import Memory
    from .observe.tracing import EventHub


class TaskHost(Protocol):
    """The interpreter as the task runtime sees it (the facade ``Interpreter`` is one)."""

    #: The per-interpreter evaluation state: limits, ``poll()`` for Ctrl-C and timeouts.
    runtime: Runtime
    #: The global frame: task bodies without inherited context run in a child of it.
    global_env: Env
    #: Trace events and spans of model calls, scripts, steps and iterations.
    events: EventHub
    #: The library of named tasks and the model registry it holds.
    tasks: TaskLibrary
    #: Long-term memory (``remember``, ``recall``), or one that refuses when none was given.
    memory: Memory
    #: The analyzer, for task bodies read from XML templates and for autoloaded macros.
    analyzer: Analyzer
    #: ``current-error-port``, where task-layer warnings go.
    error_output: Parameter
    #: The files being loaded, innermost last (relative template paths resolve against it).
    loading: list[Path]
    #: The files capability: False, True or the folders granted.
    allow_files: FileCapability
    #: Whether processes may run (``run-script``, script tasks).
    allow_scripts: bool
    #: The command script steps run when none is named (``Interpreter(target_script=…)``).
    target_script: str | list[str] | None

    def define_primitive(self, name: str, fn: Callable[..., Any], doc: str = "") -> None:
        """Bind a procedure made from ``fn`` to ``name`` in the global frame."""
        ...

    def check_file_access(self, path: Path, who: str) -> Path:
        """The real path of ``path`` if the files capability grants it, else a permission error."""
        ...
