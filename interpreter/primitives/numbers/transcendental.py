"""Powers, roots and the transcendental functions: ``square``, ``sqrt``, ``expt``, ``exp``,
``log`` and the trigonometric functions, exact where the result is exact."""

from __future__ import annotations

import cmath
import math
from fractions import Fraction
from typing import Any

from ...bignum import max_bits
from ...datatypes import Values, values_of
from ...errors import SchemeError
from ...number_syntax import make_rectangular
from ..registry import primitive
from .arithmetic import magnitude_bits, mul
from .checks import (
    INF,
    check_nonneg,
    check_number,
    check_real,
    division_by_zero,
    norm,
    number_to_string,
    overflow_error,
    too_big_error,
)


@primitive("square")
def square(x: Any) -> Any:
    """``x`` times ``x``."""
    return mul(x, x)


def _exact_root(n: int) -> int | None:
    """The integer square root of ``n`` if ``n`` is a perfect square, else None."""
    s = math.isqrt(n)
    return s if s * s == n else None


@primitive("sqrt")
def scheme_sqrt(x: Any) -> Any:
    """Square root; exact for exact perfect squares, complex for negative numbers."""
    t = type(check_number("sqrt", x))
    if t is complex:
        return cmath.sqrt(x)
    if x < 0:
        root = scheme_sqrt(-x)
        return make_rectangular(0, root) if type(root) is not float else complex(0.0, root)
    if t is int:
        root = _exact_root(x)
        if root is not None:
            return root
    elif t is Fraction:
        num, den = _exact_root(x.numerator), _exact_root(x.denominator)
        if num is not None and den is not None:
            return Fraction(num, den)
    return _float_sqrt(x)


def _float_sqrt(x: Any) -> float:
    try:
        return math.sqrt(x)
    except OverflowError:
        # huge exact integer: go through the integer square root
        return float(math.isqrt(int(x)))


@primitive("exact-integer-sqrt")
def exact_integer_sqrt(n: Any) -> Values:
    """``s`` and ``n - s*s`` where ``s`` is the integer square root of ``n``."""
    check_nonneg("exact-integer-sqrt", n)
    s = math.isqrt(n)
    return values_of([s, n - s * s])


@primitive("expt")
def expt(base: Any, power: Any) -> Any:
    """``base`` raised to ``power``; complex when ``base`` is negative and ``power`` not an integer."""
    check_number("expt", base)
    check_number("expt", power)
    tb, tp = type(base), type(power)
    if tb is complex or tp is complex:
        return _complex_expt(base, power)
    if tp is int and tb is not float:
        return _exact_expt(base, power)
    if tp is Fraction and tb is not float and base >= 0:
        root = _exact_rational_root(base, power)
        if root is not None:
            return root
    try:
        fb, fp = float(base), float(power)
    except OverflowError:
        raise overflow_error("expt") from None
    if fb < 0 and not fp.is_integer():
        return _complex_expt(fb, fp)
    try:
        return fb**fp
    except ZeroDivisionError:
        return INF
    except OverflowError:
        return INF if fb > 0 or fp % 2 == 0 else -INF


def _complex_expt(base: Any, power: Any) -> Any:
    if base == 0:
        if power == 0:
            return 1 if type(base) is int and type(power) is int else 1.0
        if power.real > 0:
            return 0.0 if type(base) is not int else 0
        raise division_by_zero("expt")
    try:
        return complex(base) ** complex(power)
    except OverflowError:
        raise overflow_error("expt") from None


def _exact_expt(base: Any, power: int) -> Any:
    if power == 0:
        return 1
    if base == 0:
        if power < 0:
            raise division_by_zero("expt")
        return 0
    if base == 1:
        return 1
    if base == -1:
        return 1 if power % 2 == 0 else -1
    bits = abs(power) * magnitude_bits(base)
    if bits > max_bits():
        raise too_big_error("expt", bits)
    if power < 0:
        return norm(Fraction(1) / (Fraction(base) ** -power))
    return norm(Fraction(base) ** power) if type(base) is Fraction else base**power


