"""The task library: one registry of tasks per interpreter, and tasks as procedures.

Bound as ``task-library`` in the global environment and reachable from Python as
``interp.tasks``. A call whose operator is not bound in the environment resolves
through :meth:`TaskLibrary.resolve_unbound` to a :class:`TaskProcedure`; so does a
task name anywhere else: tasks are values.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..datatypes import Keyword, Procedure, Symbol, sym
from ..env import Env
from ..errors import SchemeError
from ..evaluator import apply_procedure
from .calls import TaskRunner, has_limits
from .errors import validation_error
from .models.backends import ModelRegistry
from .models.gateway import ModelGateway
from .models.replay import Recorder, ReplayBook
from .observe.usage import Usage
from .records import Limits, TaskDefinition

if TYPE_CHECKING:  # type names only
    from ..analyzer import Analyzer
    from ..capabilities import FileCapability
    from ..datatypes import Parameter
    from ..evaluator import Runtime
    from .memory.store import Memory
    from .observe.tracing import EventHub

class TaskHost(Protocol):
    """What the task runtime needs of the interpreter that hosts it.

    The task layer sits below the host facade (``interpreter/interpreter.py``) and never imports
    it; the facade's ``Interpreter`` satisfies this protocol structurally. The library, the task
    nodes and the task primitives receive the interpreter as a ``TaskHost`` and use only this.
    """

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


#: The global name the library is bound to.
LIBRARY_NAME = "task-library"
LIBRARY_SYMBOL = sym(LIBRARY_NAME)


@dataclass
class Task:
    """A registered task: its definition and, for a procedure task, what runs it.

    ``implementation`` takes the bound arguments (parameter name → value) and returns
    the task's value (or a tail call of it).
    """

    definition: TaskDefinition
    implementation: Callable[[dict[str, Any]], Any] | None = None
    #: For a DSL procedure task with no limits and no fresh context, the body's
    #: ``positional(values, caller, tail)``: a call that gives every parameter by position
    #: (no keyword) skips binding, limits and activation.
    direct: Callable[[list[Any], Env, bool], Any] | None = field(init=False, default=None)
    arity: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        definition = self.definition
        self.arity = len(definition.params)
        if (
            definition.type == "procedure"
            and not has_limits(definition)
            and definition.context.fresh_context != "enabled"
        ):
            self.direct = getattr(self.implementation, "positional", None)


class TaskProcedure(Procedure):
    """A task as a first-class procedure; it finds its task by name at each call,
    so re-defining a task updates every reference to it."""

    __slots__ = ("library",)

    def __init__(self, library: TaskLibrary, name: str) -> None:
        super().__init__(name)
        self.library = library

    def apply(self, args: list[Any]) -> Any:
        """Called with no caller frame (from ``map``, ``apply``, Python): as if from the global frame."""
        return self.library.runner.call(self.library.task(self.name), args, None)

    def apply_in(self, args: list[Any], env: Env, tail: bool = False) -> Any:
        """A call made in frame ``env`` (in tail position if ``tail``: the value may be a tail call):
        the task's context decides how much of it the body sees."""
        library = self.library
        task = library._tasks.get(self.name)
        if task is None:
            raise library.missing(self.name)
        direct = task.direct
        hub = library.interp.events
        if direct is not None and len(args) == task.arity and not (hub.subscribers or hub.watchers):
            for arg in args:
                if type(arg) is Keyword:
                    break
            else:
                return direct(args, env, tail)
        return library.runner.call(task, args, env)

    def scheme_repr(self, write: bool) -> str:
        return f"#<task {self.name}>"

    def __repr__(self) -> str:
        return f"TaskProcedure({self.name!r})"


