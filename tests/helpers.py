"""Helpers shared by the primitive test files."""

from __future__ import annotations

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.equality import is_equal
from interpreter.reader import read_all


def same(value: object, expected_src: str) -> bool:
    """``equal?`` to the datum written in ``expected_src`` (exactness matters)."""
    return is_equal(value, read_all(expected_src)[0])


def assert_error(interp: Interpreter, src: str, message: str, kind: str) -> None:
    """Evaluating ``src`` fails with an error of ``kind`` whose message holds ``message``."""
    with pytest.raises(SchemeError) as info:
        interp.eval_scheme(src)
    assert message in info.value.message
    assert info.value.kind == kind
