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

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .datatypes import sym
from .forms.syntax import Autoload
from .host_protocols import SILENT_SPANS, SpanSink
from .primitives.registry import BUILTIN_BINDINGS, INSTALLERS
from .tasks.names import TASK_NAMES, TASK_SYNTAX

if TYPE_CHECKING:
    from .analyzer import Analyzer
    from .tasks.library import TaskLibrary
    from .tasks.memory.store import Memory
    from .tasks.models.backends import ModelRegistry
    from .tasks.observe.tracing import EventHub
    from .tasks.observe.usage import Usage

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
    interp._owns_memory = not isinstance(memory, Memory)
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


class _NoTasks:
    """The task names of an interpreter whose task runtime is not made yet: none."""

    def __contains__(self, name: object) -> bool:
        return False

    def names(self) -> list[str]:
        return []


NO_TASKS = _NoTasks()


class LazyTasks:
    """The facade's part that holds its task runtime, made on first use (``Interpreter`` is one).

    ``tasks``, ``models``, ``usage``, ``memory`` and ``events`` make it when read; ``span_sink``
    and ``task_names`` answer without making it. A top-level run under way (``_run_program``)
    whose runtime is made part way opens its trace span then."""

    command_line: list[str]

    def init_tasks(self, settings: dict[str, Any]) -> None:
        """Keep the task settings the runtime is made with (``Interpreter``'s arguments)."""
        self._task_settings: dict[str, Any] | None = settings
        self._tasks: TaskLibrary | None = None
        self._memory: Memory | None = None
        self._owns_memory = False  # made from the settings (a path or None), not a Memory handed in
        self._events: EventHub | None = None
        #: Called once the task runtime is made (``when_tasks_start``).
        self._task_hooks: list[Callable[[], None]] = []
        self._task_lock = threading.RLock()
        self._tasks_ready = False
        self._run_program: str | None = None  # the top-level run under way, and its trace span
        self._run_span: Any = None

    def start_tasks(self) -> None:
        """Make the task runtime now (the first program or host use of a task name does). Another
        thread (a parallel branch) that asks meanwhile waits until it is made."""
        if self._tasks_ready:
            return
        with self._task_lock:
            settings, self._task_settings = self._task_settings, None
            if settings is None:  # made, or being made by this thread (an installer reading interp.tasks)
                return
            try:
                make_task_runtime(self, settings)
            except BaseException:  # not made (a bad model name, a memory file it cannot open): ask again later
                self._task_settings = settings
                autoload_task_names(self, self.start_tasks)
                raise
            self._tasks_ready = True
            for hook in self._task_hooks:
                hook()
            if self._run_program is not None and self._events is not None:  # made during a run: its span opens now
                self._run_span = self._events.begin_run(self._run_program, self.command_line)

    def close_tasks(self) -> None:
        """Close the memory file the task runtime opened (not a ``Memory`` the host passed in)
        and the calling thread's connection to the response cache."""
        if not self._tasks_ready:
            return
        if self._memory is not None and self._owns_memory:
            self._memory.close()
        if self._tasks is not None and self._tasks.gateway.cache is not None:
            self._tasks.gateway.cache.close()

    @property
    def tasks_made(self) -> bool:
        """Whether the task runtime is made (reading this never makes it)."""
        return self._tasks_ready

    def when_tasks_start(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` once the task runtime is made (now if it is)."""
        if self._tasks_ready:
            hook()
        else:
            self._task_hooks.append(hook)

    @property
    def tasks(self) -> TaskLibrary:
        """The task library (``task-library``); unbound operators resolve to its tasks."""
        self.start_tasks()
        assert self._tasks is not None
        return self._tasks

    @property
    def models(self) -> ModelRegistry:
        return self.tasks.models

    @property
    def usage(self) -> Usage:
        return self.tasks.usage

    @property
    def memory(self) -> Memory:
        """Memory for fresh context (remember, recall, index-files): in memory unless a path was given."""
        self.start_tasks()
        assert self._memory is not None
        return self._memory

    @property
    def events(self) -> EventHub:
        """Tracing: task, model, script, step and iteration events go to its subscribers."""
        self.start_tasks()
        assert self._events is not None
        return self._events

    @property
    def span_sink(self) -> SpanSink:
        """Where parallel forms report their spans: the event hub, or nowhere before it is made."""
        return self._events if self._events is not None else SILENT_SPANS

    @property
    def task_names(self) -> Any:
        """The names of the tasks, without making the task runtime (none before it is made)."""
        return self._tasks if self._tasks is not None else NO_TASKS
