"""Inline expressions: built-in operators and arithmetic on their operands' types, float inference.

A call of an intact built-in on pure operands is one Python expression, guarded by its
operands' types and the name's flag, with the primitive called as the fallback (the depth
published first, registers re-read after). Operands likely to be floats take the float arm
first; a literal search of a quoted list is a table lookup.

``(- n 1)`` as a value::

    (arg0 - 1 if type(arg0) is int and ok8 else (arg0 - 1 if type(arg0) is float and ok8
     else ((setattr(rt, "depth", depth) or n15(env, arg0, 1)), arg0 := env.vars[k1])[0]))
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from ..datatypes import (
    PAIR_WRITES,
    Pair,
    Primitive,
)
from ..env import GlobalBindings
from ..mirrors import Flag
from ..nodes.control import And, Or
from ..nodes.core import (
    Call,
    Const,
    GlobalRef,
    LocalRef,
    Node,
)
from .emitter import (
    FLAG_MARK,
    FLAG_TEST,
    MAX_INLINE_HEIGHT,
    is_int_literal,
    is_simple_constant,
    jumped_on,
)
from .fastpath import (
    ARITHMETIC,
    BINARY_OPS,
    COMPARISONS,
    CONSTRUCTORS,
    FLOAT_OPS,
    FLOATABLE_INT,
    GUARDED_BY_ARITY,
    GUARDED_OPS,
    GUARDED_STATEMENTS,
    IDENTITY,
    PORT_STATEMENTS,
    UNARY_OPS,
    builtins_intact,
    compared_by_identity,
    constant_port_write,
)
from .fused import fuse
from .literal_search import SEARCHES, LiteralTable


class InlineExpressions:
    """Pure expressions: inline built-ins, their guards and fallbacks, float inference."""

    # -- calls ---------------------------------------------------------------------
    def simple(self, node: Node) -> str | None:
        """An expression for a side-effect-free operand (constant or variable, global
        variables included, and values :meth:`built_pairs` has built), else None."""
        built = self.built.get(id(node))
        if built is not None:
            return built
        if type(node) is Const:
            if is_simple_constant(node.value):
                return repr(node.value)
            name = self.const_names.get(id(node))
            if name is None:
                name = self.const_names[id(node)] = self.constant(node.value)
            return name
        if type(node) is LocalRef and not node.checked:
            return self.value(node)
        if type(node) is GlobalRef:  # read inline; a miss (unbound, a task's name) asks the node
            read, ref = self.global_reader(node)
            temp = self.fresh("t")
            return f"({temp} if ({temp} := {read}) is not None else {ref}({self.frame}))"
        return None

    def global_reader(self, node: GlobalRef) -> tuple[str, str]:
        """(read, ref) of a global variable: an expression for its binding, None while
        unbound (its cell, else a bound ``get``: no attribute lookup per read), and the
        name of the node's compiled reader, which raises or finds a task's name."""
        found = self.global_refs.get(id(node))
        if found is None:
            read = self.global_cell(node)
            if read is None:
                read = f"{self.constant(node.gvars.get, 'g')}({self.constant(node.name, 'k')})"
            found = self.global_refs[id(node)] = (read, self.constant(node.compile(False), "n"))
        return found

    def guarded(self, node: Call) -> tuple[int, str, str, bool] | None:
        """``(count, guard, code, statement)`` when ``node`` calls a built-in of
        :data:`GUARDED_OPS` (code is a value) or :data:`GUARDED_STATEMENTS` with its count."""
        if type(node.operator) is not GlobalRef:
            return None
        name, count = node.operator.name.name, len(node.operands)
        if name in PORT_STATEMENTS and PORT_STATEMENTS[name][0] == count and self.port_procedure(node) is not None:
            return (*(constant_port_write(name, node.operands[0]) or PORT_STATEMENTS[name]), True)
        if name not in self.builtins:
            return None
        for table, statement in ((GUARDED_OPS, False), (GUARDED_STATEMENTS, True)):
            if name in table and table[name][0] == count:
                return (*table[name], statement)
        if (name, count) in GUARDED_BY_ARITY:
            return (count, *GUARDED_BY_ARITY[name, count], False)
        if name in SEARCHES and count == 2:
            search = self.literal_search(node)
            if search is not None:
                return (2, *search, False)
        if name in UNARY_OPS and count == 1:
            code, guard = UNARY_OPS[name]
            return (1, guard or "True", code, False)
        if name in CONSTRUCTORS and count == 2:
            return (2, "True", CONSTRUCTORS[name], False)
        return None

    def literal_search(self, node: Call) -> tuple[str, str] | None:
        """(guard, value) over ``{a}`` for ``(memv x '(…))`` and the other searches of a
        quoted list (:data:`~.literal_search.SEARCHES`): a lookup in tables made from the
        list now, valid while no pair has changed since or the tables could be brought up
        to date; None when the list does not qualify (see ``literal_search.py``)."""
        if id(node) not in self.searches:
            lst, search = node.operands[1], None
            name = node.operator.name.name  # type: ignore[attr-defined]
            builtin = self.builtins[name]
            if type(lst) is Const and type(lst.value) is Pair and type(builtin) is Primitive:
                table = LiteralTable.of(name, lst.value, builtin.fn)
                if table is not None:
                    me = self.constant(table, "s")
                    writes = self.constant(PAIR_WRITES, "w")
                    guard = f"({me}.epoch is {writes}[0] or {me}.current())"
                    # its temporary is the template's {t}: a fresh local at each use
                    search = (guard, table.lookup_source("{a}", "{t}", me, self.constant))
                    self.search_tables[id(node)] = (table, guard)
            self.searches[id(node)] = search
        return self.searches[id(node)]

    def port_procedure(self, node: Call) -> Primitive | None:
        """The interpreter's own port procedure that the operator (a global named in
        :data:`PORT_STATEMENTS`) holds now, else None."""
        ref = node.operator
        assert type(ref) is GlobalRef
        value = ref.gvars.get(ref.name)
        if type(value) is Primitive and getattr(value.fn, "inline_statement", None) == ref.name.name:
            return value
        return None

    def builtin_op(self, node: Call) -> tuple[str, Any] | None:
        if type(node.operator) is not GlobalRef or len(node.operands) != 2:
            return None
        name = node.operator.name.name
        op, builtin = BINARY_OPS.get(name), self.builtins.get(name)
        return (op, builtin) if op is not None and builtin is not None else None

    def pure(self, node: Node) -> str | None:
        """An inline expression for a side-effect-free node, else None.

        Pure are constants, variables, and built-in operators (:data:`UNARY_OPS`,
        :data:`BINARY_OPS`, :data:`CONSTRUCTORS`) applied to pure operands. The
        expression evaluates each operand exactly once, into a temporary, and computes
        inline while the operator's global still holds its built-in and the operands have
        the right type; otherwise it applies the operator the ordinary way to the values
        it already has (:func:`~.fastpath.generic_application`). Nothing is compiled or
        evaluated twice, so the code of a nest of operators grows with its size, not
        exponentially with its depth. A node found impure is remembered: callers ask
        again on the way down."""
        simple = self.simple(node)
        if simple is not None:
            return simple
        if id(node) in self.impure:
            return None
        first = len(self.temps_in_use)
        self.pure_depth += 1
        try:
            inline = self.pure_logic(node) if type(node) in (And, Or) else self.pure_call(node)
        finally:
            self.pure_depth -= 1
        if inline is None:
            self.impure.add(id(node))
        elif self.pure_depth == 0:
            fused = None
            if not self.plain:
                # the fused guard runs first, and the expression after it only if it fails,
                # assigning each of its temporaries before it reads one: the guard takes its
                # names from those (nothing else may: the expression is not emitted yet)
                spare, self.spare_temps = self.spare_temps, list(dict.fromkeys(reversed(self.temps_in_use[first:])))
                try:
                    fused = fuse(self, node, alone=bool(self.facts or self.known_flags))
                finally:
                    self.spare_temps = spare
            if fused is not None:  # a guard that facts made empty needs no other arm
                value = jumped_on(fused.value) if self.compares_for_test(node) else fused.value
                inline = f"({value} if {fused.guard} else {inline})" if fused.guard else value
            if "«" in inline:
                inline = self.settle_flags(inline)
        return inline

    def compares_for_test(self, node: Node) -> bool:
        """Whether ``node`` is the test being emitted (:attr:`truth_of`) and a built-in
        whose inline arm is a comparison: its value is jumped on (:func:`jumped_on`)."""
        return node is self.truth_of and node.operator.name.name in COMPARISONS  # type: ignore[attr-defined]

    def settle_flags(self, expr: str) -> str:
        """The outermost pure expression with its intact flags (marked ``«okN»`` while it is
        built) tested: each on its own, and, where it has several, first all at once
        (``GlobalBindings.combined``) before a copy of the expression that tests none.

        Sound because nothing inside a pure expression can rebind a global: its inline arms
        run no code of the program, and a fallback applies the built-in itself (the flag
        says the name still holds it), which returns a value or raises."""
        checked = FLAG_MARK.sub(r"\1", expr)
        names = dict.fromkeys(FLAG_MARK.findall(expr))
        if len(names) < 2:
            return checked
        keys = frozenset(self.flag_keys[name] for name in names)
        gvars = self.flag_owner
        if len(keys) < 2 or gvars is None:
            return checked
        trusted = FLAG_MARK.sub("True", FLAG_TEST.sub("", expr))
        combo = self.flag(gvars.combined(keys))
        return f"({trusted} if {combo} else {checked})"

    def flag_test(self, operator: GlobalRef, builtin: Any) -> str:
        """The test that ``operator`` still holds ``builtin``, inside a pure expression: a
        marker ``«okN»`` that :meth:`settle_flags` turns into a test when the outermost
        expression is done (a flag of ``GlobalBindings``), else the flag's test."""
        flag = builtins_intact(operator, builtin)
        name = self.flag(flag)
        gvars = operator.gvars
        if name == "True" or type(flag) is not Flag or not isinstance(gvars, GlobalBindings):
            return name
        if self.flag_owner is None:
            self.flag_owner = gvars
        elif self.flag_owner is not gvars:  # another interpreter's global frame: no combining
            return name
        self.flag_keys[name] = operator.name
        return f"«{name}»"

    def within_height(self, node: Node, parts: list[Node], levels: int) -> bool:
        """Record the nesting height of ``node``'s inline expression (``levels`` over its
        highest part); False past :data:`MAX_INLINE_HEIGHT`."""
        height = levels + max((self.heights.get(id(part), 0) for part in parts), default=0)
        self.heights[id(node)] = height
        return height <= MAX_INLINE_HEIGHT

    def pure_call(self, node: Node, bound: list[str] | None = None) -> str | None:
        """See :meth:`pure`; ``bound``: the operands' values, already in names (for :meth:`float_first`)."""
        if type(node) is not Call or type(node.operator) is not GlobalRef:
            return None
        name = node.operator.name.name
        builtin = self.builtins.get(name)
        arity = len(node.operands)
        known = (arity == 1 and name in UNARY_OPS) or (arity == 2 and (name in BINARY_OPS or name in CONSTRUCTORS))
        searched = name in GUARDED_OPS or (name, arity) in GUARDED_BY_ARITY or name in SEARCHES
        guarded = self.guarded(node) if searched else None
        if builtin is None or not (known or (guarded is not None and not guarded[3])):
            return None
        operands = [self.pure(a) for a in node.operands] if bound is None else bound
        if any(o is None for o in operands) or not self.within_height(node, node.operands, 1):
            return None
        ok = self.flag_test(node.operator, builtin)
        if name in UNARY_OPS:
            expr, guard = UNARY_OPS[name]
            if self.compares_for_test(node):
                expr = jumped_on(expr)
            (source,) = operands
            if guard is None and source.isidentifier():
                return f"({expr.format(a=source)} if {ok} else {self.fallback(node, [source])})"
            temp = self.fresh("t")
            bound = f"({temp} := {source})"  # a name, never a literal, beside `is`
            check = guard.format(a=bound) if guard is not None else f"{bound} is {temp}"
            return f"({expr.format(a=temp)} if {check} and {ok} else {self.fallback(node, [temp])})"
        if arity == 2 and name in FLOAT_OPS:
            floated = self.float_literal_operation(node, name, operands, ok)
            if floated is None and bound is None and name != "/":
                floated = self.float_first(node, name, operands, ok)
            if floated is not None:
                return floated
        if name in CONSTRUCTORS or not known:  # a constructor, or a guarded built-in
            checks, values = [], []
            for field, source in zip("abcd", operands):
                # a guarded operation's code may subscript or take attributes: names only,
                # and integer literals (parenthesized) where it only tests and computes them
                named = source.isidentifier() and source not in ("True", "False")
                if named or (is_int_literal(source) and name in CONSTRUCTORS):
                    values.append(source)
                elif is_int_literal(source) and guarded is not None and plain_operand(guarded, field):
                    values.append(f"({source})")
                else:
                    temp = self.fresh("t")
                    checks.append(f"({temp} := {source}) is {temp}")  # always true: binds the value
                    values.append(temp)
            if name in CONSTRUCTORS:
                fast, test = CONSTRUCTORS[name].format(a=values[0], b=values[1]), ok
            else:
                assert guarded is not None
                _count, guard_template, code, _statement = guarded
                if name in ("eq?", "eqv?") and compared_by_identity(node.operands):
                    code = IDENTITY
                fields = {**dict(zip("abcd", values)), "t": self.fresh("t")}
                fast = code.format(**fields)
                test = f"{without_literal_tests(guard_template.format(**fields))} and {ok}"
            guard = " and ".join([*checks, test])
            return f"({fast} if {guard} else {self.fallback(node, values)})"
        values, given, checks = [], [], []  # operands; what the fallback gets; type checks
        evaluated = 0  # operands that are neither constants nor variables
        for operand, source in zip(node.operands, operands):
            if is_int_literal(source):  # an exact integer constant needs no check
                values.append(source)
                given.append(source)
                continue
            if self.simple(operand) is not None and source.isidentifier():
                # a variable in a Python local, checked after every evaluated operand (so
                # after any fallback that re-reads it): used as it is, no copy in a local
                values.append(source)
                given.append(source)
                checks.append(f"type({source})")
                continue
            temp = self.fresh("t")
            values.append(temp)
            if self.simple(operand) is not None:  # a variable: the fallback reads it again
                given.append(source)
                checks.append(f"type({temp} := {source})")
            else:  # evaluated once, first, whatever the other operand's check says
                evaluated += 1
                given.append(temp)
                checks.insert(evaluated - 1, f"type({temp} := {source})")
        if evaluated == 2:  # `type(a) is type(b) is int` evaluates both before it can fail
            checks = [" is ".join(checks)]
        guard = " and ".join([*(f"{check} is int" for check in checks), ok])
        otherwise = self.fallback(node, given)
        if guarded is not None:  # floats: the first check bound its operand; re-bind a later variable
            _count, float_guard, code, _statement = guarded
            fields = dict(zip("ab", values))
            rebind = [
                f"({temp} := {source}) is {temp}"
                for temp, source in zip(values, given)
                if temp != source and not is_int_literal(source) and len(checks) > 1 and f"({temp} :=" not in checks[0]
            ]
            small = [v for v in values if is_int_literal(v) and len(v) < 19]
            if small:  # a small exact literal: the other operand must be the float
                other = values[1 - values.index(small[0])]
                float_guard = "" if other in small else f"type({other}) is float"
            float_test = " and ".join(part for part in [*rebind, float_guard.format(**fields), ok] if part)
            float_value = code.format(**fields)
            if self.compares_for_test(node):
                float_value = jumped_on(float_value)
            otherwise = f"({float_value} if {float_test} else {otherwise})"
        value = f"{values[0]} {BINARY_OPS[name]} {values[1]}"
        if self.compares_for_test(node):
            value = jumped_on(value)
        return f"({value} if {guard} else {otherwise})"

    def likely_float(self, node: Node) -> bool:
        """Whether ``node``'s value is probably a float: a float literal, ``inexact``, ``+ - * /``
        with a likely float operand, or a register variable bound to one. Only a hint: it
        puts the float arm of inline arithmetic before the exact-integer arm."""
        known = self.float_hints.get(id(node))
        if known is None:
            known = False
            kind = type(node)
            if kind is Const:
                known = type(node.value) is float
            elif kind is LocalRef and not node.checked and node.depth < len(self.scopes):
                known = self.local(node) in self.floats
            elif kind is Call and type(node.operator) is GlobalRef:
                name = node.operator.name.name
                known = name in ("exact->inexact", "inexact") or (
                    name in ARITHMETIC and any(self.likely_float(o) for o in node.operands)
                )
            self.float_hints[id(node)] = known
        return known

    def note_floats(self, locals_: Any, inits: list[Node]) -> None:
        """Remember which new register locals start as likely floats."""
        self.floats.update(local for local, init in zip(locals_, inits) if self.likely_float(init))

    def float_first(self, node: Call, name: str, operands: list[str], ok: str) -> str | None:
        """A binary operator with a likely float operand (:meth:`likely_float`) and no exact
        integer literal: an arm for two floats first, binding both operands once, then the
        usual exact-integer, mixed and fallback arms on the bound values. None otherwise."""
        if not any(self.likely_float(o) for o in node.operands) or any(is_int_literal(o) for o in operands):
            return None
        temps, binds = [], []
        for source in operands:
            if source.isidentifier():
                temps.append(source)
            else:
                temp = self.fresh("t")
                temps.append(temp)
                binds.append(f"({temp} := {source}) is {temp}")
        floats = " is ".join([*(f"type({t})" for t in temps), "float"])
        test = " and ".join([*binds, floats, ok])
        rest = self.pure_call(node, temps)
        if rest is None:
            return None
        return f"({temps[0]} {FLOAT_OPS[name]} {temps[1]} if {test} else {rest})"

    def float_literal_operation(self, node: Call, name: str, operands: list[str], ok: str) -> str | None:
        """``(op x 2.5)`` with a finite float literal: the result is inexact whatever ``x``
        is, so only the float arm is emitted (``x`` a float, or an exact integer as
        :data:`~.fastpath.FLOAT_ARITH` allows), with the literal in the code. None when no
        operand is such a literal (or it is a zero divisor)."""
        literal = [type(a) is Const and type(a.value) is float and math.isfinite(a.value) for a in node.operands]
        if not any(literal) or (name == "/" and literal[1] and node.operands[1].value == 0):  # type: ignore[attr-defined]
            return None
        values, given, checks = [], [], []
        for operand, source, is_literal in zip(node.operands, operands, literal):
            if is_literal:
                values.append(f"({operand.value!r})")  # type: ignore[attr-defined]
                given.append(source)
                continue
            temp = self.fresh("t")
            values.append(temp)
            given.append(temp)
            exact = FLOATABLE_INT.format(x=temp) if name in ARITHMETIC else f"type({temp}) is int"
            checks.append(f"(type({temp} := {source}) is float or {exact})")
        if name == "/" and not literal[1]:
            checks.append(f"{values[1]} != 0")
        guard = " and ".join([*checks, ok])
        return f"({values[0]} {FLOAT_OPS[name]} {values[1]} if {guard} else {self.fallback(node, given)})"

    def outermost_parts(self, node: And | Or, build: Callable[[Node], str | None]) -> list[str] | None:
        """``build`` of each part of ``node`` as an outermost expression (fused on its own:
        :func:`~.fused.fuse`), since a later part runs only when the earlier ones let it;
        None if a part is not pure or the whole is too high."""
        saved, self.pure_depth = self.pure_depth, 0
        try:
            parts = [build(part) for part in node.parts]
        finally:
            self.pure_depth = saved
        if any(p is None for p in parts) or not self.within_height(node, node.parts, len(parts)):
            return None
        return parts  # type: ignore[return-value]

    def pure_logic(self, node: And | Or) -> str | None:
        """``and``/``or`` of pure parts as one short-circuiting expression (each part an
        outermost one, see :meth:`outermost_parts`)."""
        parts = self.outermost_parts(node, self.pure)
        if parts is None:
            return None
        if not parts:
            return "True" if type(node) is And else "False"
        expr = parts[-1]
        for part in reversed(parts[:-1]):
            temp = self.fresh("t")
            if type(node) is And:
                expr = f"(False if ({temp} := {part}) is False else {expr})"
            else:
                expr = f"({temp} if ({temp} := {part}) is not False else {expr})"
        return expr


#: A test of an integer literal that holds by itself: ``type((26)) is int``, ``(26) != 0``.
LITERAL_TEST = re.compile(r"type\(\(-?\d+\)\) is int|\(-?[1-9]\d*\) != 0")


def plain_operand(guarded: tuple[Any, ...], field: str) -> bool:
    """Whether a guarded template only tests and computes with operand ``field`` (no
    subscript, attribute or identity test), so that an integer literal may stand there."""
    _count, guard, code, _statement = guarded
    text = f"{guard} {code}"
    return not any(pattern.format(f=field) in text for pattern in ("{{{f}}}[", "{{{f}}}.", "{{{f}}} is ", "is {{{f}}}"))


def without_literal_tests(guard: str) -> str:
    """``guard`` without its parts that test an integer literal and always hold."""
    parts = [part for part in guard.split(" and ") if not LITERAL_TEST.fullmatch(part)]
    return " and ".join(parts) or "True"
