"""Booleans and the equivalence predicates ``eq?``, ``eqv?``, ``equal?``."""

from __future__ import annotations

from typing import Any

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
    return a is b or is_equal(a, b)
