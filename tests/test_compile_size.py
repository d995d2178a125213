"""Compile time grows linearly with nesting (issue 17, item 1).

The generated Python code is counted, not timed: every piece of source the two code
generators (``compiler.body`` for procedure bodies, ``compiler.fastpath`` for call sites)
hand to Python's ``compile``/``exec`` (``exec`` through ``compiler.functions``) is measured,
without its indentation.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import pytest

from interpreter import Interpreter
from interpreter.compiler import body, fastpath, functions

SHAPES: dict[str, Callable[[str], str]] = {
    "arithmetic": lambda e: f"(+ {e} 1)",
    "mixed arithmetic": lambda e: f"(- (+ {e} x) (* x 1))",
    "float arithmetic": lambda e: f"(+ {e} 1.5)",
    "string-append": lambda e: f'(string-append {e} "a")',
    "car of cons": lambda e: f"(car (cons {e} 1))",
    "predicates": lambda e: f"(not (null? (list {e})))",
    "if in a test": lambda e: f"(if (< {e} 0) 0 1)",
    "if in an arm": lambda e: f"(if (< x 0) 0 {e})",
    "let": lambda e: f"(let ((y (+ x 1))) {e})",
    "and/or": lambda e: f"(or (eq? x 'a) (and (pair? (list x)) {e}))",
    "cond": lambda e: f"(cond ((< x 0) 0) ((> x 100) 1) (else {e}))",
}


#: Generated characters per parenthesised form: a call site compiled on its own costs
#: about 750, an operator inlined into an expression about 100.
CODE_PER_FORM = 1000


def nested(shape: Callable[[str], str], depth: int) -> str:
    expr = "x"
    for _ in range(depth):
        expr = shape(expr)
    return expr


class GeneratedSource:
    """Counts the characters of generated Python source, indentation left out."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.size = 0
        for module in (body, fastpath, functions):
            monkeypatch.setattr(module, "exec", self.exec, raising=False)
            monkeypatch.setattr(module, "compile", self.compile, raising=False)

    def count(self, source: Any) -> None:
        if isinstance(source, str):
            self.size += sum(len(line.strip()) for line in source.splitlines())

    def exec(self, source: Any, *args: Any) -> None:
        self.count(source)
        builtins.exec(source, *args)

    def compile(self, source: Any, *args: Any) -> Any:
        self.count(source)
        return builtins.compile(source, *args)


def size_of(generated: GeneratedSource, program: str) -> tuple[int, Any]:
    interp = Interpreter()
    before = generated.size
    value = interp.eval(program)
    return generated.size - before, value


@pytest.mark.parametrize("where", ["procedure body", "top-level let"])
@pytest.mark.parametrize("name", list(SHAPES))
def test_generated_code_grows_linearly_with_nesting(monkeypatch: pytest.MonkeyPatch, name: str, where: str) -> None:
    generated = GeneratedSource(monkeypatch)
    sizes, values = [], []
    for depth in (10, 20, 40, 60):
        expr = nested(SHAPES[name], depth)
        arg = '"s"' if name == "string-append" else "1"
        program = f"(define (f x) {expr}) (f {arg})" if where == "procedure body" else f"(let ((x {arg})) {expr})"
        size, value = size_of(generated, program)
        # A linear bound: at most this much Python per form of the program, at every depth.
        # (Exponential or quadratic growth exceeds it within these depths.)
        assert size <= CODE_PER_FORM * program.count("("), (depth, size)
        sizes.append(size)
        values.append(value)
    assert sizes[0] > 0
    if name == "arithmetic":
        assert values == [11, 21, 41, 61]
    if name == "float arithmetic":
        assert values == [16.0, 31.0, 61.0, 91.0]
    if name == "string-append":
        assert values == ["s" + "a" * n for n in (10, 20, 40, 60)]


@pytest.mark.parametrize("name", ["if in an arm", "let", "and/or", "cond", "car of cons"])
def test_deep_nesting_stays_within_what_python_compiles(name: str) -> None:
    """Past Python's limits on indentation and parentheses the compiler falls back to
    ordinary compiled code instead of failing with an internal error."""
    interp = Interpreter()
    expr = nested(SHAPES[name], 60)
    value = interp.eval(f"(define (f x) {expr}) (f 1)")
    expected = {"if in an arm": 1, "let": 1, "and/or": 1, "cond": 1, "car of cons": 1}
    assert value == expected[name]


def test_inline_fallbacks_keep_meaning_and_errors() -> None:
    """A failed inline guard applies the operator to the values already computed: a
    redefined operator sees each operand once, and an error names the failing call."""
    interp = Interpreter()
    interp.eval("(define real+ +) (define calls 0) (define (g x) (set! calls (real+ calls 1)) x)")
    interp.eval("(define (f x) (+ (+ (+ (+ x 1) 1) 1) 1))")
    assert interp.eval("(f 1.5)") == 5.5
    interp.eval("(define (h) (f 1)) (set! + (lambda (a b) (g (real+ a b))))")
    assert interp.eval("(h)") == 5
    assert interp.eval("calls") == 4
    with pytest.raises(Exception) as info:
        interp.eval("(set! + real+) (define (k x) (car (cdr (car x)))) (k '((1)))")
    assert "(cdr (car x))" in str(info.value)
