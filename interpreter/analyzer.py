"""The analyzer: Scheme data to AST nodes.

Special forms come from one registry, :data:`SPECIAL_FORMS` (name to builder);
a module adds a form with ``@special_form("name")`` and the core does not change.
Variables are resolved here, once, to a frame depth (or to the global frame),
and malformed forms are syntax errors that point at their source.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from .datatypes import NIL, Pair, Span, Symbol, list_end, spine, sym
from .errors import SchemeError
from .host_protocols import LibraryHost
from .nodes.core import Call, Const, Define, DynamicRef, GlobalRef, LocalRef, Node, Seq, bind_selves


class TaskNames(Protocol):
    """The names of the tasks a program has defined (``tasks.library.TaskLibrary`` is one)."""

    def __contains__(self, name: object) -> bool: ...

    def names(self) -> Iterable[str]: ...


class AnalysisHost(LibraryHost, Protocol):
    """What analysis (special forms, macros, libraries, the unbound-name check) uses of its
    interpreter, beyond what the library uses: its analyzer, its tasks' names, and evaluation
    of source text (the facade ``Interpreter`` is one)."""

    analyzer: Analyzer
    task_names: TaskNames  # the tasks defined so far (none before the task runtime is made)

    def eval_scheme(
        self, source: str, *, filename: str = "<string>", whole: bool = False, check: bool = True, cached: bool = False
    ) -> Any:
        """Read, analyse and evaluate ``source``; the last value."""


Builder = Callable[["Analyzer", Pair, "Scope | None"], Node]

#: Special form builders by name. Extended with :func:`special_form`.
SPECIAL_FORMS: dict[Symbol, Builder] = {}

#: Forms a body scans for the names they define, mapped to a function giving those names.
DEFINING_FORMS: dict[Symbol, Callable[[Pair], list[Symbol]]] = {}

#: Body-level syntax definitions (``define-syntax`` …) run while a body is scanned, so later
#: forms of the body see them; they leave nothing in the body.
BODY_SYNTAX: dict[Symbol, Callable[[Analyzer, Pair, Scope], None]] = {}

#: Builders used instead of the registered ones when macros have renamed identifiers
#: (``quote`` strips renamings from its datum, ``set!`` assigns the binding an alias denotes …).
HYGIENE_BUILDERS: dict[Symbol, Builder] = {}


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

    __slots__ = ("captures", "dynamic", "macros", "outer", "procedure", "vars")

    def __init__(
        self, names: dict[Symbol, bool], outer: Scope | None, procedure: str | None = None, dynamic: bool = False
    ) -> None:
        self.vars = names  # name -> may be read before it is assigned (letrec, internal define)
        self.outer = outer
        self.macros: dict[Symbol, Any] = {}
        self.procedure = procedure if procedure is not None else (outer.procedure if outer else None)
        #: A dynamic scope's frame is made at run time as a child of the *caller's* frame
        #: (a task with context ``full``): names not bound lexically are looked up by name.
        self.dynamic = dynamic
        #: For a procedure's scope: (id of the scope, name) of each variable its code reads or
        #: sets in an enclosing scope (``find`` records them; ``compiler.lifting`` reads them).
        self.captures: set[tuple[int, Symbol]] | None = None


def note_capture(use: Scope | None, home: Scope, name: Symbol) -> None:
    """Record on each procedure scope from ``use`` out to ``home`` that its code refers to
    ``name`` of ``home`` (a variable it captures)."""
    while use is not None and use is not home:
        if use.captures is not None:
            use.captures.add((id(home), name))
        use = use.outer


class Macro:
    """A syntax transformer: ``expand(form, analyzer, scope) -> datum``."""

    def expand(self, form: Pair, analyzer: Analyzer, scope: Scope | None) -> Any:
        raise NotImplementedError


def body_syntax(name: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register a body-level syntax definition (see :data:`BODY_SYNTAX`)."""

    def register(fn: Callable[..., None]) -> Callable[..., None]:
        BODY_SYNTAX[sym(name)] = fn
        return fn

    return register


VAR, MACRO, GLOBAL = "var", "macro", "global"


