"""Lambda bodies compiled to one Python function each.

The closure compiler (``Node.compile``) makes a Python function per node, so a
call like ``(+ (fib (- n 1)) (fib (- n 2)))`` costs a Python call per node. Here a
whole procedure body becomes a single Python function whose statements do the
same work inline:

* ``if``, sequences, variable references, constants and calls become Python
  statements; any other node is compiled by its own ``compile`` and called;
* a call of a built-in arithmetic operator on exact integers is one Python
  operation (guarded: the global must still hold the built-in);
* the procedure's arguments arrive as Python parameters: ``run(outer, depth, bounce, *args)``
  makes the frame itself, so a call is one Python call; when nothing can assign
  a parameter it stays a Python local and the frame is made only on demand
  (register mode, see :func:`compile_procedure`), and so do the variables of a
  plain ``let`` in such a body;
* a closure call is applied in place (its level passed as an argument, see
  :data:`TEMPLATE`; steps only under ``max_steps``);
* a tail call to a closure with the same body (a loop) rebinds the frame and
  jumps back to the top of the function, so loops run without the trampoline;
* errors get the same DSL backtrace as before: every call site has a number and
  knows the call it is nested in, and the one handler adds each in-progress call.
"""

from __future__ import annotations

import functools
import math
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from ..datatypes import (
    CHARS,
    NIL,
    PAIR_WRITES,
    Char,
    MString,
    Pair,
    Primitive,
    Symbol,
    TailCall,
    Values,
    cons,
    values_of,
)
from ..env import Env, GlobalBindings
from ..equality import EQV_BY_VALUE, is_eqv
from ..errors import SchemeError
from ..evaluator import PASS_THROUGH, UNASSIGNED, Closure, apply_procedure, apply_with_caller, settle
from ..mirrors import Flag
from ..ports import StringOutputPort
from .binding import Do, Let, LetValues, NamedLet, consumer_values, unpacked_values
from .control import And, Case, Cond, Or
from .core import (
    Call,
    Const,
    Define,
    GlobalRef,
    If,
    Lambda,
    LocalRef,
    Node,
    Seq,
    assigned_names,
    make_binder,
    primitive_failure,
    subtree,
    subtree_sizes,
)
from .fastpath import (
    ARITHMETIC,
    BINARY_OPS,
    BOOLEAN_RESULTS,
    COMPARISONS,
    CONSTRUCTOR_STATEMENTS,
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
    generic_application,
)
from .fused import BOOL, PAIR, fuse, refuted
from .hoist import CALLED_OUT, hoist_invariant_tests
from .inline_walks import emit_walk, inline_walk, walk_namespace
from .lifting import LiftedClosures, lifted_defines
from .literal_search import SEARCHES, LiteralTable
from .release import procedures_stay_inside
from .trmc import HOLE, OUT, emit_cons_loop, filled, has_cons_calls_of_itself, returning

if TYPE_CHECKING:
    from ..evaluator import Runtime

SIMPLE_CONSTANTS = (int, bool)
LITERAL_DIGITS = 30
LITERAL_LIMIT = 10**LITERAL_DIGITS
#: An intact flag inside a pure expression being built (``Emitter.flag_test``), and the
#: test of one beside a guard, which the copy that tests none leaves out.
FLAG_MARK = re.compile(r"«(ok\d+)»")
FLAG_TEST = re.compile(r" and «ok\d+»")
#: A type test in a guard, which ``Emitter.facts`` may answer.
TYPE_TEST = re.compile(r"type\((\w+)\) is (\w+)")

#: The body of closure ``f``, as the function of a call. ``f.run(…)`` would be a method load
#: of a slot, which CPython 3.11 does not specialize (~7.5 ns more per call), and
#: ``code = f.run`` a local more in every frame of a recursion (8 MB at a million levels);
#: a conditional expression is neither: the compiler folds it into ``f.run``'s plain load.
RUN_OF = "({f}.run if True else None)"
#: The local holding a value in tail position that may be a pending tail call (tail_value).
PENDING = "pending"
#: Limits that keep generated code inside what Python's compiler accepts ("too many
#: levels of indentation" past 100, "too many nested parentheses" past 200) whatever
#: the nesting of the program: past them a node runs its ordinary compiled code.
MAX_INDENT = 60  # statement nesting of if/and/or/cond arms
MAX_INLINE_HEIGHT = 12  # inline operators nested in one expression
MAX_REGISTER_SCOPES = 8  # frames in Python locals (every frame expression names them all)
SPECIALIZE_BUDGET = 200  # nodes of a body that Emitter.specialize emits twice, at most

#: Whether a comparison that a test jumps on is written ``(True if a < b else False)``.
#: CPython 3.11 runs such a comparison and its jump as one specialized instruction
#: (``COMPARE_OP_INT_JUMP``) only when the jump needs no ``EXTENDED_ARG``: a jump over at
#: most 255 code units, while an arm of a body's test, with its slow paths, is mostly
#: longer. The conditional's own jump is short, and the long one that follows is a plain
#: jump. Measured on 3.11.7: 3 ns less a test past a long arm, 0.5 ns more past a short
#: one (bench/library.py: primes and triangl run such tests 150,000-360,000 times).
#: Python 3.12 specializes the comparison whatever follows it.
SHORT_JUMPS = sys.version_info < (3, 12)

#: The prefix of a temporary's local (see ``Emitter.fresh``).
TEMP = "t"

