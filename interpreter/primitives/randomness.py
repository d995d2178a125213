"""Random numbers (SRFI 27's names): ``(random-integer n)`` and ``(random-real)``.

Each number is a nondeterministic result: a durable run journals it, and a resumed
run reads it back from the journal (docs/durable.md), so the program draws the same
numbers it drew before.
"""

from __future__ import annotations

import random
from typing import Any

from ..durable import Source
from ..errors import type_error
from .registry import primitive

#: Random numbers, as journal entries of kind ``random``.
RANDOM: Source[Any] = Source("random")
#: One generator for every interpreter of the process, seeded from the operating system.
GENERATOR = random.Random()


@primitive("random-integer")
def random_integer(n: Any) -> int:
    """(random-integer n): an exact integer from 0 to n - 1, each equally likely."""
    if type(n) is not int or n < 1:
        raise type_error("random-integer", "a positive exact integer", n)
    return RANDOM({"source": "random-integer", "n": n}, lambda: GENERATOR.randrange(n))


@primitive("random-real")
def random_real() -> float:
    """(random-real): an inexact number strictly between 0 and 1."""

    def draw() -> float:
        while (x := GENERATOR.random()) == 0.0:
            pass
        return x

    return RANDOM({"source": "random-real"}, draw)
