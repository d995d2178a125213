"""Loop-invariant tests: a parameter that a body's loop never rebinds is tested once.

A procedure body is one ``while True:`` loop (see ``body.TEMPLATE``): a self tail call,
a round of tail recursion modulo cons, a ``do`` or an inline walk goes round without a
Python call. Its guards test the parameters' types at every round, although a parameter
that every round passes on unchanged, such as the divisor ``n`` of ::

    (define (remove-multiples n l)
      (if (null? l) '()
          (if (= (modulo (car l) n) 0)
              (remove-multiples n (cdr l))
              (cons (car l) (remove-multiples n (cdr l))))))

has the same type, and the same value, at every round. :func:`hoist_invariant_tests`
rewrites the generated source: a run of tests of such a parameter inside a guard
(``type(arg0) is int and arg0 != 0``) becomes one local, ``inv1``, computed once before the
loop (as each inner loop starts, in a body whose own loop does not go round), and again
wherever the parameter is assigned. In a register-mode body (parameters in
Python locals) that is only where a call out may have ``set!`` it and the body re-reads it
from its frame (``Emitter.reloads``: ``arg0 = env.vars[k1]``, or ``arg0 := env.vars[k1]``
inside an expression's tuple). A parameter assigned any other way (a round that passes
another value) is left alone.

Only tests that can neither fail nor have an effect move: ``type(p) is C`` for a class
``C``, then comparisons of ``p`` with number literals when ``C`` is ``int`` or ``float``
(``type(p) is int and p != 0``). A run moves whole, its tests in their order, and only
where it stands as the operand of ``and``/``or``, of an ``if``, or alone, so the local
decides exactly as the run did, on the same values.

The generated code is scanned by regular expressions, not parsed: a body can be large
(a ``specialize``d loop), and a walk over its Python syntax tree would cost more than
compiling it.

Flags (``Emitter.flag``: a name still holds its built-in, ``lexical_self``) are tested
once too. A flag changes only when code of the program rebinds a name, so a local copy
is exact until a call out returns: the emitter marks each such place (:data:`CALLED_OUT`,
after the re-reads of a statement call and as the last element of an expression's
re-read tuple), and there the locals that hold flags are read again if one of their
flags is down (one test of an :class:`~..mirrors.AllOf`, :data:`ALL_UP`; while all are
up, a local is right or a stale False, which only takes the ordinary path). A flag that
ends a run of tests of a parameter (the emitter puts flags last in a guard) joins the
run: ``type(arg0) is int and arg0 != 0 and ok9`` is one local, read again at both kinds
of place. Only bodies with parameters hoist flags: theirs are the bodies whose every
call out in an expression is followed by re-reads, where the mark stands.

Under ``parallel-map`` the locals belong to one activation, in its thread. A name that
another thread rebinds meanwhile is seen by this activation at its next call out or
next call, as a running loop reads a global variable the others assign: what a data
race between branches may see (docs/concurrency.md).

The tests of ``n`` in ``remove-multiples``' guards become locals computed before the loop::

    inv1 = type(arg0) is int and arg0 != 0
    while True:
        ...
        if type(t1 := arg1.car) is int and inv1:
"""

from __future__ import annotations

import builtins
import re
from typing import Any, NamedTuple

from ..mirrors import AllOf, Flag