#: What a line holds that may make the body's own frame (``Emitter.frame`` in register mode).
MAKES_ENV = "(env := "
#: A check of the depth protocol (see TEMPLATE), for tests: when set, a body entered and a
#: compiled call returned store this level into ``rt.depth``, so a call out that forgot to
#: publish the body's depth reaches the runtime with a level past every max_depth.
POISON_DEPTH: int | None = None


class Emitter:
    """Accumulates Python source for one body and the objects it refers to."""

    def __init__(
        self,
        rt: Runtime | None,
        builtins: dict[str, Any],
        namespace: dict[str, Any] | None = None,
        frame_vars: str = "v",
        procedure: Lambda | None = None,
    ) -> None:
        self.lines: list[str] = []
        self.procedure = procedure  # the lambda whose body this is (for self tail calls)
        # Frames in Python locals, innermost last; each frame is made only when
        # something needs it. In register mode the first is the procedure's own frame
        # (see compile_procedure); in frame mode the procedure's frame is ``env`` and the
        # scopes are those of the lets and dos inside it.
        self.scopes: list[Registers] = []
        self.register_mode = False
        # Internal defines held in the procedure's register frame (``register_defines``),
        # and those already assigned on every path to the code being emitted now.
        self.define_nodes: set[Define] = set()
        self.lifted: dict[Define, tuple[str, int]] = {}  # made once: (LiftedClosures constant, index)
        self.defined: set[Symbol] = set()
        self.truth_of: Call | None = None  # the test whose fallback ``truth`` compares with #f
        self.loops: list[Loop] = []  # named lets being emitted as Python loops, innermost last
        self.holes = False  # every return fills an open hole first (tail recursion modulo cons: trmc.py)
        # Whether the body's own loop surely goes round: a call of the procedure itself by its
        # name (hoist.py then tests invariant parameters once, not at every round)
        self.repeats = False
        self.keys: dict[Symbol, str] = {}
        # Inline calls count steps only under max_steps; otherwise Runtime.attend
        # reaches them through hop_mark (see Runtime).
        self.counts_calls = rt is not None and rt.max_steps is not None
        # Loop rounds count steps under max_steps, and under max_memory (the run's periodic
        # check samples memory itself when the sampler thread is starved); else see count_step.
        self.counts_rounds = self.counts_calls or (rt is not None and rt.memory is not None)
        self.indent = 3
        self.frame_vars = frame_vars  # the innermost frame's bindings, as the generated code names them
        self.namespace: dict[str, Any] = namespace if namespace is not None else {}
        self.namespace |= {
            "Primitive": Primitive,
            "Pair": Pair,
            "cons": cons,
            "Char": Char,
            "CHARS": CHARS,
            "MString": MString,
            "StringOutputPort": StringOutputPort,
            "Values": Values,
            "values_of": values_of,
            "NIL": NIL,
            "UNASSIGNED": UNASSIGNED,
            "is_eqv": is_eqv,
            "EQV_BY_VALUE": EQV_BY_VALUE,
            "VOID": _void(),
            "Closure": Closure,
            "TailCall": TailCall,
            "apply_procedure": apply_procedure,
            "consumer_values": consumer_values,
            "apply_with_caller": apply_with_caller,
            "filled": filled,
            "float_sqrt": math.sqrt,
            "rt": rt,
            **walk_namespace(),
        }
        if rt is not None:  # a body's: publishes its depth inside an expression (see TEMPLATE)
            self.namespace["at_depth"] = functools.partial(setattr, rt, "depth")
            self.namespace["settle"] = functools.partial(settle, rt)
        self.builtins = builtins
        if "list" in builtins:  # the inline short list (fastpath.GUARDED_BY_ARITY)
            self.namespace["list_of"] = builtins["list"].fn
        self.counter = 0  # of locals
        # Whether the body's own frame (``env``) may have been made on the way from the start
        # of the round to the code being emitted (a line holds MAKES_ENV): exact at the arms
        # of if, cond and specialize (each starts from its test), an upper bound elsewhere.
        # A round of the body's loop that cannot have made it need not drop it.
        self.frame_made = False
        # Temporaries in use, in the order given, and those an effect left dead, which later
        # code may take again: a frame holds fewer locals (each one is cleared at every
        # return; triangl's attempt had 82)
        self.temps_in_use: list[str] = []
        self.spare_temps: list[str] = []
        self.global_counter = 0  # of namespace names
        # (call node, enclosing site or -1, the local its operator is read into)
        self.sites: list[tuple[Call, int, str]] = []
        self.merged_sites: set[int] = set()  # walks whose inline call is the walk's own (inline_walks.by_name)
        self.current_site = -1
        self.site_locals: dict[int, str] = {}  # id of a call node: its operator's local (open_site)
        self.impure: set[int] = set()  # ids of nodes :meth:`pure` found impure
        self.built: dict[int, str] = {}  # id of a pure constructor call: the local its value is in (built_pairs)
        self.const_names: dict[int, str] = {}  # id of a Const node: its namespace name
        self.global_refs: dict[int, tuple[str, str]] = {}  # id of a GlobalRef: global_reader's answer
        self.heights: dict[int, int] = {}  # id of a pure node: inline operators nested in it
        self.floats: set[str] = set()  # register locals bound to a likely float (see likely_float)
        self.float_hints: dict[int, bool] = {}  # id of a node: likely_float's answer
        self.searches: dict[int, tuple[str, str] | None] = {}  # id of a Call: its literal search, if any
        self.search_tables: dict[int, tuple[LiteralTable, str]] = {}  # id of a Call: its table and guard
        self.pure_depth = 0  # pure expressions being built, the outermost first (see settle_flags)
        self.flag_owner: GlobalBindings | None = None  # the global frame whose flags are combined
        self.flag_keys: dict[str, Symbol] = {}  # a flag's generated name: the name it watches
        self.flag_names: dict[Flag, str] = {}  # a flag: the global of this namespace mirroring it
        self.global_names: dict[Symbol, str] = {}  # a global variable: the name of its cell
        # What the code being emitted may take as known (see specialize): the types of
        # register variables, flags that are up, and the names the test put a pair's field
        # in (``(t1.car)``: ``t2`` and its type). All hold from the test that taught them
        # until the next call out.
        self.facts: dict[str, str] = {}
        self.known_flags: set[Any] = set()
        self.known_fields: dict[str, tuple[str, str]] = {}
        self.plain = False  # inline expressions without fused forms (specialize's ordinary arm)
        self.specialize_budget = SPECIALIZE_BUDGET  # nodes that specialize may still emit twice
        self.sizes: dict[int, int] | None = None  # id of a node of the body: its subtree's size (size_of)
        # Frames the body empties as it leaves them (release.py): each frame's local, and the
        # keys of its procedures (None: all its bindings are procedures).
        self.released: dict[str, list[str] | None] = {}

    # -- bookkeeping ---------------------------------------------------------------
    def fresh(self, prefix: str, spare: bool = True) -> str:
        """A new local name (``specialize`` numbers its ordinary arm's locals again). A
        temporary (``t``) may be one that an earlier statement left dead (:meth:`effect`),
        unless ``spare`` is False: for one assigned by a line put before code already
        emitted, which may use the dead ones (:meth:`operand_values`)."""
        if prefix == TEMP and spare and self.spare_temps:
            name = self.spare_temps.pop()
        else:
            self.counter += 1
            name = f"{prefix}{self.counter}"
        if prefix == TEMP:
            self.temps_in_use.append(name)
        return name

    def fresh_global(self, prefix: str) -> str:
        """A new name in the namespace (numbered on its own: never given twice)."""
        self.global_counter += 1
        return f"{prefix}{self.global_counter}"

    def key(self, name: Symbol) -> str:
        """The namespace name holding the symbol ``name`` (one per symbol)."""
        if name not in self.keys:
            self.keys[name] = self.constant(name, "k")
        return self.keys[name]

    def constant(self, value: Any, prefix: str = "c") -> str:
        name = self.fresh_global(prefix)
        self.namespace[name] = value
        return name

    def flag(self, flag: Any, prefix: str = "ok") -> str:
        """An expression true while ``flag`` is up: for a :class:`~..mirrors.Flag` one global of
        this namespace that mirrors it (a single read per test), else ``okN[0]``."""
        if flag in self.known_flags:
            return "True"
        if type(flag) is not Flag:
            return f"{self.constant(flag, prefix)}[0]"
        name = self.flag_names.get(flag)
        if name is None:
            name = self.flag_names[flag] = self.fresh_global(prefix)
            flag.mirror(self.namespace, name)
        return name

    def global_cell(self, node: GlobalRef) -> str | None:
        """An expression reading ``node``'s binding from its cell (None while unbound:
        ``GlobalBindings.cell``), or None when its frame keeps no cells."""
        if not isinstance(node.gvars, GlobalBindings):
            return None
        name = self.global_names.get(node.name)
        if name is None:
            name = self.global_names[node.name] = self.constant(node.gvars.cell(node.name), "G")
        return f"{name}.value"

    def line(self, text: str) -> None:
        if MAKES_ENV in text:
            self.frame_made = True
        if (self.holes or self.released) and text.lstrip().startswith("return "):
            parts = returning(text) if self.holes else [text]
            if self.released:
                parts = self.releasing(parts)
            for part in parts:
                self.lines.append("    " * self.indent + part)
            return
        self.lines.append("    " * self.indent + text)

    def releasing(self, parts: list[str]) -> list[str]:
        """``return x`` (given as that line, or as ``out = x`` and the lines that return
        ``out``: :func:`~.trmc.returning`) with the released frames emptied in between,
        unless ``x`` is a pending tail call (it may call a procedure they hold)."""
        first, rest = parts[0], parts[1:]
        body = first.lstrip()
        pad = first[: len(first) - len(body)]
        if body.startswith("return "):
            first, rest = f"{pad}{OUT} = {body[len('return ') :]}", [f"{pad}return {OUT}"]
        lines = [first, f"{pad}if type({OUT}) is not TailCall:"]
        lines += [f"{pad}    {line}" for frame in self.released for line in self.release_lines(frame)]
        return [*lines, *rest]

    def release_lines(self, frame: str) -> list[str]:
        """Lines that take the procedures out of released ``frame``, if it has been made."""
        keys = self.released[frame]
        if keys is None:
            return [f"if {frame} is not None:", f"    {frame}.vars.clear()"]
        return [f"if {frame} is not None:", *(f"    {frame}.vars.pop({key}, None)" for key in keys)]

    def release(self, frame: str) -> None:
        """Emit the emptying of ``frame`` here, if the body releases it."""
        if frame in self.released:
            for line in self.release_lines(frame):
                self.line(line)

    def open_site(self, node: Call) -> int:
        """Number the call site ``node`` (nested in the current one) and make it current.
        Its operator's local is the node's (a node emitted twice, by ``specialize``, whose
        copies never both run, has one): ``o<level + 1>`` until :meth:`operator_local`
        says otherwise, for an operator read after the operands (an inline built-in's
        fallback, a loop's test): the sites nested one level in, its operands' calls,
        are done with that local by then. ``(+ 1 (count (- n 1)))`` holds one operator
        local, not two: 8 bytes less in each frame of a deep recursion."""
        site = len(self.sites)
        level = self.level(self.current_site) + 1
        local = self.site_locals.setdefault(id(node), f"o{level + 1}")
        self.sites.append((node, self.current_site, local))
        self.current_site = site
        self.line(f"site = {site}")
        return site

    def level(self, site: int) -> int:
        """How many sites ``site`` is nested in (-1 for none)."""
        level = -1
        while site >= 0:
            level, site = level + 1, self.sites[site][1]
        return level

    def operator_local(self, site: int) -> str:
        """The local that site ``site``'s operator is read into as the site opens: one per
        nesting level (``o<level>``), not per site, since a site's operator is dead once its
        call is made, so every frame of a deep recursion holds fewer locals."""
        node, parent, _name = self.sites[site]
        name = f"o{self.level(site)}"
        self.sites[site] = (node, parent, name)
        return name

    def accepts(self, count: int) -> bool:
        """Whether this body's procedure takes ``count`` arguments."""
        proc = self.procedure
        if proc is None:
            return False
        return count >= len(proc.params) if proc.rest is not None else count == len(proc.params)

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
            call = f"(at_depth(depth) or {call})"  # None or …: no stack slot more in each frame
        if not reloads:
            return call
        if self.register_mode:  # where hoist.py reads its flags again
            reloads.append(CALLED_OUT)
        return f"({call}, {', '.join(reloads)})[0]"  # the tuple keeps the call's value

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
        arm(node.default if node.default is not None else Const(_void()))
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
            lambda temp: f"(at_depth(depth) or consumer_values({consumer_closure}({frame}), {temp}, {count}))",
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
            return finish(Const(_void()) if type(result) is Seq and not result.body else result)
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
        elif kind is Call and self.indent + 2 <= MAX_INDENT and emit_cons_loop(self, node):
            pass
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
            arm(taken if taken is not None else Const(_void()))
            return
        otherwise = node.otherwise if node.otherwise is not None else Const(_void())
        if self.specialize(node.test, [node.then, otherwise], lambda: arm(node.then), lambda: arm(otherwise)):
            return
        inner = otherwise
        if type(inner) is If and type(inner.test) is not Const and self.fits(inner):
            rest = inner.otherwise if inner.otherwise is not None else Const(_void())
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

    def specialize(
        self,
        test: Node,
        parts: list[Node],
        then_arm: Callable[[], None],
        else_arm: Callable[[], None],
        prior: tuple[Node, Callable[[], None]] | None = None,
    ) -> bool:
        """Emit a test whose success teaches something as two branches: while one flag
        covering every built-in named in the test and ``parts`` (the code the arms run) is
        up and the test's fused guard (:func:`~.fused.fuse`) holds, the test's fused value
        chooses between the arms emitted knowing the types the guard found
        (:attr:`facts`, and what the value tells: ``(pair? x)``) and those flags
        (:attr:`known_flags`); otherwise the usual test chooses between the usual arms.
        So ``(if (pair? l) (f (car l) (cdr l)) …)`` tests ``l`` once, not three times.

        What is known holds until the next call out (:meth:`forget`): inline code only
        runs built-ins, whose names the flag says still hold them. A built-in rebound by
        another thread meanwhile is seen at the next such test, as a rebinding inside one
        inline expression is. Not inside another such branch, and within a body's
        :data:`SPECIALIZE_BUDGET`. False, emitting nothing, when there is nothing to learn.

        ``prior``: (a test, the arm it runs when true) that comes first, this test being
        its else. Taken only when the fused guard refutes that test (:func:`~.fused.refuted`:
        ``(null? l)`` where the guard finds ``l`` a pair), so while the guard and the flags
        hold it is false without being computed: the list walk ``(if (null? l) …
        (if (= (car l) x) …))`` tests ``l`` once a round, not twice. Otherwise it is
        computed first, as written."""
        if type(test) is not Call or type(test.operator) is not GlobalRef:
            return False
        named = [test, *parts, *([prior[0]] if prior is not None else [])]
        cover = self.cover(test.operator, named, parts, 3 + (prior is not None))
        if cover is None:
            return False
        fused = fuse(self, test, alone=True)
        if fused is None or not (fused.known or fused.when_true or fused.when_false):
            return False
        if prior is not None and not refuted(self, prior[0], fused.known):
            return False
        if not set(fused.watched) <= cover.names:  # the cover must test every flag the value needs
            return False
        value = fused.value if fused.result == BOOL else f"{fused.value} is not False"
        if test.operator.name.name in COMPARISONS:  # type: ignore[attr-defined]
            value = jumped_on(value)
        arms = [(f"if {value}:", fused.when_true, then_arm), ("else:", fused.when_false, else_arm)]
        ordinary = [*([prior] if prior is not None else []), (test, then_arm)]
        self.guarded_arms(cover, fused.guards, fused.known, fused.fields, arms, ordinary, else_arm)
        return True

    def walk_pair(
        self,
        test: Node,
        then_arm: Callable[[], None],
        rest: list[Node],
        else_arm: Callable[[], None],
        later_tests: tuple[Node, ...] = (),
    ) -> bool:
        """``(if (null? l) A E)`` where ``E`` (``rest``: the code ``else_arm`` emits) takes
        ``l`` apart with ``car`` or ``cdr``: while ``l`` is a pair, and one flag covering the
        built-ins of the test and ``E`` is up, ``E`` runs knowing it, and the test, which a
        pair refutes (:func:`~.fused.refuted`), is not computed; otherwise the test chooses
        as written. The walk ``(cons (f (car l)) (walk f (cdr l)))`` then tests ``l`` once a
        round, not three times. Not where a test inside (or one of ``later_tests``, the
        clauses after a ``cond``'s) may be specialized itself. False, emitting nothing,
        where that does not apply."""
        if type(test) is not Call or type(test.operator) is not GlobalRef or len(test.operands) != 1:
            return False
        operand = test.operands[0]
        if type(operand) is Call and len(operand.operands) == 1:  # (not (pair? l))
            operand = operand.operands[0]
        if type(operand) is not LocalRef or operand.checked:
            return False
        local = self.simple(operand)
        if local is None or not local.isidentifier() or not refuted(self, test, {local: PAIR}):
            return False
        inside = [sub for part in rest for sub in subtree(part)]
        taken_apart = any(
            type(sub) is Call
            and type(sub.operator) is GlobalRef
            and sub.operator.name.name in ("car", "cdr")
            and len(sub.operands) == 1
            and type(sub.operands[0]) is LocalRef
            and sub.operands[0].name == operand.name
            for sub in inside
        )
        # a test inside that specialize may take learns more (merge's (< (car a) (car b))),
        # and no branch is specialized inside another
        later = [*later_tests, *(inner for sub in inside for inner in tests_of(sub))]
        if not taken_apart or any(watched_call(inner) for inner in later):
            return False
        cover = self.cover(test.operator, [test, *rest], rest, 3)
        if cover is None:
            return False
        known = {local: PAIR}
        arms = [(None, {}, else_arm)]
        self.guarded_arms(cover, [f"type({local}) is Pair"], known, {}, arms, [(test, then_arm)], else_arm)
        return True

    def cover(self, operator: GlobalRef, named: list[Node], parts: list[Node], depth: int) -> Cover | None:
        """For a branch specialized on a test of the global frame ``operator`` is in: the flag
        up while every built-in that ``named`` (the tests and ``parts``, the code emitted
        twice) calls holds it, and those names. None when the branch cannot be specialized
        here: inside another one, in the ordinary arm of one, past :data:`MAX_INDENT` (the
        branch nests ``depth`` levels), past the body's :data:`SPECIALIZE_BUDGET`, or naming a
        built-in of another interpreter's global frame."""
        if self.facts or self.known_flags or self.plain or not self.in_body or self.indent + depth > MAX_INDENT:
            return None
        size = sum(self.size_of(part) for part in parts)
        if size > self.specialize_budget:
            return None
        gvars = operator.gvars
        if not isinstance(gvars, GlobalBindings):
            return None
        names: set[Symbol] = set()  # the built-ins code may compute inline (others are calls out)
        for part in named:
            for sub in subtree(part):
                if type(sub) is Call and type(sub.operator) is GlobalRef and sub.operator.name in gvars.intact:
                    if sub.operator.gvars is not gvars:
                        return None
                    names.add(sub.operator.name)
        if not names:
            return None
        flags = frozenset(gvars.intact[name] for name in names)
        flag = gvars.combined(frozenset(names)) if len(names) > 1 else next(iter(flags))
        return Cover(flag, names, flags, self.self_flag_for(parts), size)

    def self_flag_for(self, parts: list[Node]) -> Flag | None:
        """The interpreter's ``lexical_self`` flag (see :meth:`calls_itself`) if ``parts``
        call the name this body's procedure is bound to: a branch specialized under it too
        has its self calls loop without testing it again. Else None."""
        proc = self.procedure
        if proc is None or proc.binding is None or self.loops:
            return None
        name = proc.binding[0]
        for part in parts:
            for sub in subtree(part):
                if type(sub) is Call and type(sub.operator) is LocalRef and sub.operator.name == name:
                    return proc.rt.lexical_self
        return None

    def guarded_arms(
        self,
        cover: Cover,
        guards: list[str],
        known: dict[str, str],
        fields: dict[str, tuple[str, str]],
        arms: list[tuple[str | None, dict[str, str], Callable[[], None]]],
        ordinary: list[tuple[Node, Callable[[], None]]],
        last: Callable[[], None],
    ) -> None:
        """Emit a specialized branch (:meth:`specialize`, :meth:`walk_pair`): while the
        ``guards`` and the ``cover`` flag hold, each of ``arms`` (its ``if``/``else`` line or
        None, and what it may take as known beside ``known`` and ``fields``); otherwise each
        of the ``ordinary`` tests in turn chooses its arm, and ``last`` runs when none does."""
        flag, flags = cover.flag, cover.flags
        if cover.itself is not None:
            flags |= {cover.itself}
            guards = [*guards, self.flag(cover.itself, "okme")]
        self.specialize_budget -= cover.size
        self.line(f"if {' and '.join([*guards, self.flag(flag)])}:")  # the flags last, as a guard's
        saved, first_local = (self.facts, self.known_flags, self.known_fields), self.counter
        spare_before = list(self.spare_temps)
        tested, made = self.frame_made, False  # each arm starts from the test (frame_made)
        self.indent += 1
        for head, facts, arm in arms:
            self.frame_made = tested
            self.facts, self.known_flags = {**saved[0], **known, **facts}, saved[1] | flags | {flag}
            self.known_fields = {**saved[2], **fields}
            if head is not None:
                self.line(head)
                self.indent += 1
            arm()
            made |= self.frame_made
            if head is not None:
                self.indent -= 1
        self.indent -= 1
        self.facts, self.known_flags, self.known_fields = saved
        self.frame_made = tested
        # the ordinary arms run instead: their locals take the same names again, so that a
        # frame of a deep recursion holds no more locals than one copy needs (and the spare
        # temporaries are those there were before either arm)
        self.counter, used = first_local, self.counter
        self.spare_temps = spare_before
        self.line("else:")
        self.indent += 1
        self.ordinary_tests(ordinary, last)
        self.frame_made |= made
        self.indent -= 1
        self.counter = max(self.counter, used)

    def ordinary_tests(self, tests: list[tuple[Node, Callable[[], None]]], last: Callable[[], None]) -> None:
        """Each test in turn chooses its arm, as written (no fused forms); ``last`` runs
        when none does."""
        if not tests:
            last()
            return
        (condition, arm), later = tests[0], tests[1:]
        self.plain = True
        first = len(self.temps_in_use)
        try:
            truth = self.truth(condition)
        finally:
            self.plain = False
        self.if_else(truth, arm, lambda: self.ordinary_tests(later, last), first)

    def size_of(self, node: Node) -> int:
        """How many nodes ``node``'s subtree holds (sizes of the whole body found once)."""
        if self.sizes is None:
            self.sizes = subtree_sizes(self.procedure.body) if self.procedure is not None else {}
        size = self.sizes.get(id(node))
        return size if size is not None else sum(1 for _ in subtree(node))

    def without_known(self, guard: str) -> str:
        """``guard`` without its ``type(x) is T`` tests that :attr:`facts` answer."""
        if not self.facts:
            return guard
        parts = [part for part in guard.split(" and ") if not self.known_test(part)]
        return " and ".join(parts) or "True"

    def known_test(self, part: str) -> bool:
        match = TYPE_TEST.fullmatch(part)
        return match is not None and self.facts.get(match[1]) == match[2]

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
            return (*PORT_STATEMENTS[name], True)
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
            for source in operands:
                # a guarded operation's code may subscript or take attributes: names only
                named = source.isidentifier() and source not in ("True", "False")
                if named or (is_int_literal(source) and name in CONSTRUCTORS):
                    values.append(source)
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
                test = f"{guard_template.format(**fields)} and {ok}"
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

    def fallback(self, node: Call, values: list[str]) -> str:
        """A call applying ``node``'s operator the ordinary way to operand ``values``
        already computed (compared with ``#f`` when it is the fallback of a test: ``truth``)."""
        apply = self.constant(generic_application(node), "n")
        call = self.reloading(f"{apply}({', '.join([self.frame, *values])})")
        return f"({call} is not False)" if node is self.truth_of else call

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
        if (found is not None or guarded is not None) and node.operator.name.name not in PORT_STATEMENTS:  # type: ignore[attr-defined]
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
            self.line("if bounce:")
            self.line(f"    return TailCall({f}, [{arglist}])")
            self.line("site = -1  # run here, as the caller's trampoline would have: no frame of this call")
            self.line(f"return settle({f}, [{arglist}], depth)")
        else:
            self.line("if depth < rt.hop_mark:")
            if self.counts_calls:
                self.line("    rt.steps += 1")
                self.line("    if rt.steps >= rt.check_at:")
                self.line("        rt.check()")
            # Python checks the count as it makes the call (a body's parameters are Python's):
            # a wrong one is a TypeError before the body runs, made the arity error here
            self.line("    try:")
            # ``bounce`` False: no trampoline here, so the body runs a pending tail call of its
            # own before it returns (``settle``), and the value needs no ``TailCall`` test
            run = RUN_OF.format(f=f)
            self.line(f"        {result} = {run}({f}.env, depth + 1, False{''.join(', ' + a for a in args)})")
            self.line("    except TypeError:")
            self.line(f"        {f}.check_count({len(args)})")
            self.line("        raise  # the count was right: from inside, as it was")
            if POISON_DEPTH is not None:
                self.line(f"    rt.depth = {POISON_DEPTH}")
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
        """The intact flag itself (see :meth:`intact_flag`)."""
        if type(operator) is not GlobalRef or operator.name.name not in self.builtins:
            return None
        return getattr(operator.gvars, "intact", {}).get(operator.name)

    def flagged(self, node: Call) -> bool:
        """Whether ``node`` calls a guarded built-in (``vector-set!``, ``vector-ref`` …, not a
        port procedure) whose name has an "intact" flag: see :meth:`flagged_call`."""
        if type(node.operator) is not GlobalRef or self.builtin_op(node) is not None:
            return False
        return (
            self.guarded(node) is not None
            and node.operator.name.name not in PORT_STATEMENTS
            and self.flag_of(node.operator) is not None
        )

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
        """Whether the operator is a global named like a built-in (so likely a primitive)."""
        return type(operator) is GlobalRef and operator.name.name in self.builtins

    def tail_value(self, expr: str, holder: str = PENDING) -> None:
        """Return ``expr`` from tail position, where it may be a pending tail call (a
        primitive's such as ``apply``, a slow path's, ``apply_with_caller``'s): as it is to a
        trampoline (``bounce``, see :data:`TEMPLATE`), else run here first, as the caller's
        trampoline would have (``site`` -1: no frame of this call is in progress meanwhile).
        The value goes into ``holder``: a local that ``expr`` is the last to need (the
        operator of the call it makes), else :data:`PENDING` (a local more in the frame)."""
        self.line(f"{holder} = {expr}")
        self.line(f"if type({holder}) is TailCall and not bounce:")
        self.line("    site = -1")
        self.line(f"    {holder} = settle({holder}.proc, {holder}.args, depth)")
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


