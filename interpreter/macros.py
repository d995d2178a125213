"""``syntax-rules``: pattern matching, template expansion and hygiene by renaming.

Every identifier a template introduces is replaced, once per expansion, by an *alias*:
a fresh uninterned symbol the analyzer knows (``Analyzer.aliases``) as "this name, as
seen where the macro was defined". An alias bound by the expansion (``tmp`` in
``swap!``) is a variable of its own and cannot capture the user's ``tmp``; a free alias
(``if``, ``list``) means what it meant at the definition, whatever the use site binds.

A few auxiliary keywords (``else``, ``=>``, ``_``, ``unquote``) are not renamed, so the core
forms that compare them by identity keep recognising them. ``...`` is renamed: a macro that
writes a ``syntax-rules`` with an ellipsis of its own must not mistake the user's ``...``
for it; the default ellipsis is any alias of ``...`` (``forms.syntax.means_ellipsis``).
"""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import Any

from .analyzer import GLOBAL, MACRO, Analyzer, Macro, Scope, syntax_error
from .datatypes import NIL, Pair, Span, Symbol, cons, datum_leaves, list_to_python, make_list, spine, sym
from .equality import is_equal
from .evaluator import apply_procedure
from .printer import write_string

ELLIPSIS = sym("...")
UNDERSCORE = sym("_")
NOT_RENAMED = frozenset(sym(n) for n in ("else", "=>", "_", "unquote", "unquote-splicing"))


class Multi:
    """The matches of a pattern variable under an ellipsis, one per repetition."""

    __slots__ = ("items",)

    def __init__(self, items: list[Any]) -> None:
        self.items = items


class MatchFailure(Exception):
    """Raised inside the matcher when a rule does not apply."""


class SyntaxRules(Macro):
    """A macro made by ``syntax-rules``, closed over the scope of its definition."""

    def __init__(
        self,
        name: str,
        literals: list[Symbol],
        ellipsis: Symbol,
        rules: list[tuple[Any, Any]],
        home: Scope | None,
    ) -> None:
        self.name = name
        self.literals = literals
        self.ellipsis = ellipsis
        self.rules = rules
        self.home = home

    def __repr__(self) -> str:
        return f"#<syntax-rules {self.name}>"

    def expand(self, form: Pair, analyzer: Analyzer, scope: Scope | None) -> Any:
        matcher = Matcher(self, analyzer, scope)
        for pattern, template in self.rules:
            binds: dict[Symbol, Any] = {}
            try:
                matcher.match(pattern.cdr if type(pattern) is Pair else NIL, form.cdr, binds)
            except MatchFailure:
                continue
            return Expansion(self, analyzer, binds, form.span).build(template)
        text = write_string(form)
        if len(text) > 80:
            text = text[:77] + "..."
        raise syntax_error(f"no syntax-rules pattern of {self.name} matches {text}", form.span)


