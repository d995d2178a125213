"""Keyword arguments of primitives and task calls: ``#:name value`` pairs among the
positional values, the one spelling names are compared in (kebab-case = snake_case), and
a key (symbol, keyword, string) as a Python string."""

from __future__ import annotations

from typing import Any

from .datatypes import Keyword, MString, Symbol
from .errors import SchemeError
from .printer import display_string


def normal_name(name: str) -> str:
    """The spelling used to compare names: kebab-case and snake_case are the same."""
    return name.replace("-", "_")


def split_keywords(who: str, args: list[Any]) -> tuple[list[Any], dict[str, Any]]:
    """(positional arguments, keyword name → value); keywords may come in any order."""
    positional: list[Any] = []
    keywords: dict[str, Any] = {}
    i = 0
    while i < len(args):
        item = args[i]
        if type(item) is Keyword:
            if i + 1 >= len(args):
                raise SchemeError(f"{who}: keyword #:{item.name} has no value", kind="arity-error")
            if item.name in keywords:
                raise SchemeError(f"{who}: keyword #:{item.name} given twice", kind="arity-error")
            keywords[item.name] = args[i + 1]
            i += 2
        else:
            positional.append(item)
            i += 1
    return positional, keywords


def check_keywords(who: str, keywords: dict[str, Any], allowed: list[str]) -> dict[str, Any]:
    """``keywords`` with snake_case names, after refusing any not in ``allowed``."""
    known = {normal_name(a): a for a in allowed}
    out = {}
    for name, value in keywords.items():
        if normal_name(name) not in known:
            listed = " ".join(f"#:{a}" for a in allowed)
            raise SchemeError(f"{who}: unknown keyword #:{name} (known: {listed})", kind="arity-error")
        out[normal_name(name)] = value
    return out


def key_name(key: Any) -> str:
    """A field or dict key as a Python string."""
    if type(key) in (Symbol, Keyword):
        return key.name
    if isinstance(key, (str, MString)):
        return str(key)
    return display_string(key)
