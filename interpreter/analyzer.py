"""The analyzer: Scheme data to AST nodes.

Special forms come from one registry, :data:`SPECIAL_FORMS` (name to builder);
a module adds a form with ``@special_form("name")`` and the core does not change.
Variables are resolved here, once, to a frame depth (or to the global frame),
and malformed forms are syntax errors that point at their source.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .datatypes import NIL, Pair, Span, Symbol, sym
from .errors import SchemeError
from .nodes.core import Call, Const, GlobalRef, LocalRef, Node, Seq

if TYPE_CHECKING:
    from .interpreter import Interpreter

Builder = Callable[["Analyzer", Pair, "Scope | None"], Node]

#: Special form builders by name. Extended with :func:`special_form`.
SPECIAL_FORMS: dict[Symbol, Builder] = {}

#: Forms a body scans for the names they define, mapped to a function giving those names.
DEFINING_FORMS: dict[Symbol, Callable[[Pair], list[Symbol]]] = {}


def special_form(*names: str) -> Callable[[Builder], Builder]:
    """Register a builder for the special form(s) ``names``."""

    def register(builder: Builder) -> Builder:
        for name in names:
            SPECIAL_FORMS[sym(name)] = builder
        return builder

    return register


def defining_form(name: str) -> Callable[[Callable[[Pair], list[Symbol]]], Callable[[Pair], list[Symbol]]]:
    """Register how to find the names a body-level defining form binds."""

    def register(fn: Callable[[Pair], list[Symbol]]) -> Callable[[Pair], list[Symbol]]:
        DEFINING_FORMS[sym(name)] = fn
        return fn

    return register


class Scope:
    """The compile-time picture of one runtime frame: its names, macros and procedure."""

    __slots__ = ("macros", "outer", "procedure", "vars")

    def __init__(self, names: dict[Symbol, bool], outer: Scope | None, procedure: str | None = None) -> None:
        self.vars = names  # name -> may be read before it is assigned (letrec, internal define)
        self.outer = outer
        self.macros: dict[Symbol, Any] = {}
        self.procedure = procedure if procedure is not None else (outer.procedure if outer else None)


class Macro:
    """A syntax transformer: ``expand(form, analyzer, scope) -> datum``."""

    def expand(self, form: Pair, analyzer: Analyzer, scope: Scope | None) -> Any:
        raise NotImplementedError


def syntax_error(message: str, span: Span | None) -> SchemeError:
    return SchemeError(message, kind="syntax-error", span=span)


def elements(form: Any) -> Iterator[tuple[Any, Span | None]]:
    """(element, span) for each element of a list read from source."""
    p = form
    first = True
    span = form.span if type(form) is Pair else None
    while type(p) is Pair:
        if not first and p.span is not None:
            span = p.span
        yield p.car, (p.car.span if type(p.car) is Pair and p.car.span else span)
        first = False
        p = p.cdr


def form_span(form: Any, default: Span | None = None) -> Span | None:
    return form.span if type(form) is Pair and form.span is not None else default


class Analyzer:
    """Turns data into nodes for one interpreter (its globals, runtime and macros)."""

    def __init__(self, interp: Interpreter) -> None:
        self.interp = interp
        self.gvars = interp.global_env.vars
        self.rt = interp.runtime
        self.macros: dict[Symbol, Any] = {}
        self.operator_fallback: Callable[[Symbol], Any] | None = None
        self.current_file = "<string>"

    # -- lookup --------------------------------------------------------------------
    def resolve(self, name: Symbol, scope: Scope | None) -> tuple[int, bool] | None:
        """(depth, checked) of a lexical binding of ``name``, or None if it is global."""
        depth = 0
        while scope is not None:
            if name in scope.vars:
                return depth, scope.vars[name]
            depth += 1
            scope = scope.outer
        return None

    def lookup_macro(self, name: Symbol, scope: Scope | None) -> Any:
        """The macro ``name`` means here, or None (a lexical variable shadows a macro)."""
        while scope is not None:
            if name in scope.macros:
                return scope.macros[name]
            if name in scope.vars:
                return None
            scope = scope.outer
        return self.macros.get(name)

    def is_special(self, name: Any, scope: Scope | None) -> bool:
        return type(name) is Symbol and name in SPECIAL_FORMS and self.resolve(name, scope) is None

    # -- analysis ------------------------------------------------------------------
    def analyze(self, x: Any, scope: Scope | None, span: Span | None = None) -> Node:
        """The node for datum ``x`` in ``scope`` (None: top level)."""
        if type(x) is Symbol:
            return self.variable(x, scope, span)
        if type(x) is Pair:
            return self.analyze_pair(x, scope)
        if x is NIL:
            raise syntax_error("empty combination (); use '() for the empty list", span)
        return Const(x, span)

    def variable(self, name: Symbol, scope: Scope | None, span: Span | None, operator: bool = False) -> Node:
        found = self.resolve(name, scope)
        if found is not None:
            return LocalRef(name, found[0], found[1], span)
        if self.lookup_macro(name, scope) is not None or name in SPECIAL_FORMS:
            raise syntax_error(f"{name.name}: syntactic keyword used as a variable", span)
        return GlobalRef(name, self.gvars, span, self.resolve_operator if operator else None)

    def resolve_operator(self, name: Symbol) -> Any:
        """What an unbound global in operator position means: asks ``operator_fallback``
        (the task library installs one), else None."""
        hook = self.operator_fallback
        return hook(name) if hook is not None else None

    def analyze_pair(self, form: Pair, scope: Scope | None) -> Node:
        head = form.car
        if type(head) is Symbol:
            macro = self.lookup_macro(head, scope)
            if macro is not None:
                return self.analyze(self.expand(macro, form, scope), scope, form.span)
            if head in SPECIAL_FORMS and self.resolve(head, scope) is None:
                return SPECIAL_FORMS[head](self, form, scope)
        return self.call(form, scope)

    def expand(self, macro: Any, form: Pair, scope: Scope | None) -> Any:
        """Expand one macro use, pointing errors at the use and naming the macro."""
        try:
            return macro.expand(form, self, scope)
        except SchemeError as err:
            if err.span is None:
                err.span = form.span
            raise

    def call(self, form: Pair, scope: Scope | None) -> Node:
        items = list(elements(form))
        if not proper_list(form):
            raise syntax_error("improper list in a call", form.span)
        head, head_span = items[0]
        if type(head) is Symbol:
            operator = self.variable(head, scope, form.span, operator=True)
        else:
            operator = self.analyze(head, scope, head_span)
        operands = [self.analyze(x, scope, s) for x, s in items[1:]]
        return Call(operator, operands, form, scope.procedure if scope else None, form.span)

    # -- bodies --------------------------------------------------------------------
    def expand_head(self, form: Any, scope: Scope | None) -> Any:
        """Expand macro uses at the head of ``form`` until it is not one."""
        while type(form) is Pair and type(form.car) is Symbol:
            macro = self.lookup_macro(form.car, scope)
            if macro is None:
                return form
            form = self.expand(macro, form, scope)
        return form

    def scan_body(self, body: list[tuple[Any, Span | None]], scope: Scope) -> list[tuple[Any, Span | None]]:
        """Splice ``begin``s, expand head macros, and add internal defines to ``scope``."""
        out: list[tuple[Any, Span | None]] = []
        queue = list(reversed(body))
        begin = sym("begin")
        while queue:
            form, span = queue.pop()
            form = self.expand_head(form, scope)
            if type(form) is Pair and type(form.car) is Symbol and self.resolve(form.car, scope) is None:
                if form.car is begin:
                    queue.extend(reversed(list(elements(form))[1:]))
                    continue
                names_of = DEFINING_FORMS.get(form.car)
                if names_of is not None:
                    for name in names_of(form):
                        scope.vars[name] = True
            out.append((form, span))
        return out

    def body(self, forms: list[tuple[Any, Span | None]], scope: Scope, span: Span | None) -> Node:
        """A lambda or let body: internal definitions, then expressions; the last is the value."""
        if not forms:
            raise syntax_error("empty body", span)
        scanned = self.scan_body(forms, scope)
        nodes = [self.analyze(f, scope, s) for f, s in scanned]
        return nodes[0] if len(nodes) == 1 else Seq(nodes, span)

    def sequence(self, forms: list[tuple[Any, Span | None]], scope: Scope | None, span: Span | None) -> Node:
        """Expressions in order (``begin`` outside a body)."""
        nodes = [self.analyze(f, scope, s) for f, s in forms]
        if len(nodes) == 1:
            return nodes[0]
        return Seq(nodes, span)


def proper_list(x: Any) -> bool:
    while type(x) is Pair:
        x = x.cdr
    return x is NIL


def list_items(form: Pair) -> list[tuple[Any, Span | None]]:
    """The elements of a special form with their spans; a dotted form is a syntax error."""
    if not proper_list(form):
        raise syntax_error(f"{form.car}: improper list in special form", form.span)
    return list(elements(form))
