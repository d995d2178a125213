"""Helpers shared by the primitive test files."""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.compiler import body
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


@contextmanager
def compiled_sources() -> Iterator[list[str]]:
    """The Python source of every procedure body compiled inside the block (a spy on the
    ``compile`` that ``interpreter.compiler.body`` calls)."""
    seen: list[str] = []
    real = builtins.compile

    def spy(source: Any, filename: str, mode: str, *args: Any, **kwargs: Any) -> Any:
        if filename == "<taskscheme body>":
            seen.append(source)
        return real(source, filename, mode, *args, **kwargs)

    body.compile = spy  # type: ignore[attr-defined]
    try:
        yield seen
    finally:
        del body.compile  # type: ignore[attr-defined]
