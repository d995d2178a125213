"""Lambda bodies compiled to one Python function each (the entry point: :func:`compile_procedure`).

The closure compiler (``Node.compile``) makes a Python function per node, so a
call like ``(+ (fib (- n 1)) (fib (- n 2)))`` costs a Python call per node. Here a
whole procedure body becomes a single Python function whose statements do the
same work inline:

* ``if``, sequences, variable references, constants and calls become Python
  statements; any other node is compiled by its own ``compile`` and called;
* a call of a built-in arithmetic operator on exact integers is one Python
  operation (guarded: the global must still hold the built-in);
* the procedure's arguments arrive as Python parameters: ``run(outer, depth, rt, *args)``
  makes the frame itself, so a call is one Python call; when nothing can assign
  a parameter it stays a Python local and the frame is made only on demand
  (register mode, see :func:`compile_procedure`), and so do the variables of a
  plain ``let`` in such a body;
* a closure call is applied in place (its level passed as an argument, see
  :data:`TEMPLATE`; steps only under ``max_steps``);
* a tail call to a closure with the same body (a loop) rebinds the frame and
  jumps back to the top of the function, so loops run without the trampoline;
* errors get the same DSL backtrace as before: every call site has a number and
  knows the call it is nested in, and the one handler adds each in-progress call.

:class:`Emitter` is the core (``emitter.py``) with one family of forms from each module of
this package. ``(define (count n) (if (= n 0) 0 (count (- n 1))))`` compiles to::

    def run(outer, depth, rt, arg0):
        env = None
        site = -1
        try:
            while True:
                if (True if (arg0 == 0) else False):
                    return 0
                ...
                arg0 = t1
                continue
        except BaseException:
            raise on_error(site) from None
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from types import CodeType
from typing import Any

from ..env import Env
from ..errors import SchemeError
from ..evaluator import PASS_THROUGH, UNASSIGNED
from ..nodes.core import (
    Call,
    Define,
    Lambda,
    Seq,
    assigned_names,
    make_binder,
    primitive_failure,
    subtree,
)
from ..nodes.release import procedures_stay_inside
from . import emitter as core
from .arithmetic import InlineExpressions
from .binding import BindingForms
from .calls import Calls
from .control import Control
from .emitter import (
    EmitterCore,
    Registers,
    without_dead_site_stores,
)
from .frames import Frames
from .functions import made_function
from .hoist import hoist_invariant_tests
from .library import LIBRARY
from .lifting import LiftedClosures, lifted_defines
from .loops import Loops
from .specialize import Specialization
from .statements import Statements
from .trmc import HOLE, has_cons_calls_of_itself
from .trmp import ADDENDS
from .trmp import prepare as summing_body


class Emitter(Statements, BindingForms, Loops, Control, Specialization, InlineExpressions, Calls, Frames, EmitterCore):
    """Accumulates Python source for one body and the objects it refers to: the core's
    lines, temporaries, sites and frames, and one family of forms from each module."""


class BodyErrors:
    """Adds the backtrace frames of the calls in progress at a failing call site."""

    def __init__(self, sites: list[tuple[Call, int, str]], merged: set[int] | None = None) -> None:
        self.sites = sites
        #: Sites whose call may already be the error's last frame (a walk given a built-in by
        #: name: its inline call, written nowhere else, reports itself as the walk).
        self.merged = merged or set()

    def __call__(self, site: int) -> BaseException:
        """The error to raise for the exception being handled (read here, not passed:
        an ``as exc`` name would be one more local in every frame of a deep recursion)."""
        exc = sys.exc_info()[1]
        assert exc is not None
        if site >= 0:
            node, parent, operator = self.sites[site]
            if not isinstance(exc, PASS_THROUGH):
                tb = exc.__traceback__
                callee = tb.tb_frame.f_locals.get(operator) if tb is not None else None
                exc = primitive_failure(callee, len(node.operands), exc)
            if isinstance(exc, SchemeError):
                while site >= 0 and exc.wants_frames():
                    node, parent, _operator = self.sites[site]
                    last = exc.frames[-1] if site in self.merged and exc.frames else None
                    if last is None or (last.expr, last.location) != (node.text(), node.span and str(node.span)):
                        exc.add_frame(node.text(), node.span, node.procedure)
                    site = parent
        # The DSL backtrace is in the error; a Python traceback through every body of a
        # deep recursion would keep all their frames alive while it unwinds (and make the
        # collector walk them), so a limit hit 200,000 calls down took seconds to arrive.
        exc.__traceback__ = None
        return exc


#: A body: ``run(outer, depth, rt, *args)``. ``depth`` is the body's level (from the runtime's
#: ``depth_base``), given by the caller: a compiled call passes ``depth + 1`` and keeps no
#: count in the runtime. ``rt`` is the context whose registers the body reads and writes: the
#: interpreter's runtime, or the calling thread's branch inside a parallel form (a compiled
#: call passes its own on, so each branch's calls stay on the fast path; see
#: ``evaluator.Runtime``). ``rt.depth`` is what the runtime's code reads (apply_procedure,
#: ``Runtime.deep``, a primitive calling a procedure), so the body publishes its depth
#: there before every call out of it (``rt.depth = depth``, or ``setattr(rt, "depth", depth)``
#: inside an expression): a primitive, a fallback, ``apply_procedure``, ``apply_with_caller``
#: (``rt.check`` reads no depth). Between those, ``rt.depth`` may hold any callee's level.
#: Saves ~10% of a call (fib).
#:
#: Whether the caller is a trampoline (``apply_procedure`` and the runtime's other callers),
#: to which the body hands back a pending tail call as a ``TailCall``, rides in ``depth``: a
#: trampoline passes an ``evaluator.Bounce`` (an ``int`` subclass; ``type(depth) is not int``),
#: so a frame holds no slot for the flag and a call pushes no value for it (with ``rt`` a slot
#: more, ``(count 1000000)`` took 305 MB against 291). A compiled call passes a plain ``int``:
#: the body then runs such a call itself before returning (``settle``, at the level the
#: caller's trampoline would have used), so the caller needs no ``TailCall`` test of the value
#: (7–10% of fib). A chain of tail calls still runs in constant space: ``settle`` is a
#: trampoline, which calls each body with a ``Bounce``.
TEMPLATE = """
def run({params}):
    env = {frame}
    site = -1{start}{poison}
    try:
        while True:
{code}
    except BaseException:
        raise on_error(site) from None
