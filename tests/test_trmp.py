"""Tail recursion modulo ``+``: ``(+ e (self …))`` in tail position runs as a loop
(``compiler/trmp.py``).

Each shape recurses 3,000 levels: an ordinary non-tail recursion that deep reaches
``Runtime.deep`` (which measures the stack, hops threads and enforces ``max_depth``) many
times, the loop never, so a run that never reaches it shows the loop was taken. The
slow paths (``+`` or the procedure's own name rebound), floats and other numbers, the order
of evaluation, step counts, limits, errors and ``parallel-map`` keep their meaning.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers import step_limit_strikes_at, value_and_steps
from hypothesis import given, settings
from test_compiled_equivalence import HELPERS, arguments, expressions, outcome

from interpreter import Interpreter, SchemeError
from interpreter.compiler import body
from interpreter.evaluator.runtime import Runtime
from interpreter.printer import write_string

N = 3000  # levels, ten times max_depth below

SHAPES = {
    "count": ("(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))", f"(count {N})", N),
    "sum of a list (cond)": (
        "(define (sum l) (cond ((null? l) 0) (else (+ (car l) (sum (cdr l))))))",
        f"(sum (iota {N}))",
        N * (N - 1) // 2,
    ),
    "floats keep the recursion's order of additions": (
        "(define (fsum l) (if (null? l) 1e16 (+ (car l) (fsum (cdr l)))))",
        f"(fsum (make-list {N} 1.0))",
        1e16,  # each 1.0 added to 1e16 alone is lost, as in the recursion
    ),
    "exact and inexact mixed": (
        "(define (mixed n) (if (= n 0) 0.5 (+ (if (even? n) 1 0.25) (mixed (- n 1)))))",
        f"(mixed {N})",
        0.5 + N // 2 + 0.25 * (N - N // 2),
    ),
    "internal define (letrec)": (
        "(define (depth-of l) (define (walk l) (if (pair? l) (+ 1 (walk (cdr l))) 0)) (walk l))",
        f"(depth-of (iota {N}))",
        N,
    ),
    "named let": ("(define (tri n) (let loop ((i n)) (if (= i 0) 0 (+ i (loop (- i 1))))))", f"(tri {N})", N * (N + 1) // 2),
}


def deep_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one at each call of ``Runtime.deep`` from now on."""
    seen: list[int] = []
    deep = Runtime.deep

    def counted(self: Runtime, proc: Any, args: list[Any]) -> Any:
        seen.append(1)
        return deep(self, proc, args)

    monkeypatch.setattr(Runtime, "deep", counted)
    return seen


