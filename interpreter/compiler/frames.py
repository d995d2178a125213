"""Frames and registers: where a body's variables live, and calls of the body itself.

A procedure's parameters (and the variables of its ``let``s, ``do``s and named lets) stay
Python locals when nothing can assign them; the frame (``env``) is made only when a slow path,
a closure or a task call needs it, and re-read after any call that may have changed it. A self
tail call rebinds the parameters and goes round the body's ``while True:`` loop.

A parameter read from its register, the frame made on demand, the register re-read::

    (env or (env := Env({k1: arg0}, outer)))
    o1 = n5(env)
    if env is not None:
        arg0 = env.vars[k1]
"""

from __future__ import annotations

import functools

from ..nodes.core import (
    Call,
    Define,
    GlobalRef,
    LocalRef,
    Node,
)
from .emitter import (
    PUBLISH,
    Registers,
)
from .hoist import CALLED_OUT


class Frames:
    """Frames, registers and the body's calls of itself."""

    def rebind_self(self, f: str | None, args: list[str]) -> None:
        """Emit a call of closure ``f``, which has this body, on ``args`` as a round of the
        body's loop: the parameters rebound (a new frame in ``f``'s), a step, ``continue``.
        ``f`` None: the running closure itself (``calls_itself``), whose frame is ``outer``."""
        env = "outer" if f is None else f"{f}.env"
        if not self.register_mode:
            self.line(f"env = {self.frame_of(env, args)}")
        else:
            params = list(self.scopes[0].names.values())[: len(args)]  # the defines follow them
            changed = [(param, arg) for param, arg in zip(params, args) if param != arg]
            if changed:
                self.line(f"{', '.join(p for p, _ in changed)} = {', '.join(a for _, a in changed)}")
            if f is not None:
                self.line(f"outer = {env}")
            if self.frame_made:  # else it is still None, as the round found it
                self.release("env")
                self.line("env = None")
        self.count_step()
        self.line("continue")

    def calls_itself(self, node: Call) -> bool:
        """Whether ``node`` calls the closure running this body, with a count it takes: its
        operator is the name a ``letrec``, named let or internal define bound this lambda to
        (``Lambda.binding``), assigned nowhere else, read in the frame the closure was made
        in. While the interpreter's ``lexical_self`` flag holds, that name's value is this very closure."""
        proc, operator = self.procedure, node.operator
        if proc is None or proc.binding is None or self.loops or type(operator) is not LocalRef:
            return False
        name, region = proc.binding
        made_in = len(self.scopes) if self.register_mode else len(self.scopes) + 1
        return (
            operator.name == name
            and operator.depth == made_in
            and self.accepts(len(node.operands))
            and region.never_reassigned(name)
        )

    def kept_self(self, node: Call) -> tuple[str, str] | None:
        """For a tail call of a global that may hold a closure with this body (a loop):
        ``(cache, keep)``, names of this namespace. ``cache`` is the last such closure the
        call found there (``keep(f)`` stores it), so that the next round tests ``f is cache``
        instead of ``type(f) is Closure and f.run is run``: a global procedure's loop round
        31 -> 28 ms over 300,000. It holds one closure at most, a global's value or a former
        one. None for any other call (a local's closure may hold a frame; not kept)."""
        if self.loops or type(node.operator) is not GlobalRef or not self.accepts(len(node.operands)):
            return None
        cache = self.constant(None, "me")
        return cache, self.constant(functools.partial(self.namespace.__setitem__, cache), "keep")

    def names_procedure(self, operator: Node) -> bool:
        """Whether ``operator`` is the global name this body's procedure was defined by."""
        proc = self.procedure
        return proc is not None and type(operator) is GlobalRef and operator.name.name == proc.name  # type: ignore[attr-defined]

    def self_flag(self) -> str:
        """The test of the interpreter's ``lexical_self`` flag (see ``calls_itself``)."""
        assert self.procedure is not None
        return self.flag(self.procedure.rt.lexical_self, "okme")  # every flag's name starts "ok" (hoist.FLAG_NAME)

    def frame_of(self, outer: str, args: list[str]) -> str | None:
        """An expression making this procedure's frame for ``args`` inside ``outer``;
        None if there is no procedure or the count is wrong (the general path reports it)."""
        proc = self.procedure
        if proc is None or not self.accepts(len(args)):
            return None
        if proc.rest is not None:
            return f"binder({', '.join([outer, *args])})"
        unassigned = [f"{self.key(name)}: UNASSIGNED" for name in proc.defines]
        bound = [f"{self.key(name)}: {arg}" for name, arg in zip(proc.params, args)]
        return f"Env({{{', '.join(unassigned + bound)}}}, {outer})"

    def define_register(self, node: Define) -> None:
        """Emit an internal ``define`` held in a register: the value into its local, and
        into the procedure's frame too if something (a closure) has made it."""
        local = self.scopes[0].names[node.name]
        lifted = self.lifted.get(node)
        value = f"{lifted[0]}.closures_in(outer)[{lifted[1]}]" if lifted else self.value(node.value)
        self.line(f"{local} = {value}")
        self.line("if env is not None:")
        self.line(f"    env.vars[{self.key(node.name)}] = {local}")
        self.defined.add(node.name)

    def known_defined(self, node: LocalRef) -> bool:
        """Whether ``node`` reads a register define that every path here has assigned: the
        define was emitted before, in the body's own straight-line code, and nothing
        assigns the name again (``register_defines``), so the read needs no check."""
        return node.depth == len(self.scopes) - 1 and self.register_mode and node.name in self.defined

    @property
    def in_body(self) -> bool:
        """Whether this emits a procedure body (lets and dos may then become locals)."""
        return self.procedure is not None

    @property
    def frame(self) -> str:
        """An expression for the innermost frame. In register mode each frame is made
        on first use, from its variables' current values, inside its parent's frame."""
        expr = "outer" if self.register_mode else "env"
        for scope in self.scopes:
            bound = ", ".join(f"{self.key(name)}: {local}" for name, local in scope.names.items())
            expr = f"({scope.env} or ({scope.env} := Env({{{bound}}}, {expr})))"
        return expr

    def reloads(self, scope: Registers) -> list[str]:
        """Assignments that re-read ``scope``'s variables from its made frame, where code
        that was handed the frame (a task's body, a slow path) may have ``set!`` them."""
        return [f"{local} := {scope.env}.vars[{self.key(name)}]" for name, local in scope.names.items()]

    def reload_after_call(self) -> None:
        """In register mode: re-read the variables of every frame that has been made."""
        for scope in self.scopes:
            if scope.names:
                self.line(f"if {scope.env} is not None:")
                for walrus in self.reloads(scope):
                    self.line("    " + walrus.replace(" := ", " = "))
        if self.register_mode:  # where hoist.py reads its flags again
            self.line(CALLED_OUT)

    def local(self, node: LocalRef) -> str:
        """The expression reading a local variable."""
        key = self.key(node.name)
        if node.depth < len(self.scopes):
            return self.scopes[-1 - node.depth].names[node.name]
        depth = node.depth - len(self.scopes)
        if self.register_mode:
            return "outer" + ".outer" * depth + f".vars[{key}]"
        return (self.frame_vars if depth == 0 else "env" + ".outer" * depth + ".vars") + f"[{key}]"

    def slow(self, node: Node, tail: bool = False) -> str:
        """A call of ``node``'s ordinary compiled code on the frame."""
        call = self.reloading(f"{self.constant(node.compile(tail), 'n')}({self.frame})", tail)
        self.forget()
        return call

    def forget(self) -> None:
        """Drop the facts and known flags (see :meth:`specialize`): code emitted from here
        runs after a call out, which may have rebound a built-in or, through a task run in
        this frame, assigned a variable."""
        if self.facts or self.known_flags or self.known_fields:
            self.facts = {}
            self.known_flags = set()
            self.known_fields = {}

    def reloading(self, call: str, tail: bool = False) -> str:
        """``call`` (which may have made every frame and, through a task run in this
        frame, assigned its variables) followed in register mode by re-reading them, and
        preceded by the publication of the body's depth (see :data:`TEMPLATE`)."""
        reloads = [] if tail else [walrus for scope in self.scopes for walrus in self.reloads(scope)]
        if self.procedure is not None:  # not a node template's operand (where rt.depth holds)
            call = f"({PUBLISH} or {call})"  # None or …: no stack slot more in each frame
        if not reloads:
            return call
        if self.register_mode:  # where hoist.py reads its flags again
            reloads.append(CALLED_OUT)
        return f"({call}, {', '.join(reloads)})[0]"  # the tuple keeps the call's value