class Cover(NamedTuple):
    """The flags a specialized branch is taken under (``Emitter.cover``): ``flag``, up while
    each of the built-ins ``names`` holds (it combines their ``flags``), and ``itself``."""

    flag: Flag
    names: set[Symbol]
    flags: frozenset[Flag]
    itself: Flag | None  # Emitter.self_flag_for
    size: int  # the nodes the branch emits twice (of the body's SPECIALIZE_BUDGET)


class Loop(NamedTuple):
    """A named let emitted as a Python loop: its name, its parameters' locals, the
    number of scopes inside it (its parameters' included), and the calls of it that
    became ``continue`` (ids of their nodes: a call emitted in two arms counts once)."""

    name: Symbol
    params: list[str]
    base: int
    continues: set[int]


class Registers(NamedTuple):
    """A frame whose variables are Python locals; ``env`` names the local that holds
    the frame once something has needed it (None until then)."""

    names: dict[Symbol, str]
    env: str


def is_simple_constant(value: Any) -> bool:
    """Whether ``value`` is written into generated code as a literal: booleans and
    integers of at most :data:`LITERAL_DIGITS` digits. Bigger integers are constants of
    the namespace (their ``repr`` is quadratic, and refused past Python's 4,300 digits)."""
    return type(value) in SIMPLE_CONSTANTS and (type(value) is bool or -LITERAL_LIMIT < value < LITERAL_LIMIT)


