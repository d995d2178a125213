"""Pairs: ``cons``, ``car``, ``cdr``, the ``c[ad]r`` compositions and the pair setters."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from ...datatypes import PAIR_WRITE_TICKS, PAIR_WRITES, VOID, Pair
from ...errors import SchemeError, type_error
from ..registry import primitive


# ----------------------------------------------------------------------------------
# pairs and c[ad]r
# ----------------------------------------------------------------------------------
@primitive("cons")
def scheme_cons(a: Any, b: Any) -> Pair:
    """A new pair."""
    p = Pair()
    p.car = a
    p.cdr = b
    return p


@primitive("car")
def car(x: Any) -> Any:
    """First element of a pair."""
    if type(x) is Pair:
        return x.car
    raise type_error("car", "a pair", x)


@primitive("cdr")
def cdr(x: Any) -> Any:
    """Second element of a pair."""
    if type(x) is Pair:
        return x.cdr
    raise type_error("cdr", "a pair", x)


def _cxr_error(name: str, original: Any) -> SchemeError:
    if type(original) is not Pair:
        return type_error(name, "a pair", original)
    return type_error(name, f"a structure that has a {name}", original)


def _make_cxr(name: str) -> Callable[[Any], Any]:
    path = name[-2:0:-1]  # operations in the order they apply

    def cxr(x: Any) -> Any:
        v = x
        for op in path:
            if type(v) is not Pair:
                raise _cxr_error(name, x)
            v = v.car if op == "a" else v.cdr
        return v

    cxr.__doc__ = f"The {name} of a list structure."
    cxr.__name__ = name
    return cxr


for _n in (2, 3, 4):
    for _ops in itertools.product("ad", repeat=_n):
        _name = "c" + "".join(_ops) + "r"
        primitive(_name)(_make_cxr(_name))


@primitive("cadr")
def cadr(x: Any) -> Any:
    """Second element of a list."""
    if type(x) is Pair and type(x.cdr) is Pair:
        return x.cdr.car
    raise _cxr_error("cadr", x)


@primitive("cddr")
def cddr(x: Any) -> Any:
    """A list without its first two elements."""
    if type(x) is Pair and type(x.cdr) is Pair:
        return x.cdr.cdr
    raise _cxr_error("cddr", x)


@primitive("caar")
def caar(x: Any) -> Any:
    """The car of the car."""
    if type(x) is Pair and type(x.car) is Pair:
        return x.car.car
    raise _cxr_error("caar", x)


@primitive("set-car!")
def set_car(p: Any, x: Any) -> Any:
    """Replace the car of a pair."""
    if type(p) is not Pair:
        raise type_error("set-car!", "a pair", p)
    p.car = x
    PAIR_WRITES[0] = next(PAIR_WRITE_TICKS)
    return VOID


@primitive("set-cdr!")
def set_cdr(p: Any, x: Any) -> Any:
    """Replace the cdr of a pair."""
    if type(p) is not Pair:
        raise type_error("set-cdr!", "a pair", p)
    p.cdr = x
    PAIR_WRITES[0] = next(PAIR_WRITE_TICKS)
    return VOID
