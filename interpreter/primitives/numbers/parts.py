"""R7RS additions: ``rationalize`` (the simplest rational within a tolerance) and the
real-number face of (scheme complex): ``make-rectangular``, ``make-polar``, ``real-part``,
``imag-part``, ``magnitude`` and ``angle``."""

from __future__ import annotations

import cmath
import math
from fractions import Fraction
from typing import Any

from ...number_syntax import make_polar, make_rectangular
from ..registry import primitive
from .checks import check_number, check_real, norm


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
