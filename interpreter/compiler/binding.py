"""Binding forms inline: ``let``, ``letrec``, ``let-values``, ``call-with-values`` with literal lambdas.

The variables become Python locals (a register scope) when nothing captures them by a frame,
else they go into a frame made with them; ``let-values`` and ``call-with-values`` unpack a
``Values`` in place, with the arity error the primitive would give.

``(let-values (((a b) (split lst))) ...)``::

    t3 = ...                      # the producer's value
    if type(t3) is Values and len(t3.items) == 2:
        l4, l5 = t3.items
    else:
        l4, l5 = unpacked_values(t3, 2, ...)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..datatypes import (
    Symbol,
)
from ..nodes.binding import Let, LetValues, unpacked_values
from ..nodes.core import (
    Call,
    GlobalRef,
    Lambda,
    Node,
    assigned_names,
)
from ..nodes.release import procedures_stay_inside
from .emitter import (
    MAX_INDENT,
    MAX_REGISTER_SCOPES,
    PUBLISH,
    Registers,
)
from .fastpath import (
    builtins_intact,
)


class BindingForms:
    """let, letrec, let-values and call-with-values as Python locals."""

    def inline_let(self, node: Let) -> bool:
        """Whether a ``let`` or ``letrec`` becomes a register frame: in a procedure body
        (register or frame mode), without internal defines, when nothing assigns its
        variables (for ``letrec``: nor its inits, and no name is bound twice)."""
        names = set(node.names)
        return (
            self.in_body
            and len(self.scopes) < MAX_REGISTER_SCOPES
            and not node.defines
            and not assigned_names(node if node.sequential else node.body) & names
            and len(names) == len(node.names)
        )

    def let(self, node: Let, body: Callable[[Node], Any]) -> Any:
        """Emit a register ``let``: its values into fresh locals, then ``body(node.body)``
        with the let's frame innermost."""
        if node.sequential:
            return self.letrec(node, body)
        values = self.operand_values(node.inits)
        names = {name: self.fresh("l") for name in node.names}
        for local, value in zip(names.values(), values):
            self.line(f"{local} = {value}")
        self.note_floats(names.values(), node.inits)
        scope = Registers(names, self.fresh("e"))
        self.line(f"{scope.env} = None")
        self.scopes.append(scope)
        try:
            return body(node.body)
        finally:
            self.scopes.pop()

    def letrec(self, node: Let, body: Callable[[Node], Any]) -> Any:
        """Emit a register ``letrec``/``letrec*``: its variables start unassigned, with
        its frame innermost; each init's value goes to its local in order, and into the
        frame too once something (a closure made by an init) has made it."""
        names = {name: self.fresh("l") for name in node.names}
        scope = Registers(names, self.fresh("e"))
        if procedures_stay_inside(node.names, node.inits, [*node.inits, node.body]):
            self.released[scope.env] = None  # made None before the loop: see compile_procedure
            self.release(scope.env)  # the frame of the round before
        self.line(f"{scope.env} = None")
        for local in names.values():
            self.line(f"{local} = UNASSIGNED")
        self.scopes.append(scope)
        try:
            for (name, local), init in zip(names.items(), node.inits):
                self.line(f"{local} = {self.value(init)}")
                self.line(f"if {scope.env} is not None:")
                self.line(f"    {scope.env}.vars[{self.key(name)}] = {local}")
            return body(node.body)
        finally:
            self.scopes.pop()

    def inline_let_values(self, node: LetValues) -> bool:
        """Whether a ``let-values`` or ``let*-values`` becomes register variables: in a
        procedure body, without internal defines or an empty formals list, when nothing assigns its
        variables (for ``let*-values``: nor a later init, and no name is bound twice)."""
        names = [name for formals, rest, _init in node.clauses for name in (*formals, *([rest] if rest else []))]
        assigned = assigned_names(node.body)
        if node.sequential:
            if len(set(names)) != len(names):
                return False
            for _formals, _rest, init in node.clauses:
                assigned |= assigned_names(init)
        return (
            self.in_body
            and len(self.scopes) < MAX_REGISTER_SCOPES
            and not node.defines
            and all(formals or rest is not None for formals, rest, _init in node.clauses)
            and not assigned & set(names)
        )

    def let_values(self, node: LetValues, body: Callable[[Node], Any]) -> Any:
        """Emit a register ``let-values``: each init's values unpacked into fresh locals
        (a wrong count is the arity error the ``let-values`` node gives), then ``body``.

        ``let*-values`` evaluates each init with the variables bound so far in scope (its
        one frame, as the node makes): a frame made meanwhile is dropped after each clause,
        to be made again with the new variables when something needs it."""
        scope = Registers({}, self.fresh("e"))
        values: list[str] = []
        if node.sequential:
            self.line(f"{scope.env} = None")
            self.scopes.append(scope)
        else:
            values = self.operand_values([init for _formals, _rest, init in node.clauses])
        try:
            for i, (formals, rest, init) in enumerate(node.clauses):
                value = self.value(init) if node.sequential else values[i]
                unpack = self.constant(functools.partial(unpacked_values, formals, node.span, rest=rest), "n")
                if rest is None:
                    scope.names.update(self.unpack(formals, value, lambda temp, unpack=unpack: f"{unpack}({temp})"))
                else:  # a rest formal: the helper builds its list (and gives a short count's error)
                    names = [*formals, rest]
                    locals_ = [self.fresh("l") for _ in names]
                    self.line(f"{', '.join(locals_)}, = {unpack}({value})")
                    scope.names.update(zip(names, locals_))
                if node.sequential:
                    self.line(f"{scope.env} = None")
            if not node.sequential:
                self.line(f"{scope.env} = None")
                self.scopes.append(scope)
            return body(node.body)
        finally:
            self.scopes.pop()

    def unpack(self, formals: Any, value: str, mismatch: Callable[[str], str]) -> dict[Symbol, str]:
        """Emit the unpacking of ``value`` (one value, or several as ``Values``) into fresh
        locals for ``formals``; ``mismatch(temp)`` is an expression for the formals' values
        that raises the error of a wrong count. Returns the locals by name."""
        locals_ = [self.fresh("l") for _ in formals]
        temp = self.fresh("t")
        self.line(f"{temp} = {value}")
        if len(formals) == 1:  # one value is the usual case: not a Values
            self.line(f"{locals_[0]}, = ({temp},) if type({temp}) is not Values else {mismatch(temp)}")
        else:
            self.line(
                f"{', '.join(locals_)}, = {temp}.items if type({temp}) is Values and len({temp}.items) == "
                f"{len(formals)} else {mismatch(temp)}"
            )
        return dict(zip(formals, locals_))

    def inline_call_with_values(self, node: Call) -> bool:
        """Whether ``(call-with-values (lambda () e ...) (lambda (x ...) body ...))`` becomes
        register code as ``let-values`` does: in a procedure body, both operands literal
        lambdas, the producer without parameters or internal defines, the consumer with
        at least one parameter, no rest parameter and no internal defines, and nothing
        assigning its parameters. A guard sends the call the ordinary way if the global
        ``call-with-values`` no longer holds the built-in."""
        operator = node.operator
        if len(node.operands) != 2 or type(operator) is not GlobalRef or operator.name.name != "call-with-values":
            return False
        producer, consumer = node.operands
        return (
            "call-with-values" in self.builtins
            and self.inlinable_lambda(producer, 0)
            and self.inlinable_lambda(consumer)
            and bool(consumer.params)  # type: ignore[attr-defined]
        )

    def inlinable_lambda(self, node: Node, params: int | None = None) -> bool:
        """Whether ``node`` is a literal lambda whose body can run here inline, its
        parameters Python locals as a ``let``'s are: fixed parameters (``params`` of them,
        if given), no internal defines, no ``set!`` of a parameter, and room in this body
        for two more register frames and a loop."""
        return (
            type(node) is Lambda
            and (params is None or len(node.params) == params)
            and node.rest is None
            and not node.defines
            and self.in_body
            and len(self.scopes) < MAX_REGISTER_SCOPES - 1
            and self.indent + 3 <= MAX_INDENT
            and not assigned_names(node.body) & set(node.params)
        )

    def call_with_values(self, node: Call, body: Callable[[Node], Any], ordinary: Callable[[], Any]) -> None:
        """Emit an inline ``call-with-values`` (see :meth:`inline_call_with_values`): the
        producer's body in a frame of its own (empty, as its call would make), its values
        unpacked into the consumer's parameters, then ``body(consumer's body)``. A wrong
        count applies the consumer closure, which raises the arity error the call gives.
        If the global was rebound, ``ordinary()`` emits the call the usual way."""
        producer, consumer = node.operands
        intact = self.flag(builtins_intact(node.operator, self.builtins["call-with-values"]))
        self.line(f"if {intact}:")
        self.indent += 1
        value = self.value_in_scope({}, producer.body)
        consumer_closure = self.constant(consumer.compile(False), "n")
        frame, count = self.frame, len(consumer.params)
        names = self.unpack(
            consumer.params,
            value,
            lambda temp: f"({PUBLISH} or consumer_values({consumer_closure}({frame}), {temp}, {count}))",
        )
        scope = Registers(names, self.fresh("e"))
        self.line(f"{scope.env} = None")
        self.scopes.append(scope)
        try:
            body(consumer.body)
        finally:
            self.scopes.pop()
        self.indent -= 1
        self.line("else:")
        self.indent += 1
        ordinary()
        self.indent -= 1

    def value_in_scope(self, names: dict[Symbol, str], body: Node) -> str:
        """``body``'s value, emitted with a register frame of ``names`` innermost (made
        only if a closure or a slow path needs it)."""
        scope = Registers(names, self.fresh("e"))
        self.line(f"{scope.env} = None")
        self.scopes.append(scope)
        try:
            return self.value(body)
        finally:
            self.scopes.pop()
