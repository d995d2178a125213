"""The emitter's core: the lines of a body, its temporaries, names and constants, and its call sites.

Every family of forms (``frames``, ``statements``, ``binding``, ``loops``, ``control``,
``specialize``, ``arithmetic``, ``calls``) writes through :class:`EmitterCore`: ``line`` puts a
statement at the current indent (a ``return`` fills an open TRMC hole and empties released
frames first), ``fresh`` gives a local (a dead temporary is taken again), ``constant`` and
``flag`` put an object in the body's namespace, ``open_site`` numbers a call for the backtrace.
The limits that keep generated code inside what Python's compiler accepts are here too.

A site opened, a temporary taken and a constant named, as the body reads them::

    site = 1
    o1 = G4.value
    t1 = (arg0 - 1)
"""

from __future__ import annotations

import math
import re
import sys
from typing import TYPE_CHECKING, Any, NamedTuple

from ..datatypes import (
    CHARS,
    LATIN1,
    NIL,
    VOID,
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
from ..env import GlobalBindings
from ..equality import EQV_BY_VALUE, is_eqv
from ..evaluator import UNASSIGNED, Closure, apply_procedure, apply_with_caller, settle
from ..mirrors import Flag
from ..nodes.binding import Do, consumer_values
from ..nodes.control import Cond
from ..nodes.core import (
    Call,
    Define,
    GlobalRef,
    If,
    Lambda,
    Node,
)
from .inline_walks import walk_namespace
from .library import LIBRARY
from .literal_search import LiteralTable
from .trmc import OUT, filled, returning
from .trmp import summing_returns, too_deep

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
#: A body's publication of its level inside an expression (None; see body.TEMPLATE): its
#: context ``rt`` is a local of the body (the runtime, or the calling thread's branch).
PUBLISH = 'setattr(rt, "depth", depth)'
#: A check of the depth protocol (see TEMPLATE), for tests: when set, a body entered and a
#: compiled call returned store this level into ``rt.depth``, so a call out that forgot to
#: publish the body's depth reaches the runtime with a level past every max_depth.
POISON_DEPTH: int | None = None


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


def compares_identity(guarded: tuple[Any, ...], field: str) -> bool:
    """Whether a guarded template puts operand ``field`` beside ``is`` (``eq?``): a literal
    there is a SyntaxWarning ("is" with a literal), so the operand goes into a name."""
    _count, guard, code, _statement = guarded
    text = f"{guard} {code}"
    return f"{{{field}}} is " in text or f"is {{{field}}}" in text



class EmitterCore:
    """Lines, temporaries, namespace names, flags and call sites of one body."""

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
        # every return adds the kept values first (tail recursion modulo +: trmp.py): the name
        # of the body's Addition, and the one node whose rounds keep them
        self.summing: str | None = None
        self.summing_node: Call | None = None
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
            "LATIN1": LATIN1,
            "MString": MString,
            "StringOutputPort": LIBRARY.names["StringOutputPort"],
            "HashTable": LIBRARY.names["HashTable"],
            "TABLE_GROWTH_FROM": LIBRARY.names["TABLE_GROWTH_FROM"],
            "Values": Values,
            "values_of": values_of,
            "NIL": NIL,
            "UNASSIGNED": UNASSIGNED,
            "is_eqv": is_eqv,
            "EQV_BY_VALUE": EQV_BY_VALUE,
            "VOID": VOID,
            "Closure": Closure,
            "TailCall": TailCall,
            "apply_procedure": apply_procedure,
            "consumer_values": consumer_values,
            "apply_with_caller": apply_with_caller,
            "filled": filled,
            "too_deep": too_deep,
            "float_sqrt": math.sqrt,
            "rt": rt,
            **walk_namespace(),
        }
        if rt is not None:  # a body's: runs a pending tail call in its context (see TEMPLATE)
            self.namespace["settle"] = settle
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
        if (self.holes or self.released or self.summing) and text.lstrip().startswith("return "):
            parts = returning(text) if self.holes else summing_returns(text, self.summing) if self.summing else [text]
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
