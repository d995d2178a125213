"""Tail recursion modulo cons: ``(cons e (self arg …))`` in tail position runs as a loop.

A procedure such as ``(define (iota-from m n) (if (> m n) '() (cons m (iota-from (+ m 1) n))))``
recurses one Python frame (and a depth check, and past a mark a stack measure or a thread
hop) per element, although all that is left to do after the call is one ``cons``. The body
compiler (:class:`~.body.Emitter`) emits such an arm as a step of the body's own
``while True:`` loop instead:

* the pair is made with its ``cdr`` empty, the hole; the first one is the ``head`` of the
  result, each later one fills the hole of the one before;
* the parameters are rebound to the call's arguments, a step is counted (so limits,
  timeouts and Ctrl-C are polled as in any compiled loop) and the loop goes round;
* every ``return`` of such a body goes through :func:`filled`: while a hole is open the
  value fills it and the head is returned. A pending :class:`TailCall` is run first, as
  the call site of the recursive call did.

``(cons e1 (cons e2 (self …)))`` makes two pairs per round. Evaluation order is the
ordinary call's: ``e``, the operator of the recursive call, then its arguments; a global
``cons`` whose name has an intact flag (``GlobalBindings.intact``) is read only when the
arm makes the ordinary calls, after its operands (an order Scheme leaves open), else
first. The loop is taken only while each ``cons`` is still the built-in and the
operator is a closure with this very body (so a redefined or ``set!`` name is honoured);
otherwise the arm makes the ordinary calls and puts the result in the hole. Pairs are
unreachable until the body returns, and continuations are escape-only, so nobody sees a
hole. Like a tail call, a round adds no depth: ``max_depth`` no longer limits it.

A round of ``(cons (car a) (merge (cdr a) b))``, and a return through the hole::

    p5 = Pair()
    p5.car = t1
    if hole is None:
        head = p5
    else:
        hole.cdr = p5
    hole = p5
    arg0 = (arg0.cdr)
    ...
    return out if hole is None else filled(hole, head, out, rt, depth)
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..datatypes import TailCall
from ..evaluator import settle
from ..mirrors import Flag
from ..nodes.core import Call, GlobalRef, Lambda, LocalRef, Node, subtree

if TYPE_CHECKING:
    from .body import Emitter

#: Local names of the generated code (no generated temporary ends in a letter).
HOLE, HEAD, OUT = "hole", "head", "out"

#: A returned value that is no pending tail call: a constant of the body's namespace
#: (``Emitter.constant``: quoted data, never a ``TailCall``) or a Python literal.
CONSTANT = re.compile(r"c\d+|True|False|None|-?\d+")


def filled(hole: Any, head: Any, value: Any, rt: Any, depth: int) -> Any:
    """Fill the last hole with the body's value; the list's first pair is the result.
    A pending tail call is made here, by the body (at its ``depth``) as its caller would."""
    if type(value) is TailCall:
        value = settle(rt, value.proc, value.args, depth + 1)  # in the body's context, at its level
    hole.cdr = value
    return head


def cons_chain(node: Node, name: str) -> tuple[list[Call], Call] | None:
    """``(conses, call)`` when ``node`` is ``(cons e1 (cons e2 … (name arg …)))``, else None."""
    conses: list[Call] = []
    while type(node) is Call and len(node.operands) == 2 and is_named(node.operator, "cons"):
        conses.append(node)
        node = node.operands[1]
    if conses and type(node) is Call and is_named(node.operator, name):
        return conses, node
    return None


def is_named(operator: Node, name: str) -> bool:
    return type(operator) in (GlobalRef, LocalRef) and operator.name.name == name  # type: ignore[attr-defined]


def has_cons_calls_of_itself(proc: Lambda) -> bool:
    """Whether ``proc``'s body holds a ``(cons e (proc …))`` anywhere (the emitter then
    routes every ``return`` through :func:`filled`)."""
    return any(cons_chain(part, proc.name) is not None for part in subtree(proc.body))


def returning(text: str) -> list[str]:
    """``return x`` as lines that fill the open hole, if any (see :func:`filled`); the
    first puts ``x`` in ``out``. A constant (the ``'()`` that ends the list, mostly) is
    no pending tail call: it fills the hole here, without the call of ``filled``."""
    body = text.lstrip()
    pad = text[: len(text) - len(body)]
    value = body[len("return ") :]
    if CONSTANT.fullmatch(value):
        return [
            f"{pad}{OUT} = {value}",
            f"{pad}if {HOLE} is None:",
            f"{pad}    return {OUT}",
            f"{pad}{HOLE}.cdr = {OUT}",
            f"{pad}return {HEAD}",
        ]
    return [
        f"{pad}{OUT} = {value}",
        f"{pad}return {OUT} if {HOLE} is None else filled({HOLE}, {HEAD}, {OUT}, rt, depth)",
    ]


def emit_cons_loop(em: Emitter, node: Call) -> bool:
    """Emit ``node``, in tail position, as a round of the body's loop (see the module
    docstring); False, emitting nothing, if it is not a cons of a call of the procedure
    itself with the procedure's argument count, or the loop cannot be used here."""
    proc = em.procedure
    if not em.holes or em.loops or proc is None or "cons" not in em.builtins:
        return False
    chain = cons_chain(node, proc.name)
    if chain is None or not em.accepts(len(chain[1].operands)):  # a wrong count: the ordinary call reports it
        return False
    conses, call = chain
    em.repeats = True  # a round of the body's loop: hoist.py may test invariant parameters once
    parent = em.current_site
    # each cons: its site, operator local, first operand and intact flag; a cons with a
    # flag has its operator read only on the ordinary path (after its operands)
    heads: list[tuple[int, str, str, Flag | None]] = []
    for pair in conses:
        site = em.open_site(pair)
        flag = em.flag_of(pair.operator)
        operator = em.sites[site][2]
        if flag is None:
            operator = em.operator_local(site)
            em.operator_into(pair.operator, operator)
        value = em.value(pair.operands[0])
        if not value.isidentifier():  # later statements must not evaluate it again
            temp = em.fresh("t")
            em.line(f"{temp} = {value}")
            value = temp
        heads.append((site, operator, value, flag))
    itself = em.calls_itself(call)  # then the operator is read only when that loop is not taken
    f, args = em.call_parts(call, read_operator=not itself)
    builtin = em.constant(em.builtins["cons"], "b")
    # the flags' tests are made here, after the operands' code (which may have made calls)
    intact = [
        em.flag(flag) if flag is not None else f"{operator} is {builtin}" for _site, operator, _value, flag in heads
    ]
    pairs = [em.fresh("p") for _ in heads]

    def round_of_loop(test: str, closure: str | None, keep: str | None = None) -> None:
        em.line(f"if {' and '.join(part for part in [*intact, test] if part != 'True') or 'True'}:")
        em.indent += 1
        if keep is not None:
            em.line(f"{keep}({closure})")
        for pair, (_site, _operator, value, _flag) in zip(pairs, heads):
            em.line(f"{pair} = Pair()")
            em.line(f"{pair}.car = {value}")
        em.line(f"if {HOLE} is None:")
        em.line(f"    {HEAD} = {pairs[0]}")
        em.line("else:")
        em.line(f"    {HOLE}.cdr = {pairs[0]}")
        for before, after in itertools.pairwise(pairs):
            em.line(f"{before}.cdr = {after}")
        em.line(f"{HOLE} = {pairs[-1]}")
        em.rebind_self(closure, args)
        em.indent -= 1

    result = rounds_or_call(em, call, itself, f, args, round_of_loop)
    # then each cons from the innermost out
    for (site, operator, value, flag), pair in zip(reversed(heads), reversed(conses)):
        em.line(f"site = {site}")
        if flag is not None:
            em.operator_into(pair.operator, operator)
        outermost = site == heads[0][0]
        call = f"apply_with_caller({operator}, [{value}, {result}], {em.frame}, {outermost})"
        ordinary = f'(setattr(rt, "depth", depth) or {call})'  # emitter.PUBLISH
        given = f"cons({value}, {result}) if {operator} is {builtin} else {ordinary}"
        if outermost:
            em.tail_value(given, result)
        else:
            em.line(f"{result} = {given}")
            em.reload_after_call()
    em.current_site = parent
    return True


def rounds_or_call(
    em: Emitter, call: Call, itself: bool, f: str, args: list[str], round_of_loop: Callable[..., None]
) -> str:
    """The recursive call as a round of the body's loop wherever its operator is this body
    (the self flag, the closure kept for it, any closure running this body), else the
    ordinary call of the procedure; the name of that call's value (shared with :mod:`.trmp`)."""
    if itself:
        round_of_loop(em.self_flag(), None)
        em.operator_into(call.operator, f)
    kept = None if itself else em.kept_self(call)
    if kept is not None:
        round_of_loop(f"{f} is {kept[0]}", f)
    round_of_loop(f"type({f}) is Closure and {f}.run is run", f, kept and kept[1])
    result = em.fresh("t")
    em.line("rt.depth = depth")
    em.line(f"{result} = apply_with_caller({f}, [{', '.join(args)}], {em.frame}, False)")
    em.reload_after_call()
    em.forget()
    return result
