"""Names a program uses that are bound nowhere, reported before anything runs.

A walk over the program's data (not its analysis, which runs interleaved with the program)
follows the core binding forms (``lambda``, ``let`` and its kin, ``do``, internal
``define`` …) and collects every variable reference that no enclosing form binds. A
reference is unbound when the name is also not bound in the interpreter, not defined
anywhere at the top level of the program (a later definition is fine: a forward
reference), and not a task (tasks are values). All of them are reported at once, with
did-you-mean suggestions.

A file is a whole program: every unbound name is an error. Input given piece by piece
(the REPL, ``Interpreter.eval``) is checked incrementally, as Guile does: a name used by
code that runs now is an error, a name used only inside a procedure body is a warning,
since a later input may still define it.

The walk is conservative: it does not look inside syntax it does not know (task forms,
user macros), and a program that can define names the walk cannot see (``load``,
``eval``, ``include``, ``load-task-templates``, a user library) is not checked at all.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .analyzer import SPECIAL_FORMS
from .datatypes import NIL, Pair, Span, Symbol
from .errors import SchemeError, quoted
from .forms.syntax import Autoload

if TYPE_CHECKING:
    from .analyzer import AnalysisHost

Bound = frozenset[Symbol]
Handler = Callable[["Walk", Pair, Bound], None]

#: Procedures and forms through which a program may define names no walk can see.
DYNAMIC = frozenset(
    ("load", "eval", "include", "include-ci", "load-task-templates", "define-library", "environment", "python-import")
)
#: Definitions whose first name (or header's head) is what they define.
TOP_DEFINITIONS = frozenset(
    ("define", "define-values", "define-syntax", "define-macro", "define-record-type", "define-task", "define-model")
)


def check_unbound(interp: AnalysisHost, forms: list[tuple[Any, Span | None]], whole: bool = True) -> str | None:
    """Raise an ``unbound-variable`` SchemeError naming every unbound name in ``forms``.

    With ``whole`` false (incremental input), names used only inside procedure bodies are
    not errors: the warning about them is returned instead (None if there is none)."""
    walk = Walk(interp)
    try:
        for datum, _span in forms:
            walk.collect_top(datum)
        if walk.dynamic:
            return None
        for datum, span in forms:
            walk.expr(datum, frozenset(), span)
    except CircularCode:
        return None  # the analyzer reports circular code as the error it is
    if walk.dynamic:
        return None
    missing: dict[Symbol, Span | None] = {}
    later: dict[Symbol, Span | None] = {}
    for name, span, deferred in walk.refs:
        if name not in missing and not walk.known(name):
            if deferred and not whole:
                later.setdefault(name, span)
            else:
                missing[name] = span
    if missing:
        raise unbound_names_error(missing, walk.candidates())
    if later:
        return "warning: possibly unbound (not defined yet): " + ", ".join(
            f"{name.name} at {span}" if span else name.name for name, span in later.items()
        )
    return None


def unbound_names_error(missing: dict[Symbol, Span | None], candidates: dict[str, str | Symbol]) -> SchemeError:
    """One error for all the names; its span is the first use of the first name."""
    lines = []
    for name, span in missing.items():
        close = close_matches(name.name, candidates)
        hint = f"; did you mean {' or '.join(shown(candidates[c]) for c in close)}" if close else ""
        where = f" (at {span})" if span is not None and len(missing) > 1 else ""
        lines.append(f"unbound variable: {name.name}{hint}{where}")
    first_span = next(iter(missing.values()))
    if len(lines) == 1:
        return SchemeError(lines[0], kind="unbound-variable", span=first_span)
    head = f"{len(lines)} unbound variables; nothing was run:\n  "
    return SchemeError(head + "\n  ".join(lines), kind="unbound-variable", span=first_span)


#: How alike a suggestion must be (difflib's ratio).
CUTOFF = 0.75


def close_matches(name: str, candidates: Iterable[str]) -> list[str]:
    """The two names most like ``name`` (``difflib.get_close_matches``), looked for only among
    the candidates whose length allows it (difflib's first test, made without its object per
    name: an unbound name among the 500 globals costs 0.8 ms instead of 1.1 ms)."""
    n = len(name)
    near = [c for c in candidates if 2 * min(n, len(c)) >= CUTOFF * (n + len(c))]
    return difflib.get_close_matches(name, near, n=2, cutoff=CUTOFF)


def shown(candidate: str | Symbol) -> str:
    """How a suggestion shows: a task as its description, a name quoted (``'length``)."""
    return candidate if type(candidate) is str else quoted(candidate)


class CircularCode(Exception):
    """The program's data loops back on itself (``#0=(if #t 1 . #0#)``)."""


class Walk:
    """The references and top-level definitions of one program."""

    def __init__(self, interp: AnalysisHost) -> None:
        self.interp = interp
        self.refs: list[tuple[Symbol, Span | None, bool]] = []  # name, where, inside a procedure body
        self.depth = 0  # how many procedure bodies the walk is inside
        self.path: set[int] = set()  # the pairs being walked, to notice a datum inside itself
        self.defined: set[Symbol] = set()
        self.macros: set[Symbol] = set()
        self.dynamic = False

    # -- what is known ---------------------------------------------------------------
    def known(self, name: Symbol) -> bool:
        interp = self.interp
        return (
            name in self.defined
            or name in interp.global_env.vars
            or name in interp.analyzer.macros
            or name in SPECIAL_FORMS
            or name.name in interp.task_names
        )

    def candidates(self) -> dict[str, str | Symbol]:
        """Every name the program could have meant: a task's description, or the name's symbol,
        quoted only once it is suggested (quoting all 500 globals took 2.7 ms an error)."""
        found: dict[str, str | Symbol] = {name: f"the task {name}" for name in self.interp.task_names.names()}
        for group in (SPECIAL_FORMS, self.interp.global_env.vars, self.defined):
            found.update((s.name, s) for s in group)
        return found

    def is_syntax(self, head: Symbol, bound: Bound) -> bool:
        macro = self.interp.analyzer.macros.get(head)
        if macro is not None and head.name in getattr(macro, "procedures", ()):  # an autoload of a procedure
            macro = None
        return head not in bound and (head in SPECIAL_FORMS or head in self.macros or macro is not None)

    # -- top level -------------------------------------------------------------------
    def collect_top(self, x: Any) -> None:
        """Note the names ``x`` defines at top level (before any use is checked)."""
        if type(x) is not Pair or type(x.car) is not Symbol:
            return
        head = x.car.name
        if head == "begin":
            for item in items(x.cdr):
                self.collect_top(item)
        elif head in DYNAMIC or (head == "import" and not all(standard_library(spec) for spec in items(x.cdr))):
            self.dynamic = True
        elif head in TOP_DEFINITIONS:
            self.defined.update(defined_names(x))
            if head in ("define-syntax", "define-macro"):
                self.macros.update(defined_names(x))
        elif x.car in self.macros or _user_macro(self.interp, x.car):
            self.dynamic = True  # a macro use at top level may define names

    # -- expressions -----------------------------------------------------------------
    def expr(self, x: Any, bound: Bound, span: Span | None) -> None:
        if type(x) is Symbol:
            if x not in bound:
                self.refs.append((x, span, self.depth > 0))
            return
        if type(x) is not Pair:
            return
        if id(x) in self.path:
            raise CircularCode
        self.path.add(id(x))
        try:
            self.form(x, bound, span)
        finally:
            self.path.discard(id(x))

    def form(self, x: Pair, bound: Bound, span: Span | None) -> None:
        head = x.car
        if type(head) is Symbol and head not in bound:
            if head.name in DYNAMIC:
                self.dynamic = True
            handler = FORMS.get(head.name)
            if handler is not None and head not in self.macros:
                handler(self, x, bound)
                return
            if self.is_syntax(head, bound):
                return  # syntax the walk does not know: nothing inside is checked
        for cell in cells(x):
            self.expr(cell.car, bound, cell.span or span)

    def exprs(self, xs: Any, bound: Bound) -> None:
        for cell in cells(xs):
            self.expr(cell.car, bound, cell.span)

    def procedure_body(self, forms: Any, bound: Bound) -> None:
        """A procedure's body: what it uses is only needed when it is called."""
        self.depth += 1
        try:
            self.body(forms, bound)
        finally:
            self.depth -= 1

    def body(self, forms: Any, bound: Bound) -> None:
        """A body: its internal definitions (also inside ``begin``) are bound throughout it."""
        forms = list(spliced(forms))
        inner = set(bound)
        for form in forms:
            if is_form(form, "define", "define-values", "define-record-type"):
                inner.update(defined_names(form))
            elif is_form(form, "define-syntax"):
                return  # a local macro may change what any later form means
        frozen = frozenset(inner)
        for form in forms:
            if is_form(form, "define"):
                self.define_value(form, frozen)
            elif is_form(form, "define-values"):
                self.exprs(rest(form.cdr), frozen)
            elif not is_form(form, "define-record-type"):
                self.expr(form, frozen, form.span if type(form) is Pair else None)

    def define_value(self, form: Pair, bound: Bound) -> None:
        target = form.cdr.car if type(form.cdr) is Pair else None
        while type(target) is Pair:  # (define (name . params) body ...), curried too
            bound = bound | params(target.cdr)
            target = target.car
            if type(target) is not Pair:
                self.procedure_body(form.cdr.cdr, bound)
                return
        self.exprs(rest(form.cdr), bound)


# -- the forms the walk follows ----------------------------------------------------------
def cells(xs: Any) -> Iterable[Pair]:
    """The pairs of a list's spine; CircularCode if the spine loops."""
    cell, slow, step = xs, xs, 0
    while type(cell) is Pair:
        yield cell
        cell = cell.cdr
        step += 1
        if step % 2 == 0:
            slow = slow.cdr
            if slow is cell and type(cell) is Pair:
                raise CircularCode


def items(xs: Any) -> Iterable[Any]:
    for cell in cells(xs):
        yield cell.car


def spliced(forms: Any) -> Iterable[Any]:
    """The forms of a body with ``begin`` forms spliced in."""
    for form in items(forms):
        if is_form(form, "begin"):
            yield from spliced(form.cdr)
        else:
            yield form


def _user_macro(interp: AnalysisHost, name: Any) -> bool:
    macro = interp.analyzer.macros.get(name) if type(name) is Symbol else None
    return macro is not None and not isinstance(macro, Autoload)


def rest(xs: Any) -> Any:
    return xs.cdr if type(xs) is Pair else NIL


def is_form(x: Any, *names: str) -> bool:
    return type(x) is Pair and type(x.car) is Symbol and x.car.name in names


def params(spec: Any) -> Bound:
    """The names a parameter list binds: ``(a b . rest)``, ``args``, ``(a #!optional b)``."""
    names: set[Symbol] = set()
    cell = spec
    while type(cell) is Pair:
        if type(cell.car) is Symbol:
            names.add(cell.car)
        elif type(cell.car) is Pair and type(cell.car.car) is Symbol:  # (name default) styles
            names.add(cell.car.car)
        cell = cell.cdr
    if type(cell) is Symbol:
        names.add(cell)
    return frozenset(names)


def defined_names(form: Pair) -> set[Symbol]:
    """What a definition form defines."""
    head = form.car.name
    target = form.cdr.car if type(form.cdr) is Pair else None
    if head == "define-values":
        return set(params(target))
    if head == "define-record-type":
        names: set[Symbol] = set()
        for part in items(form.cdr):
            if type(part) is Symbol:
                names.add(part)
            elif type(part) is Pair:
                names.update(p for p in items(part) if type(p) is Symbol)
        return names
    while type(target) is Pair:
        target = target.car
    if type(target) is Pair and target.car is Symbol.intern("quote"):
        return set()
    return {target} if type(target) is Symbol else set()


def standard_library(spec: Any) -> bool:
    """``(scheme base)``, ``(srfi 1)``, or an import set built on one."""
    while is_form(spec, "only", "except", "prefix", "rename") and type(spec.cdr) is Pair:
        if is_form(spec, "prefix", "rename"):
            return False  # new names the walk would have to follow
        spec = spec.cdr.car
    return type(spec) is Pair and type(spec.car) is Symbol and spec.car.name in ("scheme", "srfi", "taskscheme")


def _quasi(walk: Walk, x: Any, bound: Bound, depth: int) -> None:
    if type(x) is list:
        for item in x:
            _quasi(walk, item, bound, depth)
        return
    if type(x) is not Pair:
        return
    if is_form(x, "unquote", "unquote-splicing") and type(x.cdr) is Pair:
        if depth == 1:
            walk.expr(x.cdr.car, bound, x.span)
        else:
            _quasi(walk, x.cdr.car, bound, depth - 1)
        return
    if is_form(x, "quasiquote") and type(x.cdr) is Pair:
        _quasi(walk, x.cdr.car, bound, depth + 1)
        return
    if id(x) in walk.path:
        raise CircularCode
    walk.path.add(id(x))
    try:
        for cell in cells(x):
            _quasi(walk, cell.car, bound, depth)
    finally:
        walk.path.discard(id(x))


def _lambda(walk: Walk, x: Pair, bound: Bound) -> None:
    if type(x.cdr) is Pair:
        walk.procedure_body(x.cdr.cdr, bound | params(x.cdr.car))


def _named_lambda(walk: Walk, x: Pair, bound: Bound) -> None:
    if type(x.cdr) is Pair and type(x.cdr.car) is Pair:
        walk.procedure_body(x.cdr.cdr, bound | params(x.cdr.car))


def _case_lambda(walk: Walk, x: Pair, bound: Bound) -> None:
    for clause in items(x.cdr):
        if type(clause) is Pair:
            walk.procedure_body(clause.cdr, bound | params(clause.car))


def _define(walk: Walk, x: Pair, bound: Bound) -> None:
    walk.define_value(x, bound)


def _define_values(walk: Walk, x: Pair, bound: Bound) -> None:
    walk.exprs(rest(x.cdr), bound)


def _bindings(spec: Any) -> list[tuple[Any, Any]]:
    """``((name init) ...)`` as (name-or-formals, the rest of the binding) pairs."""
    return [(b.car, b.cdr) for b in items(spec) if type(b) is Pair]


def _let(walk: Walk, x: Pair, bound: Bound) -> None:
    spec = rest(x)
    if type(spec) is Pair and type(spec.car) is Symbol:  # named let
        name, spec = spec.car, spec.cdr
        if type(spec) is not Pair:
            return
        pairs = _bindings(spec.car)
        for _, init in pairs:
            walk.exprs(init, bound)
        walk.body(spec.cdr, bound | {name} | {n for n, _ in pairs if type(n) is Symbol})
        return
    if type(spec) is not Pair:
        return
    pairs = _bindings(spec.car)
    head = x.car.name
    inner = bound
    if head in ("letrec", "letrec*"):
        inner = bound | {n for n, _ in pairs if type(n) is Symbol}
    for name, init in pairs:
        if head in ("let-values", "let*-values"):
            walk.exprs(init, inner)
            if head == "let*-values":
                inner = inner | params(name)
            continue
        walk.exprs(init, inner)
        if head == "let*" and type(name) is Symbol:
            inner = inner | {name}
    if head == "let":
        inner = bound | {n for n, _ in pairs if type(n) is Symbol}
    elif head == "let-values":
        inner = bound.union(*(params(n) for n, _ in pairs))
    walk.body(spec.cdr, inner)


def _do(walk: Walk, x: Pair, bound: Bound) -> None:
    spec = rest(x)
    if type(spec) is not Pair:
        return
    specs = [b for b in items(spec.car) if type(b) is Pair]
    for b in specs:
        if type(b.cdr) is Pair:
            walk.expr(b.cdr.car, bound, b.span)
    inner = bound | {b.car for b in specs if type(b.car) is Symbol}
    for b in specs:
        if type(b.cdr) is Pair:
            walk.exprs(b.cdr.cdr, inner)
    if type(spec.cdr) is Pair:
        walk.exprs(spec.cdr.car, inner)
        walk.body(spec.cdr.cdr, inner)


def _clauses(walk: Walk, clauses: Any, bound: Bound, skip_datums: bool) -> None:
    for clause in items(clauses):
        if type(clause) is not Pair:
            continue
        test, body = clause.car, clause.cdr
        if not skip_datums and not (type(test) is Symbol and test.name == "else"):
            walk.expr(test, bound, clause.span)
        for form in items(body):
            if not (type(form) is Symbol and form.name == "=>"):
                walk.expr(form, bound, clause.span)


def _cond(walk: Walk, x: Pair, bound: Bound) -> None:
    _clauses(walk, rest(x), bound, skip_datums=False)


def _case(walk: Walk, x: Pair, bound: Bound) -> None:
    if type(x.cdr) is Pair:
        walk.expr(x.cdr.car, bound, x.span)
        _clauses(walk, x.cdr.cdr, bound, skip_datums=True)


def _guard(walk: Walk, x: Pair, bound: Bound) -> None:
    spec = rest(x)
    if type(spec) is not Pair or type(spec.car) is not Pair:
        return
    var = spec.car.car
    inner = bound | {var} if type(var) is Symbol else bound
    _clauses(walk, spec.car.cdr, inner, skip_datums=False)
    walk.body(spec.cdr, bound)


def _set(walk: Walk, x: Pair, bound: Bound) -> None:
    walk.exprs(rest(rest(x)), bound)  # not the target: set! itself says when it is unbound


def _quasiquote(walk: Walk, x: Pair, bound: Bound) -> None:
    if type(x.cdr) is Pair:
        _quasi(walk, x.cdr.car, bound, 1)


def _let_syntax(walk: Walk, x: Pair, bound: Bound) -> None:
    return  # local macros: what the body means depends on them


def _parameterize(walk: Walk, x: Pair, bound: Bound) -> None:
    spec = rest(x)
    if type(spec) is Pair:
        for name, value in _bindings(spec.car):
            walk.expr(name, bound, x.span)
            walk.exprs(value, bound)
        walk.body(spec.cdr, bound)


def _nothing(walk: Walk, x: Pair, bound: Bound) -> None:
    return


def _defines_a_task(walk: Walk, x: Pair, bound: Bound) -> None:
    walk.defined.update(defined_names(x))  # a task defined anywhere is a value everywhere


def _define_model(walk: Walk, x: Pair, bound: Bound) -> None:
    """``(define-model (name prompt system) body …)``: a procedure body; ``(define-model "name" expr)``:
    the expression. What the model's code uses is reported before the run, like any other code."""
    _defines_a_task(walk, x, bound)
    target = x.cdr.car if type(x.cdr) is Pair else None
    if type(target) is Pair and type(target.car) is Symbol and target.car.name != "quote":
        walk.procedure_body(x.cdr.cdr, bound | params(target.cdr))
    elif type(x.cdr) is Pair:
        walk.exprs(x.cdr.cdr, bound)


def _all(walk: Walk, x: Pair, bound: Bound) -> None:
    walk.exprs(rest(x), bound)


def _body_form(walk: Walk, x: Pair, bound: Bound) -> None:
    walk.body(rest(x), bound)


FORMS: dict[str, Handler] = {
    "quote": _nothing,
    "quasiquote": _quasiquote,
    "lambda": _lambda,
    "named-lambda": _named_lambda,
    "case-lambda": _case_lambda,
    "define": _define,
    "define-values": _define_values,
    "define-record-type": _nothing,
    "define-syntax": _nothing,
    "define-task": _defines_a_task,
    "define-model": _define_model,
    "let-syntax": _let_syntax,
    "letrec-syntax": _let_syntax,
    "syntax-rules": _nothing,
    "let": _let,
    "let*": _let,
    "letrec": _let,
    "letrec*": _let,
    "let-values": _let,
    "let*-values": _let,
    "do": _do,
    "cond": _cond,
    "case": _case,
    "guard": _guard,
    "set!": _set,
    "if": _all,
    "when": _body_form,
    "unless": _body_form,
    "and": _all,
    "or": _all,
    "delay": _all,
    "delay-force": _all,
    "make-promise": _all,
    "parameterize": _parameterize,
    "begin": _body_form,
}
