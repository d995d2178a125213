"""Core AST nodes: constants, variables, definition, assignment, if, lambda, sequence, call.

Every node has ``compile(tail) -> run`` where ``run(env)`` evaluates the node in
an :class:`~interpreter.env.Env`. With ``tail=True`` a call may return a
:class:`TailCall` for the trampoline instead of calling.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..datatypes import BUILTINS, NIL, Primitive, Span, Symbol, TailCall, Void, cons
from ..env import ContextBoundary, Env
from ..errors import SchemeError, arity_error
from ..evaluator import (
    PASS_THROUGH,
    UNASSIGNED,
    Closure,
    Runtime,
    apply_procedure,
    apply_with_caller,
    fixed_count,
    python_exception,
)
from ..mirrors import Flag
from ..printer import write_abbreviated
from . import compilers

Run = Callable[[Env], Any]
VOID = Void()


class Node:
    """Base of AST nodes. ``span`` is where the node's source starts."""

    __slots__ = ("span",)

    def compile(self, tail: bool) -> Run:
        raise NotImplementedError

    def evaluate(self, env: Env) -> Any:
        """Run the node once in ``env``, as ``compile(False)(env)`` does: a top-level form
        runs once, so a node whose compiling costs more than running it once overrides
        this (:meth:`Call.evaluate`)."""
        return self.compile(False)(env)

    def assigned(self) -> Iterable[Symbol]:
        """The names this node itself (not its parts) assigns in a frame that exists
        before it runs: ``set!`` and definitions."""
        return ()


#: For each class met in a walk of a tree of nodes: the slots that may hold its parts (every
#: class's ``__slots__`` along the MRO), or None for a class that holds none (not a node nor a
#: helper record of the node modules). Classes do not change their slots, so the table is
#: shared by every interpreter and thread; it spares each walk the MRO and ``getattr`` of
#: ``__slots__`` per object: ``subtree`` and ``subtree_sizes`` of the differential test's bodies
#: took 8.7 µs a node, 4.7 with the table (the body compiler walks each body several times).
_PARTS: dict[type, tuple[str, ...] | None] = {}


def part_slots(cls: type) -> tuple[str, ...] | None:
    """The slots of ``cls`` that may hold parts of a tree of nodes (None: it has none)."""
    try:
        return _PARTS[cls]
    except KeyError:
        pass
    names: tuple[str, ...] | None = None
    if issubclass(cls, Node) or cls.__module__.startswith("interpreter.nodes"):
        names = tuple(slot for c in cls.__mro__ for slot in getattr(c, "__slots__", ()))
    _PARTS[cls] = names
    return names


def subtree(node: Node | list[Node]) -> Iterator[Node]:
    """``node`` (or each of a list of nodes) and every node inside it, nested lambdas included.

    Parts are found through ``__slots__``: nodes, lists and tuples of them, and the
    helper records of the node modules (cond clauses and the like)."""
    stack: list[Any] = [node]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, (list, tuple)):
            stack.extend(item)
            continue
        names = part_slots(type(item))
        if names is None:
            continue
        if isinstance(item, Node):
            yield item
        for slot in names:
            part = getattr(item, slot, None)
            if part is not None:
                stack.append(part)


def subtree_sizes(node: Node) -> dict[int, int]:
    """For ``node`` and every node inside it (by id): how many nodes are inside it, itself
    included, each counted once, under the first node that holds it (a reference back to an
    enclosing node, such as a lambda's binding region, is not counted again). One walk, so
    asking for the size of every part of a nest costs linear time."""
    order: list[tuple[Node, Node | None]] = []  # each node and the nearest node around it
    stack: list[tuple[Any, Node | None]] = [(node, None)]
    seen: set[int] = set()
    while stack:
        item, parent = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, (list, tuple)):
            stack.extend((part, parent) for part in item)
            continue
        names = part_slots(type(item))
        if names is None:
            continue
        if isinstance(item, Node):
            order.append((item, parent))
            parent = item
        for slot in names:
            part = getattr(item, slot, None)
            if part is not None:
                stack.append((part, parent))
    sizes: dict[int, int] = {}
    for item, parent in reversed(order):  # every node after the nodes inside it
        size = sizes[id(item)] = sizes.get(id(item), 0) + 1
        if parent is not None:
            sizes[id(parent)] = sizes.get(id(parent), 0) + size
    return sizes


def assigned_names(node: Node) -> set[Symbol]:
    """Every name assigned anywhere inside ``node`` (by any frame's ``set!`` or define)."""
    return {name for part in subtree(node) for name in part.assigned()}


