"""What every list primitive uses: checking a procedure argument, measuring a list (its
length, a cycle) and building lists of pairs without a Python list where it can."""

from __future__ import annotations

import gc
from typing import Any

from ...datatypes import NIL, Pair, Procedure, walk_to_python
from ...errors import SchemeError, type_error
from ...polling import POLL_CHUNK, POLL_EVERY, poll_limits, polled, ticks
from ..loops import changed_error


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
                raise changed_error(who)
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


def improper_error(who: str, lst: Any) -> SchemeError:
    """The error for a non-list where a proper list was expected."""
    if type(lst) is Pair and is_circular(lst):
        return SchemeError(f"{who}: expected a proper list, got a circular list", kind="type-error")
    return type_error(who, "a proper list", lst)


def ended_error(who: str, start: Any) -> SchemeError:
    """The error of a walk that checks its list as it goes (one-list ``for-each``) and met a
    tail that is not ``()`` or came round again: the list ``start``'s own (improper or
    circular), or, if the walk's procedure has made it proper meanwhile, that it changed."""
    return improper_error(who, start) if list_length(start) is None else changed_error(who)


def is_circular(lst: Any) -> bool:
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