def tests_of(node: Node) -> list[Node]:
    """The tests of an ``if``, a ``cond`` or a ``do`` (which ``Emitter.specialize`` may take)."""
    kind = type(node)
    if kind is If:
        return [node.test]  # type: ignore[attr-defined]
    if kind is Cond:
        return [c.test for c in node.clauses if c.test is not None]  # type: ignore[attr-defined]
    if kind is Do:
        return [node.test]  # type: ignore[attr-defined]
    return []


def watched_call(node: Node) -> bool:
    """Whether ``node`` calls a global whose name is watched for its built-in."""
    return (
        type(node) is Call
        and type(node.operator) is GlobalRef
        and node.operator.name in getattr(node.operator.gvars, "intact", {})
    )


def jumped_on(expr: str) -> str:
    """Comparison ``expr``, which a test jumps on, as :data:`SHORT_JUMPS` wants it."""
    return f"(True if {expr} else False)" if SHORT_JUMPS else expr


def is_int_literal(expr: str) -> bool:
    """Whether generated ``expr`` is an integer literal (the repr of an int constant)."""
    return expr.lstrip("-").isdigit()


def without_dead_site_stores(lines: list[str]) -> list[str]:
    """Drop a ``site = …`` store that the next line overwrites."""
    out: list[str] = []
    for line in lines:
        previous = out[-1] if out else ""
        same_block = len(line) - len(line.lstrip()) == len(previous) - len(previous.lstrip())
        if same_block and line.strip().startswith("site = ") and previous.strip().startswith("site = "):
            out[-1] = line
            continue
        out.append(line)
    return out


