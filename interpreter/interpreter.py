"""The :class:`Interpreter`: one global frame, one analyzer, one runtime.

The REPL, the CLI and Python hosts all go through this object.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar, overload

from . import forms as _forms  # noqa: F401 - registers the special forms
from . import primitives as _primitives  # noqa: F401 - registers the built-in procedures
from .analyzer import Analyzer
from .capabilities import FileCapability, check_file_access
from .collector import run_heap
from .compiler.fastpath import INLINE_NAMES
from .conversion import Converter
from .datatypes import VOID, Keyword, Pair, Parameter, Span, Symbol, sym
from .durable import JournalFile, Source
from .durable.setup import open_journal
from .embedding import dsl_name, evaluate_async, host_procedure, host_task
from .env import Env, GlobalBindings
from .errors import SchemeError, release_frames
from .evaluator import ContinuationInvoked, Interrupted, Runtime, apply_procedure
from .limits import OutputBudget, Watchdog
from .memory import MemoryBudget, run_limits
from .parallel import DEFAULT_MAX_THREADS
from .parallel import max_concurrency as max_concurrency_setting
from .ports import InputPort, OutputPort
from .prelude_cache import read_cached
from .primitives import python as _python  # noqa: F401 - python-import, python-ref, python-call
from .primitives.registry import BUILTIN_BINDINGS, BUILTINS, INSTALLERS, make_primitive
from .printer import write_string
from .reader import read_with_spans
from .stack import RUN_ROOM, with_room
from .stdlib_files import startup_files
from .task_runtime import LazyTasks, autoload_task_names, is_task_installer
from .tasks.disk import DEFAULT_MAX_FILE_BYTES
from .tasks.names import TASK_NAMES
from .tasks.observe.screen import guard_output

if TYPE_CHECKING:
    from .isolation import Isolation
    from .tasks.memory.store import Memory, Ranking
    from .tasks.observe.tracing import Event
    from .tasks.records import Limits, RetryPolicy

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

#: What an ``isolate=True`` interpreter hands its child process (everything but its streams).
ISOLATED_SETTINGS = frozenset(
    [
        "max_steps", "timeout", "max_depth", "stdlib", "allow_files", "model", "record", "replay",
        "allow_scripts", "task_limits", "allow_python", "allow_models", "max_output", "max_memory", "max_digits",
        "retries", "cache", "otel", "log", "memory", "memory_ranking", "max_concurrency", "max_threads",
        "rate_limits", "stream",
        "max_file_bytes",
        "target_script",
        "journal", "resume_from", "resume_quiet",
    ]
)


def check_isolated_settings(settings: dict[str, Any]) -> None:
    """Refuse settings that cannot travel to a child process (objects that live in the host)."""
    if settings.get("memory") is not None and not isinstance(settings["memory"], str | Path):
        raise ValueError("isolate=True: memory= must be a path (the child opens its own memory)")
    if settings.pop("memory_ranking", None) is not None:
        raise ValueError("isolate=True: memory_ranking cannot be given to a child process")
    for key in ("task_limits", "retries"):
        value = settings.get(key)
        if hasattr(value, "model_dump"):
            settings[key] = value.model_dump()
    for key in ("record", "replay", "cache", "log", "memory", "journal"):
        if isinstance(settings.get(key), Path):
            settings[key] = str(settings[key])


class Interpreter(LazyTasks):
    """A taskscheme interpreter: evaluate source, define names, call procedures."""

    def __init__(
        self,
        *,
        stdout: IO[str] | None = None,
        stdin: IO[str] | None = None,
        stderr: IO[str] | None = None,
        isolate: bool = False,
        max_steps: int | None = None,
        timeout: float | None = None,
        max_depth: int | None = None,
        stdlib: bool = True,
        allow_files: FileCapability = False,
        model: str | None = None,
        record: str | Path | None = None,
        replay: str | Path | None = None,
        allow_scripts: bool = False,
        task_limits: Limits | dict[str, Any] | None = None,
        allow_python: bool = False,
        allow_models: bool | Sequence[str] = False,
        max_output: int | None = None,
        max_memory: int | None = None,
        max_digits: int | None = None,
        # model calls in production (docs/models.md)
        retries: int | RetryPolicy | dict[str, Any] | None = None,
        cache: str | Path | bool | None = None,
        otel: bool = False,
        log: bool | str | Path = False,
        rate_limits: dict[str, dict[str, float]] | None = None,
        stream: bool | None = None,
        on_text: Callable[[str], None] | None = None,
        # memory for fresh context (docs/memory.md)
        memory: str | Path | Memory | None = None,
        memory_ranking: Ranking | None = None,
        max_concurrency: int = 8,
        max_threads: int = DEFAULT_MAX_THREADS,
        max_file_bytes: int | None = DEFAULT_MAX_FILE_BYTES,
        # the command of XML script steps that name none (seed 004; docs/composition.md)
        target_script: str | Sequence[str] | None = None,
        # durable runs (docs/durable.md)
        journal: str | Path | None = None,
        resume_from: int | None = None,
        resume_quiet: bool = False,
        tune_gc: bool = True,
    ) -> None:
        #: The child process that evaluates for an ``isolate=True`` interpreter (None: in this process).
        self.isolation: Isolation | None = None
        self.closed = False  # see close()
        child_settings = None
        if isolate:  # evaluation happens in a child process (isolation/): it gets the limits and the program
            child_settings = {k: v for k, v in locals().items() if k in ISOLATED_SETTINGS}
            check_isolated_settings(child_settings)
            if on_text is not None and stream is None:  # as in the host: on_text streams every call
                child_settings["stream"] = True
            max_steps = timeout = max_depth = max_output = max_memory = record = replay = cache = memory = None
            journal = None
            stdlib, otel, log = False, False, False
        # Capabilities (see capabilities.py): all off unless the host grants them.
        self.allow_files = allow_files
        self.allow_scripts = allow_scripts
        self.allow_python = allow_python
        self.target_script = target_script if isinstance(target_script, str | None) else list(target_script)
        self.global_env = Env(GlobalBindings())
        self.runtime = Runtime(max_depth=max_depth, max_steps=max_steps, timeout=timeout)
        self.max_memory = max_memory
        self.max_digits = max_digits  # None: bignum.MAX_DIGITS
        self.runtime.memory = MemoryBudget(max_memory) if max_memory is not None else None
        self.analyzer = Analyzer(self)
        # On a terminal, standard output and error go around the live progress display (tasks/observe/screen.py).
        out = stdout if stdout is not None else guard_output(sys.stdout)
        self.output = Parameter(OutputPort.to_stream(out), name="current-output-port")
        err = stderr if stderr is not None else guard_output(sys.stderr)
        self.error_output = Parameter(OutputPort.to_stream(err, "stderr"), name="current-error-port")
        # stdin is a capability: an embedded program reads only the stream the host gives it
        self.input = Parameter(_stdin_port(stdin, self.runtime), name="current-input-port")
        self.max_output = max_output
        self.max_concurrency = max_concurrency_setting("Interpreter", max_concurrency)
        #: The most branches one parallel form runs at once; higher requests are clamped (parallel.py).
        self.max_threads = max_concurrency_setting("Interpreter", max_threads)
        #: Raise the collector's young threshold while a run is under way (collector.run_heap).
        self.tune_gc = tune_gc
        # What a batch worker process needs to rebuild this interpreter (batch/spec.py): the
        # settings that travel (capabilities, limits, model, replay) and the program its host gave it.
        self.settings: dict[str, Any] = {
            "max_steps": max_steps,
            "timeout": timeout,
            "max_depth": max_depth,
            "stdlib": stdlib,
            "allow_files": allow_files,
            "allow_scripts": allow_scripts,
            "allow_python": allow_python,
            "allow_models": allow_models,
            "model": model,
            "replay": str(replay) if replay is not None else None,
            "task_limits": task_limits.model_dump() if hasattr(task_limits, "model_dump") else task_limits,
            "max_output": max_output,
            "max_concurrency": max_concurrency,
            "max_threads": max_threads,
            "max_memory": max_memory,
            "max_digits": max_digits,
            "target_script": self.target_script,
            # model calls in production (batch --retries, --cache, --log reach worker processes too)
            "retries": retries.model_dump() if hasattr(retries, "model_dump") else retries,
            "cache": str(cache) if isinstance(cache, Path) else cache,
            "log": str(log) if isinstance(log, Path) else log,
            "rate_limits": rate_limits,
        }
        self.program_sources: list[tuple[str, str]] = []
        if max_output is not None:
            budget = OutputBudget(self.runtime, max_output)
            for port in (self.output.value, self.error_output.value):
                port.sink = budget.guard(port.sink)
        # Values crossing the Python boundary (conversion.py); installers below may use it.
        self.converter = Converter(self, lambda fn: host_procedure(self.converter, fn))
        self.command_line: list[str] = ["taskscheme"]
        #: Called with the value and place of each top-level form that ``eval``/``eval_file`` run
        #: (the command line warns there about a FAILED result the program drops).
        self.on_top_level_value: Callable[[Any, Span | None], None] | None = None
        self.loading: list[Path] = []
        self.global_env.vars.fill(BUILTIN_BINDINGS)
        self.global_env.vars.watch({sym(name): BUILTINS[name] for name in INLINE_NAMES})
        # Tasks: the library (``task-library``), its models and usage, the memory (remember, recall,
        # index-files) and the event hub of tracing: made when first used (task_runtime.py).
        self.allow_models = allow_models
        self.init_tasks(
            {
                "model": model, "record": record, "replay": replay, "task_limits": task_limits,
                "allow_models": allow_models, "memory": memory, "memory_ranking": memory_ranking,
                "retries": retries, "cache": cache, "log": log, "rate_limits": rate_limits, "stream": stream,
                "on_text": on_text, "max_file_bytes": max_file_bytes, "otel": otel,
            }
        )
        for install in INSTALLERS:
            if not is_task_installer(install):
                install(self)
        autoload_task_names(self, self.start_tasks)
        if stdlib:
            self.load_stdlib()
        #: The journal of a durable run (``journal=PATH``): every nondeterministic result, resumable.
        self.journal: JournalFile | None = None
        if journal is not None:
            self.journal = open_journal(self, journal, resume_from=resume_from, quiet=resume_quiet)
        # The task runtime now if it is loaded in this process already or the settings ask for it
        # (after the stdlib, whose loading is not worth showing to its watchers).
        asked = otel or any(x is not None for x in (model, memory, record, replay, journal))
        if asked or "interpreter.tasks.dsl" in sys.modules:
            self.start_tasks()
        if child_settings is not None:
            from .isolation import Isolation  # lazy: 80 ms of imports that only isolate=True needs

            self.settings.update({k: v for k, v in child_settings.items() if k in self.settings})
            self.isolation = Isolation(self, child_settings, stdin, factory=Interpreter)

    # -- closing -------------------------------------------------------------------
    def close(self) -> None:
        """Release what this interpreter holds, now: its child process (``isolate=True``), its
        journal (and the journal's lock), the memory file it opened, and its global frame.

        The frame's procedures refer back to it, so without ``close`` an interpreter dropped by
        its host waits, with every value its program kept, for a full collection of the cyclic
        collector: a pause as long as that data is big, in whatever run is under way then.
        Running anything afterwards is an error; closing again does nothing. Not while a run is
        under way (from another thread): that is an error too. ``with Interpreter() as interp:``
        closes on leaving the block."""
        if self.closed:
            return
        if self.runtime.running:
            raise SchemeError("close: a run is under way in this interpreter", kind="value-error")
        self.closed = True
        if self.isolation is not None:
            self.isolation.close()
        if self.journal is not None:
            self.journal.close()
        self.close_tasks()
        self.global_env.vars.clear()
        self.program_sources.clear()

    def _open(self) -> None:
        """Refuse a closed interpreter."""
        if self.closed:
            raise SchemeError("this interpreter is closed", kind="value-error")

    def __enter__(self) -> Interpreter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- defining ------------------------------------------------------------------
    def define(self, name: str, value: Any) -> None:
        """Bind ``name`` in the global environment to ``value`` converted to Scheme
        (a Python function becomes a procedure; see conversion.py)."""
        self._open()
        self.global_env.vars[sym(name)] = self.converter.to_scheme(value)

    def define_primitive(self, name: str, fn: Callable[..., Any], doc: str = "") -> None:
        """Bind a Python function as a Scheme procedure (arity from its signature)."""
        self.global_env.vars[sym(name)] = make_primitive(name, fn, doc)

    def __getitem__(self, name: str) -> Any:
        """The value bound to ``name`` as a Python value; KeyError if unbound."""
        if self.isolation is not None:
            return self.isolation.request("lookup", name)
        if name in TASK_NAMES and sym(name) not in self.global_env.vars:
            self.start_tasks()  # a name of the task runtime, made on first use
        try:
            value = self.global_env.vars[sym(name)]
        except KeyError:
            raise KeyError(name) from None
        return self.converter.to_python(value)

    @overload
    def primitive(self, fn: F, /) -> F: ...
    @overload
    def primitive(self, name: str | None = None, /, *, doc: str = "") -> Callable[[F], F]: ...
    def primitive(self, fn: Any = None, /, *, doc: str = "") -> Any:
        """Decorator: expose a Python function to the DSL (``word_count`` → ``word-count``).

        ``@interp.primitive`` or ``@interp.primitive("dsl-name")``. Arity comes from the
        signature; arguments and result cross by the conversion table; an exception
        becomes a taskscheme error. Returns the function unchanged.
        """
        name = fn if isinstance(fn, str) else None

        def register(function: F) -> F:
            proc = host_procedure(self.converter, function, name, doc)
            self.global_env.vars[sym(proc.name)] = proc
            return function

        return register(fn) if callable(fn) else register

    @overload
    def task(self, fn: F, /) -> F: ...
    @overload
    def task(self, name: str | None = None, /, *, description: str = "") -> Callable[[F], F]: ...
    def task(self, fn: Any = None, /, *, description: str = "") -> Any:
        """Decorator: register a Python function as a procedure task.

        ``@interp.task`` or ``@interp.task("task-name")``. pydantic validates each
        argument against the parameter's type hint; a bad one is a VALIDATION_ERROR
        naming the parameter. Returns the function unchanged.
        """
        name = fn if isinstance(fn, str) else None

        def register(function: F) -> F:
            host_task(self, function, name or dsl_name(function), description)
            return function

        return register(fn) if callable(fn) else register

    def on_event(self, fn: Callable[[Event], None]) -> Callable[[], None]:
        """Call ``fn(event)`` for every task, model, script, step and iteration event;
        returns a function that unsubscribes."""
        return self.events.subscribe(fn)

    # -- evaluating ----------------------------------------------------------------
    def eval(self, source: str, *, filename: str = "<string>") -> Any:
        """Evaluate every expression in ``source``; the last one's value as a Python value.

        Limits (steps, time, output) apply to the whole source, not to each expression.
        """
        self._open()
        if self.isolation is not None:
            return self.isolation.request("eval", source, filename)
        return self.converter.to_python(self.eval_scheme(source, filename=filename))

    def eval_scheme(
        self, source: str, *, filename: str = "<string>", whole: bool = False, check: bool = True, cached: bool = False
    ) -> Any:
        """Like :meth:`eval`, but the value is returned as the interpreter holds it (no conversion).

        Unbound names are reported before anything runs (see :mod:`interpreter.unbound`):
        all of them when ``whole`` (a file: the whole program), else those that code
        running now would meet (incremental input, as at a REPL); not at all without ``check``
        (the standard library). Isolated (``isolate=True``), the value crosses as Python and
        comes back converted to Scheme. ``cached``: the data read from ``source`` are kept
        between runs (the standard library's files, see :mod:`interpreter.prelude_cache`)."""
        self._open()
        if self.isolation is not None:
            return self.converter.to_scheme(self.isolation.request("eval_scheme", source, filename, whole, check))

        begins = not self.runtime.running
        from_host = begins and not filename.startswith("stdlib/")
        nested = len(self.loading) > 1  # a file that a running program loads
        with self._top_level(filename):
            try:
                forms = (read_cached if cached else read_with_spans)(source, filename)
            except RecursionError:
                raise SchemeError("nesting too deep to read", kind="resource-exhaustion") from None
            if check and not nested:  # a program, not a file a running program loads
                self.check_unbound(forms, whole)

            def run_forms() -> Any:
                result: Any = VOID
                for datum, span in forms:
                    if from_host:
                        remember_definition(self.program_sources, datum, span)
                    result = self.eval_datum(datum, span)
                    if self.on_top_level_value is not None:
                        self.on_top_level_value(result, span)
                return result

            return self._with_room(run_forms) if begins else run_forms()

    def _with_room(self, job: Callable[[], T]) -> T:
        """``job()`` at the start of a run, with room on the frame stack for the deep
        recursion the run may go into (see :func:`interpreter.stack.with_room`)."""
        return with_room(job, sys.getrecursionlimit() - self.runtime.thread_base[1], RUN_ROOM)

    def check_unbound(self, forms: list[tuple[Any, Span]], whole: bool = True) -> str | None:
        """Refuse a program that uses names bound nowhere, naming them all, before it runs;
        for incremental input (``whole`` false) the warning about names only procedure
        bodies use (a later input may define them), or None."""
        from .unbound import check_unbound  # lazy: 11 ms of imports, paid only when names are checked

        with suppress(RecursionError):  # too deep to walk: the run itself reports what it meets
            return check_unbound(self, forms, whole)
        return None

    async def aeval(self, source: str, *, filename: str = "<string>") -> Any:
        """:meth:`eval` on a worker thread, without blocking the event loop.

        Cancelling the awaiting task stops the program at its next step and kills any
        script it started; the interpreter stays usable.
        """
        return await evaluate_async(self, source, filename)

    def eval_datum(self, datum: Any, span: Span | None = None) -> Any:
        """Analyze and run one datum at top level (isolated: written out, run in the child, the
        value converted back to Scheme)."""
        self._open()
        if self.isolation is not None:
            text, where = write_string(datum), span.file if span is not None else "<datum>"
            return self.converter.to_scheme(self.isolation.request("eval", text, where))

        def run() -> Any:
            node = self.analyzer.analyze(datum, None, span)
            return node.evaluate(self.global_env)

        return self._run(run, span)

    def whole_run(self, program: str = "<python>") -> AbstractContextManager[None]:
        """Everything evaluated inside is one run: limits such as ``timeout`` count from here,
        and one ``run`` trace event names ``program``."""
        self._open()
        return self._top_level(program)

    @contextmanager
    def _top_level(self, program: str = "<python>") -> Iterator[None]:
        """Begin a run (limits counted from here, a ``run`` trace event) unless one is already under way."""
        rt = self.runtime
        if rt.running:
            yield
            return
        with run_heap(self.tune_gc), self._run_limits(program):  # run_heap settles old garbage before the deadline
            yield

    @contextmanager
    def _run_limits(self, program: str) -> Iterator[None]:
        """The run proper: its deadline, watchdog, memory budget and trace event."""
        rt = self.runtime
        rt.begin()
        rt.running = True
        watchdog = Watchdog(rt, rt.timeout) if rt.timeout is not None else None
        limits = run_limits(rt, self.max_digits)
        limits.__enter__()
        # No event hub before the task runtime is made: nobody can be listening. One made during
        # the run opens the run's span then (start_tasks).
        self._run_program = program
        if self._events is not None:
            self._run_span = self._events.begin_run(program, self.command_line)
        try:
            yield
        except BaseException as err:
            span, self._run_span = self._run_span, None
            if self._events is not None:
                self._events.end_run(span, err)
            release_frames(err)
            raise
        finally:
            span, self._run_span, self._run_program = self._run_span, None, None
            if self._events is not None:
                self._events.end_run(span)
            rt.running = False
            rt.depth = rt.depth_base = 0
            if watchdog is not None:
                watchdog.stop()
            limits.__exit__(None, None, None)

    def run_scheme(self, thunk: Callable[[], Any]) -> Any:
        """Call ``thunk`` as a top-level run (limits counted from here); its value as it is."""
        self._open()
        return self._run(thunk)

    def batch(
        self,
        task: str,
        inputs: Iterable[Mapping[str, Any]],
        *,
        workers: int | None = None,
        processes: bool = False,
        cluster: str | None = None,
        skip: Container[int] = (),
        metric: Any = None,
        journals: str | Path | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Run ``task`` once per input (its arguments by name); yield a record per item as
        items complete: ``{"index", "input", "status", "result", "error", "usage", "seconds"}``.

        Threads (the default) run items as branches of this interpreter, ``workers`` at once
        (default ``max_concurrency``); ``processes=True`` uses worker processes and
        ``cluster="tcp://…"`` or ``"local:N"`` a Dask cluster, each rebuilding this
        interpreter from the program its host gave it and its settings. The interpreter's
        ``timeout`` and ``max_steps`` apply to each item. ``skip`` holds indices to leave out
        (a resumed batch). ``metric`` scores each item (``(lambda (input result) …)`` as DSL
        source, a Scheme procedure or a Python callable; DSL source for processes and clusters):
        its number or boolean goes into the record as ``metric`` (batch/metric.py). ``journals``: a
        folder keeping one journal per item, so an item stopped part way resumes where it stopped
        (docs/durable.md). See docs/concurrency.md."""
        self._open()
        from .batch import run_batch  # lazy: 36 ms of imports that only batch runs need
        from .batch.metric import metric_procedure  # lazy, with the batch package

        if self.isolation is not None and not (processes or cluster):
            raise SchemeError(
                "batch on an isolated interpreter: run the items in worker processes (processes=True or cluster=…)",
                kind="value-error",
            )
        items = [(i, given) for i, given in enumerate(inputs) if i not in skip]
        count = workers if workers is not None else self.max_concurrency
        if metric is not None and (processes or cluster) and not isinstance(metric, str):
            raise SchemeError("batch: a metric for processes or a cluster must be DSL source", kind="type-error")
        scorer = metric_procedure(self, metric) if metric is not None else None  # checked here, before any item
        shipped = metric if processes or cluster else scorer
        folder = str(journals) if journals is not None else None
        return run_batch(
            self, task, items, factory=Interpreter, workers=count, processes=processes, cluster=cluster,
            metric=shipped, journals=folder,
        )

    def _run(self, thunk: Callable[[], Any], span: Span | None = None) -> Any:
        """Run ``thunk`` as (part of) a top-level run, mapping escapes to taskscheme errors."""
        begins = not self.runtime.running
        with self._top_level(span.file if span is not None else "<python>"):
            try:
                return self._with_room(thunk) if begins else thunk()
            except ContinuationInvoked as jump:
                raise SchemeError(
                    "continuation invoked outside the dynamic extent of its call/cc", kind="continuation"
                ) from jump
            except RecursionError:
                raise SchemeError(
                    "nesting too deep for the host stack", kind="resource-exhaustion", span=span
                ) from None

    def eval_file(self, path: str | Path) -> Any:
        """Evaluate a source file; ``load`` inside it is relative to its folder.

        From the host the value is converted to Python; from a running program (``load``) it is not.
        """
        self._open()
        if self.isolation is not None:
            return self.isolation.request("eval_file", str(path))
        file = Path(path)
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as exc:
            raise SchemeError(f"cannot read {path}: {exc.strerror or exc}", kind="file-error") from None
        nested = self.runtime.running
        self.loading.append(file.resolve())
        try:
            value = self.eval_scheme(text, filename=str(path), whole=True)
        finally:
            self.loading.pop()
        return value if nested else self.converter.to_python(value)

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call the DSL procedure bound to ``name``, or else the task ``name``.

        Arguments are converted to Scheme (keyword arguments become ``#:name value``),
        the result to Python.
        """
        self._open()
        if self.isolation is not None:
            return self.isolation.request("call", name, args, kwargs)
        proc = self.global_env.vars.get(sym(name))
        if proc is None:
            if name not in self.tasks:
                raise SchemeError(f"unbound variable: {name}", kind="unbound-variable")
            proc = self.tasks.procedure(name)
        return self.apply(proc, *args, **kwargs)

    def apply(self, proc: Any, *args: Any, **kwargs: Any) -> Any:
        """Apply a Scheme procedure to Python arguments; the result as a Python value."""
        self._open()
        if self.isolation is not None:
            return self.isolation.request("apply", proc, args, kwargs)
        convert = self.converter
        flat = [convert.to_scheme(arg) for arg in args]
        for key, value in kwargs.items():
            flat += [Keyword.intern(key), convert.to_scheme(value)]
        return convert.to_python(self._run(lambda: apply_procedure(proc, flat)))

    def check_file_access(self, path: Path, who: str) -> Path:
        """The real path of ``path``; refused unless ``allow_files`` grants it (no ``..`` or
        symlink escapes a folder)."""
        return check_file_access(self.allow_files, path, who)

    def load_stdlib(self) -> None:
        """Load the standard library's start-up files (``stdlib/*.scm``, shipped as ``interpreter.stdlib``).

        The interpreter's own set-up is not the program's: it does not count against ``timeout``
        (a short timeout on a slow machine would otherwise fail ``Interpreter()`` itself)."""
        rt = self.runtime
        timeout, rt.timeout = rt.timeout, None
        try:
            for file in startup_files():
                text = file.read_text(encoding="utf-8")
                self.eval_scheme(text, filename=f"stdlib/{file.name}", check=False, cached=True)
        finally:
            rt.timeout = timeout

    def user_bindings(self) -> dict[str, Any]:
        """Names the program defined (not the built-ins), for the REPL's ``,env``."""
        return {k.name: v for k, v in self.global_env.vars.items() if BUILTINS.get(k.name) is not v}

    def symbol(self, name: str) -> Symbol:
        return sym(name)


#: Top-level forms a batch worker replays to rebuild the program (batch/spec.py).
DEFINING = frozenset(
    [
        "define",
        "define-task",
        "define-model",
        "define-record-type",
        "define-syntax",
        "define-values",
        "begin",
        "import",
        "load",
        "load-task-templates",
        "define-library",
        "rate-limit",  # a setting of the program: a worker process keeps its share of it
    ]
)


def remember_definition(sources: list[tuple[str, str]], datum: Any, span: Span | None) -> None:
    """Keep a definition the host gave (as text, with where it came from); other forms are
    what the host ran, not the program, and a worker does not run them again."""
    head = datum.car if type(datum) is Pair else None
    if type(head) is Symbol and head.name in DEFINING:
        where = f"{span.file}, the form at line {span.line}" if span is not None else "<program>"
        sources.append((write_string(datum), where))


def _stdin_port(stream: IO[str] | None, runtime: Runtime) -> InputPort:
    """``current-input-port``: lines of ``stream`` (none if the host gave none). A Ctrl-C
    while the program waits for a line ends the run with an ``interrupted`` error."""

    def more() -> str:
        if stream is None:
            return ""
        runtime.waiting_for_input = True
        try:
            line = stream.readline()
        except KeyboardInterrupt:
            raise Interrupted("interrupted", kind="resource-exhaustion") from None
        except (OSError, ValueError):
            return ""
        finally:
            runtime.waiting_for_input = False
        if runtime.interrupted:  # Ctrl-C came while it waited: this is no end of input
            raise Interrupted("interrupted", kind="resource-exhaustion")
        return line

    return InputPort("", "stdin", lambda: STDIN_LINES({"port": "stdin"}, more))


#: Lines the program reads from the host's standard input, journaled in a durable run (docs/durable.md).
STDIN_LINES: Source[str] = Source("stdin", slow=True)
