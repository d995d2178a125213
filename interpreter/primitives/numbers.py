"""Numeric primitives: the tower of ints, Fractions, floats and (inexact) complex numbers.

Also home of the small argument checks (numbers, indices, ranges) that the other
primitive modules share.
"""

from __future__ import annotations

import cmath
import math
from fractions import Fraction
from typing import Any

from ..bignum import BITS_PER_DIGIT, DIGITS, int_shown, int_to_decimal, max_bits
from ..datatypes import MString, Values, values_of
from ..errors import SchemeError, type_error
from ..limits import MAX_ELEMENTS
from ..memory import reserve
from ..number_syntax import (
    NumberTooLarge,
    complex_text,
    float_text,
    make_polar,
    make_rectangular,
    parse_prefixed_number,
)
from .registry import primitive

#: Largest vector / string / list a single allocation may make (see limits.py).
MAX_ALLOC = MAX_ELEMENTS

INF = math.inf
NUMBER_TYPES = (int, Fraction, float, complex)
_INEXACT = (float, complex)


# ----------------------------------------------------------------------------------
# shared argument checks
# ----------------------------------------------------------------------------------
def check_number(who: str, x: Any) -> Any:
    """Return ``x`` if it is a Scheme number (complex included), else raise a type error."""
    t = type(x)
    if t is int or t is float or t is Fraction or t is complex:
        return x
    raise type_error(who, "a number", x)


def check_real(who: str, x: Any) -> Any:
    """Return ``x`` if it is a real number (not complex), else raise a type error."""
    t = type(x)
    if t is int or t is float or t is Fraction:
        return x
    raise type_error(who, "a real number", x)


def check_integer(who: str, x: Any) -> Any:
    """An integer: an exact int or an integral float."""
    t = type(x)
    if t is int or (t is float and x.is_integer()):
        return x
    raise type_error(who, "an integer", x)


def check_exact_integer(who: str, x: Any) -> int:
    """An exact integer (Python ``int``, never ``bool``)."""
    if type(x) is int:
        return x
    raise type_error(who, "an exact integer", x)


def check_nonneg(who: str, x: Any) -> int:
    """A non-negative exact integer (counts, sizes)."""
    if type(x) is int and x >= 0:
        return x
    raise type_error(who, "a non-negative exact integer", x)


def check_size(who: str, x: Any) -> int:
    """A non-negative exact integer size no larger than :data:`MAX_ALLOC`."""
    n = check_nonneg(who, x)
    if n > MAX_ALLOC:
        raise SchemeError(f"{who}: size {int_shown(n)} is too large (limit {MAX_ALLOC})", kind="resource-exhaustion")
    reserve(n * 8)  # a vector slot; a list or string costs more, checked by the sampler
    return n


def check_index(who: str, k: Any, length: int, what: str) -> int:
    """An index valid for a sequence of ``length`` (``what`` names the sequence kind)."""
    if type(k) is not int:
        raise type_error(who, "an exact integer index", k)
    if not 0 <= k < length:
        raise SchemeError(f"{who}: index {int_shown(k)} out of range for {what} of length {length}", kind="index-error")
    return k


def check_range(who: str, start: Any, end: Any, length: int, what: str) -> tuple[int, int]:
    """Optional ``start``/``end`` (None for defaults) checked against ``length``."""
    s = 0 if start is None else start
    e = length if end is None else end
    if type(s) is not int:
        raise type_error(who, "an exact integer start index", s)
    if type(e) is not int:
        raise type_error(who, "an exact integer end index", e)
    if not 0 <= s <= length:
        raise SchemeError(
            f"{who}: start index {int_shown(s)} out of range for {what} of length {length}", kind="index-error"
        )
    if not s <= e <= length:
        shown = f"end index {int_shown(e)} out of range for {what} of length {length} (start {s})"
        raise SchemeError(f"{who}: {shown}", kind="index-error")
    return s, e


