"""Comparing numbers (``= < > <= >=``, n-ary) and the numeric predicates (``number?``,
``exact?``, ``zero?``, ``even?`` …)."""

from __future__ import annotations

import cmath
import math
from fractions import Fraction
from typing import Any

from ..registry import primitive
from .checks import INEXACT_TYPES, as_int, check_integer, check_number, check_real


# ----------------------------------------------------------------------------------
# comparison (n-ary, at least one argument)
# ----------------------------------------------------------------------------------
def _compare_chain(who: str, args: tuple[Any, ...], op: Any) -> bool:
    for x in args:
        check_real(who, x)
    return all(op(args[i], args[i + 1]) for i in range(len(args) - 1))


@primitive("=")
def num_eq(a: Any, b: Any = None, *rest: Any) -> bool:
    """True if all arguments are numerically equal."""
    if type(a) is int and type(b) is int and not rest:
        return a == b
    if not rest:
        if b is None:
            check_number("=", a)
            return True
        return check_number("=", a) == check_number("=", b)
    for x in (a, b, *rest):
        check_number("=", x)
    return all((a, b, *rest)[i] == (a, b, *rest)[i + 1] for i in range(len(rest) + 1))


@primitive("<")
def num_lt(a: Any, b: Any = None, *rest: Any) -> bool:
    """True if the arguments are strictly increasing."""
    if type(a) is int and type(b) is int and not rest:
        return a < b
    if not rest:
        if b is None:
            check_real("<", a)
            return True
        return check_real("<", a) < check_real("<", b)
    return _compare_chain("<", (a, b, *rest), lambda x, y: x < y)


@primitive(">")
def num_gt(a: Any, b: Any = None, *rest: Any) -> bool:
    """True if the arguments are strictly decreasing."""
    if type(a) is int and type(b) is int and not rest:
        return a > b
    if not rest:
        if b is None:
            check_real(">", a)
            return True
        return check_real(">", a) > check_real(">", b)
    return _compare_chain(">", (a, b, *rest), lambda x, y: x > y)


@primitive("<=")
def num_le(a: Any, b: Any = None, *rest: Any) -> bool:
    """True if the arguments are non-decreasing."""
    if type(a) is int and type(b) is int and not rest:
        return a <= b
    if not rest:
        if b is None:
            check_real("<=", a)
            return True
        return check_real("<=", a) <= check_real("<=", b)
    return _compare_chain("<=", (a, b, *rest), lambda x, y: x <= y)


@primitive(">=")
def num_ge(a: Any, b: Any = None, *rest: Any) -> bool:
    """True if the arguments are non-increasing."""
    if type(a) is int and type(b) is int and not rest:
        return a >= b
    if not rest:
        if b is None:
            check_real(">=", a)
            return True
        return check_real(">=", a) >= check_real(">=", b)
    return _compare_chain(">=", (a, b, *rest), lambda x, y: x >= y)


# ----------------------------------------------------------------------------------
# predicates
# ----------------------------------------------------------------------------------
@primitive("number?", "complex?")
def is_number_p(x: Any) -> bool:
    """True for any number."""
    t = type(x)
    return t is int or t is float or t is Fraction or t is complex


@primitive("real?")
def is_real_p(x: Any) -> bool:
    """True for real numbers: every number but a complex one."""
    t = type(x)
    return t is int or t is float or t is Fraction


@primitive("rational?")
def is_rational(x: Any) -> bool:
    """True for exact numbers and finite floats."""
    t = type(x)
    return t is int or t is Fraction or (t is float and math.isfinite(x))


@primitive("integer?")
def is_integer(x: Any) -> bool:
    """True for exact integers and integral floats."""
    t = type(x)
    return t is int or (t is float and x.is_integer())


@primitive("exact-integer?")
def is_exact_integer(x: Any) -> bool:
    """True for exact integers."""
    return type(x) is int


@primitive("exact-rational?")
def is_exact_rational(x: Any) -> bool:
    """True for exact integers and fractions."""
    return type(x) is int or type(x) is Fraction


@primitive("exact-nonnegative-integer?")
def is_exact_nonneg(x: Any) -> bool:
    """True for exact integers >= 0."""
    return type(x) is int and x >= 0


@primitive("exact?")
def is_exact(x: Any) -> bool:
    """True for exact numbers."""
    return type(check_number("exact?", x)) not in INEXACT_TYPES


@primitive("inexact?")
def is_inexact(x: Any) -> bool:
    """True for inexact numbers."""
    return type(check_number("inexact?", x)) in INEXACT_TYPES


@primitive("nan?")
def is_nan(x: Any) -> bool:
    """True for the float NaN (or a complex number with a NaN part)."""
    t = type(check_number("nan?", x))
    return (t is float and math.isnan(x)) or (t is complex and cmath.isnan(x))


@primitive("infinite?")
def is_infinite(x: Any) -> bool:
    """True for +inf.0 and -inf.0 (or a complex number with an infinite part)."""
    t = type(check_number("infinite?", x))
    return (t is float and math.isinf(x)) or (t is complex and cmath.isinf(x))


@primitive("finite?")
def is_finite(x: Any) -> bool:
    """True for every number that is neither infinite nor NaN."""
    t = type(check_number("finite?", x))
    return t not in INEXACT_TYPES or (math.isfinite(x) if t is float else cmath.isfinite(x))


@primitive("zero?")
def is_zero(x: Any) -> bool:
    """True for 0 and 0.0."""
    if type(x) is int:
        return x == 0
    return check_number("zero?", x) == 0


@primitive("positive?")
def is_positive(x: Any) -> bool:
    """True for numbers > 0."""
    return check_real("positive?", x) > 0


@primitive("negative?")
def is_negative(x: Any) -> bool:
    """True for numbers < 0."""
    return check_real("negative?", x) < 0


@primitive("odd?")
def is_odd(x: Any) -> bool:
    """True for odd integers."""
    return as_int(check_integer("odd?", x)) % 2 == 1


@primitive("even?")
def is_even(x: Any) -> bool:
    """True for even integers."""
    return as_int(check_integer("even?", x)) % 2 == 0
