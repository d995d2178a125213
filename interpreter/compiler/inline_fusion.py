"""A chain of walks, each over the next one's new list, done in one loop: ``(fold-left + 0
(filter even? (map (lambda (x) (* x 3)) (iota n))))`` makes no list at all, ``(map g
(filter p (map f l)))`` only its own.

A chain is read from its outermost call in:

* its consumer: ``map``, ``filter``, ``fold-left`` or ``fold``, or a sink
  (``inline_walks.Sink``: ``(apply + (map …))``, ``(apply string-append (map …))``,
  ``(length (map …))``) taking the values of its ``map``;
* its producers: each a ``map`` or ``filter`` over one list, the last operand of the walk
  above it, as deep as they go;
* its source: the innermost producer's list, an expression (its value walked pair by pair,
  checked as it goes) or ``(iota …)`` (its numbers walked without making the list).

A chain has at least two walks (one walk alone is ``inline_walks.emit_walk``'s). Each walk
must run inline (``inline_walks.inline_walk``) with a body of no effect
(``effect_free_flags``), and every built-in involved must be untouched. Each element then
goes through the producers' bodies, innermost first, as far as the filters keep it, and
into the consumer.

The ordinary calls do each walk over the whole list before the walk above it starts, so
their errors come in another order than one loop would meet them: an error in the loop
(any but a limit's, ``resource-exhaustion``) drops its work and makes every call of the
chain again the ordinary way, from the source's value, which raises the error the ordinary
calls raise, with their backtrace. Nothing else can tell: no body has an effect. The
built-ins given by name, the consumer's other operands and the source are read once, in
the ordinary order (outermost first, left to right), and the ordinary calls get those
values. Under ``max_steps``, each element counts a step for each walk's round it reaches,
as the walks would; work redone after an error counts again (an upper bound). Under
``max_memory`` the consumer's new list (the only one made) is built pair by pair, a step
each, so the budget is checked as it grows. Under ``parallel-map`` every name of the loop
is a local of the running activation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from ..nodes.core import Call, GlobalRef, Lambda, Node
from .inline_walks import (
    SINKS,
    WALK_FORMS,
    WalkForm,
    accumulators,
    effect_free_flags,
    eta_lambda,
    inline_walk,
    iota_source,
    set_result,
    sink_parts,
)

if TYPE_CHECKING:
    from .body import Emitter

CONSUMERS = ("map", "filter", "fold-left", "fold")
PRODUCERS = ("map", "filter")


class Stage(NamedTuple):
    """One walk of a chain: its call, its form (a sink's for the walk a sink takes the values
    of), its procedure as a lambda (a built-in by name eta-expanded) and that built-in's
    name (or None)."""

    call: Call
    form: WalkForm
    proc: Lambda
    named: GlobalRef | None


class Chain(NamedTuple):
    """The walks of a chain, the consumer first, and the sink call taking the consumer's
    values (or None)."""

    stages: list[Stage]
    sink: Call | None


def stage(node: Call, form: WalkForm) -> Stage:
    """The walk ``node`` as a stage of ``form``."""
    proc = node.operands[0]
    if type(proc) is GlobalRef:
        return Stage(node, form, eta_lambda(node, proc, form.params), proc)
    assert type(proc) is Lambda
    return Stage(node, form, proc, None)


def sink_form(name: str) -> WalkForm:
    """The form of the ``map`` whose values the sink ``name`` takes: the value goes into the
    sink's accumulator (its test, which may stop the loop, is :func:`emit_chain`'s)."""
    _test, take, start, _finish = SINKS[name]
    return WalkForm(1, 1, False, start, None, (take,))


def fused_chain(em: Emitter, node: Call) -> Chain | None:
    """The chain whose outermost call is ``node`` if it is one (see the module); ``node`` runs
    inline (``inline_walk``)."""
    assert type(node.operator) is GlobalRef
    parts = sink_parts(em, node)
    if parts is not None:
        walk, form, sink = parts[2], sink_form(parts[0]), node
    elif node.operator.name.name in CONSUMERS:
        walk, form, sink = node, WALK_FORMS[node.operator.name.name], None
    else:
        return None
    stages = [stage(walk, form)]
    while (below := producer(em, stages[-1].call.operands[-1])) is not None:
        stages.append(stage(below, WALK_FORMS[walk_name(below)]))
    if len(stages) < 2 or any(effect_free_flags(em, each.proc.body) is None for each in stages):
        return None
    return Chain(stages, sink)


def walk_name(call: Call) -> str:
    """The name a walk's call is written with."""
    assert type(call.operator) is GlobalRef
    return call.operator.name.name


