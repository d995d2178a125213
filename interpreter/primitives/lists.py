"""Pairs and lists: constructors, accessors, searching and the higher-order list
procedures (``map``, ``filter``, ``fold`` …). Everything walks lists iteratively."""

from __future__ import annotations

import functools
import gc
import itertools
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from typing import Any

from ..bignum import int_shown
from ..datatypes import (
    NIL,
    PAIR_WRITE_TICKS,
    PAIR_WRITES,
    VOID,
    Char,
    MString,
    Pair,
    Procedure,
    Record,
    Symbol,
    Values,
    spine,
    values_of,
    walk_to_python,
)
from ..equality import is_equal, is_eqv
from ..errors import SchemeError, type_error
from ..evaluator import caller
from ..limits import check_elements
from ..polling import POLL_CHUNK, POLL_EVERY, POLL_MASK, poll_limits, polled, ticks
from .loops import WALK, changed_error
from .numbers import check_number, check_size
from .registry import primitive

_apply_fn: Callable[[Any, list[Any]], Any] | None = None


def apply_fn() -> Callable[[Any, list[Any]], Any]:
    """The evaluator's ``apply_procedure`` (imported on first use to avoid a cycle)."""
    global _apply_fn
    if _apply_fn is None:
        from ..evaluator import apply_procedure

        _apply_fn = apply_procedure
    return _apply_fn


def check_proc(who: str, f: Any) -> Any:
    """Return ``f`` if it can be applied, else raise a type error."""
    if isinstance(f, Procedure) or callable(f):
        return f
    raise type_error(who, "a procedure", f)


def build_list(items: list[Any], tail: Any = NIL) -> Any:
    """A Scheme list of ``items`` (a Python list) ending in ``tail``."""
    if len(items) > 5000 and gc.isenabled():
        # New pairs only point at older ones, so no cycles can form: pausing the
        # cyclic collector avoids repeated full-heap scans while allocating.
        gc.disable()
        try:
            return build_list(items, tail)
        finally:
            gc.enable()
    result = tail
    for item in polled(items, reverse=True):
        cell = Pair()
        cell.car = item
        cell.cdr = result
        result = cell
    return result


def to_pylist(who: str, lst: Any) -> list[Any]:
    """The elements of a proper list; a type error for improper or circular lists."""
    out, tail = walk_to_python(lst, who)
    if tail is not NIL:
        raise type_error(who, "a proper list", lst)
    return out


def proper_length(who: str, lst: Any) -> int:
    """The length of the proper list ``lst``; a type error (naming ``who``) for an improper
    or circular one."""
    n = list_length(lst)
    if n is None:
        raise improper_error(who, lst)
    return n


def copy_onto(who: str, lst: Any, n: int, tail: Any) -> Any:
    """Fresh pairs holding the first ``n`` elements of ``lst`` (which has at least ``n``
    pairs), ending in ``tail``: built front to back, with no Python list in between."""
    if n == 0:
        return tail
    if n > 5000 and gc.isenabled():
        # as in build_list: new pairs form no cycles, so the cyclic collector can wait
        gc.disable()
        try:
            return copy_onto(who, lst, n, tail)
        finally:
            gc.enable()
    head = last = Pair()
    try:
        for _ in ticks(n):
            if type(lst) is not Pair:  # shortened meanwhile (by a parallel branch)
                raise _changed(who)
            cell = Pair()
            cell.car = lst.car
            last.cdr = cell
            last = cell
            lst = lst.cdr
    except BaseException:
        # A limit ended the copy: free the partial copy now, while the collector still
        # waits, so that it does not scan millions of dead pairs once it is back on.
        head.cdr = NIL
        raise
    last.cdr = tail
    return head.cdr


_changed = changed_error


# ----------------------------------------------------------------------------------
# pairs and c[ad]r
# ----------------------------------------------------------------------------------
@primitive("cons")
def scheme_cons(a: Any, b: Any) -> Pair:
    """A new pair."""
    p = Pair()
    p.car = a
    p.cdr = b
    return p


@primitive("car")
def car(x: Any) -> Any:
    """First element of a pair."""
    if type(x) is Pair:
        return x.car
    raise type_error("car", "a pair", x)


@primitive("cdr")
def cdr(x: Any) -> Any:
    """Second element of a pair."""
    if type(x) is Pair:
        return x.cdr
    raise type_error("cdr", "a pair", x)


