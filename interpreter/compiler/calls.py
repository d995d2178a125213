"""Calls and fallbacks: a call site's operator read, its operands named, its closure run in place.

A closure is run directly (``(f.run if True else None)(f.env, depth + 1, rt, ...)``) below
the runtime's hop mark, else through ``apply_procedure``; a primitive by its ``fn``; anything
else with the caller's frame. A tail call hands a pending ``TailCall`` back to a trampoline or
runs it (``settle``). Constructors (``cons``, ``values``) are built by statements.

A call ``(f (- n 1))`` as a value::

    site = 1
    o1 = G4.value
    t1 = (arg0 - 1)
    if type(o1) is Closure:
        if depth < rt.hop_mark:
            t1 = (o1.run if True else None)(o1.env, depth + 1, rt, t1)
        else:
            rt.depth = depth
            t1 = apply_procedure(o1, [t1])
    elif type(o1) is Primitive:
        ...
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..mirrors import Flag
from ..nodes.core import (
    Call,
    Const,
    GlobalRef,
    Node,
)
from . import emitter as core
from .emitter import (
    MAKES_ENV,
    PENDING,
    RUN_OF,
    compares_identity,
    is_int_literal,
)
from .fastpath import (
    CONSTRUCTOR_STATEMENTS,
    PORT_STATEMENTS,
    builtins_intact,
    generic_application,
)


class Calls:
    """Call sites: operators, operands, closure and primitive arms, fallbacks, constructors."""

    def fallback(self, node: Call, values: list[str]) -> str:
        """A call applying ``node``'s operator the ordinary way to operand ``values``
        already computed (compared with ``#f`` when it is the fallback of a test: ``truth``)."""
        apply = self.constant(generic_application(node), "n")
        call = self.reloading(f"{apply}({', '.join([self.frame, *values])})")
        return f"({call} is not False)" if node is self.truth_of else call

    def fallback_arm(self, result: str, node: Call, operands: Callable[[], list[str]], parent: int) -> str:
        """Close an inline arm: its ``else:`` sets ``result`` by the ordinary call of ``node`` on
        the values ``operands()`` gives (emitted inside the arm); then the call's site closes
        (``parent`` again). Returns ``result``."""
        self.line("else:")
        self.indent += 1
        values = operands()
        self.line(f"site = {parent}")  # the ordinary call adds its own frame (generic_application)
        self.line(f"{result} = {self.fallback(node, values)}")
        self.close_arm(parent)
        return result

    def close_arm(self, parent: int) -> None:
        """End the arm being emitted: its locals are forgotten and the enclosing call's site
        (``parent``) is current again, in the generated code too."""
        self.indent -= 1
        self.forget()
        self.current_site = parent
        self.line(f"site = {parent}")

    def call(self, node: Call, tail: bool) -> str:
        """Emit a call; in tail position it returns (or loops), else its value's name."""
        if tail and self.loop_continue(node):
            return ""
        inline = self.pure(node)
        if inline is not None:
            inline = self.built_pairs(node) or inline
            if tail:
                self.line(f"return {inline}")
            return inline
        parent = self.current_site
        if not tail and self.flagged(node):
            return self.flagged_call(node)
        found = self.builtin_op(node)
        guarded = self.guarded(node)
        # a built-in with an intact flag: the operator is read only if the inline arms fail
        watched = None
        if found is not None or guarded is not None:
            watched = self.flag_of(node.operator)
        itself = tail and watched is None and self.calls_itself(node)
        f, args = self.call_parts(node, read_operator=watched is None and not itself)
        # its test is made after the operands' code, which may have made calls (forget)
        flag = None if watched is None else self.flag(watched)
        result = self.fresh("t")
        if guarded is not None:
            self.name_operands(args, guarded)
        else:
            self.hoist_operands(args, None if tail or found is not None else result)
        if itself:  # the operator is read (no effect but its value) only if the flag is down
            self.line(f"if {self.self_flag()}:")
            self.indent += 1
            self.rebind_self(None, args)
            self.indent -= 1
            self.operator_into(node.operator, f)
        kept = self.kept_self(node) if tail and watched is None and not itself else None
        if itself or (kept is not None and self.names_procedure(node.operator)):
            self.repeats = True
        if kept is not None:
            self.line(f"if {f} is {kept[0]}:")
            self.indent += 1
            self.rebind_self(f, args)
            self.indent -= 1
        arglist = ", ".join(args)
        give = "return" if tail else f"{result} ="
        # after an inline arm nothing can have assigned the registers: only the other arms,
        # nested under an else, re-read them (reload_after_call)
        registers = not tail and any(s.names for s in self.scopes)
        nested = (found is not None or guarded is not None) and (flag is not None or registers)
        if found is not None or guarded is not None:
            keyword = "if"
            name = node.operator.name.name  # type: ignore[attr-defined]
            builtin = self.builtins[name] if name in self.builtins else self.port_procedure(node)
            prim = self.constant(builtin, "b")
            still = flag if flag is not None else f"{f} is {prim}"
            if found is not None:
                self.line(f"if type({args[0]}) is int and type({args[1]}) is int and {still}:")
                self.line(f"    {give} {args[0]} {found[0]} {args[1]}")
                keyword = "elif"
            if guarded is not None:
                _count, guard, code, statement = guarded
                fields = {**dict(zip("abcd", args)), "t": self.fresh("t")}
                self.line(f"{keyword} {guard.format(**fields)} and {still}:")
                built = CONSTRUCTOR_STATEMENTS.get((node.operator.name.name, len(args)))  # type: ignore[attr-defined]
                if built is not None:
                    for template in built:
                        self.line(f"    {template.format(r=result, **fields)}")
                    if tail:
                        self.line(f"    return {result}")
                else:
                    if statement:
                        self.line(f"    {code.format(**fields)}")
                    self.line(f"    {give} {'VOID' if statement else code.format(**fields)}")
            if nested:
                self.line("else:")
                self.indent += 1
                if flag is not None:
                    self.operator_into(node.operator, f)
            self.line(f"{'if' if nested else 'elif'} type({f}) is Primitive:")
            self.primitive_arm(f, arglist, result, tail)
            self.line(f"elif type({f}) is Closure:")
        elif self.names_builtin(node.operator):
            self.line(f"if type({f}) is Primitive:")
            self.primitive_arm(f, arglist, result, tail)
            self.line(f"elif type({f}) is Closure:")
        else:
            self.line(f"if type({f}) is Closure:")
        self.indent += 1
        if tail:
            if not self.loops and self.accepts(len(args)):  # in a named let, `continue` is the loop's
                self.line(f"if {f}.run is run:")
                self.indent += 1
                if kept is not None:
                    self.line(f"{kept[1]}({f})")
                self.rebind_self(f, args)
                self.indent -= 1
            self.line("if type(depth) is not int:")
            self.line(f"    return TailCall({f}, [{arglist}])")
            self.line("site = -1  # run here, as the caller's trampoline would have: no frame of this call")
            self.line(f"return settle(rt, {f}, [{arglist}], depth)")
        else:
            self.line("if depth < rt.hop_mark:")
            if self.counts_calls:
                self.line("    rt.steps += 1")
                self.line("    if rt.steps >= rt.check_at:")
                self.line("        rt.check()")
            # Python checks the count as it makes the call (a body's parameters are Python's):
            # a wrong one is a TypeError before the body runs, made the arity error here
            self.line("    try:")
            # a plain int level: no trampoline here, so the body runs a pending tail call of its
            # own before it returns (``settle``), and the value needs no ``TailCall`` test
            run = RUN_OF.format(f=f)
            self.line(f"        {result} = {run}({f}.env, depth + 1, rt{''.join(', ' + a for a in args)})")
            self.line("    except TypeError:")
            self.line(f"        {f}.check_count({len(args)})")
            self.line("        raise  # the count was right: from inside, as it was")
            if core.POISON_DEPTH is not None:
                self.line(f"    rt.depth = {core.POISON_DEPTH}")
            self.line("else:")
            self.line("    rt.depth = depth")
            self.line(f"    {result} = apply_procedure({f}, [{arglist}])")
        self.indent -= 1
        if found is None and guarded is None and not self.names_builtin(node.operator):
            self.line(f"elif type({f}) is Primitive:")
            self.primitive_arm(f, arglist, result, tail)
        self.line("else:")
        self.indent += 1
        self.line("rt.depth = depth")
        if tail:
            self.tail_value(f"apply_with_caller({f}, [{arglist}], {self.made_frame()}, True)", f)
        else:
            self.line(f"{result} = apply_with_caller({f}, [{arglist}], {self.made_frame()}, False)")
        self.indent -= 1
        if not tail:
            self.reload_after_call()
        if nested:
            self.indent -= 1
        self.current_site = parent
        self.line(f"site = {parent}")
        self.forget()
        return result

    def is_constructor(self, node: Node) -> bool:
        """Whether ``node`` calls the global ``cons`` or ``values`` with a count that
        :data:`CONSTRUCTOR_STATEMENTS` builds."""
        return (
            type(node) is Call
            and type(node.operator) is GlobalRef
            and (node.operator.name.name, len(node.operands)) in CONSTRUCTOR_STATEMENTS
            and node.operator.name.name in self.builtins
        )

    def built_pairs(self, node: Call) -> str | None:
        """For a pure ``node`` that is a constructor (``cons``, ``values``), or has
        constructor operands: emit those as statements (``Pair()`` and three stores, where
        an expression can only call the function ``cons``: 19% of merge sort's ``split``),
        each operand before them in a name first so that the order of evaluation stays,
        and give ``node``'s expression over them. None when there is no such operand."""
        if self.is_constructor(node):
            return self.construct(node)
        last = max((i for i, operand in enumerate(node.operands) if self.is_constructor(operand)), default=-1)
        if last < 0:
            return None
        made: list[int] = []
        try:
            for operand in node.operands[: last + 1]:
                simple = self.simple(operand)
                if self.is_constructor(operand):
                    self.built[id(operand)] = self.construct(operand)  # type: ignore[arg-type]
                elif simple is None or not (simple.isidentifier() or type(operand) is Const):
                    temp = self.fresh("t")  # a global's read may fail too: it keeps its place
                    self.line(f"{temp} = {self.pure(operand)}")
                    self.built[id(operand)] = temp
                else:
                    continue
                made.append(id(operand))
            return self.pure(node)
        finally:
            for key in made:
                del self.built[key]

    def construct(self, node: Call) -> str:
        """Emit the value of the pure constructor call ``node`` into a new local: its
        operands into names in order (constructor operands built the same way first), then,
        while the global holds the built-in, the statements that make the value, else the
        ordinary call on those values."""
        names = []
        for operand in node.operands:
            if self.is_constructor(operand):
                names.append(self.construct(operand))  # type: ignore[arg-type]
                continue
            source = self.pure(operand)
            assert source is not None
            if not (source.isidentifier() or is_int_literal(source)):
                temp = self.fresh("t")
                self.line(f"{temp} = {source}")
                source = temp
            names.append(source)
        assert type(node.operator) is GlobalRef
        name = node.operator.name.name
        flag = self.flag(builtins_intact(node.operator, self.builtins[name]))
        result = self.fresh("t")
        self.line(f"if {flag}:")
        for template in CONSTRUCTOR_STATEMENTS[(name, len(names))]:
            self.line(f"    {template.format(r=result, **dict(zip('abcd', names)))}")
        self.line("else:")
        self.line(f"    {result} = {self.fallback(node, names)}")
        return result

    def hoist_operands(self, args: list[str], spare: str | None) -> None:
        """Put each operand that is an expression in a name (in place; ``spare``, the call's
        result, serves the first), so that the call's arms name values instead of repeating
        the expression: the Python value stack is then no deeper than the expression's own,
        and every level of a deep recursion has a smaller frame."""
        for i, arg in enumerate(args):
            if not (arg.isidentifier() or is_int_literal(arg)):
                args[i], spare = spare or self.fresh("t"), None
                self.line(f"{args[i]} = {arg}")

    def made_frame(self) -> str:
        """Emit a statement making the innermost frame (and those it is in) if not made yet,
        and return its name: a call handed the frame then takes a name, not the nested
        expression that makes it (a shallower Python value stack, see ``hoist_operands``)."""
        if not self.scopes:
            return "env"
        self.line(self.frame)
        return self.scopes[-1].env

    def name_operands(self, args: list[str], guarded: tuple[Any, ...]) -> None:
        """Put each operand's value in a name, for a guard to test (in place). An integer
        literal stays as it is, parenthesized, unless the code subscripts it: ``(0)[i]``,
        which never runs (the guard wants a vector), is a SyntaxWarning when compiled."""
        for i, arg in enumerate(args):
            subscripted = "{" + "abcd"[i] + "}[" in guarded[2]
            if is_int_literal(arg) and not compares_identity(guarded, "abcd"[i]) and not subscripted:
                args[i] = f"({arg})"  # parenthesized, the guard may take its attributes
            elif not arg.isidentifier() or arg in ("True", "False"):
                args[i] = self.fresh("t")
                self.line(f"{args[i]} = {arg}")

    def intact_flag(self, operator: Node) -> str | None:
        """The test of the flag that says a global operator still holds its built-in
        (``GlobalBindings.intact``), or None if it is not a global built-in with one."""
        flag = self.flag_of(operator)
        return None if flag is None else self.flag(flag)

    def flag_of(self, operator: Node) -> Flag | None:
        """The intact flag itself (see :meth:`intact_flag`); a port procedure's is up while
        the name holds the interpreter's own (``io.install_io`` watches them)."""
        if type(operator) is not GlobalRef:
            return None
        if operator.name.name not in self.builtins and operator.name.name not in PORT_STATEMENTS:
            return None
        return getattr(operator.gvars, "intact", {}).get(operator.name)

    def flagged(self, node: Call) -> bool:
        """Whether ``node`` calls a guarded built-in (``vector-set!``, ``vector-ref``, a port
        procedure's write …) whose name has an "intact" flag: see :meth:`flagged_call`."""
        if type(node.operator) is not GlobalRef or self.builtin_op(node) is not None:
            return False
        return self.guarded(node) is not None and self.flag_of(node.operator) is not None

    def flagged_call(self, node: Call, value: bool = True) -> str:
        """Emit a call of a guarded built-in outside tail position: computed inline while
        its name holds the built-in (the name's flag) and the guard holds, else the operator
        is read and applied the ordinary way to the values (``fallback``, with the call's
        backtrace frame). Without ``value`` the result is not kept (a statement). The call
        site is open (and ``site`` stored) only while operands that make calls of their own
        run: the fallback adds the call's frame itself. Operands are evaluated before the operator
        is read, an order Scheme leaves open."""
        parent, mark = self.current_site, len(self.lines)
        site = self.open_site(node)
        args = self.operand_values(node.operands)
        if len(self.sites) == site + 1:  # no nested call: no site of its own needed
            del self.lines[mark]
            self.sites.pop()
        else:  # the operands' calls ran under it; the fallback brings its own frame
            self.line(f"site = {parent}")
        self.current_site = parent
        guarded = self.guarded(node)
        assert guarded is not None
        self.name_operands(args, guarded)
        _count, guard, code, statement = guarded
        fields = {**dict(zip("abcd", args)), "t": self.fresh("t")}
        ok = self.intact_flag(node.operator)
        result = self.fresh("t")
        self.line(f"if {ok} and {self.without_known(guard.format(**fields))}:")
        built = CONSTRUCTOR_STATEMENTS.get((node.operator.name.name, len(args)))  # type: ignore[attr-defined]
        if built is not None:
            for template in built:
                self.line(f"    {template.format(r=result, **fields)}")
        elif statement:
            self.line(f"    {code.format(**fields)}")
            if value:
                self.line(f"    {result} = VOID")
        else:
            self.line(f"    {result} = {code.format(**fields)}")
        self.line("else:")
        self.line(f"    {result} = {self.fallback(node, args)}")
        if ok != "True":  # the fallback may call what the name holds now
            self.forget()
        return result

    def call_parts(self, node: Call, read_operator: bool = True) -> tuple[str, list[str]]:
        """Open ``node``'s call site and emit its operator into its local (unless not
        ``read_operator``: the caller reads it later, see :meth:`open_site`) and its
        operands' values: ``(operator local, operand expressions)``."""
        site = self.open_site(node)
        f = self.sites[site][2]
        if read_operator:
            f = self.operator_local(site)
            self.operator_into(node.operator, f)
        args = self.operand_values(node.operands)
        if len(self.sites) > site + 1:  # an operand made calls of its own
            self.line(f"site = {site}")
        return f, args

    def operand_values(self, operands: list[Node]) -> list[str]:
        """Expressions for the operands, evaluated left to right: an inline expression
        is stored in a temporary before a later operand's statements run."""
        values: list[str] = []
        for operand in operands:
            start = len(self.lines)
            expr = self.value(operand)
            if len(self.lines) > start:
                for i, earlier in enumerate(values):
                    if not (earlier.isidentifier() or is_int_literal(earlier)):
                        values[i] = self.fresh("t", spare=False)
                        self.lines.insert(start, "    " * self.indent + f"{values[i]} = {earlier}")
                        self.frame_made |= MAKES_ENV in earlier
                        start += 1
            values.append(expr)
        return values

    def settled(self, value: str) -> str:
        """``value`` as a name or a literal: an expression is computed into a temporary now (an
        operand evaluated before code emitted later, as :meth:`operand_values` keeps them)."""
        if value.isidentifier() or is_int_literal(value):
            return value
        temp = self.fresh("t")
        self.line(f"{temp} = {value}")
        return temp

    def operator_into(self, node: Node, target: str) -> None:
        """Emit the operator's value into ``target`` (a global: fetched inline)."""
        if type(node) is GlobalRef:
            # the binding's cell (~4 ns), else a bound ``get`` (12 ns: beats a subscript,
            # 22 ns, of a dict subclass); a miss asks the node
            read, ref = self.global_reader(node)
            self.line(f"{target} = {read}")
            self.line(f"if {target} is None:")
            self.indent += 1
            self.line(f"{target} = {ref}({self.made_frame()})")
            self.indent -= 1
        else:
            self.line(f"{target} = {self.value(node)}")

    def names_builtin(self, operator: Node) -> bool:
        """Whether the operator is a global named like a built-in that the program has not
        bound to something else (so likely a primitive: its arm is tested first). A program's
        own ``count`` or ``filter`` is likely a closure, as any other global procedure."""
        if type(operator) is not GlobalRef:
            return False
        builtin = self.builtins.get(operator.name.name)
        return builtin is not None and operator.gvars.get(operator.name, builtin) is builtin

    def tail_value(self, expr: str, holder: str = PENDING) -> None:
        """Return ``expr`` from tail position, where it may be a pending tail call (a
        primitive's such as ``apply``, a slow path's, ``apply_with_caller``'s): as it is to a
        trampoline (``depth`` a ``Bounce``, see :data:`TEMPLATE`), else run here first, as the caller's
        trampoline would have (``site`` -1: no frame of this call is in progress meanwhile).
        The value goes into ``holder``: a local that ``expr`` is the last to need (the
        operator of the call it makes), else :data:`PENDING` (a local more in the frame)."""
        self.line(f"{holder} = {expr}")
        self.line(f"if type({holder}) is TailCall and type(depth) is int:")
        self.line("    site = -1")
        self.line(f"    {holder} = settle(rt, {holder}.proc, {holder}.args, depth)")
        self.line(f"return {holder}")

    def primitive_arm(self, f: str, arglist: str, result: str, tail: bool) -> None:
        """The body of the ``type(f) is Primitive`` branch."""
        self.indent += 1
        self.line("rt.depth = depth")
        if tail:
            self.tail_value(f"{f}.fn({arglist})", f)
        else:
            self.line(f"{result} = {f}.fn({arglist})")
            self.line(f"if type({result}) is TailCall:")
            self.line(f"    {result} = apply_procedure({result}.proc, {result}.args)")
        self.indent -= 1
