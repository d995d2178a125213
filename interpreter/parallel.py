"""Fan-out: run jobs concurrently in branches, at most ``cap`` at a time, results in order.

``parallel-map`` and ``parallel`` both come here. Each job runs on a worker thread in
its own :class:`~interpreter.evaluator.Branch` (depth, handlers, task activations,
trace parent, steps; see docs/concurrency.md). The thread that runs the form waits,
checking its own limits as it waits, so a timeout, a step limit or Ctrl-C stops every
branch; branches blocked in a model call or a script stop too, since those waits
check the branch's limits as they go.

Threads: a form runs at most ``cap`` branches at once, and ``cap`` is at most the
interpreter's ``max_threads`` (default :data:`DEFAULT_MAX_THREADS`; a higher request is
clamped and the form's trace span says so: ``requested_concurrency``). Worker threads
start lazily: one to begin, and another each time a worker takes a job while every
started worker is busy, so short jobs run on few threads and blocking ones (model
calls) reach the cap. Each branch checks the run's limits before it starts, so a form
of a million short jobs ends at the deadline like any loop.

Errors: under ``raise`` the first error cancels the branches still running and is
raised once every branch has stopped, naming the element's index. Under ``collect``
an ordinary error becomes a FAILED TaskResult in its place; the runtime's own limits
and interruption still end the whole form.
"""

from __future__ import annotations

import contextvars
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .durable import branch_journals
from .errors import SchemeError, type_error
from .evaluator import Branch, BranchCancelled, Runtime
from .keywords import key_name
from .stack import with_room

if TYPE_CHECKING:
    from .host_protocols import LibraryHost

#: ``#:max-concurrency`` when neither the form nor the interpreter says.
DEFAULT_MAX_CONCURRENCY = 8
#: ``Interpreter(max_threads=…)`` by default: the most branches any one form runs at once.
DEFAULT_MAX_THREADS = 64
#: Seconds between the waiting thread's limit checks.
WAIT_STEP = 0.05
ON_ERROR = ("raise", "collect")

Job = Callable[[Branch], Any]


@dataclass
class FanOut:
    """The state of one running form, shared by its worker threads."""

    jobs: Sequence[Job]
    parent: Runtime
    collect: bool
    who: str
    noun: str
    context: contextvars.Context  # the contextvars of the thread that runs the form (its trace span)
    cap: int = 1
    room: int = 0  # the recursion room each worker's branches get (stack.with_room)
    results: list[Any] = field(default_factory=list)
    threads: list[threading.Thread] = field(default_factory=list)
    busy: int = 0  # workers running a job now
    lock: threading.Lock = field(default_factory=threading.Lock)
    next_index: int = 0
    stopping: bool = False
    error: tuple[int | None, BaseException] | None = None
    failed: int = 0
    running: set[Branch] = field(default_factory=set)
    journal: Callable[[int], Any] = lambda index: None  # each element's journal (durable/branches.py)

    def take(self) -> int | None:
        """The next job's index, or None when there is none (or the form is stopping).
        Taking a job while every started worker is busy starts one more, up to the cap."""
        with self.lock:
            if self.stopping or self.next_index >= len(self.jobs):
                return None
            index = self.next_index
            self.next_index += 1
            self.busy += 1
            started = len(self.threads)
            grow = self.busy >= started and started < self.cap and self.next_index < len(self.jobs)
        if grow:
            self.start_worker()
        return index

    def start_worker(self) -> None:
        """Start one more worker thread (it is listed before it starts, so the waiting
        thread never misses it). If the system refuses a thread, the workers already
        running carry on; with none, the form fails with a ``resource-exhaustion`` error."""
        name = f"taskscheme-{self.who}-{len(self.threads)}"
        worker = threading.Thread(target=with_room, args=(self.work, self.room), name=name, daemon=True)
        with self.lock:
            self.threads.append(worker)
        try:
            worker.start()
        except RuntimeError as exc:  # "can't start new thread"
            with self.lock:
                self.threads.remove(worker)
                alone = not self.threads
            if alone:
                raise SchemeError(
                    f"{self.who}: cannot start a thread ({exc})",
                    kind="resource-exhaustion",
                    details={"resource": "threads", "limit": self.cap, "used": 0},
                ) from None

    def work(self) -> None:
        """A worker thread: run jobs until there are none left."""
        while (index := self.take()) is not None:
            branch = Branch(self.parent)
            branch.journal = self.journal(index)
            with self.lock:
                if self.stopping:
                    self.busy -= 1
                    return
                self.running.add(branch)
            job = self.jobs[index]
            try:
                self.results[index] = self.context.copy().run(branch.run, lambda: start(branch, job))
            except BaseException as exc:  # every escape is handed to the waiting thread
                self.fail(index, exc)
            finally:
                with self.lock:
                    self.running.discard(branch)
                    self.busy -= 1

    def fail(self, index: int | None, exc: BaseException) -> None:
        """Record a failure: collect it in place, or stop the form with it."""
        if isinstance(exc, BranchCancelled) and self.stopping:
            return
        if self.collect and index is not None and isinstance(exc, SchemeError) and not ends_the_run(exc):
            self.results[index] = failed_result(self.who, self.noun, index, exc)
            with self.lock:
                self.failed += 1
            return
        self.stop(index, exc)

    def stop(self, index: int | None, exc: BaseException) -> None:
        """Cancel every branch still running; the first error given here is the form's."""
        with self.lock:
            if self.error is None:
                self.error = (index, exc)
                if index is not None:
                    self.failed += 1
            self.stopping = True
            running = list(self.running)
        for branch in running:
            branch.cancel()

    def cancel_all(self) -> None:
        """Stop taking jobs and cancel the branches still running (no error of its own)."""
        with self.lock:
            self.stopping = True
            running = list(self.running)
        for branch in running:
            branch.cancel()

    def raise_error(self) -> None:
        if self.error is None:
            return
        index, exc = self.error
        if index is not None and isinstance(exc, SchemeError) and not ends_the_run(exc):
            exc.message = f"{self.who}: {self.noun} {index} failed: {exc.message}"
        raise exc