class Matcher:
    """Matches one use of a macro against its patterns."""

    def __init__(self, macro: SyntaxRules, analyzer: Analyzer, scope: Scope | None) -> None:
        self.macro = macro
        self.an = analyzer
        self.scope = scope

    def match(self, pat: Any, x: Any, binds: dict[Symbol, Any]) -> None:
        m = self.macro
        if type(pat) is Symbol:
            if pat in m.literals:
                if type(x) is not Symbol or not self.same_binding(x, pat):
                    raise MatchFailure
            elif pat is not UNDERSCORE:
                binds[pat] = x
            return
        if type(pat) is Pair:
            if type(pat.cdr) is Pair and pat.cdr.car is m.ellipsis:
                self.match_ellipsis(pat, x, binds)
                return
            if type(x) is not Pair:
                raise MatchFailure
            self.match(pat.car, x.car, binds)
            self.match(pat.cdr, x.cdr, binds)
            return
        if pat is NIL:
            if x is not NIL:
                raise MatchFailure
            return
        if type(pat) is list:
            if type(x) is not list:
                raise MatchFailure
            self.match(make_list(pat), make_list(x), binds)
            return
        if not is_equal(pat, x):
            raise MatchFailure

    def match_ellipsis(self, pat: Pair, x: Any, binds: dict[Symbol, Any]) -> None:
        """``(p ... tail …)``: as many ``p`` as leave enough elements for the tail."""
        tail = pat.cdr.cdr
        need = sum(1 for _ in spine(tail, "syntax-rules"))
        items = list(spine(x, "syntax"))
        x = items[-1].cdr if items else x
        count = len(items) - need
        if count < 0:
            raise MatchFailure
        matches = []
        for cell in items[:count]:
            one: dict[Symbol, Any] = {}
            self.match(pat.car, cell.car, one)
            matches.append(one)
        for var in pattern_vars(pat.car, self.macro):
            binds[var] = Multi([one[var] for one in matches])
        rest = items[count] if count < len(items) else x
        self.match(tail, rest, binds)

    def same_binding(self, x: Symbol, literal: Symbol) -> bool:
        """free-identifier=?: the input identifier means what the literal means at the definition."""
        an = self.an
        mine = an.find(x, self.scope)
        theirs = an.find(literal, self.macro.home)
        if mine[0] is GLOBAL and theirs[0] is GLOBAL:
            return mine[1] is theirs[1]
        if mine[0] is MACRO and theirs[0] is MACRO:
            return mine[1] is theirs[1]
        return mine[0] == theirs[0] and mine[1] is theirs[1] and mine[4] is theirs[4]


def pattern_vars(pat: Any, macro: SyntaxRules) -> list[Symbol]:
    """The pattern variables in ``pat`` (not literals, ``_`` or the ellipsis)."""
    return [
        p
        for p in datum_leaves(pat)
        if type(p) is Symbol and p not in macro.literals and p is not UNDERSCORE and p is not macro.ellipsis
    ]


class Expansion:
    """Instantiates one template with one match, renaming the identifiers it introduces."""

    def __init__(self, macro: SyntaxRules, analyzer: Analyzer, binds: dict[Symbol, Any], span: Span | None) -> None:
        self.macro = macro
        self.an = analyzer
        self.binds = binds
        self.span = span
        self.renames: dict[Symbol, Symbol] = {}

    def rename(self, name: Symbol) -> Symbol:
        if name in NOT_RENAMED:
            return name
        alias = self.renames.get(name)
        if alias is None:
            alias = Symbol(name.name)
            self.renames[name] = alias
            self.an.aliases[alias] = (name, self.macro.home)
        return alias

    def build(self, tmpl: Any, binds: dict[Symbol, Any] | None = None, escaped: bool = False) -> Any:
        b = self.binds if binds is None else binds
        ellipsis = self.macro.ellipsis
        if type(tmpl) is Symbol:
            if tmpl in b:
                value = b[tmpl]
                if type(value) is Multi:
                    raise syntax_error(
                        f"{self.macro.name}: pattern variable {tmpl.name} is used without its ellipsis", self.span
                    )
                return value
            return self.rename(tmpl)
        if type(tmpl) is Pair:
            if not escaped and tmpl.car is ellipsis and type(tmpl.cdr) is Pair:
                return self.build(tmpl.cdr.car, b, True)  # (... template): ellipsis taken literally
            out: list[Any] = []
            for _ in spine(tmpl, "syntax-rules"):  # refuse a circular template before walking it
                pass
            p = tmpl
            while type(p) is Pair:
                item = p.car
                p = p.cdr
                depth = 0
                while not escaped and type(p) is Pair and p.car is ellipsis:
                    depth += 1
                    p = p.cdr
                if depth:
                    out.extend(self.repeat(item, depth, b))
                else:
                    out.append(self.build(item, b, escaped))
            tail = NIL if p is NIL else self.build(p, b, escaped)
            result = tail
            for item in reversed(out):
                result = cons(item, result, self.span)
            return result
        if type(tmpl) is list:
            built = self.build(make_list(tmpl), b, escaped)  # a vector is literal data: no renaming inside
            return [strip(x, self.an) for x in built] if built is not NIL else []
        return tmpl

    def repeat(self, item: Any, depth: int, b: dict[Symbol, Any]) -> list[Any]:
        """The instances of ``item ...`` (``depth`` ellipses flatten that many levels)."""
        names = [v for v in template_symbols(item) if type(b.get(v)) is Multi]
        if not names:
            raise syntax_error(f"{self.macro.name}: no pattern variable before ... in the template", self.span)
        lengths = {len(b[v].items) for v in names}
        if len(lengths) > 1:
            message = f"{self.macro.name}: pattern variables under one ... matched different lengths"
            raise syntax_error(message, self.span)
        out: list[Any] = []
        for i in range(lengths.pop()):
            inner = dict(b)
            for v in names:
                inner[v] = b[v].items[i]
            if depth > 1:
                out.extend(self.repeat(item, depth - 1, inner))
            else:
                out.append(self.build(item, inner))
        return out


