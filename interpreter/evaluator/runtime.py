"""The runtime: the evaluation state of one interpreter and the root context of a run
(depth, steps and the limits, dynamic-wind, parameters), and :class:`Branch`, the context of
one branch of a parallel form. See docs/concurrency.md."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..current import CURRENT
from ..datatypes import NIL, Parameter, TailCall
from ..errors import SchemeError
from ..mirrors import Flag
from ..stack import run_on_fresh_stack, stack_height
from .failures import BranchCancelled, Interrupted, step_limit_error, time_limit_error
from .procedures import BOUNCE, Closure, apply_other, apply_procedure, bounce

if TYPE_CHECKING:
    from ..memory import MemoryBudget


class Runtime:
    """Evaluation state: the interpreter's shared runtime, and the root context of a run.

    Compiled calls compare ``depth`` with ``hop_mark`` on every call; at the mark
    they take the slow path into :meth:`deep`. :meth:`attend` (a timeout, Ctrl-C,
    cancellation: any thread) sets the mark to -1, so the very next call checks the
    limits. Steps are counted by tail calls, loops and calls through
    :func:`apply_procedure`; calls inside compiled bodies count them only when
    ``max_steps`` is set (it is fixed when the runtime is made).

    Compiled bodies are handed the context whose registers (``depth``, ``hop_mark``,
    ``steps``, ``check_at``) they read and write, ``run(env, depth, rt, *args)``,
    and pass it on to the bodies they call: this runtime serially, a :class:`Branch`
    inside a parallel form (each branch's registers are its own, so compiled calls stay
    on the fast path there). What enters a body with only the closure in hand (the
    closure's ``rt`` is this runtime: :func:`apply_procedure`, node templates) finds the
    root's registers parked while a parallel form runs (``shared`` > 0): ``hop_mark`` is
    -1 and ``check_at`` 0, so it takes the slow path, and :meth:`deep` and :meth:`check`
    hand the call to the calling thread's branch. See docs/concurrency.md.
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
    #: A serial run's recursion this deep on its own thread goes on on a roomy thread
    #: (``stack.run_on_fresh_stack(roomy=True)``), whose frame pages stay touched from one run
    #: to the next: on the run's own thread every run maps them afresh (a page fault per
    #: ~20 levels). Not with a memory budget, which measures the resident size: pages kept
    #: touched would let frames grow unseen.
    EARLY_HOP = 4096

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
        self.activations: list[Any] = []  # running tasks with their limits (tasks/models/gateway.py), innermost last
        self.trace_parent: Any = None  # the innermost open trace span (tasks/observe/tracing.py)
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
                # branches begin at this level (settled_levels) and their bodies publish
                # theirs in their own registers; the form puts this one back
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
        if self.levels >= self.EARLY_HOP and self.thread_base[0] == 0 and type(self) is Runtime and self.memory is None:
            return self._hop(proc, args, saved[0], saved[1], roomy=True)
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
            result = proc.run(proc.env, BOUNCE[1], self, *args)
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

    def _hop(self, proc: Closure, args: list[Any], saved_mark: int, last: tuple[int, int], roomy: bool = False) -> Any:
        """Run ``proc`` on another thread with a fresh Python stack and wait for it
        (``last``: the measurement to go back to after, see :meth:`deep`; ``roomy``: on a
        thread whose frame pages stay touched, see :data:`EARLY_HOP`)."""
        saved_base, depth, base = self.thread_base, self.depth, self.depth_base

        def continue_there() -> Any:
            self.depth_base, self.depth = base + depth, 0  # a stretch of its own (see MAX_STRETCH)
            self._start_thread_budget()
            return self.apply(proc, args)

        try:
            return run_on_fresh_stack(continue_there, self.interrupt, roomy)
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

    Its registers are its own: :meth:`apply` hands the branch to the bodies it calls, which
    pass it on to theirs, so the branch's compiled calls stay on the fast path.
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
                result = proc.run(proc.env, bounce(depth + 1), self, *args)  # the body's registers: this branch's
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


def settle(rt: Runtime, proc: Any, args: list[Any], depth: int) -> Any:
    """Run the tail call of ``proc`` on ``args`` that a body at level ``depth`` would have
    handed back, for a caller that runs no trampoline (a compiled call passes a plain
    ``int`` level, not a ``Bounce``): at ``depth``, the level its caller's trampoline would have run it at, in the
    body's context ``rt`` (a branch's own trampoline is :meth:`Branch.apply`)."""
    rt.depth = depth - 1
    return apply_procedure(proc, args) if rt.root is rt else rt.apply(proc, args)
