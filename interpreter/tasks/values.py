"""Conversions between Scheme values and the JSON-like Python values records hold.

Into records: strings, numbers and booleans stay; symbols become strings; lists and
vectors become lists; association lists and hash tables become dicts. Out of records:
dicts become association lists with symbol keys, lists become lists, ``None`` is ``#f``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from pydantic import BaseModel

from ..conversion import Walk, check_unfolded, proper_items
from ..datatypes import Char, Keyword, MString, Nil, Pair, Symbol, Void, cons, make_list, sym
from ..errors import SchemeError
from ..keywords import key_name
from ..primitives.hashtables import HashTable
from ..printer import write_string


def is_alist(x: Any) -> bool:
    """A non-empty proper list whose elements are pairs keyed by a symbol or a string."""
    items = proper_items(x) if type(x) is Pair else None
    return bool(items) and all(type(item) is Pair and isinstance(item.car, (Symbol, str, MString)) for item in items)


def to_python(x: Any, who: str) -> Any:
    """``x`` as a JSON-like Python value (records are kept as records).

    Circular lists, structures that contain themselves and values too big or too deep
    to store are ``SchemeError``s naming ``who``."""
    try:
        check_unfolded(x, who)
        return _plain(x, who, Walk(who))
    except RecursionError:
        raise SchemeError(f"{who}: value is nested too deeply to store in a record", kind="value-error") from None


def _plain(x: Any, who: str, walk: Walk) -> Any:
    t = type(x)
    if x is None or t in (bool, int, float, str) or isinstance(x, BaseModel):
        return x
    if t is MString:
        return str(x)
    if t is Symbol or t is Keyword:
        return x.name
    if t is Char:
        return x.ch
    if t is Fraction:
        try:
            return float(x)
        except OverflowError:
            raise SchemeError(
                f"{who}: the number {x.numerator.bit_length()} bits long is too large to store in a record",
                kind="value-error",
            ) from None
    if t is Void:
        return None
    if t is Nil:
        return []
    if t is Pair:
        items = proper_items(x)
        if items is None:
            raise SchemeError(f"{who}: cannot store an improper or circular list in a record", kind="type-error")
        if is_alist(x):
            return walk.inside(x, lambda: {key_name(p.car): _plain(p.cdr, who, walk) for p in items}, len(items))
        return walk.inside(x, lambda: [_plain(item, who, walk) for item in items], len(items))
    if t is list or t is tuple:
        return walk.inside(x, lambda: [_plain(item, who, walk) for item in x])
    if t is dict:
        return walk.inside(x, lambda: {key_name(k): _plain(v, who, walk) for k, v in x.items()})
    if t is HashTable:
        entries = list(x.entries.values())
        return walk.inside(x, lambda: {key_name(k): _plain(v, who, walk) for k, v in entries}, len(entries))
    raise SchemeError(f"{who}: cannot store {write_string(x)} in a record (not JSON-like data)", kind="type-error")


def to_scheme(x: Any) -> Any:
    """A record's value as a Scheme value."""
    if x is None:
        return False
    t = type(x)
    if t is dict:
        return make_list(cons(sym(str(k)), to_scheme(v)) for k, v in x.items())
    if t is list or t is tuple:
        return make_list(to_scheme(v) for v in x)
    return x
