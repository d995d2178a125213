"""Exactness and rounding: ``exact``/``inexact``, ``floor``, ``ceiling``, ``truncate``,
``round``, ``numerator`` and ``denominator``."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ...errors import SchemeError
from ...number_syntax import complex_text, float_text
from ..registry import primitive
from .checks import INF, check_number, check_real, norm


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