def norm(x: Any) -> Any:
    """Turn a Fraction with denominator 1 into an int."""
    if type(x) is Fraction and x.denominator == 1:
        return x.numerator
    return x


def _too_big(who: str, bits: int) -> SchemeError:
    """An exact result past ``max_digits`` (see bignum.py)."""
    limit = DIGITS.get()
    digits = int(bits / BITS_PER_DIGIT)
    return SchemeError(
        f"{who}: the result would have about {digits} digits (max_digits = {limit})",
        kind="resource-exhaustion",
        details={"resource": "digits", "limit": limit, "used": digits},
    )


def _overflow(who: str) -> SchemeError:
    return SchemeError(f"{who}: numeric overflow", kind="value-error")


def _div_zero(who: str) -> SchemeError:
    return SchemeError(f"{who}: division by zero", kind="division-by-zero")


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
    if type(a) in _INEXACT or type(b) in _INEXACT or a == 0 or b == 0:
        return
    bits = _exact_bits(a) + _exact_bits(b)
    if bits > max_bits():
        raise _too_big("*", bits)


def _magnitude_bits(x: Any) -> float:
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
            raise _overflow("/") from None
    if b == 0:
        raise _div_zero("/")
    if ta is int and tb is int:
        if a % b == 0:
            return a // b
        return Fraction(a, b)
    try:
        return norm(a / b)
    except OverflowError:
        raise _overflow("/") from None


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
        raise _div_zero(who)
    return type(a) is float or type(b) is float


def _trunc_div(a: int, b: int) -> tuple[int, int]:
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return q, a - b * q


def _as_int(x: Any) -> int:
    return x if type(x) is int else int(x)


def truncate_div(who: str, a: Any, b: Any) -> tuple[Any, Any]:
    """Quotient and remainder rounding toward zero."""
    inexact = _int_args(who, a, b)
    q, r = _trunc_div(_as_int(a), _as_int(b))
    return (float(q), float(r)) if inexact else (q, r)


def floor_div(who: str, a: Any, b: Any) -> tuple[Any, Any]:
    """Quotient and remainder rounding toward negative infinity."""
    inexact = _int_args(who, a, b)
    q, r = divmod(_as_int(a), _as_int(b))
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
        result = math.gcd(result, _as_int(x))
    return float(result) if inexact else result


@primitive("lcm")
def scheme_lcm(*xs: Any) -> Any:
    """Least common multiple (1 with no arguments)."""
    result = 1
    inexact = False
    for x in xs:
        check_integer("lcm", x)
        inexact = inexact or type(x) is float
        n = _as_int(x)
        if n == 0:
            result = 0
        elif result != 0:
            if result.bit_length() + n.bit_length() > max_bits():
                raise _too_big("lcm", result.bit_length() + n.bit_length())
            result = math.lcm(result, n)
    return float(result) if inexact else result


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
    return type(check_number("exact?", x)) not in _INEXACT


@primitive("inexact?")
def is_inexact(x: Any) -> bool:
    """True for inexact numbers."""
    return type(check_number("inexact?", x)) in _INEXACT


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
    return t not in _INEXACT or (math.isfinite(x) if t is float else cmath.isfinite(x))


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
    return _as_int(check_integer("odd?", x)) % 2 == 1


@primitive("even?")
def is_even(x: Any) -> bool:
    """True for even integers."""
    return _as_int(check_integer("even?", x)) % 2 == 0


# ----------------------------------------------------------------------------------
# exactness and rounding
# ----------------------------------------------------------------------------------
@primitive("exact", "inexact->exact")
def exact(x: Any) -> Any:
    """The exact number nearest ``x``."""
    t = type(check_number("exact", x))
    if t is complex:
        raise SchemeError(
            f"exact: {complex_text(x)} has no exact representation (complex numbers are always inexact here)",
            kind="value-error",
        )
    if t is not float:
        return x
    if not math.isfinite(x):
        raise SchemeError(f"exact: {float_text(x)} has no exact representation", kind="value-error")
    if x.is_integer():
        return int(x)
    return norm(Fraction(x))


