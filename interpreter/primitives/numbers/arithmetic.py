"""The tower's arithmetic: ``+ - * /`` over ints, Fractions, floats and complex numbers
(with the exact-digit limit), ``abs``, ``max``/``min`` and integer division (``quotient``,
``floor/``, ``gcd`` …)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ...bignum import max_bits
from ...datatypes import Values, values_of
from ..registry import primitive
from .checks import (
    INEXACT_TYPES,
    INF,
    as_int,
    check_integer,
    check_number,
    check_real,
    division_by_zero,
    norm,
    overflow_error,
    too_big_error,
)

# ----------------------------------------------------------------------------------
# arithmetic
# ----------------------------------------------------------------------------------
#: The types of a run of exact integers (``bool`` is not one).
_INT_ONLY = {int}


@primitive("+")
def add(a: Any = 0, b: Any = 0, *rest: Any) -> Any:
    """Sum of the arguments."""
    if type(a) is int and type(b) is int:
        if not rest:
            return a + b
        if set(map(type, rest)) == _INT_ONLY:  # (apply + numbers): summed in C, 130 -> 20 ns a number
            return sum(rest, a + b)
    total = check_number("+", a) + check_number("+", b)
    for x in rest:
        total += check_number("+", x)
    return norm(total)


@primitive("*")
def mul(a: Any = 1, b: Any = 1, *rest: Any) -> Any:
    """Product of the arguments."""
    # operands under 64 bits cannot make a too-large product
    if type(a) is int and type(b) is int and not rest and -0xFFFFFFFFFFFFFFFF < a < 0xFFFFFFFFFFFFFFFF:  # noqa: SIM102
        if 0xFFFFFFFFFFFFFFFF > b > -0xFFFFFFFFFFFFFFFF:
            return a * b
    total = check_number("*", a)
    for x in (b, *rest):
        _mul_guard(total, check_number("*", x))
        total = total * x
    return norm(total)


def _mul_guard(a: Any, b: Any) -> None:
    """Refuse products of exact numbers that would be too large."""
    if type(a) in INEXACT_TYPES or type(b) in INEXACT_TYPES or a == 0 or b == 0:
        return
    bits = _exact_bits(a) + _exact_bits(b)
    if bits > max_bits():
        raise too_big_error("*", bits)


def magnitude_bits(x: Any) -> float:
    """log2 of the larger of an exact number's numerator and denominator."""
    return max(math.log2(abs(x.numerator)), math.log2(x.denominator))


def _exact_bits(x: Any) -> int:
    if type(x) is int:
        return x.bit_length()
    return max(x.numerator.bit_length(), x.denominator.bit_length())


@primitive("-")
def sub(a: Any, b: Any = None, *rest: Any) -> Any:
    """Difference of the arguments; negation with one argument."""
    if type(a) is int and type(b) is int and not rest:
        return a - b
    if b is None:
        return -check_number("-", a)
    total = check_number("-", a) - check_number("-", b)
    for x in rest:
        total -= check_number("-", x)
    return norm(total)


