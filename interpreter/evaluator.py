"""eval/apply: closures, the trampoline for tail calls, and the runtime's limits.

Every AST node is compiled once into a Python closure ``run(env) -> value``
(SICP 4.1.7). A call in tail position returns a :class:`TailCall` instead of
calling; :func:`apply_procedure` loops over those, so tail calls never grow the
Python stack.

Deep non-tail recursion grows it, though. Rather than raising the host's
recursion limit (process-wide, a surprise to an embedder), the runtime watches
how deep the Python stack is and, when it nears the limit, continues the
evaluation on a fresh thread that waits for nothing but its result (see
:mod:`interpreter.stack`). Depth is then bounded only by ``max_depth`` and memory.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .current import CURRENT
from .datatypes import (
    NIL,
    Parameter,
    Primitive,
    Procedure,
    Symbol,
    TailCall,
    arity_text,
    values_of,
)
from .env import Env
from .errors import SchemeError, SchemeExit, arity_error, type_error
from .mirrors import Flag
from .stack import run_on_fresh_stack, stack_height

if TYPE_CHECKING:
    from .memory import MemoryBudget


class Unassigned:
    """Marks a letrec/internal-define variable that has not been given its value yet."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "#<unassigned>"


UNASSIGNED = Unassigned()


def fixed_count(params: tuple[Symbol, ...], rest: Symbol | None) -> int:
    """A closure's ``nargs``: its fixed argument count, or -1 with a rest parameter."""
    return len(params) if rest is None else -1


class Closure(Procedure):
    """A procedure made by ``lambda``: its compiled body and its defining frame.

    ``run(env, depth, bounce, *args)`` binds the arguments in a new frame inside ``env`` and
    runs the body at level ``depth`` (the caller's plus one; see codegen.TEMPLATE); with
    ``bounce`` True (a trampoline's call) it may return a pending :class:`TailCall`.
    ``nargs`` is the fixed argument count, or -1 for a procedure with a
    rest parameter; ``run`` takes its parameters as Python's (a rest parameter as
    ``*args``), so Python refuses a wrong count with a ``TypeError`` before the body runs:
    compiled calls let it (then :meth:`check_count` gives the arity error), others compare
    the count first.
    """

    __slots__ = ("env", "nargs", "params", "rest", "rt", "run", "span")

    def __init__(
        self,
        name: str,
        run: Callable[..., Any],
        env: Env,
        rt: Runtime,
        params: tuple[Symbol, ...],
        rest: Symbol | None,
        span: Any,
    ) -> None:
        super().__init__(name)
        self.run = run
        self.env = env
        self.rt = rt
        self.params = params
        self.rest = rest
        self.span = span
        self.nargs = fixed_count(params, rest)

    def arity_text(self) -> str:
        return arity_text(len(self.params), None if self.rest else len(self.params))

    def check_count(self, given: int) -> None:
        """Raise the arity error for ``given`` arguments unless the count is accepted."""
        n = len(self.params)
        if given == n or (self.rest is not None and given > n):
            return
        want = f"{n} argument{'s' if n != 1 else ''}" if self.rest is None else f"at least {n}"
        raise arity_error(self.name, want, given)

    def __repr__(self) -> str:
        return f"#<procedure {self.name}>"


class ContinuationInvoked(BaseException):
    """Unwinds the Python stack to the ``call/cc`` that made ``target``."""

    def __init__(self, target: Continuation, value: Any) -> None:
        super().__init__()
        self.target = target
        self.value = value


class Continuation(Procedure):
    """An escaping continuation; valid while the ``call/cc`` that made it is running."""

    __slots__ = ("live", "winders")

    def __init__(self, winders: Any) -> None:
        super().__init__("continuation")
        self.live = True
        self.winders = winders

    def apply(self, args: list[Any]) -> Any:
        if not self.live:
            raise SchemeError(
                "continuation: re-entering a continuation after its call/cc has returned is not supported "
                "(taskscheme continuations are escape-only)",
                kind="continuation",
            )
        raise ContinuationInvoked(self, args[0] if len(args) == 1 else values_of(list(args)))


