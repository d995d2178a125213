"""Searching lists and association lists (``memq``/``memv``/``member``,
``assq``/``assv``/``assoc``): a first pass written out per kind of key, then the general
walk with its circular-list check."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from ...datatypes import NIL, PAIR_WRITES, STRING_WRITES, Char, MString, Pair, Record, Symbol
from ...equality import is_equal, is_eqv
from ...errors import SchemeError, type_error
from ...evaluator import caller
from ...polling import POLL_CHUNK, poll_limits
from ..registry import primitive
from . import search_index
from .core import check_proc

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
#: A list searched again and again answers from its index instead (:mod:`.search_index`):
#: a walk of ``LONG`` pairs or more notes the list.
_FAST_SEARCH = """
def fast(who, lst, x, key):
    if memo:
        m = memo.get(id(lst))
        if m is not None and m[0] is lst and m[1] is PAIR_WRITES[0] and m[2] is STRING_WRITES[0] and m[3]:
            return m[3][{table}].get(x, False)
    p = lst
    for i in POLL_CHUNK:
        if type(p) is not Pair:
            if p is NIL:
                found = False
                break
            raise type_error(who, "a proper list", lst)
        y = p.car
{entry}{test}
        p = p.cdr
    else:
        return None
    if i >= LONG:
        note(lst, {entries})
    return found
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
            found = {found}
            break""",
    "int": """\
        if y == x and type(y) is int:
            found = {found}
            break""",
    "text": """\
        t = type(y)
        if t is MString:
            if y.text == x or (y.text is None and str(y) == x):
                found = {found}
                break
        elif t is str and y == x:
            found = {found}
            break""",
}


def _fast_searches() -> dict[tuple[str, bool], Callable[[str, Any, Any, Any], Any]]:
    """The first-pass searches, by (kind of key, association list or not)."""
    made = {}
    for kind, test in _FAST_TESTS.items():
        for entries in (False, True):
            found = "p.car" if entries else "p"
            source = _FAST_SEARCH.format(
                entry=_FAST_ENTRY if entries else "",
                test=test.format(found=found),
                table=search_index.KINDS[kind],
                entries=entries,
            )
            namespace: dict[str, Any] = {
                "POLL_CHUNK": POLL_CHUNK,
                "Pair": Pair,
                "NIL": NIL,
                "MString": MString,
                "type_error": type_error,
                "memo": search_index.MEMOS[entries],
                "note": search_index.note,
                "LONG": search_index.LONG,
                "PAIR_WRITES": PAIR_WRITES,
                "STRING_WRITES": STRING_WRITES,
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
