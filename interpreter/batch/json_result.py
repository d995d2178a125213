"""A batch item's result as JSON, faithfully, and never an exception.

- an association list whose keys are all symbols (or strings) becomes an object;
- a hash table becomes an object, or a list of ``[key, value]`` pairs when its keys are
  not all strings or symbols;
- records (``define-record-type``) and task records (TaskResult, LoopResult …) become
  objects of their fields;
- lists and vectors become arrays, symbols and keywords their names, strings strings,
  booleans, exact integers and finite reals themselves, the unspecified value ``null``;
- anything else (procedures, characters, exact fractions, infinities, ports, circular
  data …) becomes ``{"unrepresentable": "<its written form>"}``.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from pydantic import BaseModel

from ..datatypes import NIL, VOID, Keyword, MString, Pair, Record, Symbol
from ..primitives.hashtables import HashTable
from ..printer import write_string

#: Nesting deeper than this is written, not walked (a result is data, not a stack test).
MAX_DEPTH = 200
JSON = Any


def to_json(value: Any) -> JSON:
    """``value`` as JSON data (see the module's rules); never raises."""
    try:
        return _convert(value, set(), 0)
    except Exception as exc:  # a value that breaks the walk is still reported, not fatal
        return unrepresentable(value, exc)


def unrepresentable(value: Any, cause: BaseException | None = None) -> dict[str, str]:
    """``{"unrepresentable": "<written form>"}`` (the written form of anything, even a broken value)."""
    try:
        text = write_string(value)
    except Exception:
        text = f"#<{type(value).__name__}>"
    if cause is not None and not isinstance(cause, RecursionError):
        return {"unrepresentable": text, "error": f"{type(cause).__name__}: {cause}"}
    return {"unrepresentable": text}


def _convert(value: Any, path: set[int], depth: int) -> JSON:
    if value is None or value is VOID:
        return None
    if isinstance(value, bool | str):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else unrepresentable(value)
    if isinstance(value, MString):
        return str(value)
    if isinstance(value, Symbol | Keyword):
        return value.name
    if isinstance(value, Fraction):
        return unrepresentable(value)
    if depth > MAX_DEPTH or id(value) in path:  # too deep, or circular: its written form (with labels)
        return unrepresentable(value)
    path.add(id(value))
    try:
        return _compound(value, path, depth + 1)
    finally:
        path.discard(id(value))


def _compound(value: Any, path: set[int], depth: int) -> JSON:
    if value is NIL:
        return []
    if isinstance(value, Pair):
        items = _proper_list(value, path)
        if items is None:
            return unrepresentable(value)
        pairs = _alist(items)
        if pairs is not None:
            entries: dict[str, JSON] = {}
            for key, item in pairs:  # the first entry of a key is its value, as assq finds it
                if key not in entries:
                    entries[key] = _convert(item, path, depth)
            return entries
        return [_convert(item, path, depth) for item in items]
    if isinstance(value, list | tuple):
        return [_convert(item, path, depth) for item in value]
    if isinstance(value, HashTable):
        entries = [(_deref(key), item) for key, item in value.entries.values()]
        if all(isinstance(key, str | MString | Symbol) for key, _ in entries):
            return {_name(key): _convert(item, path, depth) for key, item in entries}
        return [[_convert(key, path, depth), _convert(item, path, depth)] for key, item in entries]
    if isinstance(value, Record):
        return {name: _convert(item, path, depth) for name, item in zip(value.rtype.fields, value.values)}
    if isinstance(value, BaseModel):
        fields = value.fields() if hasattr(value, "fields") else dict(value)
        return {str(name): _convert(item, path, depth) for name, item in fields.items()}
    if isinstance(value, Mapping):
        if all(isinstance(key, str | Symbol | MString) for key in value):
            return {_name(key): _convert(item, path, depth) for key, item in value.items()}
        return [[_convert(key, path, depth), _convert(item, path, depth)] for key, item in value.items()]
    return unrepresentable(value)


def _proper_list(value: Pair, path: set[int]) -> list[Any] | None:
    """The elements of a proper list; None for an improper or circular one."""
    items, seen, node = [], set(), value
    while isinstance(node, Pair):
        if id(node) in seen:
            return None
        seen.add(id(node))
        items.append(node.car)
        node = node.cdr
    return items if node is NIL else None


def _alist(items: list[Any]) -> list[tuple[str, Any]] | None:
    """``(key . value)`` entries when every element is a pair whose key is a symbol or string."""
    if not all(isinstance(item, Pair) and isinstance(item.car, Symbol | MString | str) for item in items):
        return None
    return [(_name(item.car), item.cdr) for item in items]


def _name(key: Any) -> str:
    return key.name if isinstance(key, Symbol) else str(key)


def _deref(key: Any) -> Any:
    return key() if isinstance(key, weakref.ref) else key