def _void() -> Any:
    from ..datatypes import VOID

    return VOID


class BodyErrors:
    """Adds the backtrace frames of the calls in progress at a failing call site."""

    def __init__(self, sites: list[tuple[Call, int, str]], merged: set[int] | None = None) -> None:
        self.sites = sites
        #: Sites whose call may already be the error's last frame (a walk given a built-in by
        #: name: its inline call, written nowhere else, reports itself as the walk).
        self.merged = merged or set()

    def __call__(self, site: int) -> BaseException:
        """The error to raise for the exception being handled (read here, not passed:
        an ``as exc`` name would be one more local in every frame of a deep recursion)."""
        exc = sys.exc_info()[1]
        assert exc is not None
        if site >= 0:
            node, parent, operator = self.sites[site]
            if not isinstance(exc, PASS_THROUGH):
                tb = exc.__traceback__
                callee = tb.tb_frame.f_locals.get(operator) if tb is not None else None
                exc = primitive_failure(callee, len(node.operands), exc)
            if isinstance(exc, SchemeError):
                while site >= 0 and exc.wants_frames():
                    node, parent, _operator = self.sites[site]
                    last = exc.frames[-1] if site in self.merged and exc.frames else None
                    if last is None or (last.expr, last.location) != (node.text(), node.span and str(node.span)):
                        exc.add_frame(node.text(), node.span, node.procedure)
                    site = parent
        # The DSL backtrace is in the error; a Python traceback through every body of a
        # deep recursion would keep all their frames alive while it unwinds (and make the
        # collector walk them), so a limit hit 200,000 calls down took seconds to arrive.
        exc.__traceback__ = None
        return exc


