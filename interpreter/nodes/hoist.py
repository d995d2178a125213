"""Loop-invariant tests: a parameter that a body's loop never rebinds is tested once.

A procedure body is one ``while True:`` loop (see ``codegen.TEMPLATE``): a self tail call,
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
loop, and again wherever the parameter is assigned. In a register-mode body (parameters in
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

Under ``parallel-map`` nothing changes: the locals belong to one activation, in its thread.
"""

from __future__ import annotations

import builtins
import re
from typing import Any

NUMBER = r"-?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)"
ORDER = r"(?:[!=]=|[<>]=?)"
#: What may stand right before a moved run: an opening bracket, a comma, or a keyword or
#: ``=`` whose operand the run is in full (never ``not``, ``==`` or another operator).
BEFORE = re.compile(r"(?:[(\[]|, |\bif |\band |\bor |\belse |\breturn |[^=!<>]= )\Z")
#: What may follow it: the end of its operand.
AFTER = r"(?=$|\n| and | or |\)|\]|,|:| if | else )"
#: An assignment of a name (``x = …``, ``x, y = …``, ``x += …``) or a re-read of it from a frame.
#: Each starts with the name itself, which lets the scan skip to it; the check that no
#: letter or dot stands before it follows.
ASSIGNED = r"{p}(?<![\w.]{p})(?:, \w+)*,? (?:[-+*/%&|^@]|//|\*\*|<<|>>)?:?= "
FROM_FRAME = r" (?P<walrus>:)?= \w+\.vars\[\w+\](?=[\n,)])"
RELOAD = r"{p}(?<![\w.]{p})" + FROM_FRAME
#: The first line of a loop inside the body's own (``Emitter.do``, ``named_let``, ``emit_walk``).
INNER_LOOP = re.compile(r"\n(?P<pad>[ ]{12,})(?:while True:|for _ in ticks\()")


def hoist_invariant_tests(source: str, params: list[str], namespace: dict[str, Any], rounds: bool) -> str:
    """The body ``source`` (one ``def run``, as ``codegen.TEMPLATE``) with the tests of its
    loop-invariant ``params`` made before the loop (``source`` itself if none is moved).
    ``rounds``: the body's own loop goes round (a call of itself), so a test anywhere in
    it repeats; else only the tests inside an inner loop (a ``do``, a named let, a walk) move."""
    inner = [] if rounds else inner_loops(source)
    if not rounds and not inner:
        return source  # nothing repeats: most bodies leave here, before any scan per parameter
    invariant = [param for param in params if f"type({param}) is " in source and only_reloaded(source, param)]
    if not invariant:
        return source
    runs: dict[str, tuple[str, str]] = {}  # a run's text: its local and its parameter

    def local_for(match: re.Match[str]) -> str:
        if not rounds and not any(start <= match.start() < end for start, end in inner):
            return match[0]  # made once per call anyway
        cls = match["num"] or match["cls"]
        if not isinstance(namespace.get(cls, getattr(builtins, cls, None)), type):
            return match[0]  # not a class: a name whose value may change
        if not BEFORE.search(match.string, max(0, match.start() - 8), match.start()):
            return match[0]  # not a whole operand (after `not`, `==` …): as it is
        if match[0] not in runs:
            runs[match[0]] = (f"inv{len(runs) + 1}", match["param"])
        return runs[match[0]][0]

    source = run_pattern(invariant).sub(local_for, source)
    if not runs:
        return source
    source = recomputed_after_reloads(source, runs)
    first = "".join(f"\n        {local} = {run}" for run, (local, _param) in runs.items())
    return source.replace("\n    try:\n", f"\n    try:{first}\n", 1)


def inner_loops(source: str) -> list[tuple[int, int]]:
    """Where the loops inside the body's own loop are: (start, end) of each block."""
    spans = []
    for header in INNER_LOOP.finditer(source):
        indent = len(header["pad"])
        end = re.compile(rf"\n {{0,{indent}}}(?! )").search(source, header.end())
        spans.append((header.end(), len(source) if end is None else end.start()))
    return spans


def run_pattern(params: list[str]) -> re.Pattern[str]:
    """A run of tests of one of ``params`` that may move (see the module docstring); what
    stands before it is checked apart (:data:`BEFORE`), so the scan starts at ``type(``."""
    names = "|".join(re.escape(param) for param in params)
    p = "(?P=param)"
    check = rf"(?:{p} {ORDER} {NUMBER}|{NUMBER} {ORDER} {p}(?: {ORDER} {NUMBER})?)"
    tests = rf"(?:(?P<num>int|float)(?:(?: and {check})+)?|(?P<cls>\w+))"
    return re.compile(rf"type\((?P<param>{names})\) is {tests}{AFTER}")


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
