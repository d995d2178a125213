"""Loops: ``do`` and a named ``let`` in tail position as Python ``while True:`` loops.

The loop variables are locals; a step counts under ``max_steps`` and polls the runtime's
marks; a tail call of the named let's name rebinds and ``continue``s (still a backtrace site).

``(do ((i 0 (+ i 1))) ((= i n) acc) ...)``::

    l5 = 0
    while True:
        if (True if (l5 == arg0) else False):
            break
        ...
        l5 = t11
        if rt.hop_mark < 0:
            rt.check()
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..datatypes import VOID
from ..nodes.binding import Do, NamedLet
from ..nodes.control import Or
from ..nodes.core import (
    Call,
    Const,
    LocalRef,
    Node,
    Seq,
    assigned_names,
    subtree,
)
from .emitter import (
    MAX_INDENT,
    MAX_REGISTER_SCOPES,
    Loop,
    Registers,
)


class Loops:
    """do and named let as Python loops over locals."""

    def inline_do(self, node: Do) -> bool:
        """Whether a ``do`` becomes a Python loop over register variables: in a procedure
        body, when nothing assigns its variables and the loop nests within the limits."""
        return (
            self.in_body
            and len(self.scopes) < MAX_REGISTER_SCOPES
            and self.indent + 2 <= MAX_INDENT
            and not assigned_names(node) & set(node.names)
        )

    def do(self, node: Do, finish: Callable[[Node], Any]) -> Any:
        """Emit a ``do`` as ``while True:`` over Python locals, then ``finish(result)``.

        Each iteration gets a fresh frame (made only if a closure or a slow path needs it,
        so closures capture that iteration's bindings); the steps are computed from the
        old values before any is assigned; each iteration counts one step, as the
        ``do`` node does."""
        values = self.operand_values(node.inits)
        names = {name: self.fresh("l") for name in node.names}
        for local, value in zip(names.values(), values):
            self.line(f"{local} = {value}")
        self.note_floats(names.values(), node.inits)
        scope = Registers(names, self.fresh("e"))
        self.scopes.append(scope)
        self.forget()  # a later round runs after this round's calls
        try:
            self.line("while True:")
            self.indent += 1
            self.line(f"{scope.env} = None")
            stepped = [(names[name], step) for name, step in zip(node.names, node.steps) if step is not None]

            def rest_of_round() -> None:
                if node.commands is not None:
                    self.effect(node.commands)
                new_values = []
                for value in self.operand_values([step for _, step in stepped]):
                    temp = self.fresh("t")
                    self.line(f"{temp} = {value}")
                    new_values.append(temp)
                for (local, _), value in zip(stepped, new_values):
                    self.line(f"{local} = {value}")
                self.count_step()

            parts = [part for part in [node.commands, *(step for _, step in stepped)] if part is not None]
            if not self.specialize(node.test, parts, lambda: self.line("break"), rest_of_round):
                self.exit_when(node.test)
                rest_of_round()
            self.indent -= 1
            result = node.result
            return finish(Const(VOID) if type(result) is Seq and not result.body else result)
        finally:
            self.scopes.pop()

    def exit_when(self, test: Node) -> None:
        """Emit the ``break`` of a loop whose exit test is ``test``; an ``or`` part by part, a
        ``break`` after each, so a call among its parts keeps no value to test again."""
        if type(test) is Or and test.parts:
            for part in test.parts:
                self.exit_when(part)
            return
        self.line(f"if {self.truth(test)}:")
        self.line("    break")

    def inline_named_let(self, node: NamedLet) -> bool:
        """Whether a named let in tail position may become a Python loop: in a procedure
        body, with fixed parameters and no internal defines, when nothing assigns its
        parameters or its name (see :meth:`named_let` for the rest)."""
        proc = node.proc
        return (
            self.in_body
            and len(self.scopes) + 2 <= MAX_REGISTER_SCOPES
            and self.indent + 2 <= MAX_INDENT
            and proc.rest is None
            and not proc.defines
            and len(node.inits) == len(proc.params)
            and not assigned_names(proc.body) & {*proc.params, node.name}
        )

    def named_let(self, node: NamedLet) -> bool:
        """Emit a named let in tail position as ``while True:`` over Python locals: a call
        of its name in tail position of its body rebinds them and continues (a step, as a
        self tail call counts), anything else returns. Every use of the name must be such
        a call (a closure or a slow path would look for the procedure in the frame): if
        one is not, the code emitted is taken back and False returned.

        The parameters get a fresh frame per iteration (made only if needed), so closures
        capture that iteration's bindings, as the procedure's calls would."""
        proc = node.proc
        uses = sum(1 for part in subtree(proc.body) if type(part) is LocalRef and part.name is node.name)
        undo = (len(self.lines), len(self.sites), self.current_site, self.indent)
        values = self.operand_values(node.inits)
        params = {name: self.fresh("l") for name in proc.params}
        for local, value in zip(params.values(), values):
            self.line(f"{local} = {value}")
        self.note_floats(params.values(), node.inits)
        holder = Registers({node.name: self.fresh("l")}, self.fresh("e"))  # the frame naming the loop
        self.line(f"{holder.names[node.name]} = {holder.env} = None")
        self.count_step()
        scope = Registers(params, self.fresh("e"))
        self.scopes += [holder, scope]
        loop = Loop(node.name, list(params.values()), len(self.scopes), set())
        self.loops.append(loop)
        self.forget()  # a later round runs after this round's calls
        try:
            self.line("while True:")
            self.indent += 1
            self.line(f"{scope.env} = None")
            self.tail(proc.body)
            self.indent -= 1
        finally:
            self.loops.pop()
            del self.scopes[-2:]
        if len(loop.continues) == uses:
            return True
        del self.lines[undo[0] :], self.sites[undo[1] :]
        self.current_site, self.indent = undo[2], undo[3]
        return False

    def loop_continue(self, node: Call) -> bool:
        """In tail position of an inline named let's body: emit a call of that loop as
        rebinding its parameters and ``continue``; False if ``node`` is not such a call."""
        if not self.loops or type(node.operator) is not LocalRef:
            return False
        loop, ref = self.loops[-1], node.operator
        if ref.name is not loop.name or ref.checked or ref.depth != len(self.scopes) - loop.base + 1:
            return False
        if len(node.operands) != len(loop.params):
            return False
        parent = self.current_site
        self.open_site(node)  # in progress while its operands run, as a call is
        args = self.operand_values(node.operands)
        self.current_site = parent
        if args:  # `site` stays: the next iteration runs inside this call, as the procedure's would
            self.line(f"{', '.join(loop.params)}, = {', '.join(args)},")
        self.count_step()
        self.line("continue")
        loop.continues.add(id(node))
        return True

    def count_step(self) -> None:
        """Emit what a round of a loop does for the limits. Under ``max_steps`` (or
        ``max_memory``) it is a step. Otherwise it only looks for attention, as a call does
        (the depth check): the limits that remain reach a running program through
        ``Runtime.attend`` (a timeout's watchdog, Ctrl-C and cancellation, a branch's
        watchdog or cancellation), and while parallel forms run every round checks (the
        branch counts its steps)."""
        if self.counts_rounds:
            self.line("rt.steps += 1")
            self.line("if rt.steps >= rt.check_at:")
            self.line("    rt.check()")
        else:
            self.line("if rt.hop_mark < 0:")
            self.line("    rt.check()")
