"""A walk over the new list of another walk, both done in one loop: ``(fold-left + 0 (filter
even? l))``, ``(filter p (map f l))``, ``(map g (map f l))`` … make no list between them.

The consumer (``map``, ``filter``, ``fold-left`` or ``fold``) and the producer (``map`` or
``filter`` over a list or over ``(iota …)``) must each run inline (``inline_walks``) with a
body of no effect (``effect_free_flags``), and every built-in involved must be untouched.
Each element then goes through the producer's body and, if it is kept, the consumer's.

Run in one loop, the two bodies' errors would come in another order than the ordinary calls
give them (the producer's walk is done before the consumer's starts): so an error in the
loop (any but a limit's, ``resource-exhaustion``) drops its work and makes both calls again
the ordinary way, from the start, which raises the error the ordinary calls raise, with
their backtrace. Nothing else can tell: neither body has an effect. Under ``max_steps``,
each element counts a step for the producer's round and one for the consumer's, as the two
walks would; work redone after an error counts again (an upper bound). Under
``parallel-map`` every name of the loop is a local of the running activation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..nodes.core import Call, GlobalRef, Lambda
from .inline_walks import (
    WALK_FORMS,
    accumulators,
    effect_free_flags,
    eta_lambda,
    inline_walk,
    iota_source,
    ordinary_calls,
    settled,
)

if TYPE_CHECKING:
    from .body import Emitter

CONSUMERS = ("map", "filter", "fold-left", "fold")
PRODUCERS = ("map", "filter")


def procedure(node: Call, params: int) -> tuple[Lambda, GlobalRef | None]:
    """The walk ``node``'s procedure as a lambda (a built-in by name eta-expanded), and the
    built-in's name if it was one."""
    proc = node.operands[0]
    if type(proc) is GlobalRef:
        return eta_lambda(node, proc, params), proc
    assert type(proc) is Lambda
    return proc, None


def fused_producer(em: Emitter, node: Call) -> Call | None:
    """The producer walk of ``node`` if the two can run as one loop (see the module)."""
    assert type(node.operator) is GlobalRef
    name = node.operator.name.name
    if name not in CONSUMERS:
        return None
    producer = node.operands[-1]
    if type(producer) is not Call or type(producer.operator) is not GlobalRef:
        return None
    if producer.operator.name.name not in PRODUCERS or len(producer.operands) != 2:
        return None
    if not inline_walk(em, producer):
        return None
    for walk in (node, producer):
        assert type(walk.operator) is GlobalRef
        proc, _named = procedure(walk, WALK_FORMS[walk.operator.name.name].params)
        if effect_free_flags(em, proc.body) is None:
            return None
    return producer


