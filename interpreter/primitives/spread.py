"""``(apply + numbers)`` and ``(apply string-append strings)`` in one walk of the list.

``apply`` spreads its list into the call's arguments: a Python list of the elements, a
second one for the argument list, a tuple for ``*args``, and then the built-in's own
loop over them. For the variadic built-ins users apply to long lists, the forms here walk
the pairs once and do the built-in's work as they go (registered with
:func:`~.registry.over_list`; ``apply`` looks them up by the built-in's object, so a
rebound name or a host primitive of the same name is applied the ordinary way).

Errors are those of the ordinary path, in its order: an improper list is refused before
any element's type, a circular one is refused, and the first element of the wrong type
is named. The limits are polled between chunks of the list.
"""

from __future__ import annotations

from typing import Any

from ..datatypes import NIL, MString, Pair, walk_to_python
from ..errors import SchemeError, type_error
from ..evaluator import python_exception
from ..limits import SMALL_STRING, check_string_length
from ..polling import POLL_EVERY, poll_limits
from .numbers import add
from .registry import over_list
from .strings import string_append

#: Rounds of two pairs between two polls of the limits.
_HALF_CHUNK = range(POLL_EVERY // 2)


def _circular() -> SchemeError:
    return SchemeError("list: expected a proper list, got a circular list", kind="type-error")


def _improper(lst: Any) -> SchemeError:
    return type_error("apply", "a proper list as last argument", lst)


def _add_rest(total: int, lst: Any, p: Any) -> Any:
    """``(+ total ...)`` over the elements from ``p`` on (``lst`` is the whole list)."""
    rest, tail = walk_to_python(p)
    if tail is not NIL:
        raise _improper(lst)
    try:
        return add(total, *rest)
    except SchemeError:
        raise
    except Exception as exc:  # an overflow …: named as the call of + names it
        raise python_exception(exc, "+") from None


@over_list("+")
def add_list(lst: Any) -> Any:
    """``(apply + lst)``: exact integers summed as the walk goes; from the first number
    of another kind, the rest added by ``+`` itself."""
    total = 0
    p = slow = lst
    while type(p) is Pair:
        for _ in _HALF_CHUNK:
            x = p.car
            if type(x) is not int:
                return _add_rest(total, lst, p)
            total += x
            p = p.cdr
            if type(p) is not Pair:
                break
            x = p.car
            if type(x) is not int:
                return _add_rest(total, lst, p)
            total += x
            p = p.cdr
            slow = slow.cdr
            if p is slow:
                raise _circular()
            if type(p) is not Pair:
                break
        else:
            poll_limits()
    if p is not NIL:
        raise _improper(lst)
    return total


@over_list("string-append")
def string_append_list(lst: Any) -> MString:
    """``(apply string-append lst)``: each string's text collected as the walk goes, then
    joined in C; an element that is not a string makes the join fail, and ``string-append``
    itself then names it."""
    parts: list[Any] = []
    append = parts.append
    p = slow = lst
    while type(p) is Pair:
        for _ in _HALF_CHUNK:
            s = p.car
            append(s.text or str(s) if type(s) is MString else s)
            p = p.cdr
            if type(p) is not Pair:
                break
            s = p.car
            append(s.text or str(s) if type(s) is MString else s)
            p = p.cdr
            slow = slow.cdr
            if p is slow:
                raise _circular()
            if type(p) is not Pair:
                break
        else:
            poll_limits()
    if p is not NIL:
        raise _improper(lst)
    try:
        n = sum(map(len, parts))
    except TypeError:  # not a string (len of a number …): string-append's own error
        return string_append(*parts)
    if n >= SMALL_STRING:
        check_string_length("string-append", n)
    try:
        return MString("".join(parts))
    except TypeError:  # a non-string with a length (a vector …)
        return string_append(*parts)


def joined_strings(texts: list[str]) -> MString:
    """``(apply string-append l)`` of the Python strings ``texts`` (a compiled walk's values,
    ``compiler/inline_walks.py``): the new mutable string, under string-append's length limit."""
    n = sum(map(len, texts))
    if n >= SMALL_STRING:
        check_string_length("string-append", n)
    return MString("".join(texts))
