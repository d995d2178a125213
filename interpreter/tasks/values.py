"""Conversions between Scheme values and the JSON-like Python values records hold.

Into records: strings, numbers and booleans stay; symbols become strings; lists and
vectors become lists; association lists and hash tables become dicts. Out of records:
dicts become association lists with symbol keys, lists become lists, ``None`` is ``#f``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from pydantic import BaseModel

from ..datatypes import NIL, Char, Keyword, MString, Nil, Pair, Symbol, Void, make_list, sym
from ..errors import SchemeError


def key_name(key: Any) -> str:
    """A field or dict key as a Python string."""
    if type(key) in (Symbol, Keyword):
        return key.name
    if isinstance(key, (str, MString)):
        return str(key)
    from ..printer import display_string

    return display_string(key)


def is_alist(x: Any) -> bool:
    """A non-empty proper list whose elements are pairs keyed by a symbol or a string."""
    if type(x) is not Pair:
        return False
    while type(x) is Pair:
        item = x.car
        if type(item) is not Pair or not isinstance(item.car, (Symbol, str, MString)):
            return False
        x = x.cdr
    return x is NIL


def to_python(x: Any, who: str) -> Any:
    """``x`` as a JSON-like Python value (records are kept as records)."""
    from ..primitives.hashtables import HashTable

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
        return float(x)
    if t is Void:
        return None
    if t is Nil:
        return []
    if t is Pair:
        if is_alist(x):
            return {key_name(p.car): to_python(p.cdr, who) for p in x}
        items = []
        while type(x) is Pair:
            items.append(to_python(x.car, who))
            x = x.cdr
        if x is not NIL:
            raise SchemeError(f"{who}: cannot store an improper list in a record", kind="type-error")
        return items
    if t is list or t is tuple:
        return [to_python(item, who) for item in x]
    if t is dict:
        return {key_name(k): to_python(v, who) for k, v in x.items()}
    if t is HashTable:
        return {key_name(k): to_python(v, who) for k, v in x.entries.values()}
    from ..printer import write_string

    raise SchemeError(f"{who}: cannot store {write_string(x)} in a record (not JSON-like data)", kind="type-error")


def to_scheme(x: Any) -> Any:
    """A record's value as a Scheme value."""
    if x is None:
        return False
    t = type(x)
    if t is dict:
        return make_list(Pair(sym(str(k)), to_scheme(v)) for k, v in x.items())
    if t is list or t is tuple:
        return make_list(to_scheme(v) for v in x)
    return x