@primitive("inexact", "exact->inexact")
def inexact(x: Any) -> Any:
    """The float nearest ``x`` (a complex number is already inexact)."""
    if type(check_number("inexact", x)) is complex:
        return x
    try:
        return float(x)
    except OverflowError:
        return INF if x > 0 else -INF


def _round_like(who: str, x: Any, fn: Any) -> Any:
    t = type(check_real(who, x))
    if t is int:
        return x
    if t is float:
        if not math.isfinite(x):
            return x
        return float(fn(x))
    return fn(x)


def _round_even(x: Any) -> int:
    return round(x)


@primitive("floor")
def scheme_floor(x: Any) -> Any:
    """Largest integer not above ``x``."""
    return _round_like("floor", x, math.floor)


@primitive("ceiling")
def scheme_ceiling(x: Any) -> Any:
    """Smallest integer not below ``x``."""
    return _round_like("ceiling", x, math.ceil)


@primitive("truncate")
def scheme_truncate(x: Any) -> Any:
    """``x`` rounded toward zero."""
    return _round_like("truncate", x, math.trunc)


@primitive("round")
def scheme_round(x: Any) -> Any:
    """``x`` rounded to the nearest integer, ties to even."""
    return _round_like("round", x, _round_even)


@primitive("numerator")
def numerator(x: Any) -> Any:
    """Numerator of ``x`` in lowest terms."""
    t = type(check_real("numerator", x))
    if t is float:
        return float(Fraction(exact(x)).numerator)
    return x if t is int else x.numerator


@primitive("denominator")
def denominator(x: Any) -> Any:
    """Denominator of ``x`` in lowest terms."""
    t = type(check_real("denominator", x))
    if t is float:
        return float(Fraction(exact(x)).denominator)
    return 1 if t is int else x.denominator


# ----------------------------------------------------------------------------------
# powers, roots, transcendental functions
# ----------------------------------------------------------------------------------
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
        raise _overflow("expt") from None
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
        raise _div_zero("expt")
    try:
        return complex(base) ** complex(power)
    except OverflowError:
        raise _overflow("expt") from None


def _exact_expt(base: Any, power: int) -> Any:
    if power == 0:
        return 1
    if base == 0:
        if power < 0:
            raise _div_zero("expt")
        return 0
    if base == 1:
        return 1
    if base == -1:
        return 1 if power % 2 == 0 else -1
    bits = abs(power) * _magnitude_bits(base)
    if bits > max_bits():
        raise _too_big("expt", bits)
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
            raise _div_zero(who)
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
        raise _div_zero("log")
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
        raise _div_zero("atan")
    return math.atan2(fy, fx)


# ----------------------------------------------------------------------------------
# number <-> string
# ----------------------------------------------------------------------------------
def _int_text(n: int, radix: int) -> str:
    if radix == 10:
        return int_to_decimal(n)
    sign = "-" if n < 0 else ""
    return sign + format(abs(n), {2: "b", 8: "o", 16: "x"}[radix])


def number_to_string(x: Any, radix: int = 10) -> str:
    """The external representation of a number (what ``write`` shows)."""
    t = type(x)
    if t is int:
        return _int_text(x, radix)
    if t is Fraction:
        return f"{_int_text(x.numerator, radix)}/{_int_text(x.denominator, radix)}"
    if t is complex:
        if radix != 10:
            raise SchemeError("number->string: complex numbers are only written in radix 10", kind="value-error")
        return complex_text(x)
    if radix != 10:
        if x.is_integer():
            return _int_text(int(x), radix) + "."
        raise SchemeError("number->string: inexact numbers are only written in radix 10", kind="value-error")
    return float_text(x)