NUMBER = r"-?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
ORDER = r"(?:[!=]=|[<>]=?)"
#: What may stand right before a moved run: an opening bracket, a comma, or a keyword or
#: ``=`` whose operand the run is in full (never ``not``, ``==`` or another operator).
BEFORE = re.compile(r"(?:[(\[]|, |\b(?:el)?if |\band |\bor |\belse |\breturn |[^=!<>]= )\Z")
#: What may follow it: the end of its operand.
AFTER = r"(?=$|\n| and | or |\)|\]|,|:| if | else )"
#: An assignment of a name (``x = …``, ``x, y = …``, ``x += …``) or a re-read of it from a frame.
#: Each starts with the name itself, which lets the scan skip to it; the check that no
#: letter or dot stands before it follows.
ASSIGNED = r"{p}(?<![\w.]{p})(?:, \w+)*,? (?:[-+*/%&|^@]|//|\*\*|<<|>>)?:?= "
FROM_FRAME = r" (?P<walrus>:)?= \w+\.vars\[\w+\](?=[\n,)])"
RELOAD = r"{p}(?<![\w.]{p})" + FROM_FRAME
#: The emitter's mark of a place where a call out has returned: a line of its own after a
#: statement call's re-reads, or the last element of an expression's re-read tuple
#: (``Emitter.reloading``). :func:`hoist_invariant_tests` reads flags again there, or
#: drops it.
CALLED_OUT = "«called out»"
MARK_LINE = re.compile(rf"\n(?P<pad>[ ]*){CALLED_OUT}(?=\n)")
MARK_ELEMENT = f", {CALLED_OUT})[0]"
#: Most runs with a flag per body, the first in the source (a specialized arm comes before
#: the ordinary one). Each is written out again at every mark: the bound keeps the source,
#: and the work where a flag is down, linear in the body's size.
MAX_FLAGGED = 8
#: The name of the flag up while all the flags a body moved are (a :class:`~..mirrors.AllOf`).
ALL_UP = "okall"
#: The names ``Emitter.flag`` gives the flags it mirrors (``okN``, ``lexical_self``'s
#: ``okmeN``): one literal start, which a scan skips to fast.
FLAG_NAME = r"ok(?:me)?\d+"
_CHECK = rf"(?:(?P=param) {ORDER} {NUMBER}|{NUMBER} {ORDER} (?P=param)(?: {ORDER} {NUMBER})?)"
_TESTS = rf"(?:(?P<num>int|float)(?:(?: and {_CHECK})+)?|(?P<cls>\w+))"
#: A run of tests that may move (see the module docstring): the tests of one name, with
#: the flags that end it (a body names its parameters ``argN``, ``compile_procedure``).
#: Which ones are meant is checked apart, as what stands before it (:data:`BEFORE`): one
#: pattern for every body, compiled once.
RUN = re.compile(rf"type\((?P<param>arg\d+)\) is {_TESTS}(?P<flags>(?: and {FLAG_NAME})*){AFTER}")
#: A flag alone. Scanned for apart: each pattern starts with a literal, which a scan
#: skips to; either one would stop it at every place.
FLAG = re.compile(rf"{FLAG_NAME}{AFTER}")
#: The first line of a loop inside the body's own (``Emitter.do``, ``named_let``, ``emit_walk``).
INNER_LOOP = re.compile(
    r"\n(?P<pad>[ ]{12,})(?:while True:|for _ in ticks\(|for t\d+ in probing_rounds\(|for l\d+ in polled\()"
)


class Run(NamedTuple):
    """A run of tests that moved: its local, the parameter it tests (None for a flag
    alone), and the flags it holds (if any, it is read again at every mark)."""

    local: str
    param: str | None
    flags: tuple[str, ...]


def hoist_invariant_tests(
    source: str, params: list[str], namespace: dict[str, Any], rounds: bool, flags: dict[str, Flag]
) -> str:
    """The body ``source`` (one ``def run``, as ``body.TEMPLATE``) with the tests of its
    loop-invariant ``params`` and its ``flags`` (by their names in ``namespace``) made
    before the loop, and its marks (:data:`CALLED_OUT`) gone. ``rounds``: the body's own
    loop goes round (a call of itself), so a test anywhere in it repeats; else only the
    tests inside an inner loop (a ``do``, a named let, a walk) move."""
    runs: dict[str, Run] = {}
    inner = [] if rounds else inner_loops(source)
    if rounds or inner:  # else nothing repeats: most bodies leave here, before any scan per name
        source = hoisted(source, params, namespace, rounds, inner, runs, flags)
    flagged = {run.local: text for text, run in runs.items() if run.flags}
    if flagged:
        moved = {name for run in runs.values() for name in run.flags}
        AllOf(flags[name] for name in sorted(moved)).mirror(namespace, ALL_UP)
    return marks_replaced(source, flagged)


