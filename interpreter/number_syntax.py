"""The written form of numbers, both ways: text to number (reader, ``string->number``) and back.

Reals are ``int``, ``Fraction`` and ``float``. Complex numbers are Python ``complex``:
both parts are floats, so every non-real number is inexact (``#e1+2i`` is refused), and
``1+0i`` with an exact zero imaginary part is the real ``1``.
"""

from __future__ import annotations

import cmath
import math
import re
from fractions import Fraction
from typing import Any

from .bignum import NumberTooLarge as NumberTooLarge  # raised by decimal_fraction, digits_to_int
from .bignum import decimal_fraction, digits_to_int

_RADIX_LETTERS = {"x": 16, "o": 8, "b": 2, "d": 10}
_DIGITS = {2: "[01]", 8: "[0-7]", 10: "[0-9]", 16: "[0-9a-fA-F]"}
_INTEGER_RE = {r: re.compile(f"[+-]?{d}+") for r, d in _DIGITS.items()}
_RATIO_RE = {r: re.compile(f"[+-]?{d}+/{d}+") for r, d in _DIGITS.items()}
#: A decimal with an optional exponent; R7RS also allows the markers s f d l for e. No nested
#: quantifiers (`\d+\.?\d*` backtracks quadratically on a long digit run that fails to match).
_DECIMAL_RE = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eEsSfFdDlL][+-]?\d+)?")
_EXPONENT_MARKERS = str.maketrans("EsSfFdDlL", "eeeeeeeee")
#: Read case-insensitively: +inf.0, +INF.0 and +Inf.0 are one number.
_SPECIAL_FLOATS = {"+inf.0": float("inf"), "-inf.0": float("-inf"), "+nan.0": float("nan"), "-nan.0": float("nan")}
#: Characters that can begin a number written without a ``#`` prefix.
NUMBER_START = frozenset("+-.0123456789")


def _exact_or_int(value: Fraction) -> int | Fraction:
    """A Fraction with denominator 1 is an int."""
    return value.numerator if value.denominator == 1 else value


def parse_real(text: str, radix: int = 10, exactness: str | None = None) -> int | Fraction | float | None:
    """The real number ``text`` denotes (no ``#`` prefixes), or None if it is not one.

    ``exactness`` is ``"e"``, ``"i"`` or None. Raises ZeroDivisionError / OverflowError
    for ``1/0`` and exact infinities.
    """
    value: int | Fraction | float
    special = _SPECIAL_FLOATS.get(text.lower()) if len(text) == 6 else None
    if special is not None:
        if exactness == "e":
            raise OverflowError("no exact infinity or NaN")
        return special
    if _INTEGER_RE[radix].fullmatch(text):
        value = digits_to_int(text, radix)
    elif _RATIO_RE[radix].fullmatch(text):
        num, den = text.split("/")
        value = _exact_or_int(Fraction(digits_to_int(num, radix), digits_to_int(den, radix)))
    elif radix == 10 and _DECIMAL_RE.fullmatch(text):
        text = text.translate(_EXPONENT_MARKERS)
        if exactness == "e":  # decimal_fraction refuses one past max_digits (NumberTooLarge)
            return _exact_or_int(decimal_fraction(text))
        return float(text)
    else:
        return None
    return float(value) if exactness == "i" else value


def make_rectangular(re_part: Any, im_part: Any) -> Any:
    """The number ``re + im i``: a real when ``im`` is an exact 0, else an (inexact) complex."""
    if type(im_part) is int and im_part == 0:
        return re_part
    return complex(float(re_part), float(im_part))


def make_polar(magnitude: Any, angle: Any) -> Any:
    """The number with this magnitude and angle: a real when ``angle`` is an exact 0."""
    if type(angle) is int and angle == 0:
        return magnitude
    return cmath.rect(float(magnitude), float(angle))


def _parse_complex(text: str, radix: int, exactness: str | None) -> Any:
    """``a+bi``, ``+i``, ``-2.5i`` or ``r@theta``; None if ``text`` is none of them."""
    part_exactness = None if exactness == "i" else exactness  # #i1+0i is 1.0: convert the whole
    if "@" in text:
        mag_text, _, angle_text = text.partition("@")
        magnitude, angle = parse_real(mag_text, radix, part_exactness), parse_real(angle_text, radix, part_exactness)
        if magnitude is None or angle is None:
            return None
        return _exact_complex(make_polar(magnitude, angle), exactness)
    if text[-1] not in "iI":
        return None
    body = text[:-1]
    for i in range(len(body) - 1, -1, -1):
        if body[i] not in "+-":
            continue
        im_text, re_text = body[i:], body[:i]
        im_part = (1 if im_text == "+" else -1) if len(im_text) == 1 else parse_real(im_text, radix, part_exactness)
        re_part = parse_real(re_text, radix, part_exactness) if re_text else 0
        if im_part is not None and re_part is not None:
            return _exact_complex(make_rectangular(re_part, im_part), exactness)
    return None


def _exact_complex(value: Any, exactness: str | None) -> Any:
    if exactness == "e" and type(value) is complex:
        raise OverflowError("exact complex numbers are not supported")
    if exactness == "i" and type(value) is not complex:
        return float(value)
    return value


def parse_number(text: str, radix: int = 10, exactness: str | None = None) -> Any:
    """The number ``text`` denotes (no ``#`` prefixes): real or complex, or None if it is not one."""
    value = parse_real(text, radix, exactness)
    if value is None and len(text) > 1:
        return _parse_complex(text, radix, exactness)
    return value


def parse_prefixed_number(text: str, radix: int | None = None) -> Any:
    """A number with ``#x #o #b #d #e #i`` prefixes (at most one radix, one exactness).

    ``radix`` is the default when ``text`` has no radix prefix (``string->number``'s argument).
    """
    prefixed_radix: int | None = None
    exactness: str | None = None
    while text.startswith("#") and len(text) >= 2:
        letter = text[1].lower()
        if letter in _RADIX_LETTERS and prefixed_radix is None:
            prefixed_radix = _RADIX_LETTERS[letter]
        elif letter in "ei" and exactness is None:
            exactness = letter
        else:
            return None
        text = text[2:]
    if text.startswith("#") or not text:
        return None
    return parse_number(text, prefixed_radix or radix or 10, exactness)


def float_text(x: float) -> str:
    """A float that reads back as the same inexact number."""
    if x != x:
        return "+nan.0"
    if x in (float("inf"), float("-inf")):
        return "+inf.0" if x > 0 else "-inf.0"
    return repr(x)  # always has a '.' or an exponent


def complex_text(z: complex) -> str:
    """``1.0+2.0i``, ``+2.0i`` (a real part of +0.0 is left out), ``-0.0-inf.0i``: reads back the same."""
    imag = float_text(z.imag)
    if imag[0] not in "+-":
        imag = "+" + imag
    if z.real == 0.0 and math.copysign(1.0, z.real) > 0:
        return imag + "i"
    return float_text(z.real) + imag + "i"


