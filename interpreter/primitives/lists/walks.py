"""The higher-order list walks (``map``, ``for-each``, ``filter``, the folds, ``any`` …),
``delete`` and ``iota``. Each list is checked before ``f`` is first called (but one-list
``for-each``'s, checked as it goes: ``polling.ONE_PASS``); the one-list forms run the loops of
:mod:`~interpreter.primitives.loops`."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from ...datatypes import NIL, VOID, Pair, Values, values_of
from ...equality import is_equal
from ...errors import SchemeError, type_error
from ...evaluator import caller
from ...limits import check_elements
from ...polling import POLL_CHUNK, POLL_EVERY, POLL_MASK, poll_limits, polled, ticks
from ...tables import equal_key
from ..loops import WALK, changed_error
from ..numbers import add, check_number, check_size, mul
from ..registry import primitive
from .core import build_list, check_proc, is_circular, list_length, proper_length, to_pylist


# ----------------------------------------------------------------------------------
# higher-order procedures
# ----------------------------------------------------------------------------------
def rows(who: str, lists: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
    """The tuples of corresponding elements of several lists, up to the shortest, walked
    in place (no Python list of the elements), polling the run's limits. Every list is
    checked first: an improper one is a type error naming ``who`` before any row is
    produced. A circular list is endless, so the shortest is another one (R7RS: chibi's
    ``(map + '(1 2 3) circular)`` is ``(…)`` of three); all of them circular is an error."""
    n = shortest_length(who, lists)
    heads = lists
    for _ in ticks(n):
        for p in heads:
            if type(p) is not Pair:
                raise changed_error(who)
        yield tuple([p.car for p in heads])
        heads = tuple([p.cdr for p in heads])  # after the call, as the one-list walks do


def shortest_length(who: str, lists: tuple[Any, ...]) -> int:
    """The length of the shortest of ``lists``, a circular list counting as endless; a type
    error naming ``who`` for an improper list, or if every list is circular."""
    lengths = []
    for lst in lists:
        n = list_length(lst)
        if n is None and not (type(lst) is Pair and is_circular(lst)):
            raise type_error(who, "a proper list", lst)
        lengths.append(n)
    finite = [n for n in lengths if n is not None]
    if not finite:
        raise SchemeError(f"{who}: expected a proper list, got only circular lists", kind="type-error")
    return min(finite)


def _over(who: str, f: Any, lst: Any, more: tuple[Any, ...]) -> tuple[Callable[[Any], Any], Iterable[Any]]:
    """``(call, items)`` for applying ``f`` across one list or several.

    For one list the items are its elements and ``call(x)`` is ``(f x)``; for several they
    are the rows of corresponding elements (up to the shortest list) and ``call(row)``
    applies ``f`` to the row. ``f`` is called directly (:func:`~interpreter.evaluator.caller`).
    The items are walked in place, once, after every list was checked (:func:`elements`,
    :func:`rows`); they poll the run's limits as they go (a primitive ``f`` counts no steps)."""
    check_proc(who, f)
    if not more:
        return caller(f, 1), elements(who, lst)
    lists = (lst, *more)
    call = caller(f, len(lists))
    return (lambda row: call(*row)), rows(who, lists)


def elements(who: str, lst: Any) -> Iterator[Any]:
    """The elements of the proper list ``lst``, walked in place (no Python list), polling
    the run's limits. The list is checked first: an improper or circular one is a type
    error naming ``who`` before any element is produced."""
    n = proper_length(who, lst)
    for _ in ticks(n):
        if type(lst) is not Pair:
            raise changed_error(who)
        yield lst.car
        lst = lst.cdr


@primitive("map")
def scheme_map(f: Any, lst: Any, *more: Any) -> Any:
    """The list of ``(f x ...)`` for corresponding elements (stops at the shortest list)."""
    if not more:
        return WALK["map"](check_proc("map", f), "map", lst, proper_length("map", lst))
    call = caller(check_proc("map", f), 1 + len(more))
    head = last = Pair()
    for row in rows("map", (lst, *more)):
        cell = Pair()
        cell.car = call(*row)
        last.cdr = cell
        last = cell
    last.cdr = NIL
    return head.cdr


@primitive("for-each")
def for_each(f: Any, lst: Any, *more: Any) -> Any:
    """Call ``f`` on corresponding elements for effect. One list is checked as it is walked
    (an improper or circular one is an error after the calls on the elements before its
    end); several are checked first, as :func:`rows` does."""
    if more:
        call, items = _over("for-each", f, lst, more)
        for x in items:
            call(x)
        return VOID
    return WALK["for-each"](check_proc("for-each", f), "for-each", lst)  # checked as it goes (polling.ONE_PASS)


@primitive("append-map")
def append_map(f: Any, lst: Any, *more: Any) -> Any:
    """``map`` then ``append`` the results, copied onto the result as each comes (every
    result is copied, the last one too; no Python list of the results)."""
    call, items = _over("append-map", f, lst, more)
    head = last = Pair()
    for x in items:
        result = call(x)
        n = proper_length("append-map", result)
        if n > POLL_EVERY:
            check_elements("append-map", n)
        for _ in ticks(n):
            if type(result) is not Pair:  # shortened meanwhile (by a parallel branch)
                raise changed_error("append-map")
            cell = Pair()
            cell.car = result.car
            last.cdr = cell
            last = cell
            result = result.cdr
    last.cdr = NIL
    return head.cdr


@primitive("filter-map")
def filter_map(f: Any, lst: Any, *more: Any) -> Any:
    """The true results of ``(f x ...)``."""
    call, items = _over("filter-map", f, lst, more)
    out = []
    for x in items:
        v = call(x)
        if v is not False:
            out.append(v)
    return build_list(out)


@primitive("filter")
def scheme_filter(pred: Any, lst: Any) -> Any:
    """The elements satisfying ``pred``."""
    return WALK["filter"](check_proc("filter", pred), "filter", lst, proper_length("filter", lst))


@primitive("remove")
def remove(pred: Any, lst: Any) -> Any:
    """The elements not satisfying ``pred``."""
    return WALK["remove"](check_proc("remove", pred), "remove", lst, proper_length("remove", lst))


@primitive("partition")
def partition(pred: Any, lst: Any) -> Values:
    """Two values: the elements satisfying ``pred`` and the rest, each list built in
    place as the elements come."""
    call, items = _over("partition", pred, lst, ())
    yes = yes_last = Pair()
    no = no_last = Pair()
    for x in items:
        cell = Pair()
        cell.car = x
        if call(x) is not False:
            yes_last.cdr = cell
            yes_last = cell
        else:
            no_last.cdr = cell
            no_last = cell
    yes_last.cdr = no_last.cdr = NIL
    return values_of([yes.cdr, no.cdr])


@primitive("count")
def count(pred: Any, lst: Any, *more: Any) -> int:
    """How many rows satisfy ``pred``."""
    call, items = _over("count", pred, lst, more)
    return sum(1 for x in items if call(x) is not False)


@primitive("reduce")
def reduce(f: Any, ridentity: Any, lst: Any) -> Any:
    """SRFI-1 reduce: ``(f elem acc)`` left to right, seeded by the first element."""
    check_proc("reduce", f)
    n = proper_length("reduce", lst)
    if n == 0:
        return ridentity
    return WALK["fold"](f, "reduce", lst.car, lst.cdr, n - 1)


@primitive("reduce-right")
def reduce_right(f: Any, ridentity: Any, lst: Any) -> Any:
    """``(f e1 (f e2 ... en))``; ``ridentity`` for the empty list."""
    check_proc("reduce-right", f)
    items = to_pylist("reduce-right", lst)
    if not items:
        return ridentity
    call = caller(f, 2)
    acc = items[-1]
    for x in polled(items[:-1], reverse=True):
        acc = call(x, acc)
    return acc


def _fold_rows(who: str, f: Any, acc: Any, lists: tuple[Any, ...], acc_first: bool) -> Any:
    """A left fold over the rows of several lists: ``(f acc x ...)`` when ``acc_first``
    (``fold-left``), else ``(f x ... acc)`` (``fold``)."""
    call = caller(f, 1 + len(lists))
    for row in rows(who, lists):
        acc = call(acc, *row) if acc_first else call(*row, acc)
    return acc


@primitive("fold")
def fold(kons: Any, knil: Any, lst: Any, *more: Any) -> Any:
    """SRFI-1 fold: ``(kons elem ... acc)`` from the left."""
    check_proc("fold", kons)
    if not more:
        return WALK["fold"](kons, "fold", knil, lst, proper_length("fold", lst))
    return _fold_rows("fold", kons, knil, (lst, *more), False)


@primitive("fold-left")
def fold_left(f: Any, init: Any, lst: Any, *more: Any) -> Any:
    """``(f acc elem ...)`` from the left."""
    check_proc("fold-left", f)
    if not more:
        return WALK["fold-left"](f, "fold-left", init, lst, proper_length("fold-left", lst))
    return _fold_rows("fold-left", f, init, (lst, *more), True)


@primitive("fold-right")
def fold_right(f: Any, init: Any, lst: Any, *more: Any) -> Any:
    """``(f elem ... acc)`` from the right. Going right to left, it keeps one reference per
    row in a Python list (walking pairs backwards would need recursion or a reversed copy)."""
    check_proc("fold-right", f)
    call = caller(f, 2 + len(more))
    acc = init
    if not more:
        for x in polled(to_pylist("fold-right", lst), reverse=True):
            acc = call(x, acc)
        return acc
    for row in polled(list(rows("fold-right", (lst, *more))), reverse=True):
        acc = call(*row, acc)
    return acc


def _custom(compare: Any) -> Callable[[Any, Any], bool]:
    """``(compare a b)`` as a Python test; it polls the run's limits every so many calls
    (``delete-duplicates`` calls it n² times, and a primitive counts no steps)."""
    call = caller(compare, 2)
    calls = 0

    def same(a: Any, b: Any) -> bool:
        nonlocal calls
        calls += 1
        if calls & POLL_MASK == 0:
            poll_limits()
        return call(a, b) is not False

    return same


@primitive("delete")
def delete(x: Any, lst: Any, compare: Any = None) -> Any:
    """The elements not ``equal?`` (or ``compare``) to ``x``."""
    same = is_equal if compare is None else _custom(check_proc("delete", compare))
    return build_list([y for y in polled(to_pylist("delete", lst)) if not same(x, y)])


@primitive("delete!")
def delete_bang(x: Any, lst: Any, compare: Any = None) -> Any:
    """Like ``delete``."""
    return delete(x, lst, compare)


@primitive("delete-duplicates")
def delete_duplicates(lst: Any, compare: Any = None) -> Any:
    """The list with later duplicates removed (first occurrences kept)."""
    items = to_pylist("delete-duplicates", lst)
    out: list[Any] = []
    if compare is None:
        seen: set[Any] = set()
        for x in polled(items):
            k = equal_key(x)
            if k not in seen:
                seen.add(k)
                out.append(x)
    else:
        same = _custom(check_proc("delete-duplicates", compare))
        for x in polled(items):
            if not any(same(y, x) for y in out):
                out.append(x)
    return build_list(out)


def _pairs_of_range(numbers: range) -> Any:
    """The list of ``numbers`` in reverse order, built back to front straight from the
    range (``iota``: no Python list of the numbers between)."""
    if len(numbers) > 5000 and gc.isenabled():
        gc.disable()  # as in build_list: new pairs form no cycles
        try:
            return _pairs_of_range(numbers)
        finally:
            gc.enable()
    result: Any = NIL
    for x in polled(numbers):
        cell = Pair()
        cell.car = x
        cell.cdr = result
        result = cell
    return result


@primitive("iota")
def iota(n: Any, start: Any = 0, step: Any = 1) -> Any:
    """``n`` numbers from ``start`` by ``step``."""
    numbers = iota_numbers(n, start, step)
    if type(numbers) is range:
        return _pairs_of_range(numbers[::-1])
    return build_list(numbers)


def iota_numbers(n: Any, start: Any = 0, step: Any = 1) -> Sequence[Any]:
    """The numbers ``(iota n start step)`` lists, with its checks and errors: a ``range`` for
    exact integers. A compiled walk over ``(iota …)`` iterates them without making the list
    (``compiler/inline_walks.py``)."""
    check_size("iota", n)
    check_number("iota", start)
    check_number("iota", step)
    if type(start) is int and type(step) is int:
        if step == 0:
            return [start] * n
        return range(start, start + n * step, step)
    return [add(start, mul(i, step)) for i in polled(range(n))]


@primitive("list-index")
def list_index(pred: Any, lst: Any, *more: Any) -> Any:
    """Index of the first row satisfying ``pred``, or #f."""
    call, items = _over("list-index", pred, lst, more)
    for i, x in enumerate(items):
        if call(x) is not False:
            return i
    return False


@primitive("any")
def scheme_any(pred: Any, lst: Any, *more: Any) -> Any:
    """The first true value of ``(pred x ...)``, or #f."""
    if not more:
        return WALK["any"](check_proc("any", pred), "any", lst, proper_length("any", lst))
    call, items = _over("any", pred, lst, more)
    for x in items:
        v = call(x)
        if v is not False:
            return v
    return False


@primitive("every")
def scheme_every(pred: Any, lst: Any, *more: Any) -> Any:
    """#f if some row fails ``pred``, else the last value (#t for empty lists)."""
    if not more:
        return WALK["every"](check_proc("every", pred), "every", lst, proper_length("every", lst))
    call, items = _over("every", pred, lst, more)
    v: Any = True
    for x in items:
        v = call(x)
        if v is False:
            return False
    return v


@primitive("find")
def find(pred: Any, lst: Any) -> Any:
    """The first element satisfying ``pred``, or #f."""
    tail = find_tail(pred, lst)
    return tail.car if type(tail) is Pair else False


@primitive("find-tail")
def find_tail(pred: Any, lst: Any) -> Any:
    """The first sublist whose car satisfies ``pred``, or #f."""
    call = caller(check_proc("find-tail", pred), 1)
    p = lst
    while type(p) is Pair:
        for _ in POLL_CHUNK:
            if type(p) is not Pair:
                break
            if call(p.car) is not False:
                return p
            p = p.cdr
        else:
            poll_limits()
    if p is not NIL:
        raise type_error("find-tail", "a proper list", lst)
    return False
