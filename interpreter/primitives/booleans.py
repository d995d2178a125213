"""Booleans and the equivalence predicates ``eq?``, ``eqv?``, ``equal?``."""

from __future__ import annotations

from typing import Any

from ..datatypes import MString
from ..equality import is_eq, is_equal, is_eqv
from ..errors import type_error
from .registry import primitive


@primitive("not")
def scheme_not(x: Any) -> bool:
    """True only for #f."""
    return x is False


@primitive("boolean?")
def is_boolean(x: Any) -> bool:
    """True for #t and #f."""
    return x is True or x is False


@primitive("boolean=?")
def boolean_eq(a: Any, b: Any, *rest: Any) -> bool:
    """True if all arguments are the same boolean."""
    for x in (a, b, *rest):
        if x is not True and x is not False:
            raise type_error("boolean=?", "a boolean", x)
    return all(x is a for x in (b, *rest))


@primitive("eq?")
def eq_p(a: Any, b: Any) -> bool:
    """Identity (numbers and characters compare by value)."""
    return a is b or is_eq(a, b)


@primitive("eqv?")
def eqv_p(a: Any, b: Any) -> bool:
    """Identity, or the same number of the same exactness, or the same character."""
    return a is b or is_eqv(a, b)


@primitive("equal?")
def equal_p(a: Any, b: Any) -> bool:
    """Structural equality of pairs, vectors, strings and bytevectors."""
    if a is b:
        return True
    ta, tb = type(a), type(b)
    if ta is MString or ta is str:  # two strings: their texts, without is_equal's walk
        if tb is MString or tb is str:
            return (a if ta is str else a.text if a.text is not None else str(a)) == (
                b if tb is str else b.text if b.text is not None else str(b)
            )
        return False
    if ta is int and tb is int:
        return a == b
    return is_equal(a, b)
