"""Compiled code inside parallel branches runs on its branch's own registers (issue 35, item 5).

A compiled body is handed its context (``run(env, depth, bounce, rt, *args)``) and passes it
to the bodies it calls, so inside ``parallel-map`` its calls stay on the fast path instead of
going through ``Branch.apply`` one by one; limits, Ctrl-C, backtraces, tail calls and deep
recursion hold there as they do serially. Speed: ``bench/branches.py``.
"""

from __future__ import annotations

import threading

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.evaluator import Branch

FIB = "(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))"
DEEP = "(define (deep n) (if (= n 0) 0 (+ 1 (deep (- n 1)))))"


def test_calls_inside_a_branch_stay_in_the_compiled_bodies(monkeypatch: pytest.MonkeyPatch) -> None:
    """fib 15 makes 1,973 calls; the branch's trampoline sees only the first (before, every
    call of a branch took the slow path through it): in parallel-map, parallel and a batch."""
    interp = Interpreter()
    interp.eval(FIB)
    interp.eval("(fib 5)")  # compiled
    applied = []
    apply = Branch.apply
    monkeypatch.setattr(Branch, "apply", lambda self, proc, args: applied.append(proc) or apply(self, proc, args))
    assert interp.eval("(parallel-map fib '(15 15))") == [610, 610]
    assert len(applied) == 2
    assert interp.eval("(parallel (fib 15) (+ 1 (fib 14)))") == [610, 378]  # one slow entry each
    assert len(applied) == 4
    records = list(interp.batch("fib", [{"n": 15}, {"n": 14}], workers=2))  # a thread batch: items are branches
    assert sorted(record["result"] for record in records) == [377, 610]
    assert len(applied) == 6


def test_nested_forms_and_tail_calls_in_branches() -> None:
    interp = Interpreter()
    interp.eval(FIB)
    interp.eval("(define (ev? n) (if (= n 0) #t (od? (- n 1)))) (define (od? n) (if (= n 0) #f (ev? (- n 1))))")
    assert interp.eval("(parallel-map (lambda (n) (parallel-map fib (list n (+ n 1)))) '(10 12))") == [[55, 89], [144, 233]]
    assert interp.eval("(parallel-map ev? '(100000 100001))") == [True, False]  # constant space
    assert interp.eval("(fib 12)") == 144  # the root's registers are back


def test_deep_recursion_in_a_branch_and_its_depth_limit() -> None:
    interp = Interpreter()
    interp.eval(DEEP)
    assert interp.eval("(parallel-map deep '(30000 20000))") == [30000, 20000]  # hops to fresh stacks
    limited = Interpreter(max_depth=5000)
    limited.eval(DEEP)
    assert limited.eval("(parallel-map deep '(4000))") == [4000]
    with pytest.raises(SchemeError, match="recursion depth limit exceeded: max_depth = 5000") as info:
        limited.eval("(parallel-map deep '(10 6000))")
    assert info.value.details["resource"] == "depth"


def test_step_limit_counts_the_compiled_calls_of_every_branch() -> None:
    interp = Interpreter(max_steps=20_000)
    interp.eval(FIB)
    assert interp.eval("(parallel-map fib '(19))") == [4181]
    with pytest.raises(SchemeError, match="step limit exceeded") as info:
        interp.eval("(parallel-map fib '(19 19))")  # 13,529 calls each: under the limit alone, not together
    assert info.value.details["resource"] == "steps"


def test_timeout_and_interrupt_reach_recursion_in_a_branch() -> None:
    interp = Interpreter(timeout=0.3)
    interp.eval(FIB)
    with pytest.raises(SchemeError, match="time limit exceeded"):
        interp.eval("(parallel-map fib '(40 40))")
    again = Interpreter()
    again.eval(FIB)
    timer = threading.Timer(0.3, again.runtime.interrupt)
    timer.start()
    with pytest.raises(SchemeError, match="interrupted"):
        again.eval("(parallel-map fib '(40))")
    timer.join()
    assert again.eval("(parallel-map fib '(10))") == [55]


def test_an_error_deep_in_a_branch_has_its_backtrace() -> None:
    interp = Interpreter()
    interp.eval("(define (walk n) (if (= n 0) (car n) (+ (walk (- n 1)) 1)))")
    with pytest.raises(SchemeError, match="parallel-map: element 0 failed: car") as info:
        interp.eval("(parallel-map walk (list 3))", filename="walk.scm")
    frames = [frame.expr for frame in info.value.frames]
    assert frames.count("(walk (- n 1))") == 3
    assert "(car n)" in frames
