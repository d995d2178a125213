"""Conversions between exact integers and digits of any length.

CPython refuses ``int(text)`` and ``str(n)`` beyond 4,300 decimal digits unless the
process-wide limit is lifted; a library must not lift it for its host, so long
numbers are split (divide and conquer) into pieces under the limit.
"""

from __future__ import annotations

import contextvars
import math
from fractions import Fraction

#: Pieces stay under CPython's int/str conversion limit (4,300 digits).
DIGIT_LIMIT = 4000

#: The default ``max_digits``: the most decimal digits an exact number may get. Division,
#: square roots and printing cost time quadratic in the digits inside one Python call
#: that no time limit can interrupt; at this size each stays well under half a second.
MAX_DIGITS = 50_000
#: ``max_digits`` of the run under way (``Interpreter(max_digits=…)``).
DIGITS: contextvars.ContextVar[int] = contextvars.ContextVar("taskscheme_max_digits", default=MAX_DIGITS)
BITS_PER_DIGIT = math.log2(10)


class NumberTooLarge(OverflowError):
    """The text names an exact number too large to build (a resource limit, not a syntax error):
    past ``max_digits``. The reader reports it as a read error."""


def max_bits() -> int:
    return int(DIGITS.get() * BITS_PER_DIGIT) + 1


def check_digits(who: str, digits: float) -> None:
    """Refuse an exact number of about ``digits`` decimal digits past ``max_digits``."""
    limit = DIGITS.get()
    if digits > limit:
        raise NumberTooLarge(f"{who}: a number of about {int(digits)} digits is past max_digits = {limit}")


def check_bits(who: str, bits: int) -> None:
    """Refuse an exact result of about ``bits`` bits past ``max_digits``."""
    check_digits(who, bits / BITS_PER_DIGIT)


def int_to_decimal(n: int) -> str:
    """``str(n)`` for an integer of any size."""
    if n < 0:
        return "-" + int_to_decimal(-n)
    if n.bit_length() < DIGIT_LIMIT * 3:
        return str(n)
    half = int(n.bit_length() * 0.30103) // 2
    hi, lo = divmod(n, 10**half)
    return int_to_decimal(hi) + int_to_decimal(lo).zfill(half)


#: Integers with more bits than this are abbreviated in messages (about 30 digits).
SHOWN_BITS = 100


def int_shown(n: object) -> str:
    """``n`` as an error message shows it: in full up to about 30 digits, else its
    leading digits and its size (``1234567890… (5001 digits)``). Safe for integers and
    ratios of any size (``str`` is refused past 4,300 digits, and quadratic before that);
    any other value is ``str(n)``."""
    if type(n) is Fraction:
        return f"{int_shown(n.numerator)}/{int_shown(n.denominator)}"
    if type(n) is not int or n.bit_length() <= SHOWN_BITS:
        return str(n)
    digits = int(math.log10(abs(n))) + 1
    lead = abs(n) // 10 ** (digits - 10)
    return f"{'-' if n < 0 else ''}{lead}… ({digits} digits)"


def decimal_to_int(digits: str) -> int:
    """``int(digits)`` for an unsigned decimal digit string of any length."""
    if len(digits) <= DIGIT_LIMIT:
        return int(digits)
    half = len(digits) // 2
    return decimal_to_int(digits[:-half]) * 10**half + decimal_to_int(digits[-half:])


def digits_to_int(text: str, radix: int = 10) -> int:
    """``int(text, radix)`` (optional sign) for digit strings of any length."""
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")
    check_digits("number", len(body) * math.log10(radix))
    if radix != 10 or len(body) <= DIGIT_LIMIT:
        return int(text, radix)  # power-of-two radixes have no limit
    return sign * decimal_to_int(body)


def decimal_fraction(text: str) -> Fraction:
    """``Fraction(text)`` for a decimal like ``-12.5e3`` of any length."""
    mantissa, _, exponent = text.lower().partition("e")
    sign = -1 if mantissa.startswith("-") else 1
    whole, _, frac = mantissa.lstrip("+-").partition(".")
    check_digits("number", len(whole) + len(frac))
    value = Fraction(decimal_to_int((whole + frac) or "0"), 10 ** len(frac))
    if exponent:
        power = int(exponent.lstrip("+-").lstrip("0")[:30] or "0") * (-1 if exponent.startswith("-") else 1)
        check_digits("number", len(whole) + len(frac) + abs(power))
        value = value * 10**power if power >= 0 else value / 10**-power
    return sign * value