def syntax_error(message: str, span: Span | None) -> SchemeError:
    return SchemeError(message, kind="syntax-error", span=span)


#: Forms at most this long are walked in one plain loop (most are: a call, a binding, a clause);
#: longer ones, and circular ones, through :func:`spine`'s checks. The analysis of the prelude
#: that every ``Interpreter()`` makes spent a third of its time in the generators.
SHORT_FORM = 64
SHORT_WALK = range(SHORT_FORM)


def elements(form: Any) -> list[tuple[Any, Span | None]]:
    """(element, span) for each element of a list read from source."""
    out: list[tuple[Any, Span | None]] = []
    span = form.span if type(form) is Pair else None
    p = form
    for _ in SHORT_WALK:
        if type(p) is not Pair:
            return out
        if out:
            here = p.span
            if here is not None:
                span = here
        car = p.car
        out.append((car, (car.span or span) if type(car) is Pair else span))
        p = p.cdr
    return list(long_elements(form))


def long_elements(form: Any) -> Iterator[tuple[Any, Span | None]]:
    """:func:`elements` of a long or circular list (a circular one is a ``type-error``)."""
    first = True
    span = form.span if type(form) is Pair else None
    for p in spine(form, "syntax"):  # code built by a program may be circular
        if not first and p.span is not None:
            span = p.span
        yield p.car, (p.car.span if type(p.car) is Pair and p.car.span else span)
        first = False


def form_span(form: Any, default: Span | None = None) -> Span | None:
    return form.span if type(form) is Pair and form.span is not None else default


