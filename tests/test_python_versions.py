"""The code generator's version-specific paths hold on the Python running the tests.

CI runs these on every Python the package claims (3.11, 3.12, 3.13): each asserts what
CPython itself does on the running version, so a version whose bytecode differs from the
premise fails here, not as a silent slowdown.
"""

from __future__ import annotations

import dis
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from interpreter import Interpreter
from interpreter.compiler import emitter

#: An arm long enough that a jump over it needs EXTENDED_ARG (over 255 code units).
LONG_ARM = "".join(f"        x{i} = a + {i}\n" for i in range(80))


def test_the_package_claims_this_python() -> None:
    """pyproject's classifiers name the running minor version (CI runs each one)."""
    pyproject = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert f"Programming Language :: Python :: {version}" in pyproject["project"]["classifiers"]


def function_testing(test: str) -> Callable[[int, int], int]:
    """``f(a, b)`` whose ``if`` jumps on ``test`` over a long arm."""
    source = f"def f(a, b):\n    if {test}:\n{LONG_ARM}        return 1\n    return 0\n"
    namespace: dict[str, Any] = {}
    exec(compile(source, "<jump test>", "exec"), namespace)
    return namespace["f"]


def specialized_compare(f: Callable[[int, int], int]) -> bool:
    """Whether, warmed up on ints, ``f``'s comparison became a specialized int comparison
    (``COMPARE_OP_INT_JUMP`` on 3.11, ``COMPARE_OP_INT`` from 3.12)."""
    for i in range(2000):
        f(i, 1000)
    names = [ins.opname for ins in dis.get_instructions(f, adaptive=True)]
    return any(name.startswith("COMPARE_OP_INT") for name in names)


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="CPython's specializing interpreter")
def test_the_spelling_of_a_jumped_on_comparison_specializes_on_this_python() -> None:
    """``emitter.jumped_on`` writes a test's comparison the way the running CPython
    specializes it when the jump is long: plain from 3.12, ``(True if … else False)`` on 3.11."""
    assert specialized_compare(function_testing(emitter.jumped_on("a < b")))


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="CPython's specializing interpreter")
def test_short_jumps_are_needed_exactly_where_they_are_used() -> None:
    """The premise of ``SHORT_JUMPS``: on 3.11 a plain comparison jumping over a long arm
    stays unspecialized (so the short spelling is worth its extra instructions); from 3.12
    it is specialized whatever follows it (so the plain spelling is the one to use)."""
    plain_specializes = specialized_compare(function_testing("a < b"))
    assert plain_specializes is not emitter.SHORT_JUMPS
    assert emitter.SHORT_JUMPS is (sys.version_info < (3, 12))


@pytest.mark.parametrize("short", [True, False])
def test_both_spellings_give_the_same_answers(short: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whichever spelling a version uses, the compiled tests answer the same."""
    monkeypatch.setattr(emitter, "SHORT_JUMPS", short)
    interp = Interpreter()
    interp.eval_scheme(
        """(define (classify a b)
             (cond ((< a b) 'less) ((= a b) 'same) ((> a 1000) 'big) (else 'more)))
           (define (count-below n limit)
             (let loop ((i 0) (k 0)) (if (>= i n) k (loop (+ i 1) (if (< i limit) (+ k 1) k)))))"""
    )
    assert interp.eval(
        "(map (lambda (p) (classify (car p) (cdr p))) '((1 . 2) (2 . 2) (2000 . 1) (3 . 1) (1.5 . 1)))"
    ) == [interp.symbol(s) for s in ("less", "same", "big", "more", "more")]
    assert interp.eval("(count-below 500 123)") == 123
