"""``(hash-table-update!/default table key (lambda (v) …) default)`` with its lambda inline.

The primitive calls its procedure through ``apply_procedure``: the closure is made (and with
it a frame for each enclosing register scope), then called with the full call protocol, once
per update. Word counts (``(for-each (lambda (w) (hash-table-update!/default counts w (lambda
(c) (+ c 1)) 0)) words)``) spent most of their time there. When the body compiler
(:class:`~.body.Emitter`) meets such a call with a literal one-parameter lambda it can run
inline (``Emitter.inlinable_lambda``), it emits the update itself::

    if ok4:                                   # the global still holds the built-in
        t7 = t5
        if type(t7) is not HashTable:
            check_table(c3, t7)               # the primitive's type error
        t10 = type(t6) in t7.direct           # a key that is its own dict key (inline_tables)
        if t10:
            l8 = 0 if (t11 := t7.entries.get(t6)) is None else t11[1]
        else:
            l8 = t7.get(t6, 0)                # the current value, or the default
        t12 = <the lambda's body, its parameter the local l8>
        if t10 and (t11 is not None or (t13 := len(t7.entries)) < TABLE_GROWTH_FROM or t13 & (t13 - 1)):
            t7.entries[t6] = (t6, t12)        # a key it held, or no memory to reserve: in place
        else:
            t7.set(t6, t12)
        t4 = VOID
    else:
        t4 = <the ordinary call, the lambda's closure made now>

in the primitive's order: the operands first (the lambda has no effect), then the table
checked, the value read, the body run, the value stored. The body's calls are sites of the
enclosing body with the update's own call site open, so an error inside it shows the update's
call and then the body's, as the ordinary call's backtrace does; the update counts one step,
as a call does. The lambda's closure is never made: nothing but the call could see it. Under
``parallel-map`` the locals belong to the running activation, and the table is read and
written by the same two calls the primitive makes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..nodes.core import Call, GlobalRef, Lambda, Node
from .inline_tables import DIRECT_KEY, NO_GROWTH_DUE

if TYPE_CHECKING:
    from .body import Emitter

#: The updates done inline, by name: the operand that is the procedure.
UPDATE_FORMS = {"hash-table-update!/default": 2}


def inline_update(em: Emitter, node: Node) -> bool:
    """Whether ``node`` is a ``hash-table-update!/default`` of four operands whose procedure is
    a literal one-parameter lambda that can run inline."""
    if type(node) is not Call or type(node.operator) is not GlobalRef:
        return False
    name = node.operator.name.name
    if name not in UPDATE_FORMS or name not in em.builtins or len(node.operands) != 4:
        return False
    return em.inlinable_lambda(node.operands[UPDATE_FORMS[name]], 1)


def emit_update(em: Emitter, node: Call) -> str:
    """Emit the update ``node`` (see :func:`inline_update`); the name of its value."""
    from .fastpath import builtins_intact  # fastpath imports inline_walks, which imports this module

    operator, proc = node.operator, node.operands[2]
    assert type(operator) is GlobalRef and type(proc) is Lambda
    name = operator.name.name
    parent = em.current_site
    em.open_site(node)  # in progress while the body runs, as the call is
    # each computed once, in order, before the body: the default too, though only a missing key uses it
    operands = em.operand_values([node.operands[0], node.operands[1], node.operands[3]])
    table, key, default = (em.settled(value) for value in operands)
    em.line(f"site = {em.current_site}")
    result, checked, value = em.fresh("t"), em.fresh("t"), em.fresh("l")
    who = em.constant(name, "c")
    em.line(f"if {em.flag(builtins_intact(operator, em.builtins[name]))}:")
    em.indent += 1
    em.line(f"{checked} = {table}")
    em.line(f"if type({checked}) is not HashTable:")
    em.line(f"    check_table({who}, {checked})  # the primitive's type error")
    direct, entry, new, size = em.fresh("t"), em.fresh("t"), em.fresh("t"), em.fresh("t")
    em.line(f"{direct} = {DIRECT_KEY.format(a=checked, b=key)}")
    em.line(f"if {direct}:")
    em.line(f"    {value} = {default} if ({entry} := {checked}.entries.get({key})) is None else {entry}[1]")
    em.line("else:")
    em.line(f"    {value} = {checked}.get({key}, {default})")
    body = em.value_in_scope({proc.params[0]: value}, proc.body)
    em.line(f"{new} = {body}")
    # a key held when read is an update in place (no growth, nothing to reserve: as the primitive)
    em.line(f"if {direct} and ({entry} is not None or {NO_GROWTH_DUE.format(a=checked, t=size)}):")
    em.line(f"    {checked}.entries[{key}] = ({key}, {new})")
    em.line("else:")
    em.line(f"    {checked}.set({key}, {new})")
    em.count_step()
    em.line(f"{result} = VOID")
    em.indent -= 1
    closure = f"{em.constant(proc.compile(False), 'n')}({em.frame})"
    return em.fallback_arm(result, node, lambda: [table, key, closure, default], parent)