#: A body: ``run(outer, depth, bounce, *args)``. ``depth`` is the body's level (from the runtime's
#: ``depth_base``), given by the caller: a compiled call passes ``depth + 1`` and keeps no
#: count in the runtime. ``rt.depth`` is what the runtime's code reads (apply_procedure,
#: ``Runtime.deep``, a primitive calling a procedure), so the body publishes its depth
#: there before every call out of it (``rt.depth = depth``, or ``at_depth(depth)`` inside
#: an expression): a primitive, a fallback, ``apply_procedure``, ``apply_with_caller``
#: (``rt.check`` reads no depth). Between those, ``rt.depth`` may hold any callee's level.
#: Saves ~10% of a call (fib).
#:
#: ``bounce``: whether the caller is a trampoline (``apply_procedure`` and the runtime's
#: other callers), to which the body hands back a pending tail call as a ``TailCall``. A
#: compiled call passes False: the body then runs such a call itself before returning
#: (``settle``, at the level the caller's trampoline would have used), so the caller needs
#: no ``TailCall`` test of the value (7–10% of fib). A chain of tail calls still runs in
#: constant space: ``settle`` is a trampoline, which calls each body with ``bounce`` True.
TEMPLATE = """
def run({params}):
    env = {frame}
    site = -1{start}{poison}
    try:
        while True:
{code}
    except BaseException:
        raise on_error(site) from None
"""