def _exact_rational_root(base: Any, power: Fraction) -> Any:
    """``base ** (p/q)`` exactly when ``base`` is a perfect q-th power, else None."""
    q = power.denominator
    if q > 64:
        return None
    parts = []
    for n in (Fraction(base).numerator, Fraction(base).denominator):
        r = round(n ** (1.0 / q)) if n.bit_length() < 1000 else None
        if r is None or r**q != n:
            return None
        parts.append(r)
    return _exact_expt(Fraction(parts[0], parts[1]) if parts[1] != 1 else parts[0], power.numerator)


def _float_arg(who: str, x: Any) -> float:
    check_real(who, x)
    try:
        return float(x)
    except OverflowError:
        return INF if x > 0 else -INF


@primitive("exp")
def scheme_exp(x: Any) -> Any:
    """e raised to ``x``."""
    if type(x) is int and x == 0:
        return 1
    if type(x) is complex:
        return _complex_fn("exp", cmath.exp, x)
    try:
        return math.exp(_float_arg("exp", x))
    except OverflowError:
        return INF


def _log1(who: str, x: Any) -> Any:
    check_number(who, x)
    if type(x) is complex or x < 0:
        if x == 0:
            raise division_by_zero(who)
        return cmath.log(x if type(x) is complex else _float_arg(who, x))
    if x == 0:
        return -INF
    if type(x) is int:
        return math.log(x)
    if type(x) is Fraction:
        return math.log(x.numerator) - math.log(x.denominator)
    return math.log(x)


@primitive("log")
def scheme_log(x: Any, base: Any = None) -> Any:
    """Natural logarithm, or logarithm to ``base``."""
    if type(x) is int and x == 1 and base is None:
        return 0
    if base is None:
        return _log1("log", x)
    denom = _log1("log", base)
    if denom == 0:
        raise division_by_zero("log")
    return _log1("log", x) / denom


def _complex_fn(who: str, fn: Any, z: Any) -> Any:
    try:
        return fn(z)
    except (ValueError, OverflowError, ZeroDivisionError):
        raise SchemeError(f"{who}: argument {number_to_string(z)} out of domain", kind="value-error") from None


#: The complex-plane versions of the real functions (asin and acos leave [-1, 1] for them).
_CMATH = {name: getattr(cmath, name) for name in ("sin", "cos", "tan", "asin", "acos", "atan")}


def _trig(who: str, fn: Any, x: Any) -> Any:
    if type(x) is complex:
        return _complex_fn(who, _CMATH[who], x)
    f = _float_arg(who, x)
    if who in ("asin", "acos") and abs(f) > 1:
        return _complex_fn(who, _CMATH[who], complex(f))
    try:
        return fn(f)
    except ValueError:
        raise SchemeError(f"{who}: argument {number_to_string(x)} out of domain", kind="value-error") from None


@primitive("sin")
def scheme_sin(x: Any) -> Any:
    """Sine."""
    return 0 if type(x) is int and x == 0 else _trig("sin", math.sin, x)


@primitive("cos")
def scheme_cos(x: Any) -> Any:
    """Cosine."""
    return 1 if type(x) is int and x == 0 else _trig("cos", math.cos, x)


@primitive("tan")
def scheme_tan(x: Any) -> Any:
    """Tangent."""
    return 0 if type(x) is int and x == 0 else _trig("tan", math.tan, x)


@primitive("asin")
def scheme_asin(x: Any) -> Any:
    """Arc sine."""
    return 0 if type(x) is int and x == 0 else _trig("asin", math.asin, x)


@primitive("acos")
def scheme_acos(x: Any) -> Any:
    """Arc cosine."""
    return 0 if type(x) is int and x == 1 else _trig("acos", math.acos, x)


@primitive("atan")
def scheme_atan(y: Any, x: Any = None) -> Any:
    """Arc tangent of ``y``, or of ``y/x`` using the signs of both."""
    if x is None:
        return 0 if type(y) is int and y == 0 else _trig("atan", math.atan, y)
    fy, fx = _float_arg("atan", y), _float_arg("atan", x)
    if type(x) is not float and type(y) is not float and x == 0 and y == 0:
        raise division_by_zero("atan")
    return math.atan2(fy, fx)