class TaskLibrary:
    """Register, look up, list, describe and call tasks."""

    def __init__(
        self,
        interp: TaskHost,
        *,
        model: str | None = None,
        record: str | Path | None = None,
        replay: str | Path | None = None,
        limits: Limits | dict[str, Any] | None = None,
        allow_models: bool | Collection[str] = True,
    ) -> None:
        self.interp = interp
        self.models = ModelRegistry(model, allow_models)
        self.gateway = ModelGateway(
            self.models,
            interp.runtime,
            Limits.model_validate(limits) if isinstance(limits, dict) else limits,
            Recorder(record) if record is not None else None,
            ReplayBook(replay) if replay is not None else None,
        )
        self.runner = TaskRunner(self)
        self.gateway.warn = lambda line: _warn(interp, line)
        self._tasks: dict[str, Task] = {}
        self._procedures: dict[str, TaskProcedure] = {}
        #: Where each task was defined (``file:line:col``), when known.
        self._places: dict[str, str] = {}
        #: Called with (name, earlier place, new place) when a definition replaces a task;
        #: the REPL sets it to print a note (a file's second definition is an error instead).
        self.on_redefine: Callable[[str, str | None, str | None], None] | None = None

    @property
    def usage(self) -> Usage:
        return self.gateway.usage

    # -- registry --------------------------------------------------------------------
    def register(
        self,
        definition: TaskDefinition,
        implementation: Callable[..., Any] | None = None,
        *,
        replace: bool = False,
        place: str | None = None,
    ) -> TaskProcedure:
        """Add a task; a duplicate name is a VALIDATION_ERROR unless ``replace``.

        A procedure task needs ``implementation``: from Python, a function called with
        the parameters as keyword arguments (snake_case names). ``place`` is where the
        definition is (``file:line:col``), for messages about a later one.
        """
        name = definition.name
        if name in self._tasks and not replace:
            raise validation_error(f"task {name} is already registered", "name")
        if name in self._tasks and self.on_redefine is not None and place != self._places.get(name):
            self.on_redefine(name, self._places.get(name), place)
        if definition.type == "procedure" and implementation is None:
            raise validation_error(f"task {name}: a procedure task needs an implementation", "body")
        if implementation is not None and not getattr(implementation, "takes_bound_arguments", False):
            implementation = _python_body(implementation)
        self._tasks[name] = Task(definition, implementation)
        if place is not None:
            self._places[name] = place
        else:
            self._places.pop(name, None)
        return self.procedure(name)

    def check_redefinition(self, name: str, place: str | None, who: str, remedy: str) -> None:
        """Refuse a second definition of ``name`` made at another place than the first (seed
        004's ``registerTask`` refuses a duplicate), naming both places; loading the same
        definition again is not a second one. In the REPL (``on_redefine`` set) it replaces."""
        if name not in self._tasks or self.on_redefine is not None:
            return
        before = self._places.get(name)
        if before is not None and before == place:
            return
        first = f"at {before}" if before is not None else "by the host"
        where = f" at {place}" if place is not None else ""
        raise validation_error(
            f"{who}: task {name} is already defined {first}; this second definition{where} would replace it "
            f"({remedy})",
            "name",
        )

    def remove(self, name: str) -> None:
        """Forget the task ``name``."""
        self.task(name)
        del self._tasks[name]
        self._places.pop(name, None)

    def lookup(self, name: str) -> Task | None:
        """The task ``name``, or None."""
        return self._tasks.get(name)

    def task(self, name: str) -> Task:
        """The task ``name``; a missing one is an error listing similar names."""
        found = self._tasks.get(name)
        if found is None:
            raise self.missing(name)
        return found

    def missing(self, name: str) -> SchemeError:
        import difflib  # only when a name is missing: start-up skips it

        similar = difflib.get_close_matches(name, list(self._tasks), n=5, cutoff=0.6)
        hint = f"; did you mean: {', '.join(similar)}?" if similar else ""
        listed = "" if similar else f" (tasks: {', '.join(self._tasks) or 'none'})"
        return SchemeError(f"no task named {name}{hint}{listed}", kind="unbound-variable")

    def names(self) -> list[str]:
        return list(self._tasks)

    def describe(self, name: str) -> TaskDefinition:
        return self.task(name).definition

    def procedure(self, name: str) -> TaskProcedure:
        """The task ``name`` as a procedure (the same object each time)."""
        self.task(name)
        proc = self._procedures.get(name)
        if proc is None:
            proc = self._procedures[name] = TaskProcedure(self, name)
        return proc

    def __contains__(self, name: object) -> bool:
        return name in self._tasks

    def __len__(self) -> int:
        return len(self._tasks)

    def scheme_repr(self, write: bool) -> str:
        return f"#<task-library {len(self._tasks)} tasks>"

    # -- calling ---------------------------------------------------------------------
    def resolve_unbound(self, name: Symbol) -> TaskProcedure | None:
        """The analyzer's fallback for a name bound nowhere: the task of that name, as a
        procedure (tasks are values: ``(map greet names)``). Variables come first, so a
        ``define`` of the same name shadows the task.

        The library consulted is the one bound to ``task-library``. An unknown name
        close to a task's name is an unbound-variable error suggesting the task.
        """
        library = self.interp.global_env.vars.get(LIBRARY_SYMBOL)
        if not isinstance(library, TaskLibrary):
            return None
        if name.name in library._tasks:
            proc = library._procedures.get(name.name)
            return proc if proc is not None else library.procedure(name.name)
        import difflib  # only when a name is missing: start-up skips it

        similar = difflib.get_close_matches(name.name, list(library._tasks), n=3, cutoff=0.75)
        if similar:
            raise SchemeError(
                f"unbound variable: {name.name}; did you mean the task {' or '.join(similar)}?",
                kind="unbound-variable",
            )
        return None

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call the task ``name`` from Python; keyword arguments become ``#:name`` ones."""
        proc = self.procedure(name)
        flat = list(args)
        for key, value in kwargs.items():
            flat += [Keyword.intern(key), value]
        rt = self.interp.runtime
        if not rt.running:
            rt.begin()
        return apply_procedure(proc, flat)


def _python_body(fn: Callable[..., Any]) -> Callable[[dict[str, Any]], Any]:
    """A Python function as a task body: parameters passed as snake_case keyword arguments."""

    def run(bound: dict[str, Any]) -> Any:
        return fn(**{k.replace("-", "_"): v for k, v in bound.items()})

    return run


def _warn(interp: TaskHost, line: str) -> None:
    """A one-line warning on the interpreter's error port (the terminal, unless the host gave another)."""
    port = interp.error_output.value
    port.write(line + "\n")
    port.flush()
