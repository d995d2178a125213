"""Symbols: conversion to and from strings, comparison and fresh symbols."""

from __future__ import annotations

from typing import Any

from ..datatypes import Symbol, gensym, is_string
from ..errors import type_error
from .registry import primitive


def check_symbol(who: str, x: Any) -> Symbol:
    """Return ``x`` if it is a symbol, else raise a type error."""
    if type(x) is Symbol:
        return x
    raise type_error(who, "a symbol", x)


@primitive("symbol?")
def is_symbol(x: Any) -> bool:
    """True for symbols."""
    return type(x) is Symbol


@primitive("symbol->string")
def symbol_to_string(s: Any) -> str:
    """The name of a symbol."""
    return check_symbol("symbol->string", s).name


@primitive("string->symbol", "intern")
def string_to_symbol(s: Any) -> Symbol:
    """The interned symbol with the given name."""
    if not is_string(s):
        raise type_error("string->symbol", "a string", s)
    return Symbol.intern(str(s))


@primitive("string->uninterned-symbol")
def string_to_uninterned_symbol(s: Any) -> Symbol:
    """A fresh symbol with the given name that is not ``eq?`` to any other."""
    if not is_string(s):
        raise type_error("string->uninterned-symbol", "a string", s)
    return Symbol(str(s))


@primitive("symbol-append")
def symbol_append(*syms: Any) -> Symbol:
    """The interned symbol whose name joins the names of the arguments."""
    return Symbol.intern("".join(check_symbol("symbol-append", s).name for s in syms))


@primitive("gensym", "generate-uninterned-symbol")
def scheme_gensym(prefix: Any = None) -> Symbol:
    """A fresh uninterned symbol, named from an optional string or symbol prefix."""
    if prefix is None:
        return gensym()
    if type(prefix) is Symbol:
        return gensym(prefix.name)
    if is_string(prefix):
        return gensym(str(prefix))
    raise type_error("gensym", "a string or symbol prefix", prefix)


def _chain(who: str, syms: tuple[Any, ...], ok: Any) -> bool:
    names = [check_symbol(who, s).name for s in syms]
    if who == "symbol=?":
        return all(syms[i] is syms[i + 1] for i in range(len(syms) - 1))
    return all(ok(names[i], names[i + 1]) for i in range(len(names) - 1))


@primitive("symbol=?")
def symbol_eq(a: Any, b: Any, *rest: Any) -> bool:
    """True if all arguments are the same symbol."""
    return _chain("symbol=?", (a, b, *rest), None)


@primitive("symbol<?")
def symbol_lt(a: Any, b: Any, *rest: Any) -> bool:
    """True if the names are in strictly increasing order."""
    return _chain("symbol<?", (a, b, *rest), lambda x, y: x < y)
