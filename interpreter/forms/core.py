"""Core special forms: quote, if, define, set!, lambda, begin."""

from __future__ import annotations

from typing import Any

from ..analyzer import Analyzer, Scope, defining_form, in_dynamic_scope, list_items, special_form, syntax_error
from ..datatypes import NIL, VOID, Pair, Span, Symbol, cons, make_list, spine
from ..nodes.core import Const, Define, If, Lambda, Node, Seq, SetDynamic, SetGlobal, SetLocal


@special_form("quote")
def quote(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    if len(items) != 2:
        raise syntax_error("quote: expected exactly one datum: (quote datum)", form.span)
    return Const(items[1][0], form.span)


@special_form("if")
def if_(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    if len(items) not in (3, 4):
        raise syntax_error("if: expected (if test then) or (if test then else)", form.span)
    test, then = (an.expression(x, scope, s) for x, s in items[1:3])
    otherwise = an.expression(items[3][0], scope, items[3][1]) if len(items) == 4 else None
    return If(test, then, otherwise, form.span)


def parse_params(spec: Any, span: Span | None, who: str) -> tuple[tuple[Symbol, ...], Symbol | None]:
    """``(a b . rest)``, ``args`` or ``()`` to (required names, rest name or None)."""
    params: list[Symbol] = []
    p = spec
    for cell in spine(spec, who):
        if type(cell.car) is not Symbol:
            raise syntax_error(f"{who}: parameter must be a symbol, got {cell.car!r}", span)
        params.append(cell.car)
        p = cell.cdr
    rest = None
    if p is not NIL:
        if type(p) is not Symbol:
            raise syntax_error(f"{who}: bad parameter list", span)
        rest = p
    names = params + ([rest] if rest else [])
    if len(set(names)) != len(names):
        raise syntax_error(f"{who}: duplicate parameter name", span)
    return tuple(params), rest


def make_lambda(
    an: Analyzer,
    spec: Any,
    body: list[tuple[Any, Span | None]],
    scope: Scope | None,
    name: str,
    span: Span | None,
) -> Lambda:
    """The node for a procedure with parameter list ``spec`` and ``body``."""
    params, rest = parse_params(spec, span, name if name != "lambda" else "lambda")
    inner = Scope(dict.fromkeys(params + ((rest,) if rest else ()), False), scope, name)
    inner.captures = set()
    body_node = an.body(body, inner, span)
    defines = tuple(k for k, checked in inner.vars.items() if checked)
    node = Lambda(params, rest, body_node, name, an.rt, defines, span)
    node.captures = inner.captures
    if defines:
        note_captured(body_node, inner)
    return node


def note_captured(body: Node, scope: Scope) -> None:
    """Tell each procedure the body defines which of the body's own variables (parameters
    and defines) it captures (``Lambda.captured``, for ``compiler.lifting``)."""
    for part in body.body if type(body) is Seq else [body]:
        if type(part) is Define and type(part.value) is Lambda and part.value.captures is not None:
            part.value.captured = frozenset(name for home, name in part.value.captures if home == id(scope))
            part.value.captures = None  # read once, here


@special_form("lambda")
def lambda_(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    if len(items) < 3:
        raise syntax_error("lambda: expected (lambda (params ...) body ...)", form.span)
    return make_lambda(an, items[1][0], items[2:], scope, "lambda", form.span)


@special_form("named-lambda")
def named_lambda(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    if len(items) < 3 or type(items[1][0]) is not Pair or type(items[1][0].car) is not Symbol:
        raise syntax_error("named-lambda: expected (named-lambda (name params ...) body ...)", form.span)
    spec = items[1][0]
    return make_lambda(an, spec.cdr, items[2:], scope, spec.car.name, form.span)


def define_target(form: Pair) -> tuple[Symbol, Any]:
    """The name a ``define`` binds and the (possibly curried) header after it."""
    items = list_items(form)
    if len(items) < 2:
        raise syntax_error("define: expected (define name value) or (define (name params ...) body ...)", form.span)
    target = items[1][0]
    headers: set[int] = set()  # (define ((curried a) b) …) nests headers in the car
    while type(target) is Pair:
        if id(target) in headers:
            raise syntax_error("define: the header contains itself", form.span)
        headers.add(id(target))
        target = target.car
    if type(target) is not Symbol:
        raise syntax_error("define: the name must be a symbol", form.span)
    return target, items[1][0]


@defining_form("define")
def define_names(form: Pair) -> list[Symbol]:
    return [define_target(form)[0]]


@special_form("define")
def define(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    name, header = define_target(form)
    items = list_items(form)
    if type(header) is Symbol:
        if len(items) > 3:
            raise syntax_error(f"define: too many expressions for variable {name.name}", form.span)
        if len(items) == 2:
            return Define(name, Const(VOID, form.span), form.span)
        value = items[2]
        node = an.expression(value[0], scope, value[1])
        if isinstance(node, Lambda) and node.name == "lambda":
            node.name = name.name
        return Define(name, node, form.span)
    if len(items) < 3:
        raise syntax_error(f"define: procedure {name.name} has no body", form.span)
    # (define ((curried a) b) body): the header's head is itself a header.
    spec, body = header, items[2:]
    while type(spec.car) is Pair:
        inner = cons(cons(Symbol.intern("lambda"), cons(spec.cdr, make_list(x for x, _ in body)), form.span), NIL)
        body = [(inner.car, form.span)]
        spec = spec.car
    return Define(name, make_lambda(an, spec.cdr, body, scope, name.name, form.span), form.span)


@special_form("set!")
def set_(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    if len(items) != 3 or type(items[1][0]) is not Symbol:
        raise syntax_error("set!: expected (set! name value)", form.span)
    name = items[1][0]
    value = an.analyze(items[2][0], scope, items[2][1])
    found = an.resolve(name, scope)
    if found is None and in_dynamic_scope(scope):
        return SetDynamic(name, value, form.span, an.rt.lexical_self)
    if found is None:
        return SetGlobal(name, an.gvars, value, form.span)
    return SetLocal(name, found[0], value, form.span)


@special_form("begin")
def begin(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)[1:]
    if not items:
        return Seq([], form.span)
    return an.sequence(items, scope, form.span)
