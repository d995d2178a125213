"""The task runtime of one interpreter, made when the program or the host first uses it.

An ``Interpreter()`` starts without the task runtime (``tasks/``: the task library, the model
gateway, the event hub, the memory, and the pydantic records they share): loading it is about
half of a start (issue 35). Every name the runtime binds (:data:`~interpreter.tasks.names.TASK_NAMES`)
starts as an *autoload* in the analyzer's macros, so the first program that names one
(``define-task``, ``sequential``, ``remember``, ``task-library`` …) makes the runtime and goes on
as if it had been there from the start; the facade's ``tasks``, ``models``, ``usage``, ``memory``
and ``events`` make it when the host first reads them (``interp.task``, ``interp.on_event`` …).

A name the program bound before the runtime came keeps the program's value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .datatypes import sym
from .forms.syntax import Autoload
from .primitives.registry import BUILTIN_BINDINGS, INSTALLERS
from .tasks.names import TASK_NAMES, TASK_SYNTAX

if TYPE_CHECKING:
    from .analyzer import Analyzer

#: The module prefix of the task runtime's installers (run when the runtime is made, not at start).
TASK_MODULES = "interpreter.tasks."


def is_task_installer(install: Callable[..., Any]) -> bool:
    """Whether ``install`` (an installer, or a primitive's function) belongs to the task runtime."""
    return getattr(install, "__module__", "").startswith(TASK_MODULES)


class TaskAutoload(Autoload):
    """Stands for a name of the task runtime until the runtime is made: the first use makes it."""

    def __init__(self, start: Callable[[], None]) -> None:
        super().__init__("", list(TASK_NAMES))
        self.start = start
        self.procedures = frozenset(TASK_NAMES) - TASK_SYNTAX

    def load(self, analyzer: Analyzer) -> None:
        self.start()


def autoload_task_names(interp: Any, start: Callable[[], None]) -> None:
    """Each task-runtime name not bound yet stands for the runtime, made by ``start`` at first use."""
    autoload = TaskAutoload(start)
    bound = interp.global_env.vars
    for name in TASK_NAMES:
        key = sym(name)
        if key not in bound:
            interp.analyzer.macros.setdefault(key, autoload)


def make_task_runtime(interp: Any, settings: dict[str, Any]) -> None:
    """Give ``interp`` its task runtime, built from the task settings it was made with."""
    from .tasks import dsl as _task_dsl  # noqa: F401  # reason: start-up laziness: the task runtime is ~45 ms (pydantic's models)
    from .tasks.disk import cap_files  # reason: as above
    from .tasks.library import LIBRARY_NAME, TaskLibrary  # reason: as above
    from .tasks.memory.store import Memory  # reason: as above
    from .tasks.models.gateway import configure_gateway  # reason: as above
    from .tasks.observe.tracing import EventHub  # reason: as above

    macros, bound = interp.analyzer.macros, interp.global_env.vars
    for name in TASK_NAMES:  # the autoloads go; what the program bound itself stays its own (below)
        if isinstance(macros.get(sym(name)), TaskAutoload):
            del macros[sym(name)]
    kept = {sym(name): bound[sym(name)] for name in TASK_NAMES if sym(name) in bound}
    s = settings
    tasks = TaskLibrary(
        interp, model=s["model"], record=s["record"], replay=s["replay"], limits=s["task_limits"],
        allow_models=s["allow_models"],
    )
    memory = s["memory"]
    interp._tasks = tasks
    interp._memory = memory if isinstance(memory, Memory) else Memory(memory, s["memory_ranking"])
    events = interp._events = EventHub(interp.runtime)
    bound[sym(LIBRARY_NAME)] = tasks
    tasks.gateway.events = events
    configure_gateway(
        tasks.gateway, retries=s["retries"], cache=s["cache"], log=s["log"], rate_limits=s["rate_limits"],
        stream=s["stream"], on_text=s["on_text"],
    )
    tasks.gateway.may_write_files = interp.allow_files is True
    cap_files(interp, s["max_file_bytes"])  # the recording, the cache and the memory file (tasks/disk.py)
    interp.analyzer.unbound_fallback = tasks.resolve_unbound
    bound.fill({key: prim for key, prim in BUILTIN_BINDINGS.items() if is_task_installer(prim.fn)})
    for install in INSTALLERS:
        if is_task_installer(install):
            install(interp)
    for key, value in kept.items():
        bound[key] = value
    events.use_progress(events.progress)
    if s["otel"]:
        from .tasks.observe.otel import OtelExporter  # reason: optional dependency: only otel=True needs it

        events.watch(OtelExporter())