class Const(Node):
    """A self-evaluating datum or a quoted one."""

    __slots__ = ("value",)

    def __init__(self, value: Any, span: Span | None = None) -> None:
        self.value = value
        self.span = span

    def compile(self, tail: bool) -> Run:
        value = self.value
        return lambda env: value


def unbound_error(name: Symbol, span: Span | None) -> SchemeError:
    return SchemeError(f"unbound variable: {name.name}", kind="unbound-variable", span=span)


def unassigned_error(name: Symbol, span: Span | None) -> SchemeError:
    return SchemeError(f"variable used before its definition: {name.name}", kind="unbound-variable", span=span)


class LocalRef(Node):
    """A variable bound ``depth`` frames out; ``checked`` if it may still be unassigned."""

    __slots__ = ("checked", "depth", "name")

    def __init__(self, name: Symbol, depth: int, checked: bool, span: Span | None) -> None:
        self.name = name
        self.depth = depth
        self.checked = checked
        self.span = span

    def compile(self, tail: bool) -> Run:
        name, depth, span = self.name, self.depth, self.span
        if self.checked:
            fetch = LocalRef(name, depth, False, span).compile(False)

            def checked(env: Env) -> Any:
                value = fetch(env)
                if value is UNASSIGNED:
                    raise unassigned_error(name, span)
                return value

            return checked
        if depth == 0:
            return lambda env: env.vars[name]
        if depth == 1:
            return lambda env: env.outer.vars[name]  # type: ignore[union-attr]
        if depth == 2:
            return lambda env: env.outer.outer.vars[name]  # type: ignore[union-attr]

        def far(env: Env) -> Any:
            for _ in range(depth):
                env = env.outer  # type: ignore[assignment]
            return env.vars[name]

        return far


#: What ``dict.get`` gives for a name bound nowhere (a global may hold Python's None).
MISSING = object()


class GlobalRef(Node):
    """A variable not bound by any enclosing form: looked up in the global frame.

    ``fallback`` is consulted when the name is unbound: the task library uses it so
    that a task name evaluates to the task as a procedure, wherever it is written.
    """

    __slots__ = ("fallback", "gvars", "name")

    def __init__(
        self, name: Symbol, gvars: dict[Symbol, Any], span: Span | None, fallback: Callable[[Symbol], Any] | None = None
    ) -> None:
        self.name = name
        self.gvars = gvars
        self.span = span
        self.fallback = fallback

    def compile(self, tail: bool) -> Run:
        name, gvars, span, fallback = self.name, self.gvars, self.span, self.fallback
        if name not in gvars and fallback is not None:
            return self.unbound_ref()

        def ref(env: Env) -> Any:
            try:
                value = gvars[name]
            except KeyError:
                if fallback is not None:
                    found = fallback(name)
                    if found is not None:
                        return found
                raise unbound_error(name, span) from None
            if value is UNASSIGNED:
                raise unassigned_error(name, span)
            return value

        return ref

    def unbound_ref(self) -> Run:
        """The reader of a name bound nowhere when compiled (a task's name, a later ``define``):
        a miss asks the fallback without raising a KeyError at each call."""
        name, gvars, span, fallback = self.name, self.gvars, self.span, self.fallback
        assert fallback is not None

        def unbound_ref(env: Env) -> Any:
            value = gvars.get(name, MISSING)
            if value is MISSING:
                found = fallback(name)
                if found is not None:
                    return found
                raise unbound_error(name, span)
            if value is UNASSIGNED:
                raise unassigned_error(name, span)
            return value

        return unbound_ref


class DynamicRef(Node):
    """A name looked up at run time along the frame chain (inside a task run in its
    caller's frame), then the global frame, then ``fallback`` (task names).

    The chain is the one implicit data follows: a :class:`~interpreter.env.ContextBoundary`
    (a form whose context does not inherit in full) passes the lookup on to its
    ``implicit`` frame, not to the enclosing locals."""

    __slots__ = ("name", "fallback")

    def __init__(self, name: Symbol, span: Span | None, fallback: Callable[[Symbol], Any] | None = None) -> None:
        self.name, self.span, self.fallback = name, span, fallback

    def compile(self, tail: bool) -> Run:
        name, span, fallback = self.name, self.span, self.fallback

        def dynamic_ref(env: Env) -> Any:
            frame: Env | None = env
            while frame is not None:  # implicit_lookup, inlined: this runs for every free name
                vars = frame.vars
                if name in vars:
                    value = vars[name]
                    if value is UNASSIGNED:
                        raise unassigned_error(name, span)
                    return value
                frame = frame.implicit if type(frame) is ContextBoundary else frame.outer
            found = fallback(name) if fallback is not None else None
            if found is None:
                raise hidden_by_context(unbound_error(name, span), env)
            return found

        return dynamic_ref