def hoisted(
    source: str,
    params: list[str],
    namespace: dict[str, Any],
    rounds: bool,
    inner: list[tuple[int, int]],
    runs: dict[str, Run],
    flags: dict[str, Flag],
) -> str:
    """``source`` with the runs that may move replaced by locals (collected in ``runs``),
    computed before the loop and again after each re-read of their parameter."""
    invariant = {param for param in params if f"type({param}) is " in source and only_reloaded(source, param)}
    if not params:
        flags = {}  # see the module docstring
    if not invariant and not flags:
        return source

    def local(text: str, param: str | None, held: tuple[str, ...]) -> str:
        if text not in runs:
            if held and sum(bool(run.flags) for run in runs.values()) == MAX_FLAGGED:
                return text  # as it was: read where it is used
            runs[text] = Run(f"inv{len(runs) + 1}", param, held)
        return runs[text].local

    def moves(match: re.Match[str]) -> bool:
        """Whether the match repeats and is a whole operand (not after `not`, `==` …, nor
        the end of a name)."""
        if not rounds and not any(start <= match.start() < end for start, end in inner):
            return False  # made once per call anyway
        return BEFORE.search(match.string, max(0, match.start() - 8), match.start()) is not None

    def flag_for(match: re.Match[str]) -> str:
        return local(match[0], None, (match[0],)) if match[0] in flags and moves(match) else match[0]

    def local_for(match: re.Match[str]) -> str:
        if not moves(match):
            return match[0]
        param, ending = match["param"], match["flags"]
        ends = tuple(ending.split(" and ")[1:])
        cls = match["num"] or match["cls"]
        if (
            param in invariant
            and set(ends) <= flags.keys()
            and isinstance(namespace.get(cls, getattr(builtins, cls, None)), type)  # else a name that may change
        ):
            return local(match[0], param, ends)
        # the tests stay where they are; the flags that end them move on their own
        moved = (local(name, None, (name,)) if name in flags else name for name in ends)
        return match[0][: len(match[0]) - len(ending)] + "".join(f" and {name}" for name in moved)

    source = RUN.sub(local_for, source)
    if flags:
        source = FLAG.sub(flag_for, source)
    if not runs:
        return source
    tested = {text: (run.local, run.param) for text, run in runs.items() if run.param is not None}
    if tested:
        source = recomputed_after_reloads(source, tested)
    if rounds:  # before the body's own loop
        first = "".join(f"\n        {run.local} = {text}" for text, run in runs.items())
        return source.replace("\n    try:\n", f"\n    try:{first}\n", 1)

    def before_loop(header: re.Match[str]) -> str:
        """The locals computed as an inner loop starts: a call that never enters one pays nothing."""
        return "".join(f"\n{header['pad']}{run.local} = {text}" for text, run in runs.items()) + header[0]

    return INNER_LOOP.sub(before_loop, source)


def marks_replaced(source: str, flagged: dict[str, str]) -> str:
    """``source`` with each :data:`CALLED_OUT` mark replaced by the recomputation of the
    ``flagged`` locals (local: its run) if a flag they hold is down (:data:`ALL_UP`), or
    removed. While all are up a local is right or a stale False, which only takes the
    ordinary path."""
    if CALLED_OUT not in source:
        return source
    if not flagged:
        return MARK_LINE.sub("", source).replace(MARK_ELEMENT, ")[0]")
    statement = "; ".join(f"{local} = {run}" for local, run in flagged.items())
    element = ", ".join(f"{local} := ({run})" for local, run in flagged.items())
    source = MARK_LINE.sub(lambda match: f"\n{match['pad']}if not {ALL_UP}: {statement}", source)
    return source.replace(MARK_ELEMENT, f", ({ALL_UP} or ({element},)))[0]")


def inner_loops(source: str) -> list[tuple[int, int]]:
    """Where the loops inside the body's own loop are: (start, end) of each block."""
    spans = []
    for header in INNER_LOOP.finditer(source):
        indent = len(header["pad"])
        end = re.compile(rf"\n {{0,{indent}}}(?! )").search(source, header.end())
        spans.append((header.end(), len(source) if end is None else end.start()))
    return spans


def only_reloaded(source: str, param: str) -> bool:
    """Whether every assignment of ``param`` in ``source`` re-reads it from a frame."""
    p = re.escape(param)
    return len(re.findall(ASSIGNED.format(p=p), source)) == len(re.findall(RELOAD.format(p=p), source))


def recomputed_after_reloads(source: str, runs: dict[str, tuple[str, str]]) -> str:
    """``source`` with each local of ``runs`` computed again after each re-read of its
    parameter: ``; inv1 = …`` after the statement, ``, inv1 := (…)`` after the ``:=`` element
    of its tuple (``Emitter.reloading``)."""
    names = "|".join(sorted({re.escape(param) for _local, param in runs.values()}))

    def again(match: re.Match[str]) -> str:
        before = match.string[match.start() - 1 : match.start()]
        if before.isalnum() or before in ("_", "."):
            return match[0]  # the end of another name
        made = [(local, run) for run, (local, param) in runs.items() if param == match["param"]]
        if match["walrus"]:
            return match[0] + "".join(f", {local} := ({run})" for local, run in made)
        return match[0] + "".join(f"; {local} = {run}" for local, run in made)

    return re.sub(f"(?P<param>{names}){FROM_FRAME}", again, source)