def _cxr_error(name: str, original: Any) -> SchemeError:
    if type(original) is not Pair:
        return type_error(name, "a pair", original)
    return type_error(name, f"a structure that has a {name}", original)


def _make_cxr(name: str) -> Callable[[Any], Any]:
    path = name[-2:0:-1]  # operations in the order they apply

    def cxr(x: Any) -> Any:
        v = x
        for op in path:
            if type(v) is not Pair:
                raise _cxr_error(name, x)
            v = v.car if op == "a" else v.cdr
        return v

    cxr.__doc__ = f"The {name} of a list structure."
    cxr.__name__ = name
    return cxr


for _n in (2, 3, 4):
    for _ops in itertools.product("ad", repeat=_n):
        _name = "c" + "".join(_ops) + "r"
        primitive(_name)(_make_cxr(_name))


@primitive("cadr")
def cadr(x: Any) -> Any:
    """Second element of a list."""
    if type(x) is Pair and type(x.cdr) is Pair:
        return x.cdr.car
    raise _cxr_error("cadr", x)


@primitive("cddr")
def cddr(x: Any) -> Any:
    """A list without its first two elements."""
    if type(x) is Pair and type(x.cdr) is Pair:
        return x.cdr.cdr
    raise _cxr_error("cddr", x)


@primitive("caar")
def caar(x: Any) -> Any:
    """The car of the car."""
    if type(x) is Pair and type(x.car) is Pair:
        return x.car.car
    raise _cxr_error("caar", x)


@primitive("set-car!")
def set_car(p: Any, x: Any) -> Any:
    """Replace the car of a pair."""
    if type(p) is not Pair:
        raise type_error("set-car!", "a pair", p)
    p.car = x
    PAIR_WRITES[0] = next(PAIR_WRITE_TICKS)
    return VOID


@primitive("set-cdr!")
def set_cdr(p: Any, x: Any) -> Any:
    """Replace the cdr of a pair."""
    if type(p) is not Pair:
        raise type_error("set-cdr!", "a pair", p)
    p.cdr = x
    PAIR_WRITES[0] = next(PAIR_WRITE_TICKS)
    return VOID


# ----------------------------------------------------------------------------------
# construction and predicates
# ----------------------------------------------------------------------------------
@primitive("list")
def scheme_list(*xs: Any) -> Any:
    """A list of the arguments."""
    result: Any = NIL
    for x in reversed(xs):
        cell = Pair()
        cell.car = x
        cell.cdr = result
        result = cell
    return result


@primitive("cons*", "list*")
def cons_star(first: Any, *rest: Any) -> Any:
    """Like ``list`` but the last argument is the tail."""
    if not rest:
        return first
    return build_list([first, *rest[:-1]], rest[-1])


@primitive("make-list")
def make_list(n: Any, fill: Any = VOID) -> Any:
    """A list of ``n`` copies of ``fill``."""
    return build_list([fill] * check_size("make-list", n))


@primitive("pair?")
def is_pair(x: Any) -> bool:
    """True for pairs."""
    return type(x) is Pair


@primitive("null?")
def is_null(x: Any) -> bool:
    """True for the empty list."""
    return x is NIL


def list_length(lst: Any) -> int | None:
    """Length of a proper list, or None if improper or circular.

    Two pairs a round, the count taken from the round's index (no addition per pair),
    a second pointer at half speed for circular lists; the limits are polled between
    chunks of :data:`POLL_EVERY` pairs."""
    n = 0
    slow = fast = lst
    while True:
        for i in _HALF_CHUNK:
            if type(fast) is not Pair:
                return n + 2 * i if fast is NIL else None
            fast = fast.cdr
            if type(fast) is not Pair:
                return n + 2 * i + 1 if fast is NIL else None
            fast = fast.cdr
            slow = slow.cdr
            if fast is slow:
                return None
        n += POLL_EVERY
        poll_limits()