def hidden_by_context(err: SchemeError, env: Env) -> SchemeError:
    """``err`` (a name unbound for implicit lookup), explained when a form's context hid it."""
    name = Symbol.intern(err.message.removeprefix("unbound variable: "))
    frame: Env | None = env
    while frame is not None:
        if type(frame) is ContextBoundary:
            try:
                frame.lookup(name)
            except KeyError:
                return err
            err.message += (
                f" ({name.name} is bound where the task was called, but a composition form's context there "
                f"does not pass it on: pass it as an argument, or list it with (context (inherit subset) "
                f"(subset {name.name})), or use (context (inherit full) (fresh disabled)))"
            )
            return err
        frame = frame.outer
    return err


class FrameAssignment(Node):
    """Base of the nodes that give ``name`` the value of ``value`` in an existing frame."""

    __slots__ = ("name", "value")

    def __init__(self, name: Symbol, value: Node, span: Span | None) -> None:
        self.name, self.value, self.span = name, value, span

    def assigned(self) -> Iterable[Symbol]:
        return (self.name,)


class SetDynamic(FrameAssignment):
    """``set!`` of a name found at run time along the frame chain.

    Writing a local frame clears the interpreter's ``Runtime.lexical_self``: the name may be
    one that compiled bodies take to hold their own closure (:class:`SelfBinding`)."""

    __slots__ = ("lexical_self",)

    def __init__(self, name: Symbol, value: Node, span: Span | None, lexical_self: Flag) -> None:
        super().__init__(name, value, span)
        self.lexical_self = lexical_self

    def compile(self, tail: bool) -> Run:
        name, value, span, lexical_self = self.name, self.value.compile(False), self.span, self.lexical_self

        def set_dynamic(env: Env) -> Any:
            new = value(env)
            frame: Env | None = env
            while frame is not None:
                if name in frame.vars:
                    frame.vars[name] = new
                    if frame.outer is not None:  # a local frame
                        lexical_self.set(False)
                    return VOID
                frame = frame.outer
            raise SchemeError(f"set!: unbound variable: {name.name}", kind="unbound-variable", span=span)

        return set_dynamic


class SetLocal(FrameAssignment):
    """``set!`` of a variable bound ``depth`` frames out."""

    __slots__ = ("depth",)

    def __init__(self, name: Symbol, depth: int, value: Node, span: Span | None) -> None:
        super().__init__(name, value, span)
        self.depth = depth

    def compile(self, tail: bool) -> Run:
        name, depth, value = self.name, self.depth, self.value.compile(False)

        def set_local(env: Env) -> Any:
            new = value(env)
            for _ in range(depth):
                env = env.outer  # type: ignore[assignment]
            env.vars[name] = new
            return VOID

        return set_local


class SetGlobal(Node):
    """``set!`` of a global variable, which must already be defined."""

    __slots__ = ("gvars", "name", "value")

    def __init__(self, name: Symbol, gvars: dict[Symbol, Any], value: Node, span: Span | None) -> None:
        self.name, self.gvars, self.value, self.span = name, gvars, value, span

    def compile(self, tail: bool) -> Run:
        name, gvars, value, span = self.name, self.gvars, self.value.compile(False), self.span

        def set_global(env: Env) -> Any:
            new = value(env)
            if name not in gvars:
                raise SchemeError(f"set!: unbound variable: {name.name}", kind="unbound-variable", span=span)
            gvars[name] = new
            return VOID

        return set_global


class Define(FrameAssignment):
    """``define`` in the current frame (global at top level, local in a body)."""

    __slots__ = ()

    def compile(self, tail: bool) -> Run:
        name, value = self.name, self.value.compile(False)

        def define(env: Env) -> Any:
            env.vars[name] = value(env)
            return VOID

        return define

    def evaluate(self, env: Env) -> Any:
        env.vars[self.name] = self.value.evaluate(env)
        return VOID


