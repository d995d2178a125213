"""Control nodes: and, or, cond, case, guard, delay."""

from __future__ import annotations

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
    """On the handler stack, stands for a ``guard``: raise-continuable unwinds to it."""

    __slots__ = ()


GUARD = GuardMarker()


def condition_of(err: SchemeError) -> Any:
    """What a handler receives: the raised object, or the error itself."""
    return err.payload if err.kind == "raise" else err


class Guard(Node):
    """``(guard (var clause …) body …)``: cond clauses over the raised condition."""

    __slots__ = ("body", "clauses", "rt", "var")

    def __init__(self, var: Symbol, clauses: Cond, body: Node, rt: Runtime, span: Span | None) -> None:
        self.var, self.clauses, self.body, self.rt, self.span = var, clauses, body, rt, span

    def compile(self, tail: bool) -> Run:
        var, body, rt = self.var, self.body.compile(False), self.rt
        clauses = self.clauses.compile(False)

        def guard(env: Env) -> Any:
            ctx = rt.current()
            depth, handlers = ctx.depth, len(ctx.handlers)
            ctx.handlers.append(GUARD)
            try:
                return body(env)
            except SchemeError as err:
                ctx.depth = depth
                del ctx.handlers[handlers:]
                if err.kind == "resource-exhaustion" and getattr(err, "uncatchable", False):
                    raise
                result = clauses(Env({var: condition_of(err)}, env))
                if result is NO_MATCH:
                    raise
                return result
            finally:
                del ctx.handlers[handlers:]

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
