"""The dispatch of a node to the family that emits it: as a value, for its effect, in tail position.

``value`` returns a Python expression (emitting statements before it when it must), ``effect``
emits a node for its effect only (its temporaries are free again afterwards), ``tail`` emits
statements that end in ``return`` or ``continue``. A node no family handles runs its ordinary
compiled closure (``slow``).

``(if (< n 2) n (f n))`` in tail position::

    if (True if (arg0 < 2) else False):
        return arg0
    else:
        site = 1
        ...
"""

from __future__ import annotations

from ..nodes.binding import Do, Let, LetValues, NamedLet
from ..nodes.control import And, Case, Cond, Or
from ..nodes.core import (
    Call,
    Const,
    Define,
    GlobalRef,
    If,
    Lambda,
    LocalRef,
    Node,
    Seq,
)
from .emitter import (
    MAX_INDENT,
    is_simple_constant,
)
from .inline_walks import emit_walk, inline_walk
from .trmc import emit_cons_loop
from .trmp import emit_sum_loop


class Statements:
    """value, effect and tail: each node to the family of forms that emits it."""

    def recursion_loop(self, node: Call) -> bool:
        """Whether ``node`` was emitted as a round of the body's loop (``trmc``, ``trmp``)."""
        return emit_cons_loop(self, node) or emit_sum_loop(self, node)  # type: ignore[arg-type]

    # -- expressions: return a Python expression, may emit statements first --------
    def value(self, node: Node) -> str:
        kind = type(node)
        if kind is Const and is_simple_constant(node.value):
            return repr(node.value)
        if kind is Const:
            return self.constant(node.value)
        if kind is LocalRef and (not node.checked or self.known_defined(node)):
            return self.local(node)
        if kind is LocalRef:  # a letrec or internal-define variable: read inline, checked
            temp = self.fresh("t")
            self.line(f"{temp} = {self.local(node)}")
            self.line(f"if {temp} is UNASSIGNED:")
            self.line(f"    {temp} = {self.slow(node)}")  # raises the error
            return temp
        if kind is GlobalRef:
            return self.global_value(node)
        if kind is Define and node in self.define_nodes:
            self.define_register(node)
            return "VOID"
        if kind is Call and inline_walk(self, node):
            return emit_walk(self, node)
        if kind is Call and self.inline_call_with_values(node):
            temp = self.fresh("t")
            self.call_with_values(
                node,
                lambda body: self.line(f"{temp} = {self.value(body)}"),
                lambda: self.line(f"{temp} = {self.call(node, tail=False)}"),
            )
            return temp
        if kind is Call:
            return self.call(node, tail=False)
        if kind is If and self.fits(node):
            temp = self.fresh("t")
            self.branch(node, lambda n: self.line(f"{temp} = {self.value(n)}"))
            return temp
        if kind is Seq and node.body:
            for part in node.body[:-1]:
                self.effect(part)
            return self.value(node.body[-1])
        if kind is Let and self.inline_let(node):
            temp = self.fresh("t")
            self.let(node, lambda body: self.line(f"{temp} = {self.value(body)}"))
            return temp
        if kind is Case and self.plain_case(node):
            temp = self.fresh("t")
            self.case(node, lambda body: self.line(f"{temp} = {self.value(body)}"))
            return temp
        if kind is LetValues and self.inline_let_values(node):
            temp = self.fresh("t")
            self.let_values(node, lambda body: self.line(f"{temp} = {self.value(body)}"))
            return temp
        if kind is Do and self.inline_do(node):
            temp = self.fresh("t")
            self.do(node, lambda result: self.line(f"{temp} = {self.value(result)}"))
            return temp
        if kind in (And, Or) or (kind is Cond and self.plain_cond(node)):
            inline = self.pure(node)
            if inline is not None:
                return inline
            if self.fits(node):
                temp = self.fresh("t")
                self.logic(node, lambda n: self.line(f"{temp} = {self.value(n)}"), temp)
                return temp
        temp = self.fresh("t")
        if kind is Lambda:  # makes a closure and runs nothing: no level to publish, nothing to re-read
            self.line(f"{temp} = {self.constant(node.compile(False), 'n')}({self.frame})")
            return temp
        self.line(f"{temp} = {self.slow(node)}")
        return temp

    def effect(self, node: Node) -> None:
        """Emit a node evaluated only for its effect (a global is still looked up: it may be
        unbound). The temporaries it takes are dead once it is done: later statements may
        take them again (:meth:`fresh`)."""
        if type(node) is Const or (type(node) is LocalRef and not node.checked):
            return
        first = len(self.temps_in_use)
        try:
            self.effect_statements(node)
        finally:
            self.free_temps(first)

    def free_temps(self, first: int) -> None:
        """The temporaries taken since ``first`` (a length of :attr:`temps_in_use`) are dead
        from here on: code emitted later may take them again."""
        done = self.temps_in_use[first:]
        del self.temps_in_use[first:]
        spare = set(self.spare_temps)
        for name in dict.fromkeys(done):
            if name not in spare:
                self.spare_temps.append(name)

    def effect_statements(self, node: Node) -> None:
        if type(node) is Define and node in self.define_nodes:
            self.define_register(node)
            return
        if type(node) is Call and inline_walk(self, node):
            emit_walk(self, node)
            return
        if type(node) is Call and self.pure(node) is None and self.flagged(node):
            self.flagged_call(node, value=False)
            return
        expr = self.value(node)
        if not expr.isidentifier():
            self.line(expr)

    def global_value(self, node: GlobalRef) -> str:
        read, ref = self.global_reader(node)
        temp = self.fresh("t")
        self.line(f"{temp} = {read}")
        self.line(f"if {temp} is None:")
        self.line(f"    {temp} = {ref}({self.frame})")
        return temp

    # -- statements in tail position: end in return or continue --------------------
    def tail(self, node: Node) -> None:
        kind = type(node)
        if kind is If and self.fits(node):
            self.branch(node, self.tail)
        elif kind is Seq and node.body:
            for part in node.body[:-1]:
                self.effect(part)
            self.tail(node.body[-1])
        elif kind is Call and inline_walk(self, node):
            self.line(f"return {emit_walk(self, node)}")
        elif kind is Call and self.inline_call_with_values(node):
            self.call_with_values(node, self.tail, lambda: self.call(node, tail=True))
        elif kind is Call and self.indent + 2 <= MAX_INDENT and self.recursion_loop(node):
            pass  # tail recursion modulo cons or +: a round of the body's loop
        elif kind is Call:
            self.call(node, tail=True)
        elif kind is Let and self.inline_let(node):
            self.let(node, self.tail)
        elif kind is Do and self.inline_do(node):
            self.do(node, self.tail)
        elif kind is NamedLet and self.inline_named_let(node) and self.named_let(node):
            pass
        elif kind is LetValues and self.inline_let_values(node):
            self.let_values(node, self.tail)
        elif kind is Case and self.plain_case(node):
            self.case(node, self.tail)
        elif kind in (Const, LocalRef, GlobalRef):
            self.line(f"return {self.value(node)}")
        elif kind in (And, Or) or (kind is Cond and self.plain_cond(node)):
            inline = self.pure(node)
            if inline is not None:
                self.line(f"return {inline}")
            elif self.fits(node):
                self.logic(node, self.tail, None)
            else:
                self.tail_value(self.slow(node, tail=True))
        else:
            self.tail_value(self.slow(node, tail=True))
