"""Macro forms: define-syntax, let-syntax, letrec-syntax, syntax-rules, syntax-error,
define-macro, cond-expand, include; and the hygiene-aware builders of quote, quasiquote,
case, set! and top-level definitions (used once macros have renamed identifiers)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..analyzer import (
    DEFINING_FORMS,
    GLOBAL,
    HYGIENE_BUILDERS,
    SPECIAL_FORMS,
    VAR,
    Analyzer,
    Macro,
    Scope,
    body_syntax,
    elements,
    list_items,
    special_form,
    syntax_error,
)
from ..datatypes import (
    NIL,
    S_QUASIQUOTE,
    S_UNQUOTE,
    S_UNQUOTE_SPLICING,
    Pair,
    Procedure,
    Symbol,
    cons,
    make_list,
    spine,
    sym,
)
from ..errors import SchemeError
from ..libraries import DECLARATION_MACROS, define_library, import_into_globals, library_known
from ..macros import ELLIPSIS, ProcedureMacro, SyntaxRules, has_symbol, strip, substitute
from ..nodes.binding import Let
from ..nodes.core import VOID, Const, Node, SetGlobal, SetLocal
from ..primitives.registry import installer, primitive
from ..printer import display_string, write_string
from ..reader import read_with_spans
from ..regular_files import open_regular
from ..stdlib_files import read_stdlib
from .binding import defines_of

if TYPE_CHECKING:
    from ..analyzer import AnalysisHost

S_SYNTAX_RULES = sym("syntax-rules")

#: What ``cond-expand`` and ``(features)`` report.
FEATURES = ("r7rs", "exact-closed", "ratios", "full-unicode", "taskscheme", sys.platform)


# -- transformers --------------------------------------------------------------------
def transformer(an: Analyzer, spec: Any, scope: Scope | None, name: Symbol, home: Scope | None) -> Macro:
    """The macro a transformer spec ``(syntax-rules …)`` makes, closed over ``home``."""
    if type(spec) is Symbol:
        macro = an.lookup_macro(spec, scope)
        if macro is not None:
            return macro
    if type(spec) is not Pair or an.keyword(spec.car, scope) is not S_SYNTAX_RULES:
        raise syntax_error(f"define-syntax {name.name}: expected (syntax-rules (literal ...) rule ...)", None)
    items = list_items(spec)[1:]
    ellipsis, chosen = ELLIPSIS, False
    if items and type(items[0][0]) is Symbol:
        ellipsis, chosen = items[0][0], True
        items = items[1:]
    if not items:
        raise syntax_error("syntax-rules: expected (syntax-rules (literal ...) rule ...)", spec.span)
    if not chosen:
        items = [(means_ellipsis(an, x), span) for x, span in items]
    literals_spec, lspan = items[0]
    try:
        literals = list(literals_spec) if literals_spec is not NIL else []
    except TypeError:
        literals = [None]
    if not all(type(x) is Symbol for x in literals):
        raise syntax_error("syntax-rules: literals must be a list of identifiers", lspan or spec.span)
    if ellipsis in literals or (not chosen and an.resolve(ellipsis, scope) is not None):
        # A literal (R7RS 4.3.2) is no ellipsis; nor is a local variable named ``...`` when the
        # ellipsis is the default one. An ellipsis named in the form is the ellipsis, bound or not.
        ellipsis = Symbol(f"{ellipsis.name} (not an ellipsis here)")
    rules = []
    for rule, rspan in items[1:]:
        parts = list(elements(rule)) if type(rule) is Pair else []
        if len(parts) != 2 or type(parts[0][0]) is not Pair:
            raise syntax_error("syntax-rules: each rule must be ((_ pattern ...) template)", rspan or spec.span)
        rules.append((parts[0][0], parts[1][0]))
    return SyntaxRules(an.unalias(name).name, literals, ellipsis, rules, home)


class EllipsisAliases:
    """The aliases a template's ``...`` became (macros rename it like any identifier it
    introduces): ``alias in EllipsisAliases(an)``."""

    def __init__(self, an: Analyzer) -> None:
        self.an = an

    def __contains__(self, name: object) -> bool:
        return name in self.an.aliases and self.an.unalias(name) is ELLIPSIS  # type: ignore[arg-type]


def means_ellipsis(an: Analyzer, x: Any) -> Any:
    """``x`` (a part of a ``syntax-rules`` form with the default ellipsis) with every alias of
    ``...`` written ``...``: the default ellipsis is any identifier that means ``...``, as the
    ``...`` of a macro that writes a macro is. (An ellipsis named in the form, ``...`` from a
    template included, is that identifier alone: Al Petrofsky's test in larceny's suite.)"""
    aliases = EllipsisAliases(an)
    return substitute(x, lambda s: ELLIPSIS if s in aliases else s) if has_symbol(x, aliases) else x


def syntax_definition(form: Pair) -> tuple[Symbol, Any]:
    items = list_items(form)
    if len(items) != 3 or type(items[1][0]) is not Symbol:
        raise syntax_error("define-syntax: expected (define-syntax name (syntax-rules ...))", form.span)
    return items[1][0], items[2][0]


@special_form("define-syntax")
def define_syntax(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    name, spec = syntax_definition(form)
    return bind_macro(an, scope, name, located(lambda: transformer(an, spec, scope, name, scope), form), form)


@body_syntax("define-syntax")
def define_syntax_in_body(an: Analyzer, form: Pair, scope: Scope) -> None:
    name, spec = syntax_definition(form)
    scope.macros[name] = located(lambda: transformer(an, spec, scope, name, scope), form)


def bind_macro(an: Analyzer, scope: Scope | None, name: Symbol, macro: Any, form: Pair) -> Node:
    """Make ``name`` a macro: globally at top level, else in ``scope``."""
    if scope is None:
        an.macros[an.unalias(name)] = macro
    else:
        scope.macros[name] = macro
    return Const(VOID, form.span)


def located(make: Any, form: Pair) -> Any:
    try:
        return make()
    except SchemeError as err:
        if err.span is None:
            err.span = form.span
        raise


@special_form("let-syntax", "letrec-syntax")
def let_syntax(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    """``let-syntax``/``letrec-syntax``: a block contour, as ``let`` is (R7RS 4.3.1 and its
    erratum 13): definitions in its body are its own, not spliced into the enclosing body
    (R6RS splices; chibi's R7RS tests check that R7RS does not)."""
    items = list_items(form)
    who = form.car.name
    if len(items) < 3:
        raise syntax_error(f"{who}: expected ({who} ((name (syntax-rules ...)) ...) body ...)", form.span)
    inner = Scope({}, scope)
    home = inner if an.unalias(form.car).name == "letrec-syntax" else scope
    for binding, bspan in elements(items[1][0]):
        parts = list(elements(binding)) if type(binding) is Pair else []
        if len(parts) != 2 or type(parts[0][0]) is not Symbol:
            raise syntax_error(f"{who}: each binding must be (name transformer)", bspan or form.span)
        name = parts[0][0]
        inner.macros[name] = located(lambda: transformer(an, parts[1][0], scope, name, home), form)
    body = an.body(items[2:], inner, form.span)
    return Let([], [], body, False, defines_of(inner, []), form.span)


@special_form("syntax-rules")
def syntax_rules(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    raise syntax_error("syntax-rules: only valid as the transformer of define-syntax or let-syntax", form.span)


@special_form("syntax-error")
def syntax_error_form(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = [x for x, _ in list_items(form)[1:]]
    message = display_string(strip(items[0], an)) if items else "syntax error"
    irritants = " ".join(write_string(strip(x, an)) for x in items[1:])
    raise syntax_error(f"{message} {irritants}".rstrip(), form.span)


# -- define-macro ----------------------------------------------------------------------
def macro_definition(an: Analyzer, form: Pair) -> tuple[Symbol, ProcedureMacro]:
    """``(define-macro (name . params) body ...)`` or ``(define-macro name procedure-expr)``."""
    items = list_items(form)
    if len(items) < 3:
        raise syntax_error("define-macro: expected (define-macro (name . params) body ...)", form.span)
    header = items[1][0]
    if type(header) is Pair and type(header.car) is Symbol:
        name = header.car
        expr: Any = cons(sym("named-lambda"), cons(header, make_list(x for x, _ in items[2:])), form.span)
    elif type(header) is Symbol and len(items) == 3:
        name, expr = header, items[2][0]
    else:
        raise syntax_error("define-macro: expected (define-macro (name . params) body ...)", form.span)
    proc = an.interp.eval_datum(expr, form.span)
    if not isinstance(proc, Procedure):
        raise syntax_error(f"define-macro {name.name}: the transformer is not a procedure", form.span)
    return name, ProcedureMacro(name.name, proc, an.interp)


@special_form("define-macro")
def define_macro(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    name, macro = macro_definition(an, form)
    return bind_macro(an, scope, name, macro, form)


@body_syntax("define-macro")
def define_macro_in_body(an: Analyzer, form: Pair, scope: Scope) -> None:
    name, macro = macro_definition(an, form)
    scope.macros[name] = macro


# -- hygiene-aware builders -------------------------------------------------------------
def hygienic(name: str) -> Any:
    def register(fn: Any) -> Any:
        HYGIENE_BUILDERS[sym(name)] = fn
        return fn

    return register


@hygienic("quote")
def quote_(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    return SPECIAL_FORMS[sym("quote")](an, strip(form, an), scope)


def strip_quasi(x: Any, an: Analyzer, depth: int) -> Any:
    """Strip aliases from a quasiquote template, except inside its unquoted expressions."""
    if type(x) is Symbol:
        return strip(x, an)
    if type(x) is list:
        return [strip_quasi(item, an, depth) for item in x]
    if type(x) is not Pair:
        return x
    head = strip(x.car, an) if type(x.car) is Symbol else None
    if head in (S_UNQUOTE, S_UNQUOTE_SPLICING) and type(x.cdr) is Pair:
        inner = x.cdr.car if depth == 1 else strip_quasi(x.cdr.car, an, depth - 1)
        return cons(head, cons(inner, x.cdr.cdr), x.span)
    if head is S_QUASIQUOTE and type(x.cdr) is Pair:
        return cons(head, cons(strip_quasi(x.cdr.car, an, depth + 1), x.cdr.cdr), x.span)
    cells = []
    p = x
    for cell in spine(x, "quasiquote"):
        if cell is not x and strip(cell.car, an) in (S_UNQUOTE, S_UNQUOTE_SPLICING):
            break
        cells.append(cell)
        p = cell.cdr
    result = strip_quasi(p, an, depth)
    for cell in reversed(cells):
        result = cons(strip_quasi(cell.car, an, depth), result, cell.span)
    return result


@hygienic("quasiquote")
def quasiquote_(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    stripped = cons(form.car, strip_quasi(form.cdr, an, 1) if type(form.cdr) is Pair else form.cdr, form.span)
    if type(form.cdr) is Pair:
        stripped = cons(form.car, cons(strip_quasi(form.cdr.car, an, 1), form.cdr.cdr), form.span)
    return SPECIAL_FORMS[S_QUASIQUOTE](an, stripped, scope)


@hygienic("case")
def case_(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    clauses = [
        cons(strip(c.car, an), c.cdr, c.span) if type(c) is Pair and type(c.car) is not Symbol else c
        for c, _ in items[2:]
    ]
    rebuilt = make_list([x for x, _ in items[:2]] + clauses)
    rebuilt.span = form.span
    return SPECIAL_FORMS[sym("case")](an, rebuilt, scope)


@hygienic("set!")
def set_(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)
    if len(items) == 3 and type(items[1][0]) is Symbol and items[1][0] in an.aliases:
        kind, key, depth, _, _home = an.find(items[1][0], scope)
        value = an.analyze(items[2][0], scope, items[2][1])
        if kind is VAR and depth >= 0:
            return SetLocal(key, depth, value, form.span)
        if kind is GLOBAL:
            return SetGlobal(key, an.gvars, value, form.span)
        raise syntax_error(f"set!: cannot assign {key}", form.span)
    return SPECIAL_FORMS[sym("set!")](an, form, scope)


def toplevel_definition(name: str) -> None:
    """At top level, a definition of an alias defines the symbol it renames."""
    key = sym(name)

    def build(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
        if scope is None:
            names = [n for n in DEFINING_FORMS[key](form) if n in an.aliases]
            if names:
                form = substitute(form, lambda n: an.unalias(n) if n in names else n)
        return SPECIAL_FORMS[key](an, form, scope)

    HYGIENE_BUILDERS[key] = build


for _name in ("define", "define-values", "define-record-type"):
    toplevel_definition(_name)


# -- cond-expand and include -----------------------------------------------------------
class CondExpand(Macro):
    """``(cond-expand (requirement body ...) ...)``: the first clause whose features hold."""

    def expand(self, form: Pair, analyzer: Analyzer, scope: Scope | None) -> Any:
        for clause, span in list_items(form)[1:]:
            if type(clause) is not Pair:
                raise syntax_error("cond-expand: each clause must be (requirement body ...)", span)
            if self.holds(strip(clause.car, analyzer), analyzer, span):
                return cons(sym("begin"), clause.cdr, form.span)
        return cons(sym("begin"), NIL, form.span)

    def holds(self, req: Any, an: Analyzer, span: Any) -> bool:
        if type(req) is Symbol:
            return req.name in FEATURES or req.name == "else"
        if type(req) is Pair and type(req.car) is Symbol:
            args = list(req.cdr)
            op = req.car.name
            if op == "and":
                return all(self.holds(r, an, span) for r in args)
            if op == "or":
                return any(self.holds(r, an, span) for r in args)
            if op == "not" and len(args) == 1:
                return not self.holds(args[0], an, span)
            if op == "library" and len(args) == 1:
                return library_known(an.interp, args[0])
        raise syntax_error("cond-expand: bad feature requirement", span)


class Include(Macro):
    """``(include "file" ...)``: the files' forms, spliced in place (``include-ci`` folds case)."""

    def __init__(self, fold: bool) -> None:
        self.fold = fold

    def expand(self, form: Pair, analyzer: Analyzer, scope: Scope | None) -> Any:
        interp = analyzer.interp
        forms: list[Any] = []
        for name, span in list_items(form)[1:]:
            if not isinstance(name, str):
                raise syntax_error("include: expected file names as strings", span or form.span)
            path = include_path(interp, name)
            interp.check_file_access(path, "include")
            try:
                with open_regular(path, "include", "r") as file:
                    text = file.read()
            except OSError as exc:
                raise SchemeError(f"include: cannot read {name}: {exc.strerror or exc}", kind="file-error") from None
            data = [datum for datum, _ in read_with_spans(text, str(path))]
            forms.extend(fold_symbols(d) for d in data) if self.fold else forms.extend(data)
        return cons(sym("begin"), make_list(forms), form.span)


def include_path(interp: AnalysisHost, name: str) -> Path:
    """Where ``(include name)`` reads: beside the file being loaded, else (as other Schemes do,
    for libraries whose includes name paths from the project's root) the working directory.

    A candidate is looked at only if ``allow_files`` grants it, so a refusal never tells
    whether a file exists; when none is there, the first candidate is the one reported."""
    if Path(name).is_absolute():
        return Path(name)
    candidates = [Path.cwd() / name]
    if interp.loading:
        candidates.insert(0, interp.loading[-1].parent / name)
    for path in candidates:
        try:
            interp.check_file_access(path, "include")
        except SchemeError:
            continue
        if path.exists():
            return path
    return candidates[0]


def fold_symbols(x: Any) -> Any:
    """``x`` with its identifiers case-folded (what ``include-ci`` reads)."""
    if type(x) is Symbol:
        return sym(x.name.casefold())
    if type(x) is Pair:
        return cons(fold_symbols(x.car), fold_symbols(x.cdr), x.span)
    if type(x) is list:
        return [fold_symbols(item) for item in x]
    return x


@primitive("features")
def features() -> Any:
    """The feature identifiers ``cond-expand`` recognises."""
    return make_list(sym(f) for f in FEATURES)


DECLARATION_MACROS.update(
    {"include": Include(False), "include-ci": Include(True), "include-library-declarations": Include(False),
     "cond-expand": CondExpand()}
)


@installer
def install_syntax(interp: AnalysisHost) -> None:
    """Global macros every interpreter has."""
    interp.analyzer.macros[sym("cond-expand")] = CondExpand()
    interp.analyzer.macros[sym("include")] = Include(False)
    interp.analyzer.macros[sym("include-ci")] = Include(True)


# -- libraries -------------------------------------------------------------------------
@special_form("define-library")
def define_library_form(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    if scope is not None:
        raise syntax_error("define-library: only allowed at top level", form.span)
    define_library(an, form)
    return Const(VOID, form.span)


@special_form("import")
def import_form(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    if scope is not None:
        raise syntax_error("import: only allowed at top level or in define-library", form.span)
    import_into_globals(an, form)
    return Const(VOID, form.span)


# -- the test harness, loaded on first use ------------------------------------------------
HARNESS = "lazy/test.scm"
HARNESS_NAMES = [
    "test",
    "test-begin",
    "test-end",
    "test-equal",
    "test-eqv",
    "test-eq",
    "test-assert",
    "test-error",
    "test-results",
    "test-failures",
    "test-reset!",
    "test-expect-fail",
    "test-expected-failures",
]


class Autoload(Macro):
    """Stands for a name of a standard library file not loaded at start-up: the first use loads it.

    ``name`` is the file's path inside ``stdlib/`` (``lazy/test.scm``)."""

    def __init__(self, name: str, names: list[str]) -> None:
        self.name = name
        self.names = names

    #: The analyzer calls :meth:`load` when a name of this kind is used as a variable, too.
    binds_on_use = True
    #: Names that will be procedures, not syntax: the unbound-name check walks their arguments.
    procedures: frozenset[str] = frozenset()

    def expand(self, form: Pair, analyzer: Analyzer, scope: Scope | None) -> Any:
        self.load(analyzer)
        return form

    def load(self, analyzer: Analyzer) -> None:
        """Bind the names: run the file (each name stops standing for it)."""
        source = read_stdlib(self.name)  # a missing file is a clear error, and the names stay autoloads
        for name in self.names:
            if analyzer.macros.get(sym(name)) is self:
                del analyzer.macros[sym(name)]
        analyzer.interp.eval_scheme(source, filename=f"stdlib/{self.name}", check=False)


def autoload_names(macros: dict[Symbol, Any], name: str, names: list[str]) -> None:
    """Each of ``names`` not bound as syntax yet stands for stdlib file ``name``, loaded at first use."""
    autoload = Autoload(name, names)
    for each in names:
        macros.setdefault(sym(each), autoload)


@installer
def install_harness(interp: AnalysisHost) -> None:
    """``test``, ``test-begin`` … load stdlib/lazy/test.scm when first used (start-up stays fast)."""
    autoload_names(interp.analyzer.macros, HARNESS, HARNESS_NAMES)