@primitive("number->string")
def number_to_string_prim(x: Any, radix: Any = 10) -> MString:
    """The number as a string, in radix 2, 8, 10 or 16."""
    if type(x) is int and radix == 10 and type(radix) is int and -0xFFFFFFFFFFFFFFFF < x < 0xFFFFFFFFFFFFFFFF:
        return MString(str(x))  # the common case, without the checks' calls
    check_number("number->string", x)
    if radix not in (2, 8, 10, 16) or type(radix) is not int:
        raise SchemeError(f"number->string: radix must be 2, 8, 10 or 16, got {int_shown(radix)}", kind="value-error")
    return MString(number_to_string(x, radix))


@primitive("string->number")
def string_to_number(text: Any, radix: Any = 10) -> Any:
    """Parse a number (with optional #x #b #o #d #e #i prefixes; complex too); #f if not a number."""
    from ..datatypes import is_string

    if not is_string(text):
        raise type_error("string->number", "a string", text)
    if radix not in (2, 8, 10, 16) or type(radix) is not int:
        raise SchemeError(f"string->number: radix must be 2, 8, 10 or 16, got {int_shown(radix)}", kind="value-error")
    try:
        value = parse_prefixed_number(str(text), radix)
    except NumberTooLarge as exc:
        raise SchemeError(f"string->number: {exc}", kind="resource-exhaustion") from None
    except (ZeroDivisionError, OverflowError, ValueError):
        return False
    return False if value is None else value


# -- R7RS additions: rationalize, and the real-number face of (scheme complex) ---------------
def _simplest_between(lo: Fraction, hi: Fraction) -> Fraction:
    """The rational with the smallest denominator in [lo, hi] (0 <= lo <= hi)."""
    fl = math.floor(lo)
    if fl == lo:
        return Fraction(fl)
    if fl < math.floor(hi):
        return Fraction(fl + 1)
    rest = _simplest_between(1 / (hi - fl), 1 / (lo - fl))
    return fl + 1 / rest


@primitive("rationalize")
def rationalize(x: Any, y: Any) -> Any:
    """The simplest rational number differing from x by no more than y."""
    check_real("rationalize", x)
    check_real("rationalize", y)
    inexact_result = isinstance(x, float) or isinstance(y, float)
    if inexact_result and (math.isnan(x) or math.isnan(y)):
        return math.nan
    if inexact_result and math.isinf(y):
        return 0.0 if not math.isinf(x) else math.nan
    if inexact_result and math.isinf(x):
        return x
    fx, fy = Fraction(x), abs(Fraction(y))
    lo, hi = fx - fy, fx + fy
    if lo <= 0 <= hi:
        result = Fraction(0)
    elif hi < 0:
        result = -_simplest_between(-hi, -lo)
    else:
        result = _simplest_between(lo, hi)
    return float(result) if inexact_result else norm(result)


@primitive("make-rectangular")
def make_rectangular_prim(x: Any, y: Any) -> Any:
    """The number ``x + y i``; a real number when ``y`` is an exact 0."""
    return make_rectangular(check_real("make-rectangular", x), check_real("make-rectangular", y))


@primitive("make-polar")
def make_polar_prim(magnitude: Any, angle: Any) -> Any:
    """The number with this magnitude and angle (radians); a real number when the angle is an exact 0."""
    return make_polar(check_real("make-polar", magnitude), check_real("make-polar", angle))


@primitive("real-part")
def real_part(z: Any) -> Any:
    """The real part of ``z`` (``z`` itself for a real number)."""
    return z.real if type(check_number("real-part", z)) is complex else z


@primitive("imag-part")
def imag_part(z: Any) -> Any:
    """The imaginary part of ``z`` (an exact 0 for a real number)."""
    return z.imag if type(check_number("imag-part", z)) is complex else 0


@primitive("magnitude")
def magnitude(z: Any) -> Any:
    """The distance of ``z`` from 0 (``abs`` for a real number)."""
    return abs(check_number("magnitude", z))


@primitive("angle")
def angle(z: Any) -> Any:
    """The angle of ``z`` in radians: 0 for positive reals, pi for negative ones."""
    if type(check_number("angle", z)) is complex:
        return cmath.phase(z)
    if type(z) is float:
        return math.atan2(0.0, z)
    return math.pi if z < 0 else 0
