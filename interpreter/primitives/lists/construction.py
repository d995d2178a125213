"""Lists as wholes: construction (``list``, ``make-list``, ``append`` …), the predicates
and ``length``, and access by index (``list-ref``, ``list-tail``, ``take`` …)."""

from __future__ import annotations

from typing import Any

from ...bignum import int_shown
from ...datatypes import NIL, PAIR_WRITE_TICKS, PAIR_WRITES, VOID, Pair, spine
from ...errors import SchemeError, type_error
from ...limits import check_elements
from ...polling import POLL_EVERY, POLL_MASK, poll_limits, ticks
from ..loops import changed_error
from ..numbers import check_size
from ..registry import primitive
from .core import build_list, copy_onto, improper_error, list_length, proper_length


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
            raise changed_error("reverse")
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
