"""Numbers to and from text: ``number->string`` (radix 2, 8, 10 or 16) and
``string->number``."""

from __future__ import annotations

from typing import Any

from ...bignum import int_shown
from ...datatypes import is_string
from ...errors import SchemeError, type_error
from ...number_syntax import NumberTooLarge, parse_prefixed_number
from ..registry import primitive
from .checks import check_number, number_to_string


@primitive("number->string")
def number_to_string_prim(x: Any, radix: Any = 10) -> str:
    """The number as a string, in radix 2, 8, 10 or 16: an immutable string, as
    ``symbol->string``'s (R7RS asks a newly allocated string of ``string-append``,
    ``string-copy`` …, not of ``number->string``); ``string-set!`` on it is an error that
    says to copy it first."""
    if type(x) is int and radix == 10 and type(radix) is int and -0xFFFFFFFFFFFFFFFF < x < 0xFFFFFFFFFFFFFFFF:
        return str(x)  # the common case, without the checks' calls
    check_number("number->string", x)
    if radix not in (2, 8, 10, 16) or type(radix) is not int:
        raise SchemeError(f"number->string: radix must be 2, 8, 10 or 16, got {int_shown(radix)}", kind="value-error")
    return number_to_string(x, radix)


@primitive("string->number")
def string_to_number(text: Any, radix: Any = 10) -> Any:
    """Parse a number (with optional #x #b #o #d #e #i prefixes; complex too); #f if not a number."""
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
