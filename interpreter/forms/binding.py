"""Binding forms: let, let*, letrec, letrec*, named let, do, let-values, define-values,
parameterize, case-lambda, define-record-type."""

from __future__ import annotations

from typing import Any

from ..analyzer import Analyzer, Scope, defining_form, elements, list_items, special_form, syntax_error
from ..datatypes import NIL, Pair, Span, Symbol, make_list
from ..nodes.binding import CaseLambda, DefineValues, Do, Let, LetValues, NamedLet, Parameterize
from ..nodes.core import Lambda, Node, Seq, bind_selves
from ..nodes.records import DefineRecordType
from .core import make_lambda, parse_params

Items = list[tuple[Any, Span | None]]


def bindings(an: Analyzer, spec: Any, span: Span | None, who: str) -> list[tuple[Symbol, Any, Span | None]]:
    """Parse ``((name init) …)``; ``(name)`` alone is an error."""
    out = []
    if spec is not NIL and type(spec) is not Pair:
        raise syntax_error(f"{who}: expected a list of bindings ((name value) ...)", span)
    for binding, bspan in elements(spec):
        parts = list(elements(binding)) if type(binding) is Pair else []
        if len(parts) != 2 or type(parts[0][0]) is not Symbol:
            raise syntax_error(f"{who}: each binding must be (name value)", bspan)
        out.append((parts[0][0], parts[1][0], parts[1][1]))
    names = [n for n, _, _ in out]
    if who != "let*" and len(set(names)) != len(names):
        raise syntax_error(f"{who}: duplicate name in bindings", span)
    return out


def let_body(
    an: Analyzer, names: list[Symbol], body: Items, scope: Scope | None, span: Span | None
) -> tuple[Node, Scope]:
    """Analyze a body in a new frame holding ``names``."""
    inner = Scope(dict.fromkeys(names, False), scope)
    return an.body(body, inner, span), inner


def defines_of(scope: Scope, names: list[Symbol]) -> tuple[Symbol, ...]:
    return tuple(k for k, checked in scope.vars.items() if checked and k not in names)


