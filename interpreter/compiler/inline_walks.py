"""``(map (lambda (x) …) lst)`` and its kin as a loop in the body that writes them.

A literal ``lambda`` handed to ``map``, ``for-each``, ``filter``, ``fold-left``, ``fold``,
``any``, ``every``, ``reduce``, ``fold-right`` or ``vector-map`` is made into a closure and
called once per element through the walk's call protocol (``primitives/loops.py``): a Python
frame, the depth and tail-call bookkeeping, per element.
When the body compiler (:class:`~.body.Emitter`) meets such a call on one list (``vector-map``:
one vector), it emits
the walk itself as a Python loop and the lambda's body inside it, its parameters Python
locals as a ``let``'s are:

* while the global still holds the built-in (its intact flag); otherwise the call is made
  the ordinary way;
* the list is checked first, as the primitive does (a type error naming it for an improper
  or circular list, before any element is looked at), and each round checks that the list
  has not been shortened meanwhile (``changed_error``); but ``for-each``'s (``ONE_PASS``),
  checked as it goes, as its primitive does, its end or a round again found by
  ``probing_rounds``;
* each element gets a fresh frame, made only if a closure or a slow path needs it, so a
  closure made in the body captures that element's binding, as a call would;
* each element counts a step under ``max_steps`` (a call counts one), and the limits are
  polled between chunks of the list, as the walks do (:func:`~..polling.ticks`).

A built-in passed by name (``(filter even? l)``, ``(fold-left + 0 l)``) whose calls compiled
code computes inline (``fastpath.BY_NAME``) runs the same way, as ``(lambda (x) (even? x))``:
the walk tests the built-in's intact flag beside its own before it starts, and the call in
the loop is guarded as every inline built-in is; a rebound name takes the ordinary call with
the value the name held when it was read, before the operands after it (as the ordinary call
reads it). An error in the call shows the
walk's call once (``body.BodyErrors``' merged sites), as the ordinary walk's does.

The lambda's closure is never made: nothing but the call could see it. Its body's calls are
sites of the enclosing body, so an error inside it has the same backtrace (each call node
keeps the name of the procedure it was written in). Under ``parallel-map`` the loop's
locals belong to the running activation. Not for a lambda with a rest parameter, internal
defines or a ``set!`` of a parameter, nor for several lists.

``(map (lambda (x) (* x 3)) lst)``'s loop, each round one element::

    for _ in ticks(t3):
        if type(t2) is not Pair:
            raise changed_error(c2)
        l6 = t2.car
        t10 = ((l6 * 3) if type(l6) is int and ... else ...)
        t11 = Pair()
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from ..datatypes import gensym
from ..errors import SchemeError
from ..nodes.core import Call, Const, GlobalRef, If, Lambda, LocalRef, Node
from ..polling import ONE_PASS, polled, probing_rounds, ticks
from .inline_update import emit_update, inline_update
from .library import LIBRARY

if TYPE_CHECKING:
    from .body import Emitter


class WalkForm(NamedTuple):
    """A walk done inline: its lambda's parameter count, the operands after the lambda (the
    list last), whether its value is a new list, the first value of its accumulator if its
    value is that (``{0}``: the first operand after the lambda; neither: the unspecified
    value), which of the lambda's parameters is bound to the accumulator (None: none), and
    the lines that end a round, over the body's value ``{v}``, the element ``{x}``, the new
    list's last pair ``{last}``, the accumulator ``{acc}`` and a fresh local ``{c}``.

    ``over``: what is walked: the pairs of a list in place (``"list"``), or a Python sequence
    its primitive makes or checks first (:data:`SEQUENCES`: ``fold-right``'s elements last
    first, ``vector-map``'s vector), walked by ``polled`` as there. ``seeded``: the first
    element is the accumulator's first value, and the operand only that of an empty list
    (``reduce``)."""

    params: int
    operands: int
    new_list: bool
    start: str | None
    acc_param: int | None
    round_end: tuple[str, ...]
    over: str = "list"
    seeded: bool = False


#: ``over: (the call that checks the operand and gives the sequence, walked last first)``:
#: the steps of the primitives (``fold-right``'s ``to_pylist``, ``vector-map``'s ``check_vector``).
SEQUENCES = {"reversed": ("to_pylist", True), "vector": ("check_vector", False)}


def appending(item: str) -> tuple[str, ...]:
    """The lines that put ``item`` at the end of the new list (after ``{last}``)."""
    return ("{c} = Pair()", f"{{c}}.car = {item}", "{last}.cdr = {c}", "{last} = {c}")


WALK_FORMS: dict[str, WalkForm] = {
    "map": WalkForm(1, 1, True, None, None, appending("{v}")),
    "filter": WalkForm(1, 1, True, None, None, ("if {v} is not False:", *(f"    {x}" for x in appending("{x}")))),
    "for-each": WalkForm(1, 1, False, None, None, ()),
    "fold-left": WalkForm(2, 2, False, "{0}", 0, ("{acc} = {v}",)),
    "fold": WalkForm(2, 2, False, "{0}", 1, ("{acc} = {v}",)),
    "any": WalkForm(1, 1, False, "False", None, ("if {v} is not False:", "    {acc} = {v}", "    break")),
    "every": WalkForm(1, 1, False, "True", None, ("{acc} = {v}", "if {v} is False:", "    break")),
    "reduce": WalkForm(2, 2, False, "{0}", 1, ("{acc} = {v}",), seeded=True),
    "fold-right": WalkForm(2, 2, False, "{0}", 1, ("{acc} = {v}",), over="reversed"),
    "vector-map": WalkForm(1, 1, False, "[]", None, ("{acc}.append({v})",), over="vector"),
}


class Sink:
    """A walk whose new list goes straight into a built-in applied to it: ``(apply + (map f
    l))`` sums the values as ``map`` makes them, ``(apply string-append (map f l))`` joins
    them, ``(length (map f l))`` counts them, and no list is made. ``form`` is the walk's form with the values taken in
    (``{v}``) instead of appended; a value the built-in's fast way cannot take (not an exact
    integer, not an immutable string) sets ``bail``, and the caller then makes the ordinary
    calls from the start (``operands`` gives the ordinary walk's operands): the walk's body
    has no effect, so running it again cannot show."""

    def __init__(self, form: WalkForm, check: str, finish: str, bail: str) -> None:
        self.form, self.check, self.finish, self.bail = form, check, finish, bail
        self.operands: Callable[[], list[str]] = list


#: What may take a walk's values as they are made: ``apply`` of these built-ins, and
#: ``length``: the test a value passes (None: any), where it goes ({acc}), the first {acc},
#: and the result made of them.
SINKS: dict[str, tuple[str | None, str, str, str]] = {
    "+": ("type({v}) is int", "{acc} = {acc} + {v}", "0", "{acc}"),
    "string-append": ("type({v}) is str", "{acc}.append({v})", "[]", "joined_strings({acc})"),
    "length": (None, "{acc} = {acc} + 1", "0", "{acc}"),
}


def sink_parts(em: Emitter, node: Node) -> tuple[str, GlobalRef | None, Call] | None:
    """``(sink name, the built-in apply is given or None, the map walk)`` if ``node`` is
    ``(apply + (map …))``, ``(apply string-append (map …))`` or ``(length (map …))``."""
    if type(node) is not Call or type(node.operator) is not GlobalRef:
        return None
    name, operands = node.operator.name.name, node.operands
    if name not in em.builtins:
        return None
    if name == "length" and len(operands) == 1:
        target, walk = None, operands[0]
    elif name == "apply" and len(operands) == 2 and type(operands[0]) is GlobalRef:
        target, walk = operands
        if target.name.name not in SINKS or target.name.name == "length" or target.name.name not in em.builtins:
            return None
    else:
        return None
    if type(walk) is not Call or type(walk.operator) is not GlobalRef or walk.operator.name.name != "map":
        return None
    return (name if target is None else target.name.name), target, walk


def inline_sink(em: Emitter, node: Node) -> bool:
    """Whether ``node`` is a sink (:func:`sink_parts`) whose ``map`` runs inline with a body
    of no effect (see :class:`Sink`)."""
    parts = sink_parts(em, node)
    if parts is None or not inline_walk(em, parts[2]):
        return False
    walk = parts[2]
    proc = walk.operands[0]
    body = eta_lambda(walk, proc, 1).body if type(proc) is GlobalRef else proc.body  # type: ignore[attr-defined]
    return effect_free_flags(em, body) is not None


def emit_sink(em: Emitter, node: Call) -> str:
    """Emit ``node`` (see :func:`inline_sink`); the name of its value. The built-in given to
    ``apply`` is read first, as an operand; the fast way is taken only if it is the built-in
    (and ``apply`` or ``length`` is)."""
    from .fastpath import builtins_intact  # reason: circle fastpath <-> inline_walks (compiler/__init__)

    parts = sink_parts(em, node)
    assert parts is not None and type(node.operator) is GlobalRef
    name, target, walk = parts
    parent = em.current_site
    site = em.open_site(node)
    check = em.flag(builtins_intact(node.operator, em.builtins[node.operator.name.name]))
    given: list[str] = []
    if target is not None:
        op = em.fresh("t")
        em.line(f"{op} = {em.value(target)}")
        given.append(op)
        check += f" and {op} is {em.constant(em.builtins[name], 'c')}"
    test, take, start, finish = SINKS[name]
    bail = em.fresh("t")
    stop = () if test is None else (f"if not {test}:", f"    {bail} = True", "    break")
    sink = Sink(WalkForm(1, 1, False, start, None, (*stop, take)), check, finish, bail)
    result = emit_walk(em, walk, sink)
    em.current_site = site
    em.line(f"if {bail}:")
    em.indent += 1
    return ordinary_calls(em, result, (site, walk, sink.operands()), (parent, node, given))


def ordinary_calls(
    em: Emitter, result: str, inner: tuple[int, Call, list[str]], outer: tuple[int, Call, list[str]]
) -> str:
    """End an arm that redoes two calls the ordinary way: ``inner`` (its site, call and operand
    values) makes a list, ``outer`` takes it as its last operand into ``result``; the arm
    closes and the outer call's site is current again. Returns ``result``."""
    (site, inner_call, inner_values), (parent, outer_call, outer_values) = inner, outer
    made = em.fresh("t")
    em.line(f"site = {site}")  # the ordinary calls add their own frames (generic_application)
    em.line(f"{made} = {em.fallback(inner_call, inner_values)}")
    em.line(f"site = {parent}")
    em.line(f"{result} = {em.fallback(outer_call, [*outer_values, made])}")
    em.close_arm(parent)
    return result


def accumulators(em: Emitter, form: WalkForm, values: list[str]) -> tuple[str, str, str]:
    """The names a walk's rounds build in, set up before the loop: a new list's placeholder
    head and its last pair (``form.new_list``), and the accumulator started from ``values``."""
    head = last = acc = ""
    if form.new_list:  # a placeholder pair before the first element's
        head, last = em.fresh("t"), em.fresh("t")
        em.line(f"{head} = {last} = Pair()")
    if form.start is not None:
        acc = em.fresh("t")
        em.line(f"{acc} = {form.start.format(*values)}")
    return head, last, acc


def set_result(em: Emitter, result: str, head: str, last: str, finish: str | None, acc: str) -> None:
    """``result`` from what a walk's rounds built (see :func:`accumulators`): the new list ended,
    or the sink's ``finish`` of the accumulator, or the accumulator (VOID if none: ``for-each``)."""
    if head:
        em.line(f"{last}.cdr = NIL")
        em.line(f"{result} = {head}.cdr")
    elif finish is not None:
        em.line(f"{result} = {finish.format(acc=acc)}")
    else:
        em.line(f"{result} = {acc or 'VOID'}")


def inline_walk(em: Emitter, node: Node) -> bool:
    """Whether ``node`` is a walk of :data:`WALK_FORMS` over one list whose procedure is a
    literal lambda that can run inline (``Emitter.inlinable_lambda``), or a built-in by
    name that compiled code computes inline (:func:`by_name`)."""
    if type(node) is not Call or type(node.operator) is not GlobalRef:
        return False
    name = node.operator.name.name
    form = WALK_FORMS.get(name)
    if form is None:
        return inline_update(em, node) or inline_sink(em, node)
    if name not in em.builtins or len(node.operands) != 1 + form.operands:
        return False
    proc = node.operands[0]
    if type(proc) is GlobalRef:
        return by_name(em, proc) and em.inlinable_lambda(eta_lambda(node, proc, form.params), form.params)
    return em.inlinable_lambda(proc, form.params)


def by_name(em: Emitter, ref: GlobalRef) -> bool:
    """Whether ``ref`` names a built-in whose calls compiled code computes inline (guarded by
    its intact flag): ``(filter even? l)`` then runs as ``(filter (lambda (x) (even? x)) l)``."""
    from .fastpath import BY_NAME  # reason: circle fastpath <-> inline_walks (compiler/__init__)

    return ref.name.name in BY_NAME and ref.name.name in em.builtins


def eta_lambda(node: Call, ref: GlobalRef, params: int) -> Lambda:
    """``(lambda (a …) (ref a …))`` for the walk ``node``: its call made where the walk is
    written (an error in it shows the walk's call, as the ordinary walk's does)."""
    names = tuple(gensym("x") for _ in range(params))
    args: list[Node] = [LocalRef(n, 0, False, ref.span) for n in names]
    call = Call(ref, args, node.source, node.procedure, node.span)
    return Lambda(names, None, call, node.procedure or "lambda", RUNTIME_UNUSED, (), ref.span)


#: An inline walk never makes the eta-expanded lambda's closure, so it needs no runtime.
RUNTIME_UNUSED: Any = None


def emit_walk(em: Emitter, node: Call, sink: Sink | None = None) -> str:
    """Emit the walk ``node`` (see :func:`inline_walk`) as a loop; the name of its value.

    The operands after the lambda are computed first, then the global is tested (the
    order every inline built-in of a body takes, which Scheme leaves open): if it was
    rebound, the lambda's closure is made and the call applied the ordinary way to the
    values already computed."""
    from .fastpath import builtins_intact  # reason: circle fastpath <-> inline_walks (compiler/__init__)
    from .inline_fusion import emit_chain, fused_chain  # reason: circle (it builds on this module)

    if sink is None and (chain := fused_chain(em, node)) is not None:
        return emit_chain(em, chain)
    operator, proc = node.operator, node.operands[0]
    name = operator.name.name
    form = WALK_FORMS.get(name) if sink is None else sink.form
    if form is None:
        return emit_sink(em, node) if name in ("apply", "length") else emit_update(em, node)
    named = proc if type(proc) is GlobalRef else None  # a built-in by name (see by_name)
    if named is not None:
        proc = eta_lambda(node, named, form.params)
    assert type(operator) is GlobalRef and type(proc) is Lambda
    parent = em.current_site
    site = em.open_site(node)  # in progress while the list is checked and the body runs, as a call is
    early = ""
    if named is not None:
        em.merged_sites.add(site)
        # read before the operands, as the ordinary call reads it: an operand that rebinds the
        # name leaves the fallback with the procedure the call was written with
        early = em.settled(em.value(named))
    numbers = iota_source(em, node.operands[-1]) if form.over == "list" else None
    iterated = numbers is not None or form.over != "list"  # a Python iterable, not pairs
    if numbers is None:
        # the lambda itself has no effect; the operands before the list are computed before it
        # (the list is read first below, and fold-right's init once the sequence is made)
        *given, listed = em.operand_values(node.operands[1:])
        values = [*(em.settled(value) for value in given), listed]
    else:  # the numbers' own call is in progress while its operands run, as in the ordinary call
        values = [em.settled(value) for value in em.operand_values(node.operands[1:-1])]
        numbers_site = em.open_site(numbers)
        counts = [em.settled(value) for value in em.operand_values(numbers.operands)]
        em.current_site = site
        values.append("")
    em.line(f"site = {em.current_site}")
    result, lst, count, who = em.fresh("t"), em.fresh("t"), em.fresh("t"), em.constant(name, "c")
    if numbers is None:
        em.line(f"{lst} = {values[-1]}")
    intact = em.flag(builtins_intact(operator, em.builtins[name]))
    if named is not None:  # the procedure is read now, so it must be the built-in now
        intact += f" and {em.flag(builtins_intact(named, em.builtins[named.name.name]))}"
    if numbers is not None:  # iota untouched: its numbers are walked without making its list
        assert type(numbers.operator) is GlobalRef
        intact += f" and {em.flag(builtins_intact(numbers.operator, em.builtins['iota']))}"
    if sink is not None:
        intact += f" and {sink.check}"
    # (not where a round may end the walk early, `any`'s and `every`'s: the rest of the list
    # would go unchecked; a sink that stops early is done again the ordinary way)
    stops = sink is None and any("break" in line for line in form.round_end)
    # the ordinary walk checks the list as it goes (polling.ONE_PASS): so does the loop, its
    # body's errors and effects coming before the list's own error, as there
    one_pass = name in ONE_PASS and sink is None and numbers is None
    pure = None if stops or one_pass or iterated else effect_free_flags(em, proc.body)
    if pure is not None:  # its built-ins untouched, the body has no effect: the list is checked as it goes
        intact = " and ".join(dict.fromkeys([*intact.split(" and "), *(em.flag(flag) for flag in pure)]))
    em.line(f"if {intact}:")
    em.indent += 1
    if sink is not None:
        em.line(f"{sink.bail} = False")
    if numbers is not None:
        em.line(f"site = {numbers_site}")
        em.line(f"{lst} = iota_numbers({', '.join(counts)})")
        em.line(f"site = {site}")
    elif iterated:  # checked (and made) as the primitive does it
        em.line(f"{count} = {SEQUENCES[form.over][0]}({who}, {lst})")
    elif pure is None and not one_pass:
        em.line(f"{count} = proper_length({who}, {lst})")
    head, last, acc = accumulators(em, form, values)
    em.forget()  # a later round runs after this round's calls
    start = mark = probe = ""
    element = em.fresh("l")
    if numbers is not None:
        em.line(f"for {element} in polled({lst}):")
        em.indent += 1
    elif iterated:
        em.line(f"for {element} in polled({count}{', True' if SEQUENCES[form.over][1] else ''}):")
        em.indent += 1
    elif pure is None and not one_pass:
        if form.seeded:
            seed(em, lst, acc, count)
        em.line(f"for _ in ticks({count}):")
        em.indent += 1
        em.line(f"if type({lst}) is not Pair:")
        em.line(f"    raise changed_error({who})")
    else:
        start, mark, probe = em.fresh("t"), em.fresh("t"), em.fresh("t")
        em.line(f"{start} = {mark} = {lst}")
        if form.seeded:
            seed(em, lst, acc)
        if pure is not None:
            em.line("try:")
            em.indent += 1
        ended = "improper_error" if pure is not None else "ended_error"  # as loops.WALKS' one-pass walks
        em.line(f"for {probe} in probing_rounds():")
        em.indent += 1
        em.line(f"if type({lst}) is not Pair:")
        em.line(f"    if {lst} is NIL:")
        em.line("        break")
        em.line(f"    site = {site}")
        em.line(f"    raise {ended}({who}, {start})")
        em.line(f"if {probe}:")
        em.line(f"    {mark} = {lst}")
        em.line(f"elif {lst} is {mark}:  # round again: a circular list")
        em.line(f"    site = {site}")
        em.line(f"    raise {ended}({who}, {start})")
    if not iterated:
        em.line(f"{element} = {lst}.car")
    locals_ = [element]
    if form.acc_param is not None:  # the lambda's own binding of the accumulator
        bound = em.fresh("l")
        em.line(f"{bound} = {acc}")
        locals_.insert(form.acc_param, bound)
    value = em.value_in_scope(dict(zip(proc.params, locals_)), proc.body)
    if not value.isidentifier():  # a name: a literal beside `is` (filter's test) is a SyntaxWarning
        temp = em.fresh("t")
        em.line(f"{temp} = {value}")
        value = temp
    fields = {"v": value, "x": element, "c": em.fresh("t"), "last": last, "acc": acc}
    for template in form.round_end:
        em.line(template.format(**fields))
    if not iterated:
        em.line(f"{lst} = {lst}.cdr")
    em.count_step()
    em.indent -= 1
    if pure is not None:  # an error before the end: the ordinary walk would have refused the list first
        em.indent -= 1
        em.line("except SchemeError:")
        em.line(f"    if list_length({start}) is None:")
        em.line(f"        site = {site}")
        em.line(f"        raise improper_error({who}, {start}) from None")
        em.line("    raise")
    set_result(em, result, head, last, sink.finish if sink is not None else None, acc)
    em.indent -= 1

    def operands() -> list[str]:  # inside the else arm
        closure = early or f"{em.constant(proc.compile(False), 'n')}({em.frame})"
        if numbers is not None:  # the list made by the ordinary call, in its own site
            assert type(closure) is str
            closure = em.settled(closure)
            em.line(f"site = {site}")  # the ordinary call adds its own frame (generic_application)
            em.line(f"{lst} = {em.fallback(numbers, counts)}")
        return [closure, *values[:-1], lst]

    if sink is not None:  # the sink's caller makes the ordinary calls (operands) if it bails
        em.line("else:")
        em.line(f"    {sink.bail} = True")
        if numbers is None:  # the list from its start: the loop has moved on
            assert start
            em.line(f"    {start} = {lst}")
        em.forget()
        em.current_site = parent

        def from_the_start() -> list[str]:
            given = operands()
            return given if numbers is not None else [*given[:-1], start]

        sink.operands = from_the_start
        return result
    return em.fallback_arm(result, node, operands, parent)


def seed(em: Emitter, lst: str, acc: str, count: str = "") -> None:
    """``reduce``'s start: a list's first element is the accumulator's first value and the
    walk goes on from its second pair (``count``: one element fewer to walk)."""
    em.line(f"if type({lst}) is Pair:")
    em.line(f"    {acc} = {lst}.car")
    em.line(f"    {lst} = {lst}.cdr")
    if count:
        em.line(f"    {count} -= 1")


def iota_source(em: Emitter, node: Node) -> Call | None:
    """``node`` if it is a call of ``iota`` (with one to three operands) that a walk may
    iterate the numbers of (``iota_numbers``) instead of making its list: the list would be
    new and seen by nothing but the walk."""
    if type(node) is not Call or type(node.operator) is not GlobalRef or node.operator.name.name != "iota":
        return None
    return node if "iota" in em.builtins and 1 <= len(node.operands) <= 3 else None


def effect_free_flags(em: Emitter, body: Node) -> list[Any] | None:
    """The intact flags of the built-ins ``body`` calls if, while they hold, running it has no
    effect but its value or an error: constants, variables, ``if`` and calls of built-ins whose
    calls compiled code computes inline (``fastpath.BY_NAME``: arithmetic, comparisons, ``car``
    … ``cons``, ``list``, ``number->string``, none with an effect). None for any other body.

    A walk of such a body needs no pass over its list first: the order in which elements
    are looked at and the list's end is seen cannot show, and an error before the end is
    replaced by the list's own (see :func:`emit_walk`), as the ordinary walk reports it."""
    from .fastpath import BY_NAME, builtins_intact  # fastpath imports this module (WALK_FORMS)

    flags: list[Any] = []
    stack = [body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is Const or kind is LocalRef or kind is GlobalRef:
            continue
        if kind is If:
            stack += [node.test, node.then, node.otherwise]
        elif kind is Call and type(node.operator) is GlobalRef:
            name = node.operator.name.name
            if name not in BY_NAME or name not in em.builtins:
                return None
            flags.append(builtins_intact(node.operator, em.builtins[name]))
            stack += node.operands
        else:
            return None
    return flags


def walk_namespace() -> dict[str, Any]:
    """What the loops need in a body's namespace."""
    names = LIBRARY.names
    return {
        "ticks": ticks,
        "proper_length": names["proper_length"],
        "changed_error": names["changed_error"],
        "check_table": names["check_table"],
        "list_length": names["list_length"],
        "improper_error": names["improper_error"],
        "to_pylist": names["to_pylist"],
        "check_vector": names["check_vector"],
        "ended_error": names["ended_error"],
        "probing_rounds": probing_rounds,
        "iota_numbers": names["iota_numbers"],
        "polled": polled,
        "joined_strings": names["joined_strings"],
        "SchemeError": SchemeError,
    }