class Analyzer:
    """Turns data into nodes for one interpreter (its globals, runtime and macros)."""

    def __init__(self, interp: AnalysisHost) -> None:
        self.interp = interp
        self.gvars = interp.global_env.vars
        self.rt = interp.runtime
        self.macros: dict[Symbol, Any] = {}
        self.unbound_fallback: Callable[[Symbol], Any] | None = None
        self.current_file = "<string>"
        self.aliases: dict[Symbol, tuple[Symbol, Scope | None]] = {}
        #: Resolves a free alias whose macro was defined in a scope that does not enclose the
        #: use (a library's exported macro): (name, home scope) -> a find() result or None;
        #: a variable it finds has depth -1 and a home with ``reference(key, span) -> Node``.
        self.foreign_scope: Callable[[Symbol, Scope], Any] | None = None

    # -- lookup ------------------------------------------------------------------
    # Identifiers a syntax-rules template introduces are *aliases*: fresh uninterned symbols
    # recorded in ``aliases`` with the symbol they rename and the scope of the macro's
    # definition. An alias bound by the expansion is a variable of its own; a free alias
    # means what its symbol meant where the macro was defined.
    def resolve(self, name: Symbol, scope: Scope | None) -> tuple[int, bool] | None:
        """(depth, checked) of a lexical binding of ``name``, or None if it is global."""
        depth = 0
        s = scope
        while s is not None:
            if name in s.vars:
                if depth:
                    note_capture(scope, s, name)
                return depth, s.vars[name]
            depth += 1
            s = s.outer
        if name in self.aliases:
            found = self.find(name, scope)
            if found[0] is VAR:
                return found[2], found[3]
        return None

    def find(self, name: Symbol, scope: Scope | None) -> tuple[Any, Any, int, bool, Scope | None]:
        """What ``name`` denotes in ``scope``: (VAR, frame key, depth, checked, scope),
        (MACRO, macro, 0, False, scope) or (GLOBAL, symbol, 0, False, None)."""
        use, s, depth = scope, scope, 0
        while True:
            while s is not None:
                if name in s.macros:
                    return MACRO, s.macros[name], depth, False, s
                if name in s.vars:
                    if depth:
                        note_capture(use, s, name)
                    return VAR, name, depth, s.vars[name], s
                depth += 1
                s = s.outer
            info = self.aliases.get(name)
            if info is None:
                macro = self.macros.get(name)
                return (MACRO, macro, 0, False, None) if macro is not None else (GLOBAL, name, 0, False, None)
            name, home = info
            s, depth = home, 0
            if home is not None:
                probe = use
                while probe is not None and probe is not home:
                    depth += 1
                    probe = probe.outer
                if probe is None:  # the macro's home is not around this use (a library's macro)
                    hook = self.foreign_scope
                    found = hook(name, home) if hook is not None else None
                    if found is not None:
                        return found
                    s = None

    def lookup_macro(self, name: Symbol, scope: Scope | None) -> Any:
        """The macro ``name`` means here, or None (a lexical variable shadows a macro)."""
        s = scope
        while s is not None:
            if name in s.macros:
                return s.macros[name]
            if name in s.vars:
                return None
            s = s.outer
        if name in self.aliases:
            found = self.find(name, scope)
            return found[1] if found[0] is MACRO else None
        return self.macros.get(name)

    def keyword(self, name: Any, scope: Scope | None) -> Symbol | None:
        """The special form ``name`` denotes here (seeing through aliases), or None."""
        if type(name) is not Symbol:
            return None
        if name in SPECIAL_FORMS:
            return name if self.resolve(name, scope) is None else None
        if name in self.aliases:
            found = self.find(name, scope)
            if found[0] is GLOBAL and found[1] in SPECIAL_FORMS:
                return found[1]
        return None

    def is_special(self, name: Any, scope: Scope | None) -> bool:
        return self.keyword(name, scope) is not None

    def unalias(self, x: Symbol) -> Symbol:
        """The symbol an alias (or an alias of an alias) renames; ``x`` itself otherwise."""
        info = self.aliases.get(x)
        while info is not None:
            x = info[0]
            info = self.aliases.get(x)
        return x

    # -- analysis ------------------------------------------------------------------
    def analyze(self, x: Any, scope: Scope | None, span: Span | None = None) -> Node:
        """The node for datum ``x`` in ``scope`` (None: top level)."""
        if type(x) is Symbol:
            return self.variable(x, scope, span)
        if type(x) is Pair:
            try:
                if self.rt.attention:  # a timeout or the memory budget, during (macro) analysis
                    self.rt.check()
                return self.analyze_pair(x, scope)
            except SchemeError as err:  # an error with no place of its own: the innermost form that has one
                if err.span is None:
                    err.span = x.span or span
                raise
        if x is NIL:
            raise syntax_error("empty combination (); use '() for the empty list", span)
        return Const(x, span)

    def expression(self, x: Any, scope: Scope | None, span: Span | None = None) -> Node:
        """The node for ``x`` where its value is used (an argument, a test …): a definition
        there is a syntax error at its own position, not a value."""
        if type(x) is Pair:
            kw = self.keyword(x.car, scope)
            if kw is not None and kw in DEFINING_FORMS:
                raise syntax_error(
                    f"{kw.name}: a definition cannot be used as an expression; "
                    "put it at the top level or at the start of a body",
                    x.span or span,
                )
        return self.analyze(x, scope, span)

    def variable(self, name: Symbol, scope: Scope | None, span: Span | None) -> Node:
        kind, key, depth, checked, home = self.find(name, scope)
        if kind is VAR:
            if depth < 0:  # a variable of a library's frame, seen from outside the library
                return home.reference(key, span)
            return LocalRef(key, depth, checked, span)
        if kind is MACRO and getattr(key, "binds_on_use", False):  # an autoload (forms/syntax.py)
            key.load(self)
            return self.variable(name, scope, span)
        if kind is MACRO or key in SPECIAL_FORMS:
            raise syntax_error(f"{name.name}: syntactic keyword used as a variable", span)
        fallback = self.resolve_unbound
        if in_dynamic_scope(scope):
            return DynamicRef(key, span, fallback)
        return GlobalRef(key, self.gvars, span, fallback)

    def resolve_unbound(self, name: Symbol) -> Any:
        """What a name bound nowhere means when it is evaluated: asks ``unbound_fallback``
        (the task library installs one: a task name is the task), else None.

        Asked at run time, at each evaluation of an unbound name, so a task defined after
        the code that names it (later in a file, later in the REPL) is found."""
        hook = self.unbound_fallback
        return hook(name) if hook is not None else None

    def analyze_pair(self, form: Pair, scope: Scope | None) -> Node:
        head = form.car
        if type(head) is Symbol:
            macro = self.lookup_macro(head, scope)
            if macro is not None:
                expanded = self.expand(macro, form, scope)
                try:
                    return self.analyze(expanded, scope, form.span)
                except SchemeError as err:
                    if err.kind == "syntax-error" and "in the expansion of" not in err.message:
                        where = f" at {form.span}" if form.span else ""
                        err.message += f" (in the expansion of {self.unalias(head).name}{where})"
                    raise
            if head in SPECIAL_FORMS:
                if self.resolve(head, scope) is None:
                    if scope is None and head in DEFINING_FORMS and self.macros:
                        for name in DEFINING_FORMS[head](form):  # a definition replaces a global macro
                            self.macros.pop(self.unalias(name), None)
                    if self.aliases and head in HYGIENE_BUILDERS:
                        return HYGIENE_BUILDERS[head](self, form, scope)
                    return SPECIAL_FORMS[head](self, form, scope)
            elif head in self.aliases:
                kw = self.keyword(head, scope)
                if kw is not None:
                    return HYGIENE_BUILDERS.get(kw, SPECIAL_FORMS[kw])(self, form, scope)
        return self.call(form, scope)

    def expand(self, macro: Any, form: Pair, scope: Scope | None) -> Any:
        """Expand one macro use, pointing errors at the use and naming the macro.

        Each expansion is a step of the running program, so a macro that expands for
        ever meets the time and step limits and Ctrl-C like a loop does."""
        rt = self.interp.runtime
        if rt.running:
            rt.steps += 1
            if rt.steps >= rt.check_at:
                rt.check()
        try:
            return macro.expand(form, self, scope)
        except SchemeError as err:
            if err.span is None:
                err.span = form.span
            raise

    def call(self, form: Pair, scope: Scope | None) -> Node:
        items = elements(form)
        if not proper_list(form):
            raise syntax_error("improper list in a call", form.span)
        head, head_span = items[0]
        if type(head) is Symbol:
            operator = self.variable(head, scope, form.span)
        else:
            operator = self.expression(head, scope, head_span)
        operands = [self.expression(x, scope, s) for x, s in items[1:]]
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
            if self.rt.attention:  # splicing a doubling expansion: a timeout, the memory budget
                try:
                    self.rt.check()
                except SchemeError as err:
                    if err.span is None:
                        err.span = span
                    raise
            form = self.expand_head(form, scope)
            kw = self.keyword(form.car, scope) if type(form) is Pair else None
            if kw is not None:
                if kw is begin:
                    queue.extend(reversed(elements(form)[1:]))
                    continue
                if kw in BODY_SYNTAX:
                    BODY_SYNTAX[kw](self, form, scope)
                    continue
                names_of = DEFINING_FORMS.get(kw)
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
        defines = [(node.name, node.value) for node in nodes if type(node) is Define]
        if defines:
            bind_selves(defines, nodes, 1)
        return nodes[0] if len(nodes) == 1 else Seq(nodes, span)

    def sequence(self, forms: list[tuple[Any, Span | None]], scope: Scope | None, span: Span | None) -> Node:
        """Expressions in order (``begin`` outside a body)."""
        nodes = [self.analyze(f, scope, s) for f, s in forms]
        if len(nodes) == 1:
            return nodes[0]
        return Seq(nodes, span)


def in_dynamic_scope(scope: Scope | None) -> bool:
    """Whether unbound names in ``scope`` are looked up in the caller's frames at run time."""
    while scope is not None:
        if scope.dynamic:
            return True
        scope = scope.outer
    return False


def proper_list(x: Any) -> bool:
    """Whether ``x`` is a proper list (a circular one is a ``type-error``)."""
    p = x
    for _ in SHORT_WALK:
        if type(p) is not Pair:
            return p is NIL
        p = p.cdr
    return list_end(x, "syntax") is NIL


def list_items(form: Pair) -> list[tuple[Any, Span | None]]:
    """The elements of a special form with their spans; a dotted form is a syntax error."""
    if not proper_list(form):
        raise syntax_error(f"{form.car}: improper list in special form", form.span)
    return elements(form)
