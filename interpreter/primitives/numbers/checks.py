"""What every numeric primitive shares: the tower's types, the argument checks (numbers,
sizes, indices, ranges; the other primitive modules use them too) and the errors for
results too large, overflow and division by zero."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ...bignum import BITS_PER_DIGIT, DIGITS, int_shown, int_to_decimal
from ...errors import SchemeError, type_error
from ...limits import MAX_ELEMENTS
from ...memory import reserve
from ...number_syntax import complex_text, float_text

#: Largest vector / string / list a single allocation may make (see limits.py).
MAX_ALLOC = MAX_ELEMENTS

INF = math.inf
NUMBER_TYPES = (int, Fraction, float, complex)
INEXACT_TYPES = (float, complex)


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


def too_big_error(who: str, bits: int) -> SchemeError:
    """An exact result past ``max_digits`` (see bignum.py)."""
    limit = DIGITS.get()
    digits = int(bits / BITS_PER_DIGIT)
    return SchemeError(
        f"{who}: the result would have about {digits} digits (max_digits = {limit})",
        kind="resource-exhaustion",
        details={"resource": "digits", "limit": limit, "used": digits},
    )


def overflow_error(who: str) -> SchemeError:
    return SchemeError(f"{who}: numeric overflow", kind="value-error")


def division_by_zero(who: str) -> SchemeError:
    return SchemeError(f"{who}: division by zero", kind="division-by-zero")


def as_int(x: Any) -> int:
    """An integer-valued number as an ``int``."""
    return x if type(x) is int else int(x)


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
