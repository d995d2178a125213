"""Binding nodes: let frames, named let, do loops, multiple values, parameterize."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..datatypes import NIL, Parameter, Procedure, Span, Symbol, TailCall, Values, cons
from ..env import Env
from ..errors import SchemeError, type_error
from ..evaluator import UNASSIGNED, Closure, apply_procedure
from .core import VOID, Lambda, Node, Run


class Let(Node):
    """A new frame binding ``names`` to ``inits`` (evaluated outside it), then ``body``.

    With ``sequential`` the inits are evaluated inside the new frame in order, each
    name bound as soon as its value is known (``letrec*``; ``letrec`` behaves the same).
    ``defines`` are the body's internal definitions, made unassigned up front.
    """

    __slots__ = ("body", "defines", "inits", "names", "sequential")

    def __init__(
        self,
        names: list[Symbol],
        inits: list[Node],
        body: Node,
        sequential: bool,
        defines: tuple[Symbol, ...],
        span: Span | None,
    ) -> None:
        self.names, self.inits, self.body, self.sequential = names, inits, body, sequential
        self.defines, self.span = defines, span

    def compile(self, tail: bool) -> Run:
        names, body = self.names, self.body.compile(tail)
        inits = [i.compile(False) for i in self.inits]
        pre = dict.fromkeys(self.defines, UNASSIGNED)
        if self.sequential:
            pairs = list(zip(names, inits))
            blank = {**dict.fromkeys(names, UNASSIGNED), **pre}

            def letrec(env: Env) -> Any:
                frame = Env(dict(blank), env)
                values = frame.vars
                for name, init in pairs:
                    values[name] = init(frame)
                return body(frame)

            return letrec
        if len(names) == 1 and not pre:
            (name,), (init,) = names, inits

            def let1(env: Env) -> Any:
                return body(Env({name: init(env)}, env))

            return let1

        def let(env: Env) -> Any:
            values = dict(zip(names, [i(env) for i in inits]))
            if pre:
                for key in pre:
                    values.setdefault(key, UNASSIGNED)
            return body(Env(values, env))

        return let


class NamedLet(Node):
    """``(let loop ((v init) …) body)``: a frame holding ``loop``, then a call of it."""

    __slots__ = ("inits", "name", "proc")

    def __init__(self, name: Symbol, proc: Lambda, inits: list[Node], span: Span | None) -> None:
        self.name, self.proc, self.inits, self.span = name, proc, inits, span

    def compile(self, tail: bool) -> Run:
        from .release import procedures_stay_inside  # reason: circle binding <-> release (nodes/__init__)

        name, make = self.name, self.proc.compile(False)
        inits = [i.compile(False) for i in self.inits]
        # Not in tail position, the frame and the loop's closure (a cycle) are emptied once
        # the loop is done, if the closure cannot have escaped (see nodes/release.py).
        release = not tail and procedures_stay_inside([name], [self.proc], [self.proc])

        def named_let(env: Env) -> Any:
            args = [i(env) for i in inits]
            frame = Env({}, env)
            loop = make(frame)
            frame.vars[name] = loop
            if tail:
                return TailCall(loop, args)
            value = apply_procedure(loop, args)
            if release:
                frame.vars.clear()
            return value

        return named_let


class Do(Node):
    """``do``: a loop run as a Python loop, with a fresh frame per iteration."""

    __slots__ = ("commands", "inits", "names", "result", "rt", "steps", "test")

    def __init__(
        self,
        names: list[Symbol],
        inits: list[Node],
        steps: list[Node | None],
        test: Node,
        result: Node,
        commands: Node | None,
        rt: Any,
        span: Span | None,
    ) -> None:
        self.names, self.inits, self.steps, self.test = names, inits, steps, test
        self.result, self.commands, self.rt, self.span = result, commands, rt, span

    def compile(self, tail: bool) -> Run:
        names, rt = self.names, self.rt
        inits = [i.compile(False) for i in self.inits]
        steps = [(n, s.compile(False)) for n, s in zip(self.names, self.steps) if s is not None]
        test, result = self.test.compile(False), self.result.compile(tail)
        commands = self.commands.compile(False) if self.commands is not None else None

        def do(env: Env) -> Any:
            frame = Env(dict(zip(names, [i(env) for i in inits])), env)
            while test(frame) is False:
                if commands is not None:
                    commands(frame)
                values = dict(frame.vars)
                for name, step in steps:
                    values[name] = step(frame)
                frame = Env(values, env)
                rt.steps += 1
                if rt.steps >= rt.check_at:
                    rt.check()
            return result(frame)

        return do


def values_list(value: Any) -> list[Any]:
    """The values a (possibly multiple-valued) result holds."""
    return list(value.items) if type(value) is Values else [value]


def unpacked_values(names: list[Symbol], span: Any, value: Any, rest: Symbol | None = None) -> list[Any]:
    """The values of ``value`` for the formals ``names`` (then, with a ``rest`` formal, the
    list of the others), or the arity error ``let-values`` gives (for compiled bodies,
    which unpack the fixed-count case inline and call this for a wrong count or a rest)."""
    target: dict[Symbol, Any] = {}
    bind_formals(names, rest, values_list(value), target, span)
    return [target[name] for name in names] + ([target[rest]] if rest is not None else [])


def consumer_values(consumer: Any, value: Any, count: int) -> list[Any]:
    """The values of ``value`` for a ``call-with-values`` consumer of ``count`` parameters
    that compiled code inlined; a wrong count applies ``consumer``, which raises the
    arity error the call gives."""
    values = values_list(value)
    if len(values) != count:
        apply_procedure(consumer, values)
        raise AssertionError("a fixed-arity consumer accepted the wrong count")  # unreachable
    return values


def bind_formals(
    names: list[Symbol], rest: Symbol | None, values: list[Any], target: dict[Symbol, Any], span: Any
) -> None:
    """Bind ``values`` to formals (``(a b . rest)``) in ``target``."""
    if len(values) < len(names) or (rest is None and len(values) != len(names)):
        want = f"{len(names)}" if rest is None else f"at least {len(names)}"
        raise SchemeError(f"expected {want} values, got {len(values)}", kind="arity-error", span=span)
    target.update(zip(names, values))
    if rest is not None:
        tail: Any = NIL
        for item in reversed(values[len(names) :]):
            tail = cons(item, tail)
        target[rest] = tail


class LetValues(Node):
    """``let-values`` / ``let*-values``: bind formals to the values of each init."""

    __slots__ = ("body", "clauses", "defines", "sequential")

    def __init__(
        self,
        clauses: list[tuple[list[Symbol], Symbol | None, Node]],
        body: Node,
        sequential: bool,
        defines: tuple[Symbol, ...],
        span: Span | None,
    ) -> None:
        self.clauses, self.body, self.sequential, self.defines, self.span = clauses, body, sequential, defines, span

    def compile(self, tail: bool) -> Run:
        clauses = [(names, rest, init.compile(False)) for names, rest, init in self.clauses]
        body, sequential, span, defines = self.body.compile(tail), self.sequential, self.span, self.defines

        def let_values(env: Env) -> Any:
            frame = Env(dict.fromkeys(defines, UNASSIGNED), env)
            for names, rest, init in clauses:
                bind_formals(names, rest, values_list(init(frame if sequential else env)), frame.vars, span)
            return body(frame)

        return let_values


class DefineValues(Node):
    """``(define-values formals expr)`` in the current frame."""

    __slots__ = ("names", "rest", "value")

    def __init__(self, names: list[Symbol], rest: Symbol | None, value: Node, span: Span | None) -> None:
        self.names, self.rest, self.value, self.span = names, rest, value, span

    def assigned(self) -> Iterable[Symbol]:
        return [*self.names, *([self.rest] if self.rest is not None else [])]

    def compile(self, tail: bool) -> Run:
        names, rest, value, span = self.names, self.rest, self.value.compile(False), self.span

        def define_values(env: Env) -> Any:
            bind_formals(names, rest, values_list(value(env)), env.vars, span)
            return VOID

        return define_values


class Parameterize(Node):
    """``parameterize``: give parameter objects new values for the body's extent."""

    __slots__ = ("body", "params", "values")

    def __init__(self, params: list[Node], values: list[Node], body: Node, span: Span | None) -> None:
        self.params, self.values, self.body, self.span = params, values, body, span

    def compile(self, tail: bool) -> Run:
        params = [p.compile(False) for p in self.params]
        values = [v.compile(False) for v in self.values]
        body = self.body.compile(False)

        def parameterize(env: Env) -> Any:
            objs = [p(env) for p in params]
            new = [v(env) for v in values]
            for obj in objs:
                if type(obj) is not Parameter:
                    raise type_error("parameterize", "a parameter object", obj)
            new = [apply_procedure(o.converter, [v]) if o.converter is not None else v for o, v in zip(objs, new)]
            saved = [o.value for o in objs]
            for obj, value in zip(objs, new):
                obj.value = value
            try:
                return body(env)
            finally:
                for obj, value in zip(objs, saved):
                    obj.value = value

        return parameterize


class CaseLambdaProcedure(Procedure):
    """A procedure made by ``case-lambda``: the first clause whose arity fits runs."""

    __slots__ = ("clauses",)

    def __init__(self, name: str, clauses: list[Closure]) -> None:
        super().__init__(name)
        self.clauses = clauses

    def apply(self, args: list[Any]) -> Any:
        n = len(args)
        for clause in self.clauses:
            if n == len(clause.params) or (clause.rest is not None and n >= len(clause.params)):
                return TailCall(clause, args)
        raise SchemeError(f"{self.name}: no clause accepts {n} argument{'s' if n != 1 else ''}", kind="arity-error")

    def __repr__(self) -> str:
        return f"#<procedure {self.name}>"


class CaseLambda(Node):
    """``case-lambda``: closures for each clause, dispatched on argument count."""

    __slots__ = ("clauses", "name")

    def __init__(self, clauses: list[Lambda], name: str, span: Span | None) -> None:
        self.clauses, self.name, self.span = clauses, name, span

    def compile(self, tail: bool) -> Run:
        makers = [c.compile(False) for c in self.clauses]
        name = self.name

        def case_lambda(env: Env) -> Any:
            return CaseLambdaProcedure(name, [m(env) for m in makers])

        return case_lambda
