"""Procedures and their application: closures, escaping continuations, and
:func:`apply_procedure`, the trampoline that runs tail calls without growing the Python
stack; :func:`caller` turns a procedure into a plain Python function for the higher-order
primitives. A closure's runtime is seen through :class:`CallRegisters`, the registers every
compiled call reads (:class:`~interpreter.evaluator.runtime.Runtime` holds them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ..datatypes import Parameter, Primitive, Procedure, Symbol, TailCall, arity_text, values_of
from ..env import Env
from ..errors import SchemeError, arity_error
from .failures import PASS_THROUGH, ContinuationInvoked, not_a_procedure, primitive_error


class CallRegisters(Protocol):
    """What a call reads and writes of its closure's runtime (see ``runtime.Runtime``)."""

    depth: int
    hop_mark: int
    steps: int
    check_at: int
    shared: int  # parallel forms running (a closure's runtime: a root's registers are parked then)

    def current(self) -> CallRegisters:
        """The calling thread's context: its branch while parallel forms run, else this runtime."""

    def deep(self, proc: Closure, args: list[Any]) -> Any:
        """The call at the depth mark: the slow path (limits, a fresh stack, a branch)."""

    def check(self) -> None:
        """Check the limits (time, steps, memory, interruption)."""


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

    ``run(env, depth, rt, *args)`` binds the arguments in a new frame inside ``env`` and
    runs the body at level ``depth`` (the caller's plus one; see compiler.body.TEMPLATE); with
    ``depth`` a :class:`Bounce` (a trampoline's call) it may return a pending :class:`TailCall`. ``rt`` is
    the context whose registers the body reads and writes: the interpreter's runtime, or in a
    parallel form the calling thread's branch (``runtime.Branch``), which compiled calls pass on.
    ``nargs`` is the fixed argument count, or -1 for a procedure with a
    rest parameter; ``run`` takes its parameters as Python's (a rest parameter as
    ``*args``), so Python refuses a wrong count with a ``TypeError`` before the body runs:
    compiled calls let it (then :meth:`check_count` gives the arity error), others compare
    the count first.
    """

    __slots__ = ("__weakref__", "env", "nargs", "params", "rest", "rt", "run", "span")

    def __init__(
        self,
        name: str,
        run: Callable[..., Any],
        env: Env,
        rt: CallRegisters,
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


class Bounce(int):
    """A body's level given by a trampoline: ``run(env, depth, rt, *args)`` with ``depth`` a
    ``Bounce`` may hand a pending tail call back as a :class:`TailCall` (``type(depth) is not
    int``); a compiled call passes a plain ``int`` and the body runs such a call itself
    (compiler.body.TEMPLATE). The flag rides in the level, not in a parameter of its own, so a
    frame of a deep recursion holds no slot for it; ``depth + 1`` is a plain ``int`` again."""

    __slots__ = ()


#: The ``Bounce`` of each level below :data:`BOUNCES` (made once: a trampoline's call costs an
#: index, not an allocation; serial levels count from the stretch's base, so they stay small).
BOUNCES = 4096
BOUNCE = tuple(Bounce(level) for level in range(BOUNCES))


def bounce(level: int) -> Bounce:
    """``level`` as a trampoline passes it (see :class:`Bounce`)."""
    return BOUNCE[level] if level < BOUNCES else Bounce(level)


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
            result = proc.run(proc.env, BOUNCE[depth + 1] if depth < BOUNCES - 1 else Bounce(depth + 1), rt, *args)
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
        result = run(env, BOUNCE[depth + 1] if depth < BOUNCES - 1 else Bounce(depth + 1), rt, {params})
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
        # the calling thread's context (its branch while parallel forms run): the walk is
        # over before the call returns, so the caller never outlives that context
        rt = proc.rt
        return _caller_maker(CLOSURE_CALLER, count)(proc, rt.current() if rt.shared else rt, proc.env)
    if type(proc) is Primitive and proc.min_args <= count and (proc.max_args is None or count <= proc.max_args):
        return _caller_maker(PRIMITIVE_CALLER, count)(proc, proc.fn)
    return lambda *args: apply_procedure(proc, list(args))


def _caller_maker(template: str, count: int) -> Callable[..., Callable[..., Any]]:
    """The ``make`` function of ``template`` for ``count`` parameters (compiled once)."""
    maker = _caller_makers.get((template, count))
    if maker is None:
        namespace: dict[str, Any] = {
            "TailCall": TailCall,
            "BOUNCE": BOUNCE,
            "BOUNCES": BOUNCES,
            "Bounce": Bounce,
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