def template_symbols(tmpl: Any) -> list[Symbol]:
    """The symbols in a template, left to right."""
    return [p for p in datum_leaves(tmpl) if type(p) is Symbol]


class ProcedureMacro(Macro):
    """A non-hygienic ``define-macro``: a procedure from the form's operands to its expansion."""

    def __init__(self, name: str, proc: Any, interp: Any) -> None:
        self.name = name
        self.proc = proc
        self.interp = interp

    def __repr__(self) -> str:
        return f"#<macro {self.name}>"

    def expand(self, form: Pair, analyzer: Analyzer, scope: Scope | None) -> Any:
        try:
            args = list_to_python(form.cdr)
        except ValueError:
            raise syntax_error(f"{self.name}: improper list in macro use", form.span) from None
        return call_at_expansion(self.interp, self.proc, args)


def call_at_expansion(interp: Any, proc: Any, args: list[Any]) -> Any:
    """Apply a Scheme procedure while the analyzer runs (outside any evaluation, maybe)."""
    rt = interp.runtime
    if rt.running:
        return apply_procedure(proc, args)
    rt.begin()
    rt.running = True
    try:
        return apply_procedure(proc, args)
    finally:
        rt.running = False
        rt.depth = rt.depth_base = 0


def strip(x: Any, an: Analyzer) -> Any:
    """``x`` with every alias replaced by the symbol it renames (for quoted data).

    Data without aliases (the usual case) comes back as it is; otherwise it is copied
    with a memo, so shared and circular structure stays shared and circular."""
    aliases = an.aliases
    if not has_symbol(x, aliases):
        return x
    return substitute(x, lambda name: an.unalias(name) if name in aliases else name)


def has_symbol(x: Any, names: Container[Symbol]) -> bool:
    """Whether any symbol in ``x`` is one of ``names`` (iterative; safe on cycles)."""
    stack, seen = [x], set()
    while stack:
        item = stack.pop()
        if type(item) is Symbol:
            if item in names:
                return True
        elif type(item) is Pair or type(item) is list:
            if id(item) in seen:
                continue
            seen.add(id(item))
            stack.extend((item.car, item.cdr) if type(item) is Pair else item)
    return False


def substitute(x: Any, swap: Callable[[Symbol], Symbol], memo: dict[int, Any] | None = None) -> Any:
    """A copy of ``x`` with each symbol ``s`` replaced by ``swap(s)``; spans kept, shared
    and circular structure kept shared and circular."""
    if memo is None:
        memo = {}
    if type(x) is Symbol:
        return swap(x)
    if id(x) in memo:
        return memo[id(x)]
    if type(x) is list:
        vector: list[Any] = []
        memo[id(x)] = vector
        vector.extend(substitute(item, swap, memo) for item in x)
        return vector
    if type(x) is not Pair:
        return x
    head = cell = cons(None, NIL, x.span)
    memo[id(x)] = head
    p = x
    while True:  # along the spine iteratively; cars recursively
        cell.car = substitute(p.car, swap, memo)
        rest = p.cdr
        if type(rest) is not Pair or id(rest) in memo:
            cell.cdr = substitute(rest, swap, memo)
            return head
        new = cons(None, NIL, rest.span)
        memo[id(rest)] = new
        cell.cdr, cell, p = new, new, rest
