"""Numeric primitives: the tower of ints, Fractions, floats and (inexact) complex numbers,
by concern: the shared checks (:mod:`.checks`, used by the other primitive modules too),
arithmetic and integer division (:mod:`.arithmetic`), comparison and predicates
(:mod:`.comparison`), exactness and rounding (:mod:`.rounding`), powers, roots and the
transcendental functions (:mod:`.transcendental`), number <-> string (:mod:`.text`) and
``rationalize`` with the complex-number parts (:mod:`.parts`).

The submodules are imported in the order their primitives are registered in (the REPL's
completion, ``,describe`` and the generated reference list them so).
"""

# isort: off
from . import arithmetic  # noqa: F401
from . import comparison  # noqa: F401
from . import rounding  # noqa: F401
from . import transcendental  # noqa: F401
from . import text  # noqa: F401
from . import parts  # noqa: F401

# isort: on
from .arithmetic import add, mul
from .checks import (
    INF,
    MAX_ALLOC,
    NUMBER_TYPES,
    check_exact_integer,
    check_index,
    check_integer,
    check_nonneg,
    check_number,
    check_range,
    check_real,
    check_size,
    norm,
)
from .text import number_to_string

__all__ = [
    "INF",
    "MAX_ALLOC",
    "NUMBER_TYPES",
    "add",
    "check_exact_integer",
    "check_index",
    "check_integer",
    "check_nonneg",
    "check_number",
    "check_range",
    "check_real",
    "check_size",
    "mul",
    "norm",
    "number_to_string",
]