class Interrupted(SchemeError):
    """The host interrupted the program (Ctrl-C, cancellation)."""


class Runtime:
    """Evaluation state: the interpreter's shared runtime, and the root context of a run.

    Compiled calls compare ``depth`` with ``hop_mark`` on every call; at the mark
    they take the slow path into :meth:`deep`. :meth:`attend` (a timeout, Ctrl-C,
    cancellation: any thread) sets the mark to -1, so the very next call checks the
    limits. Steps are counted by tail calls, loops and calls through
    :func:`apply_procedure`; calls inside compiled bodies count them only when
    ``max_steps`` is set (it is fixed when the runtime is made).

    Compiled code reaches one runtime per interpreter, so its registers (``depth``,
    ``hop_mark``, ``steps``, ``check_at``) can serve one thread only. While a parallel
    form runs (``shared`` > 0) they are parked: ``hop_mark`` is -1 and ``check_at`` 0,
    every call takes the slow path, and :meth:`deep` and :meth:`check` hand it to the
    calling thread's :class:`Branch`, which holds that branch's own dynamic state.
    Serial code never pays for this (see docs/concurrency.md).
    """

    # The registers every compiled call reads and writes live in slots, and depth_base beside
    # depth: with 35 fields an instance's dict no longer fits CPython's shared keys (30 at
    # most), so each attribute access would be a dict lookup. The others stay in the dict.
    __slots__ = ("depth", "depth_base", "hop_mark", "steps", "check_at", "__dict__", "__weakref__")

    #: Python frames kept free below the recursion limit in every thread.
    STACK_MARGIN = 120
    CHECK_EVERY = 2000
    #: Most levels between two depth marks. Each mark starts a stretch of its own (see
    #: ``depth_base``), so ``depth`` stays a small integer: CPython keeps one object for
    #: each of 0 ... 256, and every level of a deep recursion holds the depth it saved.
    MAX_STRETCH = 250

    def __init__(
        self, max_depth: int | None = None, max_steps: int | None = None, timeout: float | None = None
    ) -> None:
        self.max_depth = max_depth if max_depth is not None else 10_000_000
        self.max_steps = max_steps
        self.timeout = timeout
        self.running = False
        self.depth = 0  # levels of calls in progress since depth_base (compiled code counts them)
        self.depth_base = 0  # levels under the current stretch (the depth mark that began it)
        self.hop_mark = 0  # what calls compare depth with: depth_mark, or -1 while attention is wanted
        self.depth_mark = 0  # where deep() must run next: the Python stack needs room, or max_depth
        self.attention = False
        self.steps = 0
        self.check_at = 0
        self.deadline: float | None = None
        self.step_limit_at: int | None = None
        self.interrupted = False
        self.waiting_for_input = False  # blocked reading the host's stdin (Ctrl-C ends the read at once)
        self.output_used = 0  # characters written this run (max_output, see limits.py)
        # -- the dynamic state every context has (a Branch copies it from its parent) --
        self.handlers: list[Any] = []  # with-exception-handler stack (procedures, or GUARD markers)
        self.winders: Any = NIL  # dynamic-wind list: Pair((before . after), outer)
        # (levels from the bottom, Python depth) when this thread began, at the last measurement
        self.thread_base: tuple[int, int] = (0, 0)
        self.last_measure: tuple[int, int] = (0, 0)
        self.extra_check: Callable[[], None] | None = None  # more limits checked with this context's
        self.activations: list[Any] = []  # running tasks with their limits (tasks/gateway.py), innermost last
        self.trace_parent: Any = None  # the innermost open trace span (tasks/tracing.py)
        self.parameters: dict[Parameter, Any] | None = None  # parameterize inside a branch (datatypes.Parameter)
        self.cancelled = False  # a branch whose form gave up on it
        self.meter: Any = None  # counts the model usage of a batch item (batch/items.py), if any
        self.journal: Any = None  # this branch's place in the run's journal (durable/branches.py), if any
        # -- shared by every branch of a run --------------------------------------------
        self.root: Runtime = self
        self.lock = threading.RLock()  # guards the fields below and what branches write together
        self.shared = 0  # parallel forms running; > 0 parks the registers (see the class docstring)
        self.branches: set[Branch] = set()
        self.parked_steps = 0  # the root's steps when the first parallel form began
        self.parked_depth = 0  # the root's depth then
        self.branch_steps = 0  # steps the branches have charged since then
        self.memory: MemoryBudget | None = None  # max_memory (memory.py): the run's, branches included
        # whether names bound once to a lambda still hold its closure (nodes.core.SelfBinding)
        self.lexical_self = Flag()

    # -- start of a top-level evaluation --------------------------------------------
    def begin(self) -> None:
        """Reset per-run counters; called at each top-level evaluation."""
        self.depth = self.depth_base = 0
        self.interrupted = False
        self.attention = False
        self.output_used = 0
        self.handlers = []
        self.winders = NIL
        self.parameters = None
        now = time.monotonic()
        self.deadline = now + self.timeout if self.timeout is not None else None
        self.step_limit_at = self.steps + self.max_steps if self.max_steps is not None else None
        self._next_check()
        self._start_thread_budget()

    def _start_thread_budget(self) -> None:
        """Measure this thread's stack and set the first mark (cautiously: how many
        frames a level takes is not known yet)."""
        py = stack_height()
        self.thread_base = self.last_measure = (self.levels, py)
        mark = self.depth + max(4, min((sys.getrecursionlimit() - py - self.STACK_MARGIN) // 16, self.MAX_STRETCH))
        self._set_mark(min(mark, max(self.max_depth - self.depth_base, self.depth + 1)))

    @property
    def levels(self) -> int:
        """Levels of calls in progress, from the bottom of the run (``max_depth`` counts these)."""
        return self.depth_base + self.depth

    def settled_levels(self) -> int:
        """:attr:`levels` where a branch begins: while parked, as they were when parallel forms began."""
        return self.depth_base + (self.parked_depth if self.shared else self.depth)

    def _set_mark(self, mark: int) -> None:
        """Move the depth mark; a pending :meth:`attend` keeps ``hop_mark`` at -1.

        ``attend`` sets ``attention`` before ``hop_mark``, so reading the flag after
        writing the mark never loses a request made by another thread meanwhile."""
        self.depth_mark = mark
        self.hop_mark = mark
        if self.attention or self.shared:
            self.hop_mark = -1

    def _next_check(self) -> None:
        """Set ``check_at``: in CHECK_EVERY steps, at the step limit, or at once while parked."""
        if self.shared:
            self.check_at = 0
            return
        self.check_at = self.steps + self.CHECK_EVERY
        if self.step_limit_at is not None and self.step_limit_at < self.check_at:
            self.check_at = max(self.step_limit_at, self.steps + 1)

    # -- contexts ----------------------------------------------------------------------
    def current(self) -> Runtime:
        """The dynamic context of the calling thread: its branch while parallel forms
        run, else the root context (this runtime)."""
        if self.root.shared:
            ctx = CURRENT.get()
            if ctx is not None and ctx.root is self.root:
                return ctx
        return self.root

    def poll(self) -> None:
        """Check the calling context's limits now (blocking waits call this as they wait)."""
        self.current().check()

    def enter_parallel(self) -> None:
        """A parallel form begins: park the registers (the first one saves the step count)."""
        with self.lock:
            if self.shared == 0:
                self.parked_steps = self.steps
                self.branch_steps = 0
                # a branch's compiled bodies publish their levels in these registers too
                # (codegen.TEMPLATE): what they write while parked means nothing
                self.parked_depth = self.depth
            self.shared += 1
            self.check_at = 0
            self.hop_mark = -1

    def leave_parallel(self) -> None:
        """A parallel form ended (its branches have stopped); the last one restores the registers."""
        with self.lock:
            self.shared -= 1
            if self.shared:
                return
            self.steps = self.parked_steps + self.branch_steps
            self.depth = self.parked_depth
            self._next_check()
            self._set_mark(self.depth_mark)
            if self.attention:
                self.check_at = 0

    def charge_steps(self, n: int) -> int:
        """Add a branch's ``n`` steps to the run; the steps until that branch should charge again."""
        with self.lock:
            self.branch_steps += n
            if self.step_limit_at is None:
                return self.CHECK_EVERY
            left = self.step_limit_at - self.parked_steps - self.branch_steps
            return max(1, min(self.CHECK_EVERY, left // max(1, len(self.branches))))

    def run_steps(self) -> int:
        """Steps taken so far in this run, branches included."""
        return self.parked_steps + self.branch_steps if self.shared else self.steps

    # -- attention: make the next call check the limits ------------------------------
    def attend(self) -> None:
        """Have the running program check its limits at its next call or step.

        Safe from any thread and from signal handlers; reaches every branch."""
        self.attention = True
        self.check_at = 0
        self.hop_mark = -1
        if self.root is self and self.branches:
            for branch in list(self.branches):
                branch.attend()

    def interrupt(self) -> None:
        """Stop the running program at its next call or step with an ``interrupted`` error."""
        self.root.interrupted = True
        self.root.attend()

    # -- limits ----------------------------------------------------------------------
    def check(self) -> None:
        """Called every CHECK_EVERY steps and on :meth:`attend`: time limit, step
        limit, interruption. While parked, a step of the calling thread's branch."""
        if self.shared:
            ctx = self.current()
            if ctx is not self:
                ctx.tick()
                return
        if self.attention:
            self.attention = False
            self._set_mark(self.depth_mark)
        self._next_check()
        self.check_limits()

    def check_limits(self) -> None:
        """Raise if interrupted, past the step or time limit, or the extra check fails."""
        if self.interrupted:
            raise Interrupted("interrupted", kind="resource-exhaustion")
        if self.step_limit_at is not None and self.run_steps() >= self.step_limit_at:
            raise step_limit_error(self.max_steps, self.run_steps())
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise time_limit_error(self.timeout)
        if self.memory is not None:
            self.memory.check()
        if self.extra_check is not None:
            self.extra_check()

    def tick(self) -> None:
        """One step (a root has none to count while parked)."""

    def apply(self, proc: Any, args: list[Any]) -> Any:
        """Apply ``proc`` in this context."""
        return apply_procedure(proc, args)

    def deep(self, proc: Closure, args: list[Any]) -> Any:
        """Called when ``depth`` reaches ``hop_mark``: serve :meth:`attend`, enforce
        max_depth, then extend this thread's budget or hop to a new thread. While
        parked, the call belongs to the calling thread's branch.

        This frame stays on the stack while the call runs (ten or so per hop thread), so it
        keeps only what it must put back: planning is :meth:`_plan`'s, and the call is made
        here, not through :meth:`apply` (no frame of its own)."""
        if self.shared:  # every call of every branch comes here: keep it short
            return self._parked_call(proc, args)
        if self.attention:
            self.check()
            if self.depth < self.hop_mark:
                return self.apply(proc, args)
        if self.levels >= self.max_depth:
            raise SchemeError(
                f"recursion depth limit exceeded: max_depth = {self.max_depth}",
                kind="resource-exhaustion",
                details={"resource": "depth", "used": self.levels, "limit": self.max_depth},
            )
        saved = (self.depth_mark, self.last_measure, self.depth_base)  # put back after the call
        mark = self._plan(saved[1])
        if mark is None:
            return self._hop(proc, args, saved[0], saved[1])
        if type(self) is not Runtime:
            return self._branch_call(proc, args, mark, saved)
        depth = self.depth
        self.depth_base = saved[2] + depth  # the call begins a stretch of its own, at depth 1
        self._set_mark(mark - self.depth_base)
        try:
            self.steps += 1  # apply_procedure's closure arm
            if self.steps >= self.check_at:
                self.check()
            if len(args) != proc.nargs:
                proc.check_count(len(args))
            result = proc.run(proc.env, 1, True, *args)
            self.depth = depth
        finally:
            self.depth_base = saved[2]
            self._set_mark(saved[0])
            self.last_measure = saved[1]
        return apply_procedure(result.proc, result.args) if type(result) is TailCall else result

    def _branch_call(self, proc: Closure, args: list[Any], mark: int, saved: tuple[int, tuple[int, int], int]) -> Any:
        """:meth:`deep`'s call in a branch (its own ``apply``), up to ``mark`` (a level)."""
        self._set_mark(mark - self.depth_base)
        try:
            return self.apply(proc, args)
        finally:
            self._set_mark(saved[0])
            self.last_measure = saved[1]

    def _plan(self, last: tuple[int, int]) -> int | None:
        """Measure the stack under the calling :meth:`deep` frame: the level (from the
        bottom) of the next mark, as far as this thread's stack allows and at most
        :data:`MAX_STRETCH` on; None if that is not far enough (hop instead).

        ``last`` is the measurement before this one."""
        base_depth, base_py = self.thread_base
        levels_now = self.levels
        py = stack_height() - 1  # the caller's (deep's) frame
        room = sys.getrecursionlimit() - py - self.STACK_MARGIN
        recent = (py - last[1]) / max(1, levels_now - last[0])  # since the last measurement
        # the frames a level takes: as measured over this thread, or lately if more (a
        # recursion that calls a heavier one); the next stretch may take 1.5 times that,
        # and runs at most twice as many levels as the last (the rate measured over a few
        # light levels says little about a heavier recursion that may follow them)
        per_level = max(2.0, (py - base_py) / max(1, levels_now - base_depth), recent)
        self.last_measure = (levels_now, py)
        levels = min(int(room / (per_level * 1.5)), 2 * max(levels_now - last[0], 8))
        if levels < 8:
            return None
        return min(levels_now + min(levels, self.MAX_STRETCH), self.max_depth)

    def _parked_call(self, proc: Closure, args: list[Any]) -> Any:
        """A call past the mark while parallel forms run: the calling thread's branch makes it."""
        ctx = CURRENT.get()
        if ctx is not None and ctx.root is self:
            return ctx.apply(proc, args)
        ctx = Branch(self)  # DSL code on a thread of no branch while branches run: give it one
        return ctx.run(lambda: ctx.apply(proc, args))

    def _hop(self, proc: Closure, args: list[Any], saved_mark: int, last: tuple[int, int]) -> Any:
        """Run ``proc`` on another thread with a fresh Python stack and wait for it
        (``last``: the measurement to go back to after, see :meth:`deep`)."""
        saved_base, depth, base = self.thread_base, self.depth, self.depth_base

        def continue_there() -> Any:
            self.depth_base, self.depth = base + depth, 0  # a stretch of its own (see MAX_STRETCH)
            self._start_thread_budget()
            return self.apply(proc, args)

        try:
            return run_on_fresh_stack(continue_there, self.interrupt)
        finally:
            self.depth, self.depth_base = depth, base
            self._set_mark(saved_mark)
            self.thread_base, self.last_measure = saved_base, last


class Branch(Runtime):
    """The dynamic state of one branch of a parallel form, on its own thread.

    It starts as a copy of its parent's context: depth, exception handlers,
    dynamic-wind list, task activations (shared entries: turns count for the whole
    form), parameterizations and the trace parent (the form's ``parallel`` span).
    It counts its own steps and charges them to the run; it obeys the run's deadline, step limit and interruption, its
    ancestors' extra checks, and its own ``cancelled`` flag (:meth:`cancel`).
    """

    def __init__(self, parent: Runtime) -> None:
        root = parent.root
        self.root = root
        self.parent = parent
        self.max_depth, self.max_steps, self.timeout = root.max_depth, root.max_steps, root.timeout
        self.running = True
        self.depth, self.depth_base = parent.settled_levels(), 0
        self.hop_mark = self.depth_mark = 0
        self.attention = False
        self.steps = self.check_at = self.charged = 0
        self.deadline = root.deadline
        self.step_limit_at = None
        self.interrupted = False
        self.output_used = 0
        self.handlers = list(parent.handlers)
        self.winders = parent.winders
        self.thread_base = (0, 0)
        self.last_measure = (0, 0)
        self.extra_check = None
        self.activations = list(parent.activations)
        self.trace_parent = parent.trace_parent
        self.parameters = dict(parent.parameters) if parent.parameters else None
        self.cancelled = False
        self.meter = parent.meter
        self.journal = parent.journal  # a parallel form gives each element its own (parallel.py)
        self.own_deadline: float | None = None  # limits of its own (a batch item), beside the run's
        self.own_steps: int | None = None
        self.lock = root.lock
        self.shared = 0
        self.branches = set()
        self.parked_steps = self.branch_steps = 0

    def run(self, fn: Callable[[], Any]) -> Any:
        """Call ``fn`` with this branch as the calling thread's context."""
        root = self.root
        token = CURRENT.set(self)
        with root.lock:
            root.branches.add(self)
        try:
            self._start_thread_budget()
            return fn()
        finally:
            with root.lock:
                root.branches.discard(self)
            root.charge_steps(self.steps - self.charged)
            self.charged = self.steps
            CURRENT.reset(token)

    def limit(self, timeout: float | None, max_steps: int | None) -> None:
        """Give this branch limits of its own (a batch item): ``timeout`` seconds from now, ``max_steps`` steps."""
        self.own_deadline = time.monotonic() + timeout if timeout is not None else None
        self.own_steps = max_steps

    def cancel(self) -> None:
        """Stop this branch (and what it started) at its next call or step."""
        self.cancelled = True
        self.root.attend()

    def apply(self, proc: Any, args: list[Any]) -> Any:
        """:func:`apply_procedure` with this branch's depth and steps."""
        root = self.root
        while True:
            if type(proc) is Closure and proc.rt is root:
                depth = self.depth
                if depth >= self.hop_mark:
                    return self.deep(proc, args)
                self.steps += 1
                if self.steps >= self.check_at:
                    self.check()
                if len(args) != proc.nargs:
                    proc.check_count(len(args))
                self.depth = depth + 1  # the branch's calls all come back here (hop_mark is -1)
                result = proc.run(proc.env, depth + 1, True, *args)
                self.depth = depth
            elif type(proc) is Closure:
                return apply_procedure(proc, args)  # another interpreter's procedure
            else:
                result = apply_other(proc, args)
            if type(result) is TailCall:
                proc = result.proc
                args = result.args
                continue
            return result

    def tick(self) -> None:
        self.steps += 1
        if self.steps >= self.check_at:
            self.check()

    def check(self) -> None:
        if self.attention:
            self.attention = False
            self._set_mark(self.depth_mark)
        used, self.charged = self.steps - self.charged, self.steps
        self.check_at = self.steps + self.root.charge_steps(used)
        if self.own_steps is not None:
            self.check_at = min(self.check_at, max(self.own_steps, self.steps + 1))
        self.check_limits()

    def check_limits(self) -> None:
        if self.cancelled:
            raise BranchCancelled("cancelled", kind="resource-exhaustion", details={"resource": "cancelled"})
        if self.own_steps is not None and self.steps >= self.own_steps:
            raise step_limit_error(self.max_steps, self.steps)
        if self.own_deadline is not None and time.monotonic() > self.own_deadline:
            raise time_limit_error(self.timeout)
        if self.extra_check is not None:
            self.extra_check()
        self.parent.check_limits()

    def attend(self) -> None:
        self.attention = True
        self.check_at = 0
        self.hop_mark = -1

    def interrupt(self) -> None:
        self.root.interrupt()


def step_limit_error(limit: int | None, used: int) -> SchemeError:
    return SchemeError(
        f"step limit exceeded: max_steps = {limit}",
        kind="resource-exhaustion",
        details={"resource": "steps", "used": used, "limit": limit},
    )


def time_limit_error(limit: float | None) -> SchemeError:
    return SchemeError(
        f"time limit exceeded: timeout = {limit} s",
        kind="resource-exhaustion",
        details={"resource": "time", "limit": limit},
    )


class BranchCancelled(Interrupted):
    """A branch stopped because its parallel form gave up on it (another branch failed)."""


def apply_procedure(proc: Any, args: list[Any]) -> Any:
    """Apply any Scheme procedure to ``args`` and return its value (a non-tail call)."""
    while True:
        if type(proc) is Closure:
            rt = proc.rt
            depth = rt.depth
            if depth >= rt.hop_mark:
                return rt.deep(proc, args)
            rt.steps += 1
            if rt.steps >= rt.check_at:
                rt.check()
            if len(args) != proc.nargs:
                proc.check_count(len(args))
            result = proc.run(proc.env, depth + 1, True, *args)
            rt.depth = depth
        elif type(proc) is Primitive:
            try:
                result = proc.fn(*args)
            except PASS_THROUGH:
                raise
            except Exception as exc:
                raise primitive_error(proc, args, exc) from None
        else:
            result = apply_other(proc, args)
        if type(result) is TailCall:
            proc = result.proc
            args = result.args
            continue
        return result


def settle(rt: Runtime, proc: Any, args: list[Any], depth: int) -> Any:
    """Run the tail call of ``proc`` on ``args`` that a body at level ``depth`` would have
    handed back, for a caller that runs no trampoline (a compiled call passes ``bounce``
    False): at ``depth``, the level its caller's trampoline would have run it at."""
    rt.depth = depth - 1
    return apply_procedure(proc, args)


def apply_other(proc: Any, args: list[Any]) -> Any:
    """Apply anything but a closure (a primitive, a task, a parameter …) once."""
    if type(proc) is Primitive:
        try:
            return proc.fn(*args)
        except PASS_THROUGH:
            raise
        except Exception as exc:
            raise primitive_error(proc, args, exc) from None
    if isinstance(proc, Procedure) and hasattr(proc, "apply"):
        return proc.apply(args)
    if type(proc) is Parameter:
        return apply_parameter(proc, args)
    raise not_a_procedure(proc, args)


CLOSURE_CALLER = """
def make(proc, rt, env):
    def call({params}):
        depth = rt.depth
        if depth >= rt.hop_mark:
            return rt.deep(proc, [{params}])
        rt.steps += 1
        if rt.steps >= rt.check_at:
            rt.check()
        run = proc.run  # not proc.run(...): LOAD_METHOD is not specialized for a slot in 3.11
        result = run(env, depth + 1, True, {params})
        rt.depth = depth
        if type(result) is TailCall:
            return apply_procedure(result.proc, result.args)
        return result
    return call
"""

PRIMITIVE_CALLER = """
def make(proc, fn):
    def call({params}):
        try:
            result = fn({params})
        except PASS_THROUGH:
            raise
        except Exception as exc:
            raise primitive_error(proc, [{params}], exc) from None
        if type(result) is TailCall:
            return apply_procedure(result.proc, result.args)
        return result
    return call
"""

_caller_makers: dict[tuple[str, int], Callable[..., Callable[..., Any]]] = {}


def caller(proc: Any, count: int) -> Callable[..., Any]:
    """A Python function of ``count`` positional arguments that applies ``proc`` to them
    exactly as :func:`apply_procedure` does (steps, depth, limits, tail calls, errors).

    For the higher-order primitives (``map``, ``fold-left``, ``assoc`` with a predicate …),
    which call one procedure many times: a closure's compiled body or a primitive's Python
    function is called directly, with no argument list and no dispatch per call. Any other
    procedure (a task, a continuation, a parameter) goes through :func:`apply_procedure`."""
    if type(proc) is Closure and proc.nargs == count:
        # proc.run is read at each call: a new closure's body is compiled on its first call.
        return _caller_maker(CLOSURE_CALLER, count)(proc, proc.rt, proc.env)
    if type(proc) is Primitive and proc.min_args <= count and (proc.max_args is None or count <= proc.max_args):
        return _caller_maker(PRIMITIVE_CALLER, count)(proc, proc.fn)
    return lambda *args: apply_procedure(proc, list(args))


def _caller_maker(template: str, count: int) -> Callable[..., Callable[..., Any]]:
    """The ``make`` function of ``template`` for ``count`` parameters (compiled once)."""
    maker = _caller_makers.get((template, count))
    if maker is None:
        namespace: dict[str, Any] = {
            "TailCall": TailCall,
            "apply_procedure": apply_procedure,
            "primitive_error": primitive_error,
            "PASS_THROUGH": PASS_THROUGH,
        }
        exec(template.format(params=", ".join(f"a{i}" for i in range(count))), namespace)  # a fixed template
        maker = _caller_makers[(template, count)] = namespace["make"]
    return maker


def apply_with_caller(proc: Any, args: list[Any], env: Any, tail: bool = False) -> Any:
    """Apply ``proc`` for a call made in frame ``env``.

    A procedure with an ``apply_in(args, env, tail)`` method (a task) is given the caller's
    frame; any other goes through :func:`apply_procedure`. In tail position a pending
    tail call is handed back to the caller's trampoline."""
    apply_in = getattr(proc, "apply_in", None)
    if apply_in is None:
        return apply_procedure(proc, args)
    result = apply_in(args, env, tail)
    if type(result) is TailCall and not tail:
        return apply_procedure(result.proc, result.args)
    return result


def apply_parameter(param: Parameter, args: list[Any]) -> Any:
    """Calling a parameter object with no arguments gives its value."""
    if args:
        raise arity_error(param.name, "0 arguments", len(args))
    return param.value


def not_a_procedure(obj: Any, args: list[Any]) -> SchemeError:
    err = type_error("application", "a procedure", obj)
    from .printer import write_string

    text = write_string(obj)
    err.message = f"not a procedure: {text[:60]} (called with {len(args)} argument{'s' if len(args) != 1 else ''})"
    return err


def primitive_error(proc: Primitive, args: list[Any], exc: Exception) -> SchemeError:
    """A Python exception from calling a primitive, named after it (also when the call was
    a pending tail call, as ``(apply + xs)`` in tail position makes): a TypeError is a wrong
    argument count or a type error; anything else as :func:`python_exception` says."""
    if not isinstance(exc, TypeError):
        return python_exception(exc, proc.name)
    n = len(args)
    if n < proc.min_args or (proc.max_args is not None and n > proc.max_args):
        return arity_error(proc.name, proc.arity_text(), n)
    return SchemeError(f"{proc.name}: {exc}", kind="type-error")


def python_exception(exc: BaseException, who: str | None = None) -> SchemeError:
    """Turn an unexpected Python exception inside a primitive into a taskscheme error."""
    prefix = f"{who}: " if who else ""
    if isinstance(exc, ZeroDivisionError):
        return SchemeError(f"{prefix}division by zero", kind="division-by-zero")
    if isinstance(exc, RecursionError):
        return SchemeError(f"{prefix}nesting too deep for the host stack", kind="resource-exhaustion")
    if isinstance(exc, MemoryError):
        return SchemeError(f"{prefix}out of memory", kind="resource-exhaustion")
    if isinstance(exc, OverflowError):
        return SchemeError(f"{prefix}numeric overflow: {exc}", kind="value-error")
    if isinstance(exc, ValueError) and "integer string conversion" in str(exc):
        # str() of an integer past CPython's 4,300 digits, in a message that forgot int_shown
        return SchemeError(f"{prefix}an integer too large to show (over 4,300 digits)", kind="value-error")
    if isinstance(exc, (ValueError, TypeError, IndexError, KeyError)):
        return SchemeError(f"{prefix}{exc}", kind="value-error")
    return SchemeError(f"{prefix}internal error: {type(exc).__name__}: {exc}", kind="internal-error")


def call_host(name: str, fn: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]) -> Any:
    """Call a host function; its Python exceptions become taskscheme errors."""
    try:
        return fn(*args, **kwargs)
    except PASS_THROUGH:
        raise
    except Exception as exc:
        err = python_exception(exc, name)
        err.details = {"exception": exc}
        raise err from exc


PASS_THROUGH = (SchemeError, ContinuationInvoked, SchemeExit, KeyboardInterrupt, SystemExit, GeneratorExit)