def producer(em: Emitter, node: Node) -> Call | None:
    """``node`` if it is a ``map`` or ``filter`` over one list that runs inline."""
    if type(node) is not Call or type(node.operator) is not GlobalRef:
        return None
    if node.operator.name.name not in PRODUCERS or len(node.operands) != 2 or not inline_walk(em, node):
        return None
    return node


def emit_chain(em: Emitter, chain: Chain) -> str:
    """Emit ``chain`` as one loop (see the module); the name of its value."""
    from .fastpath import builtins_intact  # reason: circle fastpath <-> inline_walks (compiler/__init__)

    stages, sink = chain.stages, chain.sink
    parent = em.current_site
    flags: list[Any] = []
    given: list[str] = []  # the sink's operands before the list: apply's built-in
    check = ""
    if sink is not None:
        assert type(sink.operator) is GlobalRef
        flags.append(builtins_intact(sink.operator, em.builtins[sink.operator.name.name]))
        sink_site = em.open_site(sink)
        target = sink.operands[0] if len(sink.operands) == 2 else None
        if type(target) is GlobalRef:  # apply's built-in, read first as an operand
            given.append(em.settled(em.value(target)))
            check = f" and {given[0]} is {em.constant(em.builtins[target.name.name], 'c')}"
    # each walk's site, its built-in by name and its operands before the list, outermost first
    sites: list[int] = []
    early: list[str] = []
    values: list[list[str]] = []
    for each in stages:
        operator = each.call.operator
        assert type(operator) is GlobalRef
        flags.append(builtins_intact(operator, em.builtins[operator.name.name]))
        sites.append(em.open_site(each.call))
        if each.named is not None:
            em.merged_sites.add(sites[-1])
            flags.append(builtins_intact(each.named, em.builtins[each.named.name.name]))
            early.append(em.settled(em.value(each.named)))
        else:
            early.append("")
        values.append([em.settled(value) for value in em.operand_values(each.call.operands[1:-1])])
    source = stages[-1].call.operands[-1]
    numbers = iota_source(em, source)
    counts: list[str] = []
    src = em.fresh("t")
    if numbers is not None:
        assert type(numbers.operator) is GlobalRef
        flags.append(builtins_intact(numbers.operator, em.builtins["iota"]))
        numbers_site = em.open_site(numbers)
        counts = [em.settled(value) for value in em.operand_values(numbers.operands)]
    else:
        em.line(f"{src} = {em.operand_values([source])[0]}")
    top = sink_site if sink is not None else sites[0]
    em.current_site = top
    em.line(f"site = {top}")
    for each in stages:
        flags += effect_free_flags(em, each.proc.body) or []
    intact = " and ".join(dict.fromkeys(em.flag(flag) for flag in flags)) + check
    result, bail, lst = em.fresh("t"), em.fresh("t"), em.fresh("t")
    em.line(f"{bail} = True")
    em.line(f"if {intact}:")
    em.indent += 1
    if numbers is not None:
        em.line(f"site = {numbers_site}")
        em.line(f"{lst} = iota_numbers({', '.join(counts)})")
    else:
        em.line(f"{lst} = {src}")
    consumer = stages[0]
    head, last, acc = accumulators(em, consumer.form, values[0])
    test, finish = sink_ends(em, sink)
    stop = em.fresh("t") if test is not None else ""
    if stop:
        em.line(f"{stop} = False")
    em.forget()  # a later round runs after this round's calls
    em.line("try:")
    em.indent += 1
    element = rounds(em, lst, src if numbers is None else "", stages[-1].call)
    for index in reversed(range(len(stages))):
        each = stages[index]
        em.line(f"site = {sites[index]}")  # each body at its own walk's site, as the calls run them
        locals_ = [element]
        if each.form.acc_param is not None:  # the lambda's own binding of the accumulator
            bound = em.fresh("l")
            em.line(f"{bound} = {acc}")
            locals_.insert(each.form.acc_param, bound)
        value = named_value(em, em.value_in_scope(dict(zip(each.proc.params, locals_)), each.proc.body))
        if index == 0:
            if stop:
                em.line(f"if not {test.format(v=value)}:")
                em.line(f"    {stop} = True")
                em.line("    break")
            fields = {"v": value, "x": element, "c": em.fresh("t"), "last": last, "acc": acc}
            for template in each.form.round_end:
                em.line(template.format(**fields))
        if em.counts_rounds or index == len(stages) - 1:  # a step each round; else attention once an element
            em.count_step()
        if index > 0 and walk_name(each.call) == "filter":
            em.line(f"if {value} is False:")
            em.line("    continue")
        elif index > 0:
            element = value
    em.indent -= 2
    em.line("except SchemeError as exc:")
    em.line('    if exc.kind == "resource-exhaustion":')
    em.line("        raise")
    em.line("else:")
    em.indent += 1
    if stop:  # the sink's test stopped the loop: the ordinary calls take the value it refused
        em.line(f"if not {stop}:")
        em.indent += 1
    set_result(em, result, head, last, finish if sink is not None else None, acc)
    em.line(f"{bail} = False")
    em.indent -= 3 if stop else 2
    em.line(f"if {bail}:")  # the ordinary calls, from the source's value
    em.indent += 1
    closures = [early[i] or closure(em, each.proc) for i, each in enumerate(stages)]
    if numbers is not None:
        em.line(f"site = {sites[-1]}")  # the ordinary calls add their own frames (generic_application)
        em.line(f"{src} = {em.fallback(numbers, counts)}")
    made = src
    callers = [sink_site if sink is not None else parent, *sites]  # the site each walk is called from
    for index in reversed(range(len(stages))):
        made = em.fresh("t") if index or sink is not None else result
        em.line(f"site = {callers[index]}")
        em.line(f"{made} = {em.fallback(stages[index].call, [closures[index], *values[index], src])}")
        src = made
    if sink is not None:
        em.line(f"site = {parent}")
        em.line(f"{result} = {em.fallback(sink, [*given, made])}")
    em.close_arm(parent)
    return result


