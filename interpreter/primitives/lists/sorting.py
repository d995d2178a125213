"""``sort``, ``list-sort`` and ``sort!`` over lists and vectors (stable, by a Scheme predicate)."""

from __future__ import annotations

import functools
from typing import Any

from ...datatypes import NIL, PAIR_WRITE_TICKS, PAIR_WRITES, Pair
from ...errors import type_error
from ...evaluator import caller
from ...polling import POLL_MASK, poll_limits
from ..registry import primitive
from .core import build_list, check_proc, to_pylist


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
