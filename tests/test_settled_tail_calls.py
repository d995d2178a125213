"""A compiled call tells the body it is not a trampoline (``bounce`` False): the body runs a
pending tail call of its own before returning (``evaluator.settle``), so the call needs no
``TailCall`` test of its value. Tail calls keep running in constant space, at the same
levels, with the same backtraces."""

from __future__ import annotations

import re

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.printer import write_string

PING_PONG = """
(define (ping n) (if (= n 0) 'done (pong (- n 1))))
(define (pong n) (ping n))
"""


def test_a_chain_of_tail_calls_under_a_compiled_call_runs_in_constant_space() -> None:
    interp = Interpreter(max_depth=50)
    interp.eval(PING_PONG)
    assert write_string(interp.eval_scheme("(define (top) (list (ping 200000))) (top)")) == "(done)"


def test_a_pending_call_a_primitive_returns_in_tail_position_is_run() -> None:
    """``apply`` in tail position hands back a pending call; the body runs it."""
    interp = Interpreter()
    interp.eval("(define (f g x) (apply g x)) (define (top) (list (f car '((1 2))) (f + '(1 2 3))))")
    assert write_string(interp.eval_scheme("(top)")) == "(1 6)"


def test_a_tail_call_through_a_slow_path_is_run() -> None:
    """A procedure in tail position whose operator is a rebound global (the ordinary call)."""
    interp = Interpreter()
    interp.eval("(define (g x) (* x 2)) (define (f x) (g x)) (define (top x) (+ 1 (f x)))")
    assert interp.eval("(top 5)") == 11
    interp.eval("(define g (lambda (x) (- x)))")
    assert interp.eval("(top 5)") == -4


@pytest.mark.parametrize(
    ("program", "frames"),
    [
        (
            "(define (bad x) (car x)) (define (mid x) (bad x)) (define (top x) (list (mid x))) (top 5)",
            ["(car x)", "(mid x)", "(list (mid x))", "(top 5)"],
        ),
        (
            "(define (f g x) (apply g x)) (define (top) (list (f car '(5)))) (top)",
            ["(f car '(5))", "(list (f car '(5)))", "(top)"],
        ),
        (
            "(define (ping n) (if (= n 0) (car 'end) (pong (- n 1)))) (define (pong n) (ping n))"
            " (define (top) (list (ping 100))) (top)",
            ["(car 'end)", "(ping 100)", "(list (ping 100))", "(top)"],
        ),
    ],
)
def test_a_tail_call_has_no_frame_in_the_backtrace(program: str, frames: list[str]) -> None:
    """As before: the tail call's own site is not in progress while its callee runs."""
    with pytest.raises(SchemeError) as info:
        Interpreter().eval(program)
    shown = [line.strip().removeprefix("at ").split("  ")[0] for line in str(info.value).splitlines()[1:]]
    assert shown == frames


def test_levels_are_counted_as_before() -> None:
    """``down`` calls ``hop`` (not in tail position), which tail-calls ``down``: one level
    per round, as when the caller ran the pending call; ``max_depth`` 100 allows 99 rounds
    (the same boundary as session 10's code, where the caller ran it)."""
    interp = Interpreter(max_depth=100)
    interp.eval("(define (down n) (if (= n 0) 0 (+ 1 (hop n)))) (define (hop n) (down (- n 1)))")
    assert interp.eval("(down 99)") == 99
    with pytest.raises(SchemeError) as info:
        interp.eval("(down 100)")
    assert info.value.kind == "resource-exhaustion"


def test_a_compiled_call_makes_no_tail_call_test(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval("(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))")
    assert interp.eval("(fib 15)") == 610
    (body,) = [source for source in sources if "def run(outer, depth, rt, arg0)" in source]
    call = r"\(o\d+\.run if True else None\)\(o\d+\.env, depth \+ 1, rt, t\d+\)"
    assert len(re.findall(rf"t\d+ = {call}", body)) >= 2
    closure_arms = re.findall(rf"{call}.*\n(?:.*\n){{3}}.*\n", body)
    assert len(closure_arms) >= 2
    assert not any("TailCall" in arm for arm in closure_arms)


def test_a_recursion_frame_holds_no_local_for_the_callee(sources: list[str]) -> None:
    """``(count 1000000)`` stays under 300 MB: a call reads the callee's body where it
    calls it, and a value in tail position goes into the operator's local."""
    interp = Interpreter()
    interp.eval("(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))")
    assert interp.eval("(count 100)") == 100
    (body,) = [source for source in sources if "def run(outer, depth, rt, arg0)" in source]
    assert "code" not in body
    assert "pending" not in body
