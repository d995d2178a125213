"""The clock and random-number primitives: current-time, random-integer, random-real."""

from __future__ import annotations

import re

import pytest

from interpreter import Interpreter, SchemeError


def test_current_time_is_iso_8601_in_utc(interp: Interpreter) -> None:
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", interp.eval("(current-time)"))


def test_random_integer_covers_its_range_and_nothing_else(interp: Interpreter) -> None:
    drawn = set(interp.eval("(map (lambda (i) (random-integer 3)) (iota 200))"))
    assert drawn == {0, 1, 2}
    assert interp.eval("(exact-integer? (random-integer (expt 10 40)))") is True


def test_random_real_is_strictly_between_0_and_1(interp: Interpreter) -> None:
    values = interp.eval("(map (lambda (i) (random-real)) (iota 200))")
    assert all(0 < x < 1 for x in values) and len(set(values)) > 190


@pytest.mark.parametrize("bad", ["0", "-2", "2.5", '"3"', "#t"])
def test_random_integer_wants_a_positive_exact_integer(interp: Interpreter, bad: str) -> None:
    with pytest.raises(SchemeError, match="random-integer: expected a positive exact integer") as info:
        interp.eval(f"(random-integer {bad})")
    assert info.value.kind == "type-error"