class If(Node):
    """``(if test then [else])``; only ``#f`` is false."""

    __slots__ = ("otherwise", "test", "then")

    def __init__(self, test: Node, then: Node, otherwise: Node | None, span: Span | None) -> None:
        self.test, self.then, self.otherwise, self.span = test, then, otherwise, span

    def compile(self, tail: bool) -> Run:
        then = self.then.compile(tail)
        otherwise = self.otherwise.compile(tail) if self.otherwise is not None else (lambda env: VOID)
        if type(self.test) is Call:
            return compilers.compile_if(self.test, then, otherwise)
        test = self.test.compile(False)

        def if_(env: Env) -> Any:
            if test(env) is not False:
                return then(env)
            return otherwise(env)

        return if_


class Seq(Node):
    """``begin``: evaluate in order, the last in tail position."""

    __slots__ = ("body",)

    def __init__(self, body: list[Node], span: Span | None) -> None:
        self.body, self.span = body, span

    def compile(self, tail: bool) -> Run:
        if not self.body:
            return lambda env: VOID
        *init, last = [n.compile(False) for n in self.body[:-1]] + [self.body[-1].compile(tail)]
        if not init:
            return last
        if len(init) == 1:
            first = init[0]

            def seq2(env: Env) -> Any:
                first(env)
                return last(env)

            return seq2

        def seq(env: Env) -> Any:
            for step in init:
                step(env)
            return last(env)

        return seq


class SelfBinding:
    """For the names ``letrec``, a named let or a body's internal defines bind to lambdas: how
    many assignments of each their region (the inits and the body; the body's forms) holds,
    and how many it may hold: 0 for ``letrec``, 1 for a define (the define itself).

    Counted in one walk over the whole region as it is analyzed (one walk, not one per lambda:
    those met the other forms' defines again). The region is not kept: it holds the lambdas
    whose ``binding`` this is, a cycle that left every dropped body's nodes to the cyclic collector.

    A name bound once to a lambda and assigned nowhere in its region holds that lambda's
    closure, unless a ``set!`` found only at run time (:class:`SetDynamic`, in a task run in
    its caller's frame) writes it: that clears ``Runtime.lexical_self``, and compiled bodies
    then read the name as any other variable."""

    __slots__ = ("allowed", "counts")

    def __init__(self, region: list[Node], names: set[Symbol], allowed: int) -> None:
        counts = dict.fromkeys(names, 0)
        for part in subtree(region):
            for assigned in part.assigned():
                if assigned in counts:
                    counts[assigned] += 1
        self.counts, self.allowed = counts, allowed

    def never_reassigned(self, name: Symbol) -> bool:
        """Whether nothing in the region assigns ``name`` but its own binding."""
        return self.counts.get(name, 0) <= self.allowed


def bind_selves(bindings: Iterable[tuple[Symbol, Node]], region: list[Node], allowed: int) -> None:
    """Note on each lambda of ``bindings`` the name it is bound to and the assignments of it in
    ``region`` (``Lambda.binding``): a call of that name from the lambda's own body, resolved to
    the frame the closure was made in, calls the closure itself (see ``compiler``)."""
    lambdas = [(name, init) for name, init in bindings if type(init) is Lambda]
    if not lambdas:
        return
    shared = SelfBinding(region, {name for name, _ in lambdas}, allowed)
    for name, init in lambdas:
        init.binding = (name, shared)


class Lambda(Node):
    """``lambda``: makes a :class:`Closure` over the current frame."""

    __slots__ = ("binding", "body", "captured", "captures", "defines", "name", "params", "rest", "rt")

    def __init__(
        self,
        params: tuple[Symbol, ...],
        rest: Symbol | None,
        body: Node,
        name: str,
        rt: Runtime,
        defines: tuple[Symbol, ...],
        span: Span | None,
    ) -> None:
        self.params, self.rest, self.body, self.name = params, rest, body, name
        self.rt, self.defines, self.span = rt, defines, span
        self.binding: tuple[Symbol, SelfBinding] | None = None  # see bind_selves
        #: (id of a scope, name) of the variables of enclosing scopes its code uses (analyzer.find)
        self.captures: set[tuple[int, Symbol]] | None = None
        #: For a procedure an internal define binds: which variables of the defining body's
        #: own frame it uses (None: not known); see compiler.lifting.
        self.captured: frozenset[Symbol] | None = None

    #: Closures made before the body's first call that wait for it to be compiled;
    #: past this many the body is compiled at once (closures made and never called
    #: must not pile up).
    MAX_WAITING = 64

    def compile(self, tail: bool) -> Run:
        """A function making closures. The body is compiled on its first call: most
        procedures a program (or the stdlib) defines are never called in a given run."""
        name, rt, params, rest, span = self.name, self.rt, self.params, self.rest, self.span
        compiled: list[Callable[..., Any]] = []
        # held weakly: a waiting closure's run leads here, and a closure dropped before the first
        # call would wait in that cycle, with this lambda's nodes, for the cyclic collector
        waiting: list[weakref.ref[Closure]] = []

        def run_now() -> Callable[..., Any]:
            if not compiled:
                # at the first call: start-up skips the code generator (interpreter.compiler.body)
                compiled.append(compilers.compile_procedure(self))
                for ref in waiting:
                    closure = ref()
                    if closure is not None:
                        closure.run = compiled[0]
                waiting.clear()
            return compiled[0]

        def first_run(env: Env, *args: Any) -> Any:
            return run_now()(env, *args)

        nargs = fixed_count(params, rest)
        allocate = object.__new__

        def make_closure(env: Env) -> Closure:
            if compiled:
                # Closure(...) with its fields stored here: its __init__ and Procedure's are
                # two Python frames, 296 ns a closure against 116
                closure = allocate(Closure)
                closure.name, closure.run, closure.env, closure.rt = name, compiled[0], env, rt
                closure.params, closure.rest, closure.span, closure.nargs = params, rest, span, nargs
                return closure
            if len(waiting) >= self.MAX_WAITING:
                return Closure(name, run_now(), env, rt, params, rest, span)
            closure = Closure(name, first_run, env, rt, params, rest, span)
            waiting.append(weakref.ref(closure))
            return closure

        return make_closure