@pytest.mark.parametrize("shape", SHAPES)
def test_every_shape_runs_as_a_loop(shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    definition, call, expected = SHAPES[shape]
    interp = Interpreter()
    interp.eval(definition)
    seen = deep_calls(monkeypatch)
    assert interp.eval(call) == expected
    assert interp.eval(call) == expected  # again: the compiled body is reused
    assert not seen


def test_the_ordinary_recursion_goes_deep() -> None:
    """The same procedure calling itself through another name takes the ordinary call."""
    interp = Interpreter(max_depth=N // 10)
    interp.eval("(define (count n) (if (= n 0) 0 (+ 1 (again (- n 1))))) (define again count)")
    with pytest.raises(SchemeError, match="recursion depth limit"):
        interp.eval(f"(count {N})")


def test_a_name_set_while_running_is_honoured() -> None:
    interp = Interpreter()
    interp.eval(
        """(define (f n)
             (if (= n 0) 0
                 (+ (begin (if (= n 3) (set! f (lambda (n) (* 100 n)))) n) (f (- n 1)))))"""
    )
    assert interp.eval("(f 5)") == 5 + 4 + 3 + 200


def test_a_rebound_plus_is_called_for_every_level() -> None:
    interp = Interpreter()
    interp.eval(
        "(define made 0) (define + (let ((add +)) (lambda (a b) (set! made (add made 1)) (add a b))))"
        "(define (f n) (if (= n 0) 0 (+ n (f (- n 1)))))"
    )
    assert interp.eval("(f 4)") == 10
    assert interp.eval("made") == 4


def test_plus_rebound_while_running() -> None:
    """The kept values are added when the recursion would have added them, after the base
    case, with whatever ``+`` holds by then: here ``-``, for every level."""
    interp = Interpreter()
    interp.eval("(define (f n) (if (= n 0) (begin (set! + -) 0) (+ n (f (- n 1)))))")
    assert interp.eval("(f 3)") == 3 - (2 - (1 - 0))


def test_the_base_arm_may_be_a_tail_call() -> None:
    interp = Interpreter()
    interp.eval("(define (g x) (* x 10)) (define (f n) (if (= n 0) (g 5) (+ n (f (- n 1)))))")
    assert interp.eval("(f 3)") == 56
    assert interp.eval("(f 0)") == 50
    interp.eval("(define (h n) (if (= n 0) (apply + '(1 2)) (+ 1 (h (- n 1)))))")
    assert interp.eval("(h 4)") == 7


def test_operands_are_evaluated_in_order() -> None:
    interp = Interpreter()
    interp.eval(
        """(define log '())
           (define (note x) (set! log (cons x log)) x)
           (define (f n) (if (= n 0) 0 (+ (note (* 10 n)) (f (note (- n 1))))))"""
    )
    assert interp.eval("(f 2)") == 30
    assert write_string(interp.eval_scheme("(reverse log)")) == "(20 1 10 0)"


@pytest.mark.parametrize("shape", SHAPES)
def test_steps_are_counted_as_for_the_ordinary_recursion(shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """One step per round, as one per call: the same count as the ordinary recursion (the
    body compiled without the loop), and the step limit strikes at the same step."""
    definition, call, _expected = SHAPES[shape]
    small = call.replace(str(N), "40")
    looped = value_and_steps(definition, small)[1]
    with monkeypatch.context() as patch:
        patch.setattr(body, "summing_body", lambda emitter, proc: None)
        assert value_and_steps(definition, small)[1] == looped > 40
    step_limit_strikes_at(definition, small, looped)


def test_a_timeout_ends_the_loop() -> None:
    interp = Interpreter(timeout=0.3)
    interp.eval("(define (busy k) (do ((i 0 (+ i 1))) ((= i 300) k))) (define (forever n) (+ (busy n) (forever n)))")
    with pytest.raises(SchemeError, match="time limit"):
        interp.eval("(forever 1)")
    assert interp.eval("(+ 1 2)") == 3


def test_an_error_in_an_addition_reports_its_location() -> None:
    interp = Interpreter()
    interp.eval("(define (sum l)\n  (if (null? l) 0\n      (+ (car l) (sum (cdr l)))))", filename="t.scm")
    with pytest.raises(SchemeError) as info:
        interp.eval('(sum (list 1 2 "three" 4))', filename="u.scm")
    text = info.value.format()
    assert '+: expected a number, got "three"' in text
    assert "(+ (car l) (sum (cdr l)))" in text and "t.scm:3:7" in text
    assert "u.scm:1:1" in text and "Traceback" not in text
    with pytest.raises(SchemeError) as info:
        interp.eval("(sum '(1 2 . 3))", filename="u.scm")
    assert "car: expected a pair, got 3" in info.value.format()


def test_an_escape_from_inside_the_loop() -> None:
    interp = Interpreter()
    interp.eval("(define (upto n k) (if (= n 0) 0 (+ (if (= n 2) (k 'escaped) n) (upto (- n 1) k))))")
    assert interp.eval("(call/cc (lambda (k) (upto 5 k)))").name == "escaped"
    assert interp.eval("(call/cc (lambda (k) (upto 5 (lambda (x) 100))))") == 5 + 4 + 3 + 100 + 1


def test_under_parallel_map() -> None:
    interp = Interpreter(max_steps=10**7)
    interp.eval(SHAPES["count"][0])
    assert interp.eval("(parallel-map count '(1000 2000 3000 4000))") == [1000, 2000, 3000, 4000]


def test_step_limit_under_parallel_map() -> None:
    interp = Interpreter(max_steps=5000)
    interp.eval(SHAPES["count"][0])
    with pytest.raises(SchemeError, match="step limit"):
        interp.eval("(parallel-map count '(4000 4000))")


def test_booleans_are_not_summed_as_numbers() -> None:
    """``#t`` is a Python ``True``, which ``sum`` would count as 1: the addition reports it."""
    interp = Interpreter()
    interp.eval("(define (f n) (if (= n 0) 0 (+ (if (= n 2) #t 1) (f (- n 1)))))")
    with pytest.raises(SchemeError, match="expected a number, got #t"):
        interp.eval("(f 3)")


@settings(max_examples=120, deadline=None)
@given(expressions, expressions, arguments, arguments)
def test_the_loop_agrees_with_the_recursion(addend: str, base: str, a: str, b: str) -> None:
    """The differential test's expressions as the kept value and the base case: the same
    outcome (value, or error kind and message) with the loop as without it."""
    definition = f"(define (g n a b) (if (= n 0) {base} (+ {addend} (g (- n 1) a b))))"
    results = []
    for summing in (True, False):
        interp = Interpreter(max_steps=1_000_000)
        interp.eval_scheme(HELPERS)
        saved = body.summing_body
        if not summing:
            body.summing_body = lambda emitter, proc: None  # type: ignore[assignment]
        try:
            interp.eval_scheme(definition)
            results.append(outcome(interp, f"(g 3 {a} {b})"))
        finally:
            body.summing_body = saved  # type: ignore[assignment]
    assert results[0] == results[1]


def test_max_depth_counts_each_kept_value_as_a_level() -> None:
    """A runaway ``(+ 1 (down n))`` ends with the depth limit, as the recursion did."""
    interp = Interpreter(max_depth=200)
    interp.eval("(define (down n) (+ 1 (down n)))")
    with pytest.raises(SchemeError, match="recursion depth limit exceeded: max_depth = 200") as info:
        interp.eval("(down 0)")
    assert info.value.kind == "resource-exhaustion"
    assert interp.eval("(+ 1 2)") == 3  # the interpreter stays usable
    interp.eval("(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))")
    assert interp.eval("(count 190)") == 190
    with pytest.raises(SchemeError, match="recursion depth limit"):
        interp.eval("(count 250)")