def start(branch: Branch, job: Job) -> Any:
    """Run ``job`` in ``branch`` once the run's limits allow a new branch."""
    branch.check_limits()
    return job(branch)


@dataclass
class TaskRuntimeHooks:
    """What parallel forms take from the task runtime, which sits above them and fills this in
    when it loads (tasks/sequence.py; every interpreter loads it before a program runs)."""

    #: Errors that stay one branch's own failure even of kind ``resource-exhaustion`` (TaskError).
    own_failures: tuple[type[SchemeError], ...] = ()
    #: ``(who, noun, index, err)`` -> the FAILED TaskResult standing for a failed element
    #: under ``#:on-error 'collect``.
    failed_result: Callable[[str, str, int, SchemeError], Any] | None = None


HOOKS = TaskRuntimeHooks()


def ends_the_run(err: SchemeError) -> bool:
    """The runtime's own limits and interruption end the whole form in every mode
    (a task's RESOURCE_EXHAUSTION, a TaskError, is an ordinary failure)."""
    return err.kind == "resource-exhaustion" and not isinstance(err, HOOKS.own_failures)


def failed_result(who: str, noun: str, index: int, err: SchemeError) -> Any:
    """The FAILED TaskResult standing for a failed element under ``#:on-error 'collect``
    (without the task runtime, the error itself is raised)."""
    if HOOKS.failed_result is None:
        raise err
    return HOOKS.failed_result(who, noun, index, err)


def run_parallel(
    interp: LibraryHost,
    jobs: Sequence[Job],
    *,
    cap: int,
    on_error: str = "raise",
    who: str = "parallel-map",
    noun: str = "element",
) -> list[Any]:
    """The values of ``jobs`` (each called with its branch), run at most ``cap`` at a time."""
    if not jobs:
        return []
    rt, hub = interp.runtime, interp.span_sink
    info: dict[str, Any] = {"branches": len(jobs), "max_concurrency": min(cap, interp.max_threads)}
    if cap > interp.max_threads:
        info["requested_concurrency"] = cap  # clamped to the interpreter's max_threads
    span = hub.open("parallel", who, info)
    form = FanOut(
        jobs,
        rt.current(),
        on_error == "collect",
        who,
        noun,
        contextvars.copy_context(),
        cap=info["max_concurrency"],
        room=sys.getrecursionlimit(),  # each worker's branches recurse on a roomy frame (stack.with_room)
        results=[None] * len(jobs),
    )
    form.journal = branch_journals(rt)
    rt.enter_parallel()
    try:
        form.start_worker()
        wait_for(form)
    finally:
        form.cancel_all()
        settle(form)
        rt.leave_parallel()
        status = "error" if form.error is not None else "ok"
        error = form.error[1] if form.error is not None else None
        hub.finish("parallel", who, span, status, info={"failed": form.failed}, error=error)
    form.raise_error()
    return form.results


def alive_workers(form: FanOut) -> list[threading.Thread] | None:
    """The form's workers still running; None once every worker it started has ended
    (a worker starts others only while it runs, so none can start after that)."""
    with form.lock:
        threads = list(form.threads)
    alive = [t for t in threads if t.is_alive()]
    if alive:
        return alive
    with form.lock:
        return None if len(form.threads) == len(threads) else []


def wait_for(form: FanOut) -> None:
    """Wait for the workers, checking the waiting context's limits meanwhile."""
    while (alive := alive_workers(form)) is not None:
        if alive:
            alive[0].join(WAIT_STEP)
        if form.error is None:
            try:
                form.parent.check()
            except SchemeError as err:
                form.stop(None, err)


def settle(form: FanOut) -> None:
    """Wait for cancelled workers to stop; a second Ctrl-C stops waiting for them."""
    try:
        while (alive := alive_workers(form)) is not None:
            for worker in alive:
                worker.join()
    except KeyboardInterrupt:
        pass


def max_concurrency(who: str, value: Any) -> int:
    """A valid ``#:max-concurrency``: a positive integer."""
    if type(value) is not int or value < 1:
        raise type_error(who, "a positive integer for #:max-concurrency", value)
    return value


def on_error_mode(who: str, value: Any) -> str:
    """``raise`` or ``collect`` from ``#:on-error`` (a symbol or a string)."""
    try:
        mode = key_name(value)
    except SchemeError:
        mode = None
    if mode not in ON_ERROR:
        raise type_error(who, "'raise or 'collect for #:on-error", value)
    return mode
