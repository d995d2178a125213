"""``eq?``, ``eqv?`` and ``equal?`` on Scheme values (iterative, so deep data is fine)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from .datatypes import Char, MString, Pair, Record
from .polling import poll_limits

#: The types whose values ``eqv?`` compares by value; any other two objects are ``eqv?``
#: only if they are the same object (compiled ``eq?``/``eqv?`` test identity first and
#: call :func:`is_eqv` only for these).
EQV_BY_VALUE = frozenset({int, float, Fraction, Char, complex, str})


def is_eqv(a: Any, b: Any) -> bool:
    """``eqv?``: identity, or the same number of the same exactness, or the same char."""
    if a is b:
        return True
    ta = type(a)
    if ta is not type(b):
        return False
    if ta is float:
        return a == b and (a != 0.0 or math.copysign(1.0, a) == math.copysign(1.0, b))
    if ta is int or ta is Fraction or ta is Char:
        return a == b
    if ta is complex:
        return is_eqv(a.real, b.real) and is_eqv(a.imag, b.imag)
    if ta is str:
        return a == "" and b == ""
    return False


def is_eq(a: Any, b: Any) -> bool:
    """``eq?``: like ``eqv?`` here (small numbers and chars are eq? in most Schemes)."""
    return is_eqv(a, b)


#: Containers compared before ``is_equal`` starts remembering the pairs it has met.
TRACK_AFTER = 10_000
CONTAINERS = (Pair, list, Record)


def is_equal(a: Any, b: Any) -> bool:
    """``equal?``: structural equality of pairs, vectors, strings, bytevectors, records."""
    stack = [(a, b)]
    compared = 0
    seen: set[int] | None = None
    while stack:
        x, y = stack.pop()
        if x is y:
            continue
        tx, ty = type(x), type(y)
        if tx in CONTAINERS and ty is tx:
            # Past a budget, remember the container pairs met: a pair met again is
            # being (or has been) compared already, so circular and shared structure
            # finish, and circular values that unfold alike are equal (R7RS).
            compared += 1
            if compared & 0xFFFF == 0:  # long structures: the time limit reaches into equal?
                poll_limits()
            if compared > TRACK_AFTER:
                seen = set() if seen is None else seen
                key = id(x) << 64 | id(y)  # an int, not a tuple: the collector does not scan ints
                if key in seen:
                    continue
                seen.add(key)
        if tx is Pair and ty is Pair:
            stack.append((x.cdr, y.cdr))
            stack.append((x.car, y.car))
        elif tx is list and ty is list:
            if len(x) != len(y):
                return False
            stack.extend(zip(reversed(x), reversed(y)))
        elif (tx is str or tx is MString) and (ty is str or ty is MString):
            if str(x) != str(y):
                return False
        elif tx is bytearray and ty is bytearray:
            if x != y:
                return False
        elif tx is Record and ty is Record:
            if x.rtype is not y.rtype or len(x.values) != len(y.values):
                return False
            stack.extend(zip(x.values, y.values))
        elif not is_eqv(x, y):
            if hasattr(x, "scheme_equal"):
                if not x.scheme_equal(y):
                    return False
            else:
                return False
    return True
