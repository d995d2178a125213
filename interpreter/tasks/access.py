"""``get``: read a path of fields from records, hash tables, association lists and lists.

A field may be written in kebab-case or snake_case (``'final-output`` or
``'final_output``); an integer indexes a list or vector. A missing field is an error
naming it and the fields that exist, unless a default is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from ..bignum import int_shown
from ..datatypes import NIL, MString, Pair, Record, Symbol
from ..errors import SchemeError
from ..primitives.hashtables import HashTable
from ..printer import write_string
from .evaluation import find_json
from .placeholders import normal_name
from .records import SchemeRecord, TaskResult, record_kind
from .values import is_alist, key_name, to_scheme

MISSING = object()


def get_path(value: Any, path: Sequence[Any], default: Any = MISSING, who: str = "get") -> Any:
    """Follow ``path`` from ``value``; ``default`` (if given) replaces a missing or empty field."""
    for key in path:
        found = field_of(value, key, who)
        if found is MISSING or (found is None and default is not MISSING):
            if default is not MISSING:
                return default
            raise missing_field(value, key, who)
        value = False if found is None else found
    return value


def field_of(container: Any, key: Any, who: str) -> Any:
    """The value of ``key`` in ``container`` as a Scheme value, or MISSING."""
    if type(key) is int and not isinstance(key, bool):
        return _index(container, key)
    wanted = normal_name(key_name(key))
    if isinstance(container, SchemeRecord):
        return _from_python(container.fields(), wanted)
    if isinstance(container, BaseModel):
        return _from_python(container.model_dump(), wanted)
    if type(container) is dict:
        return _from_python(container, wanted)
    if type(container) is HashTable:
        for original, value in container.entries.values():
            if isinstance(original, (Symbol, str, MString)) and normal_name(key_name(original)) == wanted:
                return value
        return MISSING
    if type(container) is Record:
        for name, value in zip(container.rtype.fields, container.values):
            if normal_name(str(name)) == wanted:
                return value
        return MISSING
    if is_alist(container):
        for pair in container:
            if normal_name(key_name(pair.car)) == wanted:
                return pair.cdr
        return MISSING
    if container is NIL:
        return MISSING
    raise SchemeError(
        f"{who}: cannot read field {key_name(key)} of {write_string(container)[:60]} "
        "(not a record, hash table or association list)",
        kind="type-error",
    )


def _from_python(fields: dict[str, Any], wanted: str) -> Any:
    for name, value in fields.items():
        if normal_name(str(name)) == wanted:
            return None if value is None else to_scheme(value)
    return MISSING


def _index(container: Any, index: int) -> Any:
    items = list(container) if type(container) is Pair else container if type(container) is list else None
    if items is None:
        raise SchemeError(f"get: index {int_shown(index)} needs a list or vector", kind="type-error")
    return items[index] if 0 <= index < len(items) else MISSING


def field_names(container: Any) -> list[str]:
    """The fields ``container`` has, for error messages."""
    if isinstance(container, SchemeRecord):
        return [n.replace("_", "-") for n in container.fields()]
    if isinstance(container, BaseModel):
        return [n.replace("_", "-") for n in container.model_dump()]
    if type(container) is dict:
        return [str(k) for k in container]
    if type(container) is HashTable:
        return [key_name(k) for k, _ in container.entries.values()]
    if type(container) is Record:
        return [str(n) for n in container.rtype.fields]
    if is_alist(container):
        return [key_name(p.car) for p in container]
    return []


def missing_field(container: Any, key: Any, who: str) -> SchemeError:
    """``get: no field x in task-result (fields: content, status, notes)``."""
    if type(key) is int:
        return SchemeError(f"{who}: index {int_shown(key)} is out of range", kind="index-error")
    names = field_names(container)
    if isinstance(container, BaseModel):
        what = record_kind(type(container))
    elif type(container) is Record:
        what = str(container.rtype.name)
    else:
        what = "hash table" if type(container).__name__ == "HashTable" else "association list"
    listed = ", ".join(names) if names else "none"
    return SchemeError(
        f"{who}: no field {key_name(key)} in {what} (fields: {listed})",
        kind="value-error",
        details={"field": key_name(key), "fields": names},
    )


def result_field(value: Any, path: Sequence[Any]) -> Any:
    """A property path read as the seeds' conditions read it (``output.valid``): a record's own
    field; else, for a task result, its content's JSON fields (content that is JSON text, or
    parsed data), then its notes; text holding a JSON object is read as that object. Anything
    missing, and a path through a value that has no fields, is ``#f`` (JavaScript's ``undefined``)."""
    for key in path:
        value = _result_key(value, key)
        if value is MISSING or value is None:
            return False
    return value


def _result_key(value: Any, key: Any) -> Any:
    if isinstance(value, (str, MString)):
        value = _json_object(str(value))
        if value is None:
            return MISSING
    if isinstance(value, TaskResult):
        found = field_of(value, key, "result-field")
        if found is not MISSING:
            return found
        content = value.content
        data = _json_object(content) if isinstance(content, str) else to_scheme(content)
        if data is not None and data is not False:
            found = _result_key(data, key)
            if found is not MISSING:
                return found
        return _result_key(value.notes, key)
    try:
        return field_of(value, key, "result-field")
    except SchemeError:
        return MISSING


def _json_object(text: str) -> Any:
    """The JSON object ``text`` holds (fenced or not), as Scheme data, or None."""
    try:
        data = find_json(text)
    except ValueError:
        return None
    return to_scheme(data) if isinstance(data, dict) else None