@special_form("let")
def let(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    if len(items) >= 2 and type(items[1][0]) is Symbol:
        return named_let(an, form, items, scope)
    if len(items) < 3:
        raise syntax_error("let: expected (let ((name value) ...) body ...)", form.span)
    binds = bindings(an, items[1][0], form.span, "let")
    names = [n for n, _, _ in binds]
    inits = [an.analyze(x, scope, s) for _, x, s in binds]
    body, inner = let_body(an, names, items[2:], scope, form.span)
    return Let(names, inits, body, False, defines_of(inner, names), form.span)


def named_let(an: Analyzer, form: Pair, items: Items, scope: Scope | None) -> Node:
    if len(items) < 4:
        raise syntax_error("let: expected (let name ((var init) ...) body ...)", form.span)
    name = items[1][0]
    binds = bindings(an, items[2][0], form.span, "let")
    inits = [an.analyze(x, scope, s) for _, x, s in binds]
    params = make_list([n for n, _, _ in binds])
    loop_scope = Scope({name: False}, scope)
    proc = make_lambda(an, params, items[3:], loop_scope, name.name, form.span)
    bind_selves([(name, proc)], [proc], 0)
    return NamedLet(name, proc, inits, form.span)


@special_form("let*")
def let_star(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    if len(items) < 3:
        raise syntax_error("let*: expected (let* ((name value) ...) body ...)", form.span)
    binds = bindings(an, items[1][0], form.span, "let*")
    if not binds:
        body, inner = let_body(an, [], items[2:], scope, form.span)
        return Let([], [], body, False, defines_of(inner, []), form.span)
    scopes: list[tuple[Symbol, Node]] = []
    current = scope
    for name, x, s in binds:
        scopes.append((name, an.analyze(x, current, s)))
        current = Scope({name: False}, current)
    assert current is not None
    body = an.body(items[2:], current, form.span)
    node: Node = Let([scopes[-1][0]], [scopes[-1][1]], body, False, defines_of(current, [scopes[-1][0]]), form.span)
    for name, init in reversed(scopes[:-1]):
        node = Let([name], [init], node, False, (), form.span)
    return node


@special_form("letrec", "letrec*")
def letrec(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    who = form.car.name
    if len(items) < 3:
        raise syntax_error(f"{who}: expected ({who} ((name value) ...) body ...)", form.span)
    binds = bindings(an, items[1][0], form.span, who)
    names = [n for n, _, _ in binds]
    inner = Scope(dict.fromkeys(names, True), scope)
    inits = []
    for name, x, s in binds:
        node = an.analyze(x, inner, s)
        if isinstance(node, Lambda) and node.name == "lambda":
            node.name = name.name
        inits.append(node)
    body = an.body(items[2:], inner, form.span)
    if len(set(names)) == len(names):
        bind_selves(zip(names, inits), [*inits, body], 0)
    return Let(names, inits, body, True, defines_of(inner, names), form.span)


@special_form("do")
def do(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    if len(items) < 3 or type(items[2][0]) is not Pair:
        raise syntax_error("do: expected (do ((var init [step]) ...) (test result ...) command ...)", form.span)
    names, inits, steps_src = [], [], []
    for spec, sspan in elements(items[1][0]):
        parts = list(elements(spec)) if type(spec) is Pair else []
        if len(parts) not in (2, 3) or type(parts[0][0]) is not Symbol:
            raise syntax_error("do: each variable must be (var init) or (var init step)", sspan)
        names.append(parts[0][0])
        inits.append(an.analyze(parts[1][0], scope, parts[1][1]))
        steps_src.append(parts[2] if len(parts) == 3 else None)
    inner = Scope(dict.fromkeys(names, False), scope)
    steps = [an.analyze(s[0], inner, s[1]) if s else None for s in steps_src]
    test_clause = list(elements(items[2][0]))
    test = an.analyze(test_clause[0][0], inner, test_clause[0][1])
    result = an.sequence(test_clause[1:], inner, form.span) if len(test_clause) > 1 else Seq([], form.span)
    commands = an.sequence(items[3:], inner, form.span) if len(items) > 3 else None
    return Do(names, inits, steps, test, result, commands, an.rt, form.span)


def formals(spec: Any, span: Span | None, who: str) -> tuple[list[Symbol], Symbol | None]:
    params, rest = parse_params(spec, span, who)
    return list(params), rest


@special_form("let-values", "let*-values")
def let_values(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    who = form.car.name
    if len(items) < 3:
        raise syntax_error(f"{who}: expected ({who} ((formals expr) ...) body ...)", form.span)
    sequential = who == "let*-values"
    inner = Scope({}, scope)
    clauses = []
    for clause, cspan in elements(items[1][0]):
        parts = list(elements(clause)) if type(clause) is Pair else []
        if len(parts) != 2:
            raise syntax_error(f"{who}: each binding must be (formals expr)", cspan)
        names, rest = formals(parts[0][0], cspan, who)
        init = an.analyze(parts[1][0], inner if sequential else scope, parts[1][1])
        clauses.append((names, rest, init))
        for n in names + ([rest] if rest else []):
            inner.vars[n] = False
    body = an.body(items[2:], inner, form.span)
    return LetValues(clauses, body, sequential, defines_of(inner, []), form.span)


@special_form("receive")
def receive(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    if len(items) < 4:
        raise syntax_error("receive: expected (receive formals expr body ...)", form.span)
    names, rest = formals(items[1][0], form.span, "receive")
    init = an.analyze(items[2][0], scope, items[2][1])
    inner = Scope(dict.fromkeys(names + ([rest] if rest else []), False), scope)
    body = an.body(items[3:], inner, form.span)
    return LetValues([(names, rest, init)], body, False, defines_of(inner, []), form.span)


@defining_form("define-values")
def define_values_names(form: Pair) -> list[Symbol]:
    items = list_items(form)
    if len(items) != 3:
        raise syntax_error("define-values: expected (define-values formals expr)", form.span)
    names, rest = formals(items[1][0], form.span, "define-values")
    return names + ([rest] if rest else [])


@special_form("define-values")
def define_values(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    define_values_names(form)
    items = list_items(form)
    names, rest = formals(items[1][0], form.span, "define-values")
    return DefineValues(names, rest, an.analyze(items[2][0], scope, items[2][1]), form.span)


@special_form("parameterize")
def parameterize(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    if len(items) < 3:
        raise syntax_error("parameterize: expected (parameterize ((param value) ...) body ...)", form.span)
    params, values = [], []
    for binding, bspan in elements(items[1][0]):
        parts = list(elements(binding)) if type(binding) is Pair else []
        if len(parts) != 2:
            raise syntax_error("parameterize: each binding must be (param value)", bspan)
        params.append(an.analyze(parts[0][0], scope, parts[0][1]))
        values.append(an.analyze(parts[1][0], scope, parts[1][1]))
    body, inner = let_body(an, [], items[2:], scope, form.span)
    return Parameterize(params, values, Let([], [], body, False, defines_of(inner, []), form.span), form.span)


@special_form("case-lambda")
def case_lambda(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    clauses = []
    for clause, cspan in list_items(form)[1:]:
        parts = list(elements(clause)) if type(clause) is Pair else []
        if len(parts) < 2:
            raise syntax_error("case-lambda: each clause must be (formals body ...)", cspan)
        clauses.append(make_lambda(an, parts[0][0], parts[1:], scope, "case-lambda", cspan))
    return CaseLambda(clauses, "case-lambda", form.span)


@defining_form("define-record-type")
def record_names(form: Pair) -> list[Symbol]:
    items = list_items(form)
    if len(items) < 3:
        raise syntax_error(
            "define-record-type: expected (define-record-type name (ctor field ...) pred? field-spec ...)", form.span
        )
    names: list[Symbol] = []
    type_name = items[1][0]
    names.append(type_name.car if type(type_name) is Pair else type_name)
    ctor = items[2][0]
    if type(ctor) is Pair:
        names.append(ctor.car)
    elif type(ctor) is Symbol:
        names.append(ctor)
    if len(items) > 3 and type(items[3][0]) is Symbol:
        names.append(items[3][0])
    for spec, _ in items[4:]:
        if type(spec) is Pair:
            names.extend(x for x in list(spec)[1:] if type(x) is Symbol)
    if not all(type(n) is Symbol for n in names):
        raise syntax_error("define-record-type: names must be symbols", form.span)
    return names


@special_form("define-record-type")
def define_record_type(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    record_names(form)
    items = list_items(form)
    type_name = items[1][0]
    tname = type_name.car if type(type_name) is Pair else type_name
    fields: list[Symbol] = []
    accessors: list[tuple[Symbol, int, bool]] = []  # (procedure name, field index, is modifier)
    for spec, sspan in items[4:]:
        parts = list(spec) if type(spec) is Pair else [spec]
        if not parts or not all(type(p) is Symbol for p in parts) or len(parts) > 3:
            raise syntax_error("define-record-type: field spec must be (field [accessor [modifier]])", sspan)
        index = len(fields)
        fields.append(parts[0])
        if len(parts) > 1:
            accessors.append((parts[1], index, False))
        if len(parts) > 2:
            accessors.append((parts[2], index, True))
    ctor = items[2][0]
    ctor_name: Symbol | None = None
    ctor_fields: list[int] = list(range(len(fields)))
    if type(ctor) is Pair:
        ctor_name = ctor.car
        ctor_fields = []
        for f in list(ctor)[1:]:
            if f not in fields:
                raise syntax_error(f"define-record-type: constructor field {f} is not a field", form.span)
            ctor_fields.append(fields.index(f))
    elif type(ctor) is Symbol:
        ctor_name = ctor
    pred = items[3][0] if len(items) > 3 and type(items[3][0]) is Symbol else None
    return DefineRecordType(tname, [f.name for f in fields], ctor_name, ctor_fields, pred, accessors, form.span)