def emit_fused(em: Emitter, node: Call, producer: Call) -> str:
    """Emit the consumer ``node`` over ``producer`` as one loop; the name of its value."""
    from .fastpath import builtins_intact  # reason: circle fastpath <-> inline_walks (compiler/__init__)

    assert type(node.operator) is GlobalRef and type(producer.operator) is GlobalRef
    c_name, p_name = node.operator.name.name, producer.operator.name.name
    c_form, p_form = WALK_FORMS[c_name], WALK_FORMS[p_name]
    c_proc, c_named = procedure(node, c_form.params)
    p_proc, p_named = procedure(producer, p_form.params)
    parent = em.current_site
    site = em.open_site(node)
    # a built-in by name is read where the ordinary calls read it, before the operands after it
    c_early = settled(em, em.value(c_named)) if c_named is not None else ""
    values = [settled(em, value) for value in em.operand_values(node.operands[1:-1])]
    p_site = em.open_site(producer)
    p_early = settled(em, em.value(p_named)) if p_named is not None else ""
    source = producer.operands[-1]
    numbers = iota_source(em, source)
    counts: list[str] = []
    src = ""
    if numbers is not None:
        numbers_site = em.open_site(numbers)
        counts = [settled(em, value) for value in em.operand_values(numbers.operands)]
    else:
        src = em.fresh("t")
        em.line(f"{src} = {em.operand_values([source])[0]}")
    em.current_site = site
    em.line(f"site = {site}")
    flags = [
        builtins_intact(node.operator, em.builtins[c_name]),
        builtins_intact(producer.operator, em.builtins[p_name]),
    ]
    for named in (c_named, p_named):
        if named is not None:
            flags.append(builtins_intact(named, em.builtins[named.name.name]))
    if numbers is not None:
        assert type(numbers.operator) is GlobalRef
        flags.append(builtins_intact(numbers.operator, em.builtins["iota"]))
    for proc in (p_proc, c_proc):
        flags += effect_free_flags(em, proc.body) or []
    intact = " and ".join(dict.fromkeys(em.flag(flag) for flag in flags))
    result, bail, lst = em.fresh("t"), em.fresh("t"), em.fresh("t")
    em.line(f"{bail} = True")
    em.line(f"if {intact}:")
    em.indent += 1
    if numbers is not None:
        em.line(f"site = {numbers_site}")
        em.line(f"{lst} = iota_numbers({', '.join(counts)})")
        em.line(f"site = {site}")
    else:
        em.line(f"{lst} = {src}")
    head, last, acc = accumulators(em, c_form, values)
    em.forget()  # a later round runs after this round's calls
    element = em.fresh("l")
    em.line("try:")
    em.indent += 1
    if numbers is not None:
        em.line(f"for {element} in polled({lst}):")
        em.indent += 1
    else:
        who, mark, probe = em.constant(p_name, "c"), em.fresh("t"), em.fresh("t")
        em.line(f"{mark} = {lst}")
        em.line(f"for {probe} in probing_rounds():")
        em.indent += 1
        em.line(f"if type({lst}) is not Pair:")
        em.line(f"    if {lst} is NIL:")
        em.line("        break")
        em.line(f"    raise improper_error({who}, {src})  # the ordinary calls say it again")
        em.line(f"if {probe}:")
        em.line(f"    {mark} = {lst}")
        em.line(f"elif {lst} is {mark}:")
        em.line(f"    raise improper_error({who}, {src})")
        em.line(f"{element} = {lst}.car")
        em.line(f"{lst} = {lst}.cdr")
    em.line(f"site = {p_site}")  # each body at its own walk's site, as the two calls run them
    produced = named_value(em, em.value_in_scope({p_proc.params[0]: element}, p_proc.body))
    em.count_step()
    kept = element
    if p_name == "filter":
        em.line(f"if {produced} is not False:")
        em.indent += 1
    else:
        kept = produced
    em.line(f"site = {site}")
    locals_ = [kept]
    if c_form.acc_param is not None:
        bound = em.fresh("l")
        em.line(f"{bound} = {acc}")
        locals_.insert(c_form.acc_param, bound)
    value = named_value(em, em.value_in_scope(dict(zip(c_proc.params, locals_)), c_proc.body))
    fields = {"v": value, "x": kept, "c": em.fresh("t"), "last": last, "acc": acc}
    for template in c_form.round_end:
        em.line(template.format(**fields))
    em.count_step()
    em.indent -= 2 if p_name == "filter" else 1
    em.indent -= 1
    em.line("except SchemeError as exc:")
    em.line('    if exc.kind == "resource-exhaustion":')
    em.line("        raise")
    em.line("else:")
    em.indent += 1
    if head:
        em.line(f"{last}.cdr = NIL")
        em.line(f"{result} = {head}.cdr")
    else:
        em.line(f"{result} = {acc}")
    em.line(f"{bail} = False")
    em.indent -= 2
    em.line(f"if {bail}:")  # the ordinary calls, from the start
    em.indent += 1
    p_closure, c_closure = p_early or closure(em, p_proc), c_early or closure(em, c_proc)
    if numbers is not None:
        src = em.fresh("t")
        em.line(f"site = {p_site}")  # the ordinary calls add their own frames (generic_application)
        em.line(f"{src} = {em.fallback(numbers, counts)}")
    return ordinary_calls(em, result, (site, producer, [p_closure, src]), (parent, node, [c_closure, *values]))


def closure(em: Emitter, proc: Lambda) -> str:
    """A name holding the walk's lambda's closure, made now for its ordinary call."""
    return settled(em, f"{em.constant(proc.compile(False), 'n')}({em.frame})")


def named_value(em: Emitter, value: str) -> str:
    """``value`` in a name (a literal beside ``is`` would be a SyntaxWarning)."""
    if value.isidentifier():
        return value
    temp = em.fresh("t")
    em.line(f"{temp} = {value}")
    return temp