def compile_procedure(proc: Lambda) -> Callable[..., Any]:
    """One Python function ``run(outer, depth, bounce, *args)`` that binds ``proc``'s arguments in a
    new frame inside ``outer`` and runs its body (see :class:`Closure`).

    Register mode: when no ``set!`` or definition anywhere in the body can assign a
    parameter (and there are no internal defines or rest parameter), the parameters
    stay Python locals and the frame is made only if a slow path, a task call or a
    nested closure needs it; calls that may have changed it re-read the parameters.
    """
    from ..primitives.registry import BUILTINS

    emitter = Emitter(proc.rt, BUILTINS, procedure=proc)
    emitter.namespace |= {"Env": Env, "UNASSIGNED": UNASSIGNED}
    args = [f"arg{i}" for i in range(len(proc.params))]
    if proc.rest is not None:
        emitter.namespace["binder"] = make_binder(proc.params, proc.rest, proc.defines)
        # the required parameters by name: Python checks that a call gives enough (Emitter.call)
        params = ", ".join(["outer", "depth", "bounce", *args, "*args"])
        frame = f"binder({', '.join(['outer', *args, '*args'])})"
    else:
        params = ", ".join(["outer", "depth", "bounce", *args])
        frame = emitter.frame_of("outer", args) or ""
        if not proc.defines and not assigned_names(proc.body) & set(proc.params):
            emitter.scopes.append(Registers(dict(zip(proc.params, args)), "env"))
            emitter.register_mode = True
            frame = "None"
        elif (defines := register_defines(proc)) is not None:
            locals_ = {node.name: emitter.fresh("l") for node in defines}
            emitter.scopes.append(Registers(dict(zip(proc.params, args)) | locals_, "env"))
            emitter.register_mode = True
            emitter.define_nodes = set(defines)
            emitter.lifted = lift(emitter, proc, defines)
            frame = "None"
            if procedures_stay_inside(list(locals_), [node.value for node in defines], [proc.body]):
                emitter.released["env"] = [emitter.key(name) for name in locals_]
            for local in locals_.values():  # at the top of the loop: a self tail call starts afresh
                emitter.line(f"{local} = UNASSIGNED")
    if not emitter.register_mode:
        emitter.line("v = env.vars")
    emitter.holes = has_cons_calls_of_itself(proc)
    emitter.tail(proc.body)
    emitter.namespace["on_error"] = BodyErrors(emitter.sites, emitter.merged_sites)
    code = "\n".join(without_dead_site_stores(emitter.lines))
    start = f"\n    {HOLE} = None" if emitter.holes else ""
    start += "".join(f"\n    {frame} = None" for frame in emitter.released if frame != "env")
    poison = f"\n    rt.depth = {POISON_DEPTH}" if POISON_DEPTH is not None else ""
    source = TEMPLATE.format(params=params, frame=frame, start=start, poison=poison, code=code)
    if emitter.register_mode:
        flags = {name: flag for flag, name in emitter.flag_names.items()}
        source = hoist_invariant_tests(source, args, emitter.namespace, emitter.repeats, flags)
    exec(compile(source, "<taskscheme body>", "exec"), emitter.namespace)  # generated from fixed templates
    return emitter.namespace["run"]