_HALF_CHUNK = range(POLL_EVERY // 2)


@primitive("list?")
def is_list(x: Any) -> bool:
    """True for proper (finite, NIL-terminated) lists."""
    return list_length(x) is not None


@primitive("length")
def length(lst: Any) -> int:
    """Number of elements of a proper list."""
    n = list_length(lst)
    if n is None:
        raise improper_error("length", lst)
    return n


def improper_error(who: str, lst: Any) -> SchemeError:
    """The error for a non-list where a proper list was expected."""
    if type(lst) is Pair and _is_circular(lst):
        return SchemeError(f"{who}: expected a proper list, got a circular list", kind="type-error")
    return type_error(who, "a proper list", lst)


def _is_circular(lst: Any) -> bool:
    slow = fast = lst
    while type(fast) is Pair and type(fast.cdr) is Pair:
        for _ in POLL_CHUNK:
            if type(fast) is not Pair or type(fast.cdr) is not Pair:
                return False
            fast = fast.cdr.cdr
            slow = slow.cdr
            if fast is slow:
                return True
        poll_limits()
    return False


@primitive("append")
def append(*lists: Any) -> Any:
    """Join lists; the last argument may be any value and becomes the tail."""
    if not lists:
        return NIL
    if len(lists) == 2:  # the usual case, without the lists of lengths
        n = proper_length("append", lists[0])
        if n > POLL_EVERY:
            check_elements("append", n)
        return copy_onto("append", lists[0], n, lists[1])
    lengths = [proper_length("append", lst) for lst in lists[:-1]]
    check_elements("append", sum(lengths))
    result = lists[-1]
    for lst, n in zip(reversed(lists[:-1]), reversed(lengths)):
        result = copy_onto("append", lst, n, result)
    return result


@primitive("append!")
def append_bang(*lists: Any) -> Any:
    """Like ``append`` (this implementation does not reuse the cells)."""
    return append(*lists)


@primitive("reverse", "reverse!")
def reverse(lst: Any) -> Any:
    """A new list with the elements in reverse order."""
    n = proper_length("reverse", lst)
    result: Any = NIL
    for _ in ticks(n):
        if type(lst) is not Pair:
            raise _changed("reverse")
        cell = Pair()
        cell.car = lst.car
        cell.cdr = result
        result = cell
        lst = lst.cdr
    return result


@primitive("list-copy")
def list_copy(lst: Any) -> Any:
    """A copy of the list spine (an improper tail is kept)."""
    n = 0
    tail = lst
    for n, p in enumerate(spine(lst, "list-copy"), 1):  # noqa: B007 (counts the pairs, finds the tail)
        tail = p.cdr
    return copy_onto("list-copy", lst, n, tail)


def _list_index_error(who: str, k: int, lst: Any) -> SchemeError:
    n = 0
    p = lst
    while type(p) is Pair and n <= k:
        n += 1
        p = p.cdr
        if n & POLL_MASK == 0:
            poll_limits()
    return SchemeError(f"{who}: index {int_shown(k)} out of range for list of length {n}", kind="index-error")


def _drop(who: str, lst: Any, k: Any) -> Any:
    """``lst`` without its first ``k`` pairs (type errors name ``who``)."""
    if type(k) is not int:
        raise type_error(who, "an exact integer index", k)
    if k < 0:
        raise SchemeError(f"{who}: index {int_shown(k)} out of range", kind="index-error")
    p = lst
    for _ in ticks(k):
        if type(p) is not Pair:
            raise _list_index_error(who, k, lst)
        p = p.cdr
    return p


@primitive("list-tail", "drop")
def list_tail(lst: Any, k: Any) -> Any:
    """The sublist after the first ``k`` elements."""
    return _drop("list-tail", lst, k)


@primitive("list-ref")
def list_ref(lst: Any, k: Any) -> Any:
    """Element ``k`` (from 0) of a list."""
    p = _drop("list-ref", lst, k)
    if type(p) is not Pair:
        raise _list_index_error("list-ref", k, lst)
    return p.car


@primitive("list-set!")
def list_set(lst: Any, k: Any, x: Any) -> Any:
    """Replace element ``k`` of a list."""
    p = _drop("list-set!", lst, k)
    if type(p) is not Pair:
        raise _list_index_error("list-set!", k, lst)
    p.car = x
    PAIR_WRITES[0] = next(PAIR_WRITE_TICKS)
    return VOID


@primitive("take", "list-head")
def take(lst: Any, k: Any) -> Any:
    """A new list of the first ``k`` elements."""
    if type(k) is not int or k < 0:
        raise type_error("take", "a non-negative exact integer", k)
    items: list[Any] = []
    p = lst
    for _ in ticks(k):
        if type(p) is not Pair:
            raise _list_index_error("take", k, lst)
        items.append(p.car)
        p = p.cdr
    return build_list(items)


@primitive("last-pair")
def last_pair(lst: Any) -> Any:
    """The last pair of a non-empty list."""
    if type(lst) is not Pair:
        raise type_error("last-pair", "a pair", lst)
    last = lst
    for last in spine(lst, "last-pair"):  # noqa: B007 (the loop finds the last pair)
        pass
    return last


@primitive("last")
def last(lst: Any) -> Any:
    """The last element of a non-empty list."""
    if type(lst) is not Pair:
        raise type_error("last", "a non-empty list", lst)
    return last_pair(lst).car


# ----------------------------------------------------------------------------------
# searching
# ----------------------------------------------------------------------------------
#: How to find values ``eqv?`` (or ``equal?``) to ``x`` in a list without a call per
#: element, as ``(x, types, test, fold)``: ``y`` matches if ``y is x``, or ``y == x`` and
#: its type is in ``types``, or ``test(y)`` (for floats, and structures under ``equal?``).
#: With ``fold`` each element of that type is first replaced by its text (``x`` is then a
#: ``str``): MString for ``equal?`` on strings; Char for characters, whose ``==`` would be
#: a Python-level call per element (any other element becomes a value matching nothing).
#: A plain tuple: a NamedTuple's construction cost more than a short search.
Matcher = tuple[Any, tuple[type, ...], Callable[[Any], bool] | None, type | None]


def _matcher(x: Any, equal: bool) -> Matcher:
    """The :data:`Matcher` for ``eqv?`` to ``x``, or ``equal?`` to it when ``equal``.
    Symbols, booleans, ``'()`` and other objects without structure match by identity."""
    t = type(x)
    if t is int or t is Fraction:
        return (x, (t,), None, None)
    if t is Char:
        return (x.ch, (str,), None, Char)
    if equal and (t is str or t is MString):
        return (str(x), (str,), None, MString)
    if t is float or t is str:
        return (x, (), lambda y: is_eqv(x, y), None)
    if equal and (t is Pair or t is list or t is bytearray or t is Record or hasattr(x, "scheme_equal")):
        return (x, (), lambda y: is_equal(x, y), None)
    return (x, (), None, None)


def _custom_matcher(who: str, x: Any, compare: Any) -> Matcher:
    """A :data:`Matcher` calling the Scheme procedure ``(compare x y)``."""
    call = caller(check_proc(who, compare), 2)
    return (_NO_VALUE, (), lambda y: call(x, y) is not False, None)


_NO_VALUE = object()


def _search(who: str, lst: Any, match: Matcher, entries: bool) -> Any:
    """The first pair of ``lst`` whose car matches (``entries``: whose car's car matches,
    for association lists), or #f. One plain loop, with a second pointer at half speed
    for circular lists."""
    x, types, test, fold = match
    slow = p = lst
    behind = False
    while type(p) is Pair:
        for _ in POLL_CHUNK:
            if type(p) is not Pair:
                break
            y = p.car
            if entries:
                if type(y) is not Pair:
                    raise type_error(who, "an association list of pairs, found element", y)
                y = y.car
            if fold is not None:
                if fold is Char:
                    y = y.ch if type(y) is Char else _NO_VALUE
                elif type(y) is MString:
                    y = y.text if y.text is not None else str(y)
            if y is x or (types and y == x and type(y) in types) or (test is not None and test(y)):
                return p.car if entries else p
            p = p.cdr
            if behind:
                slow = slow.cdr
                if p is slow:
                    raise SchemeError(f"{who}: expected a proper list, got a circular list", kind="type-error")
            behind = not behind
        else:
            poll_limits()
    if p is not NIL:
        raise type_error(who, "a proper list", lst)
    return False


#: A first pass of a search over at most :data:`POLL_EVERY` pairs, with the comparison
#: for one kind of key written out (an exact integer is compared with ``==`` first, its
#: type tested only on a match) and no second pointer: ``fast(who, lst, x, key)``
#: gives the result, or None when the chunk ran out first (then :func:`_search` walks
#: the list again from its start, with the circular-list check). The result is the one
#: ``_search`` gives: it finds a cycle only after visiting every pair of the list, so a
#: match or a bad element within the chunk is what it would have met first too.
_FAST_SEARCH = """
def fast(who, lst, x, key):
    p = lst
    for _ in repeat(None, POLL_EVERY):
        if type(p) is not Pair:
            if p is NIL:
                return False
            raise type_error(who, "a proper list", lst)
        y = p.car
{entry}{test}
        p = p.cdr
    return None
"""

_FAST_ENTRY = """\
        if type(y) is not Pair:
            raise type_error(who, "an association list of pairs, found element", y)
        y = y.car
"""

#: ``x`` is the key as the matcher sees it (a ``str`` for text), ``key`` the key itself.
_FAST_TESTS = {
    "identity": """\
        if y is x:
            return {found}""",
    "int": """\
        if y == x and type(y) is int:
            return {found}""",
    "text": """\
        t = type(y)
        if t is MString:
            if y.text == x or (y.text is None and str(y) == x):
                return {found}
        elif t is str and y == x:
            return {found}""",
}


def _fast_searches() -> dict[tuple[str, bool], Callable[[str, Any, Any, Any], Any]]:
    """The first-pass searches, by (kind of key, association list or not)."""
    made = {}
    for kind, test in _FAST_TESTS.items():
        for entries in (False, True):
            found = "p.car" if entries else "p"
            source = _FAST_SEARCH.format(entry=_FAST_ENTRY if entries else "", test=test.format(found=found))
            namespace: dict[str, Any] = {
                "POLL_EVERY": POLL_EVERY,
                "repeat": itertools.repeat,
                "Pair": Pair,
                "NIL": NIL,
                "MString": MString,
                "type_error": type_error,
            }
            exec(source, namespace)  # fixed templates, no user text
            made[kind, entries] = namespace["fast"]
    return made


_FAST = _fast_searches()
_ASSV_INT = _FAST["int", True]
_ASSOC_TEXT = _FAST["text", True]


def _find(who: str, lst: Any, x: Any, equal: bool, entries: bool) -> Any:
    """``_search`` for ``eqv?`` (or ``equal?``) to ``x``: a first pass written for the
    key's kind (exact integers, strings under ``equal?``, keys compared by identity),
    else or then the general walk."""
    t = type(x)
    if t is int:
        found = _FAST["int", entries](who, lst, x, x)
    elif equal and (t is MString or t is str):
        text = x if t is str else x.text
        found = _FAST["text", entries](who, lst, text if text is not None else str(x), x)
    elif t is Symbol or x is NIL or t is bool:
        found = _FAST["identity", entries](who, lst, x, x)
    else:
        return _search(who, lst, _matcher(x, equal), entries)
    return found if found is not None else _search(who, lst, _matcher(x, equal), entries)


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


@primitive("memq")
def memq(x: Any, lst: Any) -> Any:
    """The first sublist whose car is ``eq?`` to ``x``, or #f."""
    return _find("memq", lst, x, False, False)


@primitive("memv")
def memv(x: Any, lst: Any) -> Any:
    """The first sublist whose car is ``eqv?`` to ``x``, or #f."""
    return _find("memv", lst, x, False, False)


@primitive("member")
def member(x: Any, lst: Any, compare: Any = None) -> Any:
    """The first sublist whose car is ``equal?`` (or ``compare``) to ``x``, or #f."""
    if compare is None:
        return _find("member", lst, x, True, False)
    return _search("member", lst, _custom_matcher("member", x, compare), False)


@primitive("assq")
def assq(key: Any, alist: Any) -> Any:
    """The first pair in ``alist`` whose car is ``eq?`` to ``key``, or #f."""
    return _find("assq", alist, key, False, True)


@primitive("assv")
def assv(key: Any, alist: Any) -> Any:
    """The first pair in ``alist`` whose car is ``eqv?`` to ``key``, or #f."""
    if type(key) is int:  # the usual key first, without _find's dispatch
        found = _ASSV_INT("assv", alist, key, key)
        return found if found is not None else _search("assv", alist, _matcher(key, False), True)
    return _find("assv", alist, key, False, True)


@primitive("assoc")
def assoc(key: Any, alist: Any, compare: Any = None) -> Any:
    """The first pair in ``alist`` whose car is ``equal?`` (or ``compare``) to ``key``, or #f."""
    if compare is None:
        if type(key) is MString and key.text is not None:  # the usual key first, without _find's dispatch
            found = _ASSOC_TEXT("assoc", alist, key.text, key)
            return found if found is not None else _search("assoc", alist, _matcher(key, True), True)
        return _find("assoc", alist, key, True, True)
    return _search("assoc", alist, _custom_matcher("assoc", key, compare), True)


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
                raise _changed(who)
        yield tuple([p.car for p in heads])
        heads = tuple([p.cdr for p in heads])  # after the call, as the one-list walks do


def shortest_length(who: str, lists: tuple[Any, ...]) -> int:
    """The length of the shortest of ``lists``, a circular list counting as endless; a type
    error naming ``who`` for an improper list, or if every list is circular."""
    lengths = []
    for lst in lists:
        n = list_length(lst)
        if n is None and not (type(lst) is Pair and _is_circular(lst)):
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
            raise _changed(who)
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
    """Call ``f`` on corresponding elements for effect."""
    if more:
        call, items = _over("for-each", f, lst, more)
        for x in items:
            call(x)
        return VOID
    return WALK["for-each"](check_proc("for-each", f), "for-each", lst, proper_length("for-each", lst))


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
                raise _changed("append-map")
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


@primitive("fold")
def fold(kons: Any, knil: Any, lst: Any, *more: Any) -> Any:
    """SRFI-1 fold: ``(kons elem ... acc)`` from the left."""
    check_proc("fold", kons)
    if not more:
        return WALK["fold"](kons, "fold", knil, lst, proper_length("fold", lst))
    call = caller(kons, 2 + len(more))
    acc = knil
    for row in rows("fold", (lst, *more)):
        acc = call(*row, acc)
    return acc


@primitive("fold-left")
def fold_left(f: Any, init: Any, lst: Any, *more: Any) -> Any:
    """``(f acc elem ...)`` from the left."""
    check_proc("fold-left", f)
    if not more:
        return WALK["fold-left"](f, "fold-left", init, lst, proper_length("fold-left", lst))
    call = caller(f, 2 + len(more))
    acc = init
    for row in rows("fold-left", (lst, *more)):
        acc = call(acc, *row)
    return acc


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
        from .hashtables import equal_key

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
    check_size("iota", n)
    check_number("iota", start)
    check_number("iota", step)
    if type(start) is int and type(step) is int:
        if step == 0:
            return build_list([start] * n)
        return _pairs_of_range(range(start + (n - 1) * step, start - step, -step))
    from .numbers import add, mul

    return build_list([add(start, mul(i, step)) for i in polled(range(n))])


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


# ----------------------------------------------------------------------------------
# sorting
# ----------------------------------------------------------------------------------
def _sort_args(who: str, a: Any, b: Any) -> tuple[Any, Any]:
    """(sequence, less?) from either argument order."""
    if (type(a) is Pair or a is NIL or type(a) is list) and not (type(b) is Pair or b is NIL or type(b) is list):
        return a, check_proc(who, b)
    if type(b) is Pair or b is NIL or type(b) is list:
        return b, check_proc(who, a)
    raise type_error(who, "a list or vector", a)


def sorted_items(who: str, items: list[Any], less: Any) -> list[Any]:
    """``items`` stably sorted by the Scheme predicate ``less``."""
    call = caller(less, 2)
    calls = 0

    def cmp(x: Any, y: Any) -> int:
        nonlocal calls
        calls += 1
        if calls & POLL_MASK == 0:  # a primitive ``less`` counts no steps
            poll_limits()
        return -1 if call(x, y) is not False else 0

    return sorted(items, key=functools.cmp_to_key(cmp))


@primitive("sort", "list-sort")
def sort(a: Any, b: Any) -> Any:
    """A sorted copy of a list or vector: ``(sort seq less?)`` or ``(sort less? seq)``."""
    seq, less = _sort_args("sort", a, b)
    if type(seq) is list:
        return sorted_items("sort", seq, less)
    return build_list(sorted_items("sort", to_pylist("sort", seq), less))


@primitive("sort!")
def sort_bang(a: Any, b: Any) -> Any:
    """Sort a list or vector in place; returns the sorted sequence."""
    seq, less = _sort_args("sort!", a, b)
    if type(seq) is list:
        seq[:] = sorted_items("sort!", seq, less)
        return seq
    items = sorted_items("sort!", to_pylist("sort!", seq), less)
    p = seq
    for x in items:
        p.car = x
        p = p.cdr
    PAIR_WRITES[0] = next(PAIR_WRITE_TICKS)
    return seq