"""


def compile_procedure(proc: Lambda) -> Callable[..., Any]:
    """One Python function ``run(outer, depth, rt, *args)`` that binds ``proc``'s arguments in a
    new frame inside ``outer`` and runs its body (see :class:`Closure`).

    Register mode: when no ``set!`` or definition anywhere in the body can assign a
    parameter (and there are no internal defines or rest parameter), the parameters
    stay Python locals and the frame is made only if a slow path, a task call or a
    nested closure needs it; calls that may have changed it re-read the parameters.
    """
    emitter = Emitter(proc.rt, LIBRARY.builtins, procedure=proc)
    emitter.namespace |= {"Env": Env, "UNASSIGNED": UNASSIGNED}
    args = [f"arg{i}" for i in range(len(proc.params))]
    if proc.rest is not None:
        emitter.namespace["binder"] = make_binder(proc.params, proc.rest, proc.defines)
        # the required parameters by name: Python checks that a call gives enough (Emitter.call)
        params = ", ".join(["outer", "depth", "rt", *args, "*args"])
        frame = f"binder({', '.join(['outer', *args, '*args'])})"
    else:
        params = ", ".join(["outer", "depth", "rt", *args])
        frame = emitter.frame_of("outer", args) or ""
        if not proc.defines and not assigned_names(proc.body) & set(proc.params):
            emitter.scopes.append(Registers(dict(zip(proc.params, args)), "env"))
            emitter.register_mode = True
            frame = "None"
        elif (defines := register_defines(proc)) is not None:
            locals_ = {node.name: emitter.fresh("l") for node in defines}
            emitter.scopes.append(Registers(dict(zip(proc.params, args)) | locals_, "env"))
            emitter.register_mode = True
            emitter.define_nodes = set(defines)
            emitter.lifted = lift(emitter, proc, defines)
            frame = "None"
            if procedures_stay_inside(list(locals_), [node.value for node in defines], [proc.body]):
                emitter.released["env"] = [emitter.key(name) for name in locals_]
            for local in locals_.values():  # at the top of the loop: a self tail call starts afresh
                emitter.line(f"{local} = UNASSIGNED")
    if not emitter.register_mode:
        emitter.line("v = env.vars")
    emitter.holes = has_cons_calls_of_itself(proc)
    if not emitter.holes:
        summing_body(emitter, proc)
    emitter.tail(proc.body)
    emitter.namespace["on_error"] = BodyErrors(emitter.sites, emitter.merged_sites)
    code = "\n".join(without_dead_site_stores(emitter.lines))
    start = f"\n    {HOLE} = None" if emitter.holes else f"\n    {ADDENDS} = None" if emitter.summing else ""
    start += "".join(f"\n    {frame} = None" for frame in emitter.released if frame != "env")
    poison = f"\n    rt.depth = {core.POISON_DEPTH}" if core.POISON_DEPTH is not None else ""
    source = TEMPLATE.format(params=params, frame=frame, start=start, poison=poison, code=code)
    if emitter.register_mode:
        flags = {name: flag for flag, name in emitter.flag_names.items()}
        source = hoist_invariant_tests(source, args, emitter.namespace, emitter.repeats, flags)
    return made_function(compiled(source), emitter.namespace, "run")


@functools.lru_cache(maxsize=128)
def compiled(source: str) -> CodeType:
    """The code object of a body's generated source. Kept for the most recent bodies: the same
    procedure is compiled alike in each interpreter, parallel branch or batch item that runs
    it (Python's ``compile`` was 30-40% of compiling a body); the source names everything
    that differs (globals, constants, sites) from the namespace it is run in."""
    return compile(source, "<taskscheme body>", "exec")


def lift(emitter: Emitter, proc: Lambda, defines: list[Define]) -> dict[Define, tuple[str, int]]:
    """The body's defines made once (``lifting.lifted_defines``): their closures' source."""
    lifted = lifted_defines(proc.body.body if type(proc.body) is Seq else [proc.body], defines)
    if not lifted:
        return {}
    made = LiftedClosures([d.name for d in lifted], [d.value.compile(False) for d in lifted])
    source = emitter.constant(made, "L")
    return {d: (source, i) for i, d in enumerate(lifted)}


def register_defines(proc: Lambda) -> list[Define] | None:
    """A body's internal defines if they can live in its register frame (with the
    parameters): each a plain ``define`` at the body's top level, each name once and
    none a parameter's, and nothing else in the body (a ``set!``, a ``define`` in a
    nested body of the same name, ``define-values``, ``define-record-type``) assigning a
    parameter or a defined name. Else None (the body keeps its frame)."""
    if proc.rest is not None:
        return None
    top = proc.body.body if type(proc.body) is Seq else [proc.body]
    defines = [part for part in top if type(part) is Define]
    names = [node.name for node in defines]
    if len(set(names)) != len(names) or set(names) != set(proc.defines) or set(names) & set(proc.params):
        return None
    watched = {*proc.params, *names}
    own = {id(node) for node in defines}  # reached again through a defined lambda's binding region
    for part in top:
        for node in subtree(part.value if type(part) is Define else part):
            if id(node) not in own and set(node.assigned()) & watched:
                return None
    return defines
