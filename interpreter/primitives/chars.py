"""Characters: predicates, case mapping, code points and n-ary comparisons."""

from __future__ import annotations

import unicodedata
from typing import Any

from ..bignum import int_shown
from ..datatypes import LATIN1, Char
from ..errors import SchemeError, type_error
from .comparisons import register_comparisons
from .registry import primitive


def check_char(who: str, x: Any) -> Char:
    """Return ``x`` if it is a character, else raise a type error."""
    if type(x) is Char:
        return x
    raise type_error(who, "a character", x)


@primitive("char?")
def is_char(x: Any) -> bool:
    """True for characters."""
    return type(x) is Char


@primitive("char->integer")
def char_to_integer(c: Any) -> int:
    """The Unicode code point of a character."""
    return ord(check_char("char->integer", c).ch)


@primitive("integer->char")
def integer_to_char(n: Any) -> Char:
    """The character with the given Unicode code point (Latin-1 ones shared, as ``char_of`` does)."""
    if type(n) is int and 0 <= n < 256:
        return LATIN1[n]
    if type(n) is not int:
        raise type_error("integer->char", "an exact integer", n)
    if not (0 <= n <= 0x10FFFF) or 0xD800 <= n <= 0xDFFF:
        raise SchemeError(f"integer->char: {int_shown(n)} is not a Unicode scalar value", kind="value-error")
    return Char(chr(n))


def _single(original: str, mapped: str) -> Char:
    return Char(mapped if len(mapped) == 1 else original)


@primitive("char-upcase")
def char_upcase(c: Any) -> Char:
    """Upper-case version of a character."""
    ch = check_char("char-upcase", c).ch
    return _single(ch, ch.upper())


@primitive("char-downcase")
def char_downcase(c: Any) -> Char:
    """Lower-case version of a character."""
    ch = check_char("char-downcase", c).ch
    return _single(ch, ch.lower())


@primitive("char-foldcase")
def char_foldcase(c: Any) -> Char:
    """Case-folded version of a character."""
    ch = check_char("char-foldcase", c).ch
    return _single(ch, ch.casefold())


@primitive("char-alphabetic?")
def is_alphabetic(c: Any) -> bool:
    """True for letters."""
    return check_char("char-alphabetic?", c).ch.isalpha()


@primitive("char-numeric?")
def is_numeric(c: Any) -> bool:
    """True for decimal digits (Unicode Nd)."""
    return unicodedata.category(check_char("char-numeric?", c).ch) == "Nd"


@primitive("char-whitespace?")
def is_whitespace(c: Any) -> bool:
    """True for whitespace."""
    return check_char("char-whitespace?", c).ch.isspace()


@primitive("char-upper-case?")
def is_upper(c: Any) -> bool:
    """True for upper-case letters."""
    return check_char("char-upper-case?", c).ch.isupper()


@primitive("char-lower-case?")
def is_lower(c: Any) -> bool:
    """True for lower-case letters."""
    return check_char("char-lower-case?", c).ch.islower()


@primitive("digit-value")
def digit_value(c: Any) -> Any:
    """The value of a decimal digit character, or #f."""
    ch = check_char("digit-value", c).ch
    if unicodedata.category(ch) != "Nd":
        return False
    return unicodedata.decimal(ch)


def _char_text(who: str, x: Any) -> str:
    if type(x) is Char:
        return x.ch
    raise type_error(who, "a character", x)


register_comparisons("char", "characters", _char_text, 2)
