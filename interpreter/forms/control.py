"""Control forms: and, or, when, unless, cond, case, guard, delay, delay-force, assert, quasiquote."""

from __future__ import annotations

from typing import Any

from ..analyzer import Analyzer, Scope, elements, list_items, special_form, syntax_error
from ..datatypes import (
    NIL,
    S_ARROW,
    S_ELSE,
    S_QUASIQUOTE,
    S_UNQUOTE,
    S_UNQUOTE_SPLICING,
    Pair,
    Primitive,
    Span,
    Symbol,
    cons,
    datum_leaves,
    list_to_python,
    make_list,
    spine,
)
from ..errors import SchemeError, type_error
from ..nodes.binding import Let
from ..nodes.control import NO_MATCH, And, Case, Clause, Cond, Delay, Guard, Or
from ..nodes.core import VOID, Call, Const, If, Node, Seq
from ..printer import write_string
from .binding import defines_of, let_body


@special_form("and")
def and_(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    return And([an.analyze(x, scope, s) for x, s in list_items(form)[1:]], form.span)


@special_form("or")
def or_(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    return Or([an.analyze(x, scope, s) for x, s in list_items(form)[1:]], form.span)


@special_form("when", "unless")
def when(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    if len(items) < 3:
        raise syntax_error(f"{form.car}: expected ({form.car} test body ...)", form.span)
    test = an.analyze(items[1][0], scope, items[1][1])
    body = an.sequence(items[2:], scope, form.span)
    if form.car.name == "when":
        return If(test, body, None, form.span)
    return If(test, Const(VOID, form.span), body, form.span)


def cond_clauses(an: Analyzer, clauses: list[tuple[Any, Span | None]], scope: Scope | None, who: str) -> list[Clause]:
    out = []
    for i, (clause, span) in enumerate(clauses):
        parts = list(elements(clause)) if type(clause) is Pair else []
        if not parts:
            raise syntax_error(f"{who}: each clause must be (test body ...)", span)
        if parts[0][0] is S_ELSE and an.resolve(S_ELSE, scope) is None:
            if i != len(clauses) - 1:
                raise syntax_error(f"{who}: else must be the last clause", span)
            if len(parts) < 2:
                raise syntax_error(f"{who}: else clause needs a body", span)
            out.append(Clause(None, an.sequence(parts[1:], scope, span), None))
            continue
        test = an.analyze(parts[0][0], scope, parts[0][1])
        if len(parts) >= 2 and parts[1][0] is S_ARROW and an.resolve(S_ARROW, scope) is None:
            if len(parts) != 3:
                raise syntax_error(f"{who}: expected (test => receiver)", span)
            out.append(Clause(test, None, an.analyze(parts[2][0], scope, parts[2][1])))
        else:
            body = an.sequence(parts[1:], scope, span) if len(parts) > 1 else None
            out.append(Clause(test, body, None))
    return out


@special_form("cond")
def cond(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    return Cond(cond_clauses(an, list_items(form)[1:], scope, "cond"), form.span)


@special_form("case")
def case(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    if len(items) < 2:
        raise syntax_error("case: expected (case key clause ...)", form.span)
    key = an.analyze(items[1][0], scope, items[1][1])
    clauses: list[tuple[list[Any], Node | None, Node | None]] = []
    default = default_recv = None
    for i, (clause, span) in enumerate(items[2:]):
        parts = list(elements(clause)) if type(clause) is Pair else []
        if len(parts) < 2:
            raise syntax_error("case: each clause must be ((datum ...) body ...)", span)
        arrow = parts[1][0] is S_ARROW and an.resolve(S_ARROW, scope) is None
        if arrow and len(parts) != 3:
            raise syntax_error("case: expected ((datum ...) => receiver)", span)
        body = None if arrow else an.sequence(parts[1:], scope, span)
        recv = an.analyze(parts[2][0], scope, parts[2][1]) if arrow else None
        if parts[0][0] is S_ELSE:
            if i != len(items) - 3:
                raise syntax_error("case: else must be the last clause", span)
            default, default_recv = body, recv
            continue
        try:
            data = list_to_python(parts[0][0])
        except ValueError:
            raise syntax_error("case: clause data must be a list", span) from None
        clauses.append((data, body, recv))
    return Case(key, clauses, default, default_recv, form.span)


@special_form("guard")
def guard(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    if len(items) < 3 or type(items[1][0]) is not Pair or type(items[1][0].car) is not Symbol:
        raise syntax_error("guard: expected (guard (var clause ...) body ...)", form.span)
    spec = list(elements(items[1][0]))
    var = spec[0][0]
    inner = Scope({var: False}, scope)
    clauses = Cond(cond_clauses(an, spec[1:], inner, "guard"), form.span, fallthrough=NO_MATCH)
    body, body_scope = let_body(an, [], items[2:], scope, form.span)
    return Guard(var, clauses, Let([], [], body, False, defines_of(body_scope, []), form.span), an.rt, form.span)


@special_form("delay", "delay-force", "make-promise-lazy")
def delay(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    if len(items) != 2:
        raise syntax_error(f"{form.car}: expected ({form.car} expression)", form.span)
    return Delay(an.analyze(items[1][0], scope, items[1][1]), form.car.name != "delay", form.span)


@special_form("cons-stream")
def cons_stream(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    if len(items) != 3:
        raise syntax_error("cons-stream: expected (cons-stream head tail)", form.span)
    head = an.analyze(items[1][0], scope, items[1][1])
    return Call(
        Const(CONS),
        [head, Delay(an.analyze(items[2][0], scope, items[2][1]), False, form.span)],
        form,
        scope.procedure if scope else None,
        form.span,
    )


def _assertion_failed(text: str) -> Any:
    raise SchemeError(f"assertion failed: {text}", kind="assertion")


@special_form("assert")
def assert_(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    if len(items) != 2:
        raise syntax_error("assert: expected (assert expression)", form.span)
    fail = Primitive("assert", _assertion_failed, 1, 1)
    text = write_string(items[1][0])
    report = Call(Const(fail), [Const(text)], form, scope.procedure if scope else None, form.span)
    return If(an.analyze(items[1][0], scope, items[1][1]), Const(VOID), report, form.span)


# -- quasiquote ------------------------------------------------------------------------
def _append2(spliced: Any, rest: Any) -> Any:
    try:
        items = list_to_python(spliced)
    except ValueError:
        raise type_error("unquote-splicing", "a proper list", spliced) from None
    return make_list(items, rest)


def _list_to_vector(lst: Any) -> list[Any]:
    return list_to_python(lst)


CONS = Primitive("cons", cons, 2, 2)
APPEND2 = Primitive("unquote-splicing", _append2, 2, 2)
LIST_TO_VECTOR = Primitive("list->vector", _list_to_vector, 1, 1)


def has_unquote(x: Any) -> bool:
    """Whether a quasiquoted template has any unquote at all (else it is a constant)."""
    return any(leaf is S_UNQUOTE or leaf is S_UNQUOTE_SPLICING for leaf in datum_leaves(x))


#: Stands for a quasiquote tag that a local binding has turned into an ordinary symbol.
_NO_TAG = Symbol("unquote (locally bound)")


def is_tagged(x: Any, tag: Symbol) -> bool:
    return type(x) is Pair and x.car is tag and type(x.cdr) is Pair and x.cdr.cdr is NIL


class Quasi:
    """Builds the nodes for one quasiquote template.

    ``unquote`` and ``unquote-splicing`` lose their meaning where they are bound as
    local variables (hygiene): ``(let ((unquote list)) `(,x))`` is ``((unquote x))``.
    """

    def __init__(self, an: Analyzer, scope: Scope | None, form: Pair) -> None:
        self.an, self.scope, self.form = an, scope, form
        self.unquote = _NO_TAG if an.resolve(S_UNQUOTE, scope) is not None else S_UNQUOTE
        self.splice = _NO_TAG if an.resolve(S_UNQUOTE_SPLICING, scope) is not None else S_UNQUOTE_SPLICING

    def call(self, prim: Primitive, args: list[Node]) -> Node:
        return Call(Const(prim), args, self.form, self.scope.procedure if self.scope else None, self.form.span)

    def build(self, x: Any, depth: int) -> Node:
        if not has_unquote(x):
            return Const(x, self.form.span)
        if type(x) is list:
            return self.call(LIST_TO_VECTOR, [self.build(make_list(x), depth)])
        if type(x) is not Pair:
            return Const(x, self.form.span)
        if is_tagged(x, self.unquote):
            if depth == 1:
                return self.an.analyze(x.cdr.car, self.scope, x.span or self.form.span)
            return self.tagged(S_UNQUOTE, x.cdr.car, depth - 1)
        if is_tagged(x, S_QUASIQUOTE):
            return self.tagged(S_QUASIQUOTE, x.cdr.car, depth + 1)
        # A list: walk its spine iteratively, then build from the tail back.
        items: list[Any] = []
        p = x
        for cell in spine(x, "quasiquote"):
            if is_tagged(cell, self.unquote):
                break
            items.append(cell.car)
            p = cell.cdr
        node = self.build(p, depth) if p is not NIL else Const(NIL)
        for item in reversed(items):
            if is_tagged(item, self.splice) and depth == 1:
                node = self.call(APPEND2, [self.an.analyze(item.cdr.car, self.scope, self.form.span), node])
            elif is_tagged(item, self.splice):
                node = self.call(CONS, [self.tagged(S_UNQUOTE_SPLICING, item.cdr.car, depth - 1), node])
            else:
                node = self.call(CONS, [self.build(item, depth), node])
        return node

    def tagged(self, tag: Symbol, inner: Any, depth: int) -> Node:
        return self.call(CONS, [Const(tag), self.call(CONS, [self.build(inner, depth), Const(NIL)])])


@special_form("quasiquote")
def quasiquote(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    if len(items) != 2:
        raise syntax_error("quasiquote: expected exactly one template", form.span)
    return Quasi(an, scope, form).build(items[1][0], 1)


@special_form("unquote", "unquote-splicing")
def unquote(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    raise syntax_error(f"{form.car}: not inside a quasiquote", form.span)


__all__ = ["Seq"]