def lift(emitter: Emitter, proc: Lambda, defines: list[Define]) -> dict[Define, tuple[str, int]]:
    """The body's defines made once (``lifting.lifted_defines``): their closures' source."""
    lifted = lifted_defines(proc.body.body if type(proc.body) is Seq else [proc.body], defines)
    if not lifted:
        return {}
    made = LiftedClosures([d.name for d in lifted], [d.value.compile(False) for d in lifted])
    source = emitter.constant(made, "L")
    return {d: (source, i) for i, d in enumerate(lifted)}


def register_defines(proc: Lambda) -> list[Define] | None:
    """A body's internal defines if they can live in its register frame (with the
    parameters): each a plain ``define`` at the body's top level, each name once and
    none a parameter's, and nothing else in the body (a ``set!``, a ``define`` in a
    nested body of the same name, ``define-values``, ``define-record-type``) assigning a
    parameter or a defined name. Else None (the body keeps its frame)."""
    if proc.rest is not None:
        return None
    top = proc.body.body if type(proc.body) is Seq else [proc.body]
    defines = [part for part in top if type(part) is Define]
    names = [node.name for node in defines]
    if len(set(names)) != len(names) or set(names) != set(proc.defines) or set(names) & set(proc.params):
        return None
    watched = {*proc.params, *names}
    own = {id(node) for node in defines}  # reached again through a defined lambda's binding region
    for part in top:
        for node in subtree(part.value if type(part) is Define else part):
            if id(node) not in own and set(node.assigned()) & watched:
                return None
    return defines


def compares_identity(guarded: tuple[Any, ...], field: str) -> bool:
    """Whether a guarded template puts operand ``field`` beside ``is`` (``eq?``): a literal
    there is a SyntaxWarning ("is" with a literal), so the operand goes into a name."""
    _count, guard, code, _statement = guarded
    text = f"{guard} {code}"
    return f"{{{field}}} is " in text or f"is {{{field}}}" in text