def sink_ends(em: Emitter, sink: Call | None) -> tuple[str | None, str]:
    """The test each value must pass into ``sink`` (None: any) and its result's expression."""
    if sink is None:
        return None, ""
    parts = sink_parts(em, sink)
    assert parts is not None
    test, _take, _start, finish = SINKS[parts[0]]
    return test, finish


def rounds(em: Emitter, lst: str, src: str, innermost: Call) -> str:
    """Open the loop over the source ``lst`` (``iota``'s numbers, or the list ``src`` walked
    pair by pair: an improper or circular list raises, and the ordinary calls say it
    again); the name of each round's element."""
    element = em.fresh("l")
    if not src:
        em.line(f"for {element} in polled({lst}):")
        em.indent += 1
        return element
    assert type(innermost.operator) is GlobalRef
    who, mark, probe = em.constant(innermost.operator.name.name, "c"), em.fresh("t"), em.fresh("t")
    em.line(f"{mark} = {lst}")
    em.line(f"for {probe} in probing_rounds():")
    em.indent += 1
    em.line(f"if type({lst}) is not Pair:")
    em.line(f"    if {lst} is NIL:")
    em.line("        break")
    em.line(f"    raise improper_error({who}, {src})")
    em.line(f"if {probe}:")
    em.line(f"    {mark} = {lst}")
    em.line(f"elif {lst} is {mark}:  # round again: a circular list")
    em.line(f"    raise improper_error({who}, {src})")
    em.line(f"{element} = {lst}.car")
    em.line(f"{lst} = {lst}.cdr")
    return element


def closure(em: Emitter, proc: Lambda) -> str:
    """A name holding the walk's lambda's closure, made now for its ordinary call."""
    return em.settled(f"{em.constant(proc.compile(False), 'n')}({em.frame})")


def named_value(em: Emitter, value: str) -> str:
    """``value`` in a name (a literal beside ``is`` would be a SyntaxWarning)."""
    if value.isidentifier():
        return value
    temp = em.fresh("t")
    em.line(f"{temp} = {value}")
    return temp