def _div2(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if tb is float:
        if b == 0.0:
            if a == 0 or math.isnan(a):
                return math.nan
            return math.copysign(INF, a) * math.copysign(1.0, b)
        try:
            return a / b
        except OverflowError:
            raise overflow_error("/") from None
    if b == 0:
        raise division_by_zero("/")
    if ta is int and tb is int:
        if a % b == 0:
            return a // b
        return Fraction(a, b)
    try:
        return norm(a / b)
    except OverflowError:
        raise overflow_error("/") from None


@primitive("/")
def div(a: Any, b: Any = None, *rest: Any) -> Any:
    """Quotient of the arguments; reciprocal with one argument."""
    check_number("/", a)
    if b is None:
        return _div2(1, a)
    result = _div2(a, check_number("/", b))
    for x in rest:
        result = _div2(result, check_number("/", x))
    return result


@primitive("abs")
def scheme_abs(x: Any) -> Any:
    """Absolute value of a real number."""
    return abs(check_real("abs", x))


def _extremum(who: str, first: Any, rest: tuple[Any, ...], pick_max: bool) -> Any:
    best = check_real(who, first)
    inexact = type(best) is float
    for x in rest:
        check_real(who, x)
        if type(x) is float:
            inexact = True
            if math.isnan(x):
                best = x
                continue
        if type(best) is float and math.isnan(best):
            continue
        if (x > best) if pick_max else (x < best):
            best = x
    if inexact:
        try:
            return float(best)
        except OverflowError:
            return INF if best > 0 else -INF
    return best


@primitive("max")
def scheme_max(a: Any, *rest: Any) -> Any:
    """Largest argument; inexact if any argument is."""
    return _extremum("max", a, rest, True)


@primitive("min")
def scheme_min(a: Any, *rest: Any) -> Any:
    """Smallest argument; inexact if any argument is."""
    return _extremum("min", a, rest, False)


# ----------------------------------------------------------------------------------
# integer division
# ----------------------------------------------------------------------------------
def _int_args(who: str, a: Any, b: Any) -> bool:
    """Check both are integers and ``b`` is non-zero; True if the result is inexact."""
    check_integer(who, a)
    check_integer(who, b)
    if b == 0:
        raise division_by_zero(who)
    return type(a) is float or type(b) is float


def _trunc_div(a: int, b: int) -> tuple[int, int]:
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return q, a - b * q


def truncate_div(who: str, a: Any, b: Any) -> tuple[Any, Any]:
    """Quotient and remainder rounding toward zero."""
    inexact = _int_args(who, a, b)
    q, r = _trunc_div(as_int(a), as_int(b))
    return (float(q), float(r)) if inexact else (q, r)


def floor_div(who: str, a: Any, b: Any) -> tuple[Any, Any]:
    """Quotient and remainder rounding toward negative infinity."""
    inexact = _int_args(who, a, b)
    q, r = divmod(as_int(a), as_int(b))
    return (float(q), float(r)) if inexact else (q, r)


@primitive("quotient", "truncate-quotient")
def quotient(a: Any, b: Any) -> Any:
    """Integer quotient, truncated toward zero."""
    if type(a) is int and type(b) is int and b > 0 and a >= 0:
        return a // b
    return truncate_div("quotient", a, b)[0]


@primitive("remainder", "truncate-remainder")
def remainder(a: Any, b: Any) -> Any:
    """Remainder with the sign of the dividend."""
    if type(a) is int and type(b) is int and b > 0 and a >= 0:
        return a % b
    return truncate_div("remainder", a, b)[1]


@primitive("modulo", "floor-remainder")
def modulo(a: Any, b: Any) -> Any:
    """Remainder with the sign of the divisor."""
    if type(a) is int and type(b) is int and b != 0:
        return a % b
    return floor_div("modulo", a, b)[1]


@primitive("floor-quotient")
def floor_quotient(a: Any, b: Any) -> Any:
    """Integer quotient, rounded toward negative infinity."""
    return floor_div("floor-quotient", a, b)[0]


@primitive("floor/")
def floor_slash(a: Any, b: Any) -> Values:
    """Floor quotient and remainder as two values."""
    return values_of(list(floor_div("floor/", a, b)))


@primitive("truncate/")
def truncate_slash(a: Any, b: Any) -> Values:
    """Truncating quotient and remainder as two values."""
    return values_of(list(truncate_div("truncate/", a, b)))


@primitive("gcd")
def scheme_gcd(*xs: Any) -> Any:
    """Greatest common divisor (0 with no arguments)."""
    result = 0
    inexact = False
    for x in xs:
        check_integer("gcd", x)
        inexact = inexact or type(x) is float
        result = math.gcd(result, as_int(x))
    return float(result) if inexact else result


@primitive("lcm")
def scheme_lcm(*xs: Any) -> Any:
    """Least common multiple (1 with no arguments)."""
    result = 1
    inexact = False
    for x in xs:
        check_integer("lcm", x)
        inexact = inexact or type(x) is float
        n = as_int(x)
        if n == 0:
            result = 0
        elif result != 0:
            if result.bit_length() + n.bit_length() > max_bits():
                raise too_big_error("lcm", result.bit_length() + n.bit_length())
            result = math.lcm(result, n)
    return float(result) if inexact else result
