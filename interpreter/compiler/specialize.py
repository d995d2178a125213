"""Branch specialisation and guards: a body emitted twice, once under what its tests teach.

When a body's test checks its operands' types (``type(arg0) is int``) and its built-ins are
intact, the arm under that guard is emitted again knowing those facts: its inline arithmetic
needs no type tests, its flags are up. The other arm is the ordinary code. The copy is bounded
by :data:`~.emitter.SPECIALIZE_BUDGET` nodes.

``fib``'s body::

    if type(arg0) is int and ok3:
        if (True if (arg0 < 2) else False):
            return arg0
        ...
    else:
        if ((True if arg0 < 2 else False) if type(arg0) is int and ok2 else ...):
            ...
"""

from __future__ import annotations

from collections.abc import Callable

from ..datatypes import (
    Symbol,
)
from ..env import GlobalBindings
from ..mirrors import Flag
from ..nodes.core import (
    Call,
    GlobalRef,
    LocalRef,
    Node,
    subtree,
    subtree_sizes,
)
from .emitter import (
    MAX_INDENT,
    TYPE_TEST,
    Cover,
    jumped_on,
    tests_of,
    watched_call,
)
from .fastpath import (
    COMPARISONS,
)
from .fused import BOOL, PAIR, fuse, refuted


class Specialization:
    """A body's arms emitted again under the guards of its tests."""

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
