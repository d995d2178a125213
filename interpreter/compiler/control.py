"""Control: ``if``, ``cond``, ``case``, ``and``, ``or`` as Python statements, and truth tests.

Arms become ``if``/``elif``/``else`` blocks within :data:`~.emitter.MAX_INDENT`; a ``case`` over
literal data is a chain of identity or ``eqv`` tests. A test's truth is the Python ``bool`` of a
comparison computed inline, else ``value is not False``.

``(cond ((null? a) b) (else a))`` in tail position::

    if t1 is NIL and ok3:
        return arg1
    else:
        return arg0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..datatypes import (
    VOID,
    Char,
)
from ..nodes.control import And, Case, Cond, Or
from ..nodes.core import (
    Call,
    Const,
    GlobalRef,
    If,
    Node,
)
from .emitter import (
    MAX_INDENT,
    is_int_literal,
)
from .fastpath import (
    BOOLEAN_RESULTS,
)


class Control:
    """if, cond, case, and, or as statements; the truth of a test."""

    def case(self, node: Case, arm: Callable[[Node], Any]) -> None:
        """Emit a ``case`` without ``=>`` clauses as an if/elif chain on the key's value;
        each datum is compared as ``eqv?`` does, inline for symbols, booleans, exact
        integers and characters."""
        key = self.fresh("t")
        self.line(f"{key} = {self.value(node.key)}")
        keyword = "if"
        for data, body, _receiver in node.clauses:
            test = " or ".join(self.eqv_test(key, datum) for datum in data) or "False"
            self.line(f"{keyword} {test}:")
            self.indent += 1
            arm(body)
            self.indent -= 1
            keyword = "elif"
        if keyword == "elif":
            self.line("else:")
            self.indent += 1
        arm(node.default if node.default is not None else Const(VOID))
        if keyword == "elif":
            self.indent -= 1

    def eqv_test(self, value: str, datum: Any) -> str:
        """An expression: whether ``value`` (a name) is ``eqv?`` to the constant ``datum``."""
        t = type(datum)
        if t is int:
            return f"({value} == {datum!r} and type({value}) is int)"
        if t is Char:
            return f"(type({value}) is Char and {value}.ch == {datum.ch!r})"
        if t in (float, str) or t.__name__ == "Fraction":
            return f"is_eqv({value}, {self.constant(datum)})"
        return f"{value} is {self.constant(datum)}"

    def fits(self, node: Node) -> bool:
        """Whether the if/else statements of an ``if``, ``and``, ``or`` or ``cond`` nest
        here within :data:`MAX_INDENT` (else it runs its ordinary compiled code)."""
        levels = len(node.clauses) if type(node) is Cond else len(node.parts) if type(node) in (And, Or) else 1
        return self.indent + levels <= MAX_INDENT

    # -- and, or, cond as statements -------------------------------------------------
    def plain_case(self, node: Case) -> bool:
        """A case without ``=>`` clauses, nesting within :data:`MAX_INDENT`, of at most 64 data."""
        data = sum(len(d) for d, _b, _r in node.clauses)
        receivers = node.default_receiver is not None or any(r is not None for _d, _b, r in node.clauses)
        return not receivers and data <= 64 and self.indent + 2 <= MAX_INDENT

    def plain_cond(self, node: Cond) -> bool:
        """A cond without ``=>`` clauses and short enough to nest as if/else."""
        return len(node.clauses) <= 20 and all(c.receiver is None for c in node.clauses)

    def logic(self, node: Node, arm: Any, temp: str | None) -> None:
        """Emit ``and``/``or``/``cond``; ``arm`` emits a result node, ``temp`` holds a value
        that is itself the result (None in tail position, where it is returned)."""

        def give(expr: str) -> None:
            self.line(f"return {expr}" if temp is None else f"{temp} = {expr}")

        if type(node) is Cond:
            self.cond_clauses(node.clauses, arm, give)
            return
        parts = node.parts
        if not parts:
            give("True" if type(node) is And else "False")
            return
        depth = 0
        for part in parts[:-1]:
            value = self.fresh("t")
            self.line(f"{value} = {self.value(part)}")
            if type(node) is And:
                self.line(f"if {value} is False:")
                self.line("    " + ("return False" if temp is None else f"{temp} = False"))
            else:
                self.line(f"if {value} is not False:")
                self.line("    " + (f"return {value}" if temp is None else f"{temp} = {value}"))
            self.line("else:")
            self.indent += 1
            depth += 1
        arm(parts[-1])
        self.indent -= depth

    def cond_clauses(self, clauses: list[Any], arm: Any, give: Any) -> None:
        if not clauses:
            give("VOID")
            return
        clause, rest = clauses[0], clauses[1:]
        if clause.test is None:  # else
            arm(clause.body)
            return
        parts = [clause.body, *(part for c in rest for part in (c.test, c.body) if part is not None)]
        if clause.body is not None and self.specialize(
            clause.test, parts, lambda: arm(clause.body), lambda: self.cond_clauses(rest, arm, give)
        ):
            return
        if clause.body is not None and rest and rest[0].test is not None and rest[0].body is not None:
            second, after = rest[0], rest[1:]
            if self.specialize(
                second.test,
                [second.body, *(part for c in after for part in (c.test, c.body) if part is not None)],
                lambda: arm(second.body),
                lambda: self.cond_clauses(after, arm, give),
                prior=(clause.test, lambda: arm(clause.body)),
            ):
                return
        rest_code = [part for c in rest for part in (c.test, c.body) if part is not None]
        rest_tests = tuple(c.test for c in rest if c.test is not None)
        if clause.body is not None and self.walk_pair(
            clause.test, lambda: arm(clause.body), rest_code, lambda: self.cond_clauses(rest, arm, give), rest_tests
        ):
            return
        if clause.body is None:  # (cond (test) …): the test's value is the clause's
            value = self.fresh("t")
            self.line(f"{value} = {self.test(clause.test)}")
            self.if_else(f"{value} is not False", lambda: give(value), lambda: self.cond_clauses(rest, arm, give))
            return
        first = len(self.temps_in_use)
        truth = self.truth(clause.test)
        self.if_else(truth, lambda: arm(clause.body), lambda: self.cond_clauses(rest, arm, give), first)

    def if_else(
        self, condition: str, then_arm: Callable[[], None], else_arm: Callable[[], None], first: int | None = None
    ) -> None:
        """Emit ``if condition:`` and its two arms, each starting from what the test left
        (:attr:`frame_made`). ``first``: the temporaries taken since (by the condition)
        are dead in both arms (:meth:`free_temps`)."""
        self.line(f"if {condition}:")
        if first is not None:
            self.free_temps(first)
        tested = self.frame_made
        self.indent += 1
        then_arm()
        self.indent -= 1
        self.line("else:")
        self.indent += 1
        made, self.frame_made = self.frame_made, tested
        else_arm()
        self.frame_made |= made
        self.indent -= 1

    def branch(self, node: If, arm: Any) -> None:
        if type(node.test) is Const:  # a constant test: only one arm can run
            taken = node.then if node.test.value is not False else node.otherwise
            arm(taken if taken is not None else Const(VOID))
            return
        otherwise = node.otherwise if node.otherwise is not None else Const(VOID)
        if self.specialize(node.test, [node.then, otherwise], lambda: arm(node.then), lambda: arm(otherwise)):
            return
        inner = otherwise
        if type(inner) is If and type(inner.test) is not Const and self.fits(inner):
            rest = inner.otherwise if inner.otherwise is not None else Const(VOID)
            if self.specialize(
                inner.test,
                [inner.then, rest],
                lambda: arm(inner.then),
                lambda: arm(rest),
                prior=(node.test, lambda: arm(node.then)),
            ):
                return
        if self.walk_pair(node.test, lambda: arm(node.then), [otherwise], lambda: arm(otherwise)):
            return
        first = len(self.temps_in_use)
        self.if_else(self.truth(node.test), lambda: arm(node.then), lambda: arm(otherwise), first)

    def truth(self, node: Node) -> str:
        """An expression whose Python truth is the Scheme truth of ``node``'s value. A
        built-in computed inline whose inline arms give a Python ``bool`` (comparisons,
        predicates: :data:`BOOLEAN_RESULTS`) is used as it is; only its fallback, which
        may return anything, is compared with ``#f``. Anything else: ``value is not False``."""
        if (
            type(node) is Call
            and type(node.operator) is GlobalRef
            and node.operator.name.name in BOOLEAN_RESULTS
            and self.truth_of is None
        ):
            self.truth_of = node
            try:
                inline = self.pure(node)
            finally:
                self.truth_of = None
            if inline is not None:
                return inline
        if type(node) in (And, Or) and node.parts:  # type: ignore[attr-defined]
            logic = self.logic_truth(node)  # type: ignore[arg-type]
            if logic is not None:
                return logic
        return f"{self.test(node)} is not False"

    def logic_truth(self, node: And | Or) -> str | None:
        """The truth of an ``and``/``or`` of pure parts as Python's own ``and``/``or`` of
        the parts' truths: a test keeps no part's value (:meth:`pure_logic` keeps each in a
        name and tests it twice). None if a part is not pure (:meth:`outermost_parts`)."""
        truths = self.outermost_parts(node, self.pure_truth)
        if truths is None:
            return None
        return "(" + (" and " if type(node) is And else " or ").join(f"({t})" for t in truths) + ")"

    def pure_truth(self, node: Node) -> str | None:
        """:meth:`truth` of a pure ``node`` (emitting nothing), else None."""
        if type(node) in (And, Or) and node.parts:  # type: ignore[attr-defined]
            return self.logic_truth(node)  # type: ignore[arg-type]
        boolean = type(node) is Call and type(node.operator) is GlobalRef and node.operator.name.name in BOOLEAN_RESULTS
        if boolean and self.truth_of is None:
            self.truth_of = node  # type: ignore[assignment]
            try:
                return self.pure(node)
            finally:
                self.truth_of = None
        expr = self.pure(node)
        if expr is None:
            return None
        return "True" if is_int_literal(expr) else f"{expr} is not False"

    def test(self, node: Node) -> str:
        """An expression for a test's value, never an integer literal (``0 is not False``
        is a SyntaxWarning): ``(if (begin 0 0) …)`` gets a temporary."""
        inline = self.pure(node)
        expr = inline if inline is not None else self.value(node)
        if is_int_literal(expr):
            temp = self.fresh("t")
            self.line(f"{temp} = {expr}")
            return temp
        return expr
