"""Control nodes: and, or, cond, case, guard, delay."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..datatypes import Promise, Span, Symbol, TailCall
from ..env import Env
from ..equality import is_eqv
from ..errors import SchemeError
from ..evaluator import Closure, Runtime, apply_procedure
from .core import VOID, Node, Run


class And(Node):
    __slots__ = ("parts",)

    def __init__(self, parts: list[Node], span: Span | None) -> None:
        self.parts, self.span = parts, span

    def compile(self, tail: bool) -> Run:
        if not self.parts:
            return lambda env: True
        *init, last = [p.compile(False) for p in self.parts[:-1]] + [self.parts[-1].compile(tail)]

        def and_(env: Env) -> Any:
            for part in init:
                if part(env) is False:
                    return False
            return last(env)

        return and_


class Or(Node):
    __slots__ = ("parts",)

    def __init__(self, parts: list[Node], span: Span | None) -> None:
        self.parts, self.span = parts, span

    def compile(self, tail: bool) -> Run:
        if not self.parts:
            return lambda env: False
        *init, last = [p.compile(False) for p in self.parts[:-1]] + [self.parts[-1].compile(tail)]

        def or_(env: Env) -> Any:
            for part in init:
                value = part(env)
                if value is not False:
                    return value
            return last(env)

        return or_


class Clause:
    """One ``cond`` clause: a test, and a body or a ``=>`` receiver (None body: the test's value)."""

    __slots__ = ("body", "receiver", "test")

    def __init__(self, test: Node | None, body: Node | None, receiver: Node | None) -> None:
        self.test, self.body, self.receiver = test, body, receiver


NO_MATCH = object()


def call_receiver(receiver: Any, value: Any, tail: bool) -> Any:
    if tail and type(receiver) is Closure:
        return TailCall(receiver, [value])
    return apply_procedure(receiver, [value])


class Cond(Node):
    """``cond``; ``fallthrough`` is what no matching clause gives (VOID, or NO_MATCH for guard)."""

    __slots__ = ("clauses", "fallthrough")

    def __init__(self, clauses: list[Clause], span: Span | None, fallthrough: Any = VOID) -> None:
        self.clauses, self.span, self.fallthrough = clauses, span, fallthrough

    def compile(self, tail: bool) -> Run:
        compiled = [
            (
                c.test.compile(False) if c.test is not None else None,
                c.body.compile(tail) if c.body is not None else None,
                c.receiver.compile(False) if c.receiver is not None else None,
            )
            for c in self.clauses
        ]
        fallthrough = self.fallthrough

        def cond(env: Env) -> Any:
            for test, body, receiver in compiled:
                if test is None:
                    return body(env)  # type: ignore[misc]
                value = test(env)
                if value is not False:
                    if receiver is not None:
                        return call_receiver(receiver(env), value, tail)
                    return body(env) if body is not None else value
            return fallthrough

        return cond


class Case(Node):
    """``case``: compare the key with ``eqv?`` against each clause's data."""

    __slots__ = ("clauses", "default", "default_receiver", "key")

    def __init__(
        self,
        key: Node,
        clauses: list[tuple[list[Any], Node | None, Node | None]],
        default: Node | None,
        default_receiver: Node | None,
        span: Span | None,
    ) -> None:
        self.key, self.clauses, self.default, self.default_receiver, self.span = (
            key,
            clauses,
            default,
            default_receiver,
            span,
        )

    def compile(self, tail: bool) -> Run:
        key = self.key.compile(False)
        clauses = [
            (data, body.compile(tail) if body else None, recv.compile(False) if recv else None)
            for data, body, recv in self.clauses
        ]
        default = self.default.compile(tail) if self.default else None
        default_recv = self.default_receiver.compile(False) if self.default_receiver else None

        def case(env: Env) -> Any:
            value = key(env)
            for data, body, receiver in clauses:
                if any(is_eqv(value, d) for d in data):
                    if receiver is not None:
                        return call_receiver(receiver(env), value, tail)
                    return body(env)  # type: ignore[misc]
            if default_recv is not None:
                return call_receiver(default_recv(env), value, tail)
            if default is not None:
                return default(env)
            return VOID

        return case


class GuardMarker:
    """On the handler stack, stands for one running ``guard``: ``choose`` runs its clauses'
    tests on a condition and answers ``(clause env, clause index, test value)`` or None."""

    __slots__ = ("choose",)

    def __init__(self, choose: Callable[[Any], tuple[Env, int, Any] | None]) -> None:
        self.choose = choose


def condition_of(err: SchemeError) -> Any:
    """What a handler receives: the raised object, or the error itself."""
    return err.payload if err.kind == "raise" else err


def raise_continuable(ctx: Any, obj: Any, uncaught: SchemeError) -> Any:
    """``(raise-continuable obj)`` in the branch context ``ctx``: the value of the innermost
    handler that takes it (R7RS 6.11).

    Each handler runs where ``raise-continuable`` was called, with the handlers outside it
    installed. A ``guard`` takes it when one of its clauses' tests holds: the exception
    then unwinds to that guard, which runs the chosen clause (its tests are not run
    again). A guard none of whose tests holds passes it on, still in the dynamic
    environment of the raise, to the handler outside (R7RS 4.2.7: so the outer handler's
    value is the value of ``raise-continuable``). No handler left: ``uncaught`` is raised.
    An exception escaping a handler at level k is marked so that the guards and handlers
    at level k and inside it let it pass (it belongs to the handlers outside)."""
    handlers = ctx.handlers
    level = len(handlers)
    while level > 0:
        level -= 1
        handler = handlers[level]
        inner = handlers[level:]
        del handlers[level:]
        try:
            if type(handler) is GuardMarker:
                chosen = handler.choose(obj)
                if chosen is not None:
                    uncaught.dispatched = (level, (handler, *chosen))
                    raise uncaught
                continue
            return apply_procedure(handler, [obj])
        except SchemeError as err:
            if err.dispatched is None:
                err.dispatched = (level, None)
            raise
        finally:
            handlers.extend(inner)
    uncaught.dispatched = (0, None)
    raise uncaught


def passes_through(err: SchemeError, level: int) -> bool:
    """Whether a handler installed at ``level`` must let ``err`` pass (see :func:`raise_continuable`);
    if not, the mark is cleared, as the exception is handled here."""
    if err.dispatched is not None and level >= err.dispatched[0]:
        return True
    err.dispatched = None
    return False


class Guard(Node):
    """``(guard (var clause …) body …)``: cond clauses over the raised condition."""

    __slots__ = ("body", "clauses", "rt", "var")

    def __init__(self, var: Symbol, clauses: Cond, body: Node, rt: Runtime, span: Span | None) -> None:
        self.var, self.clauses, self.body, self.rt, self.span = var, clauses, body, rt, span

    def compile(self, tail: bool) -> Run:
        var, body, rt = self.var, self.body.compile(False), self.rt
        clauses = [
            (
                c.test.compile(False) if c.test is not None else None,
                c.body.compile(False) if c.body is not None else None,
                c.receiver.compile(False) if c.receiver is not None else None,
            )
            for c in self.clauses.clauses
        ]

        def choose(env: Env, condition: Any) -> tuple[Env, int, Any] | None:
            """The first clause whose test holds: (its env, its index, the test's value)."""
            inner = Env({var: condition}, env)
            for index, (test, _, _) in enumerate(clauses):
                if test is None:
                    return inner, index, True
                value = test(inner)
                if value is not False:
                    return inner, index, value
            return None

        def run(inner: Env, index: int, value: Any) -> Any:
            _, clause_body, receiver = clauses[index]
            if receiver is not None:
                return call_receiver(receiver(inner), value, False)
            return clause_body(inner) if clause_body is not None else value

        def guard(env: Env) -> Any:
            ctx = rt.current()
            depth, level = ctx.depth, len(ctx.handlers)
            marker = GuardMarker(lambda condition: choose(env, condition))
            ctx.handlers.append(marker)
            try:
                return body(env)
            except SchemeError as err:
                ctx.depth = depth
                del ctx.handlers[level:]
                if err.kind == "resource-exhaustion" and getattr(err, "uncatchable", False):
                    raise
                dispatched = err.dispatched
                if dispatched is not None and dispatched[1] is not None and dispatched[1][0] is marker:
                    err.dispatched = None
                    return run(*dispatched[1][1:])
                if passes_through(err, level):
                    raise
                chosen = choose(env, condition_of(err))
                if chosen is None:
                    raise
                return run(*chosen)
            finally:
                del ctx.handlers[level:]

        return guard


class Delay(Node):
    """``delay`` / ``delay-force``: a promise of the body's value in this frame."""

    __slots__ = ("body", "is_stream")

    def __init__(self, body: Node, is_stream: bool, span: Span | None) -> None:
        self.body, self.is_stream, self.span = body, is_stream, span

    def compile(self, tail: bool) -> Run:
        body, is_stream = self.body.compile(False), self.is_stream
        return lambda env: Promise(thunk=lambda: body(env), is_stream=is_stream)


def force(value: Any) -> Any:
    """Force a promise (iteratively, so long ``delay-force`` chains use constant stack)."""
    if type(value) is not Promise:
        return value
    promise = value
    while not promise.done:
        thunk = promise.thunk
        assert thunk is not None
        result = thunk()
        if promise.done:
            break
        if promise.is_stream and type(result) is Promise:
            if result.done:
                promise.done, promise.value, promise.thunk = True, result.value, None
            else:
                promise.thunk, promise.is_stream = result.thunk, result.is_stream
        else:
            promise.done, promise.value, promise.thunk = True, result, None
    return promise.value
