"""Tail recursion modulo ``+``: ``(+ e (self arg …))`` in tail position runs as a loop.

``(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))`` recurses one Python frame per
level (and past ``Runtime.EARLY_HOP`` levels goes on on a roomy thread), although all that
is left after the call is one addition. As :mod:`.trmc` does for ``cons``, the body compiler
emits such an arm as a round of the body's own ``while True:`` loop:

* ``e``'s value is kept in ``addends`` (a Python list, made at the first round), each
  standing for a level of calls under ``max_depth`` (past it, the recursion's error), the
  parameters are rebound, a step is counted (limits, timeouts and Ctrl-C are polled as in
  any compiled loop) and the loop goes round;
* every ``return`` of such a body goes through :class:`Addition`: the value (a pending
  :class:`TailCall` run first, as the call site did) is added to the kept values from the
  innermost out, each addition as the recursion's level would have made it then: inline
  for two exact integers while ``+`` holds its built-in, else the ordinary call of the
  ``+`` (whatever ``+`` holds by then, with the call's backtrace frame for an error). When
  the value and every kept one are exact integers and ``+`` is the built-in, they are
  summed at once (``sum``, in C): exact addition gives the same in any order.

Evaluation order is the ordinary call's: ``e``, the operator of the recursive call, its
arguments; ``+`` is read (through its intact flag) after them, as the recursion reads it
after the call returns. The loop is taken only while ``+`` is the built-in and the
operator is a closure with this very body; otherwise the arm makes the ordinary calls and
the kept values are added to their result. Continuations are escape-only, so nobody sees
the kept values.
One node per body qualifies (a body with a ``cons`` loop keeps that one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..datatypes import TailCall
from ..errors import SchemeError
from ..evaluator import settle
from ..mirrors import Flag
from ..nodes.core import Call, GlobalRef, Lambda, Node, subtree
from .fastpath import INLINE_NAMES, generic_application
from .trmc import CONSTANT, OUT, is_named, rounds_or_call

if TYPE_CHECKING:
    from .body import Emitter

#: The generated code's list of values still to add (None until the first round).
ADDENDS = "addends"

#: The levels the kept values may take before ``max_depth``, as the recursion's calls would.
ROOM = "room"

#: The types of addends summed at once (not ``bool``, which ``sum`` would count as 0 and 1).
EXACT = {int}


class Addition:
    """What a return of a summing body adds: ``self(addends, value, rt, depth, env)``."""

    __slots__ = ("flag", "ordinary")

    def __init__(self, flag: Flag, ordinary: Callable[..., Any]) -> None:
        self.flag = flag  # up while ``+`` holds its built-in
        self.ordinary = ordinary  # the ``+`` call made the ordinary way on two values

    def __call__(self, addends: list[Any], value: Any, rt: Any, depth: int, env: Any) -> Any:
        if type(value) is TailCall:  # in the body's context, at its level (as trmc.filled)
            value = settle(rt, value.proc, value.args, depth + 1)
        flag, ordinary = self.flag, self.ordinary
        if type(value) is int and flag.value and set(map(type, addends)) == EXACT:
            return value + sum(addends)  # exact integers: any order of the additions gives it
        for addend in reversed(addends):
            if type(addend) is int and type(value) is int and flag.value:
                value = addend + value
            else:
                rt.depth = depth
                value = ordinary(env, addend, value)
        return value


def too_deep(rt: Any, depth: int, addends: list[Any]) -> None:
    """Raise the error of ``max_depth`` that the recursion's next call would have raised
    (``Runtime.deep``): each kept value stands for a level."""
    levels = rt.depth_base + depth + len(addends)
    raise SchemeError(
        f"recursion depth limit exceeded: max_depth = {rt.max_depth}",
        kind="resource-exhaustion",
        details={"resource": "depth", "used": levels, "limit": rt.max_depth},
    )


def sum_call(node: Node, name: str) -> Call | None:
    """The recursive call when ``node`` is ``(+ e (name arg …))``, else None."""
    if type(node) is Call and len(node.operands) == 2 and is_named(node.operator, "+"):
        call = node.operands[1]
        if type(call) is Call and is_named(call.operator, name):
            return call
    return None


def summing_node(proc: Lambda) -> Call | None:
    """The one ``(+ e (proc …))`` in ``proc``'s body, if there is exactly one and ``e``
    calls only built-ins computed inline: a recursion such as fib's, whose kept value is
    itself a call, gains nothing from the loop and pays for the list."""
    found = [part for part in subtree(proc.body) if sum_call(part, proc.name) is not None]
    if len(found) != 1 or not calls_inline_only(found[0].operands[0]):  # type: ignore[attr-defined]
        return None
    return found[0]  # type: ignore[return-value]


def calls_inline_only(node: Node) -> bool:
    """Whether every call in ``node`` is of a global named like a built-in computed inline."""
    return all(
        type(part) is not Call or (type(part.operator) is GlobalRef and part.operator.name.name in INLINE_NAMES)
        for part in subtree(node)
    )


def summing_returns(text: str, addition: str) -> list[str]:
    """``return x`` as lines that add the kept values, if any, to ``x``."""
    body = text.lstrip()
    pad = text[: len(text) - len(body)]
    value = body[len("return ") :]
    added = f"{addition}({ADDENDS}, {{}}, rt, depth, env or outer)"
    if CONSTANT.fullmatch(value):
        return [f"{pad}return {value} if {ADDENDS} is None else {added.format(value)}"]
    return [f"{pad}{OUT} = {value}", f"{pad}return {OUT} if {ADDENDS} is None else {added.format(OUT)}"]


def prepare(em: Emitter, proc: Lambda) -> None:
    """Make ``proc``'s body a summing one (``em.summing``: the name of its :class:`Addition`)
    when it holds one ``(+ e (proc …))`` and ``+`` has an intact flag."""
    node = summing_node(proc)
    if node is None or "+" not in em.builtins:
        return
    flag = em.flag_of(node.operator)
    if type(flag) is not Flag:
        return
    em.summing_node = node
    em.summing = em.constant(Addition(flag, generic_application(node)), "a")


def emit_sum_loop(em: Emitter, node: Call) -> bool:
    """Emit ``node``, in tail position, as a round of the body's loop (see the module
    docstring); False, emitting nothing, if it is not the body's summing node or the loop
    cannot be used here."""
    proc = em.procedure
    if node is not em.summing_node or em.loops or proc is None:
        return False
    call = sum_call(node, proc.name)
    if call is None or not em.accepts(len(call.operands)):  # a wrong count: the ordinary call reports it
        return False
    flag = em.flag_of(node.operator)
    assert flag is not None
    em.repeats = True
    parent = em.current_site
    site = em.open_site(node)
    operator = em.sites[site][2]
    value = em.value(node.operands[0])
    if not (value.isidentifier() or CONSTANT.fullmatch(value)):  # later statements must not evaluate it again
        temp = em.fresh("t")
        em.line(f"{temp} = {value}")
        value = temp
    itself = em.calls_itself(call)
    f, args = em.call_parts(call, read_operator=not itself)
    intact = em.flag(flag)  # tested here, after the operands' code (which may have made calls)

    def round_of_loop(test: str, closure: str | None, keep: str | None = None) -> None:
        em.line(f"if {' and '.join(part for part in [intact, test] if part != 'True') or 'True'}:")
        em.indent += 1
        if keep is not None:
            em.line(f"{keep}({closure})")
        em.line(f"if {ADDENDS} is None:")
        em.line(f"    {ADDENDS} = [{value}]")
        em.line(f"    {ROOM} = rt.max_depth - rt.depth_base - depth")
        em.line(f"elif len({ADDENDS}) < {ROOM}:")
        em.line(f"    {ADDENDS}.append({value})")
        em.line("else:")
        em.line(f"    too_deep(rt, depth, {ADDENDS})")
        em.rebind_self(closure, args)
        em.indent -= 1

    result = rounds_or_call(em, call, itself, f, args, round_of_loop)
    # then the addition
    em.line(f"site = {site}")
    em.operator_into(node.operator, operator)
    builtin = em.constant(em.builtins["+"], "b")
    ordinary = f'(setattr(rt, "depth", depth) or apply_with_caller({operator}, [{value}, {result}], {em.frame}, True))'
    fast = f"type({value}) is int and type({result}) is int and {operator} is {builtin}"
    em.tail_value(f"{value} + {result} if {fast} else {ordinary}", result)
    em.current_site = parent
    return True