def make_binder(params: tuple[Symbol, ...], rest: Symbol, defines: tuple[Symbol, ...]) -> Callable[..., Env]:
    """``binder(outer, *args)``: the frame of a procedure with a rest parameter.

    The count is checked before: the body takes its required parameters by name, so Python
    refuses too few (``compiler.body.compile_procedure``), and a body's own self call has a count
    it accepts."""
    n = len(params)

    def bind(outer: Env, *args: Any) -> Env:
        frame = dict.fromkeys(defines, UNASSIGNED)
        frame.update(zip(params, args))
        tail_list: Any = NIL
        for item in reversed(args[n:]):
            tail_list = cons(item, tail_list)
        frame[rest] = tail_list
        return Env(frame, outer)

    return bind


class Call(Node):
    """A procedure call ``(operator operand …)``.

    ``text`` is the call's source (for the backtrace) and ``procedure`` the name of
    the procedure it appears in.
    """

    __slots__ = ("operands", "operator", "procedure", "source")

    def __init__(
        self, operator: Node, operands: list[Node], source: Any, procedure: str | None, span: Span | None
    ) -> None:
        self.operator, self.operands, self.source, self.procedure, self.span = (
            operator,
            operands,
            source,
            procedure,
            span,
        )

    def text(self) -> str:
        return write_abbreviated(self.source, 40)

    def on_error(self, exc: BaseException, f: Any, nargs: int) -> BaseException:
        """The exception to raise once ``exc`` has passed through this call: a SchemeError
        gets this call added to its backtrace; a Python exception is explained first."""
        if isinstance(exc, PASS_THROUGH):
            if isinstance(exc, SchemeError) and exc.wants_frames():
                exc.add_frame(self.text(), self.span, self.procedure)
            exc.__traceback__ = None  # see compiler.body.BodyErrors: deep recursions unwind fast
            return exc
        err = primitive_failure(f, nargs, exc)
        err.add_frame(self.text(), self.span, self.procedure)
        return err

    def compile(self, tail: bool) -> Run:
        return compilers.compile_call(self, tail, BUILTINS, self.on_error)

    def evaluate(self, env: Env) -> Any:
        """The call made once, as its compiled function (``fastpath.CALL``) makes it, without
        writing and compiling that function: 150 us an ``eval`` of a top-level call."""
        f = None
        try:
            f = self.operator.evaluate(env)
            args = [operand.evaluate(env) for operand in self.operands]
            if type(f) is Primitive:
                result = f.fn(*args)
                if type(result) is TailCall:
                    return apply_procedure(result.proc, result.args)
                return result
            return apply_with_caller(f, args, env, False)
        except BaseException as exc:
            raise self.on_error(exc, f, len(self.operands)) from None


def primitive_failure(f: Any, n: int, exc: BaseException) -> SchemeError:
    """Explain a Python exception raised while calling ``f`` with ``n`` arguments."""
    if type(f) is Primitive:
        if isinstance(exc, TypeError) and (n < f.min_args or (f.max_args is not None and n > f.max_args)):
            return arity_error(f.name, f.arity_text(), n)
        return python_exception(exc, f.name)
    return python_exception(exc)
