"""Tail recursion modulo cons: ``(cons e (self …))`` in tail position runs as a loop.

Each shape runs with a ``max_depth`` far below the list's length: an ordinary non-tail
recursion would end with the depth limit, so a passing run shows the loop was taken.
The slow paths (``cons`` or the procedure's own name rebound), the order of evaluation,
step counts, limits, errors and ``parallel-map`` keep their meaning.
"""

from __future__ import annotations

import re
import threading

import pytest
from helpers import step_limit_strikes_at, value_and_steps

from interpreter import Interpreter, SchemeError
from interpreter.compiler import body
from interpreter.printer import write_string

N = 3000  # elements per list, ten times max_depth below

SHAPES = {
    "if": (
        "(define (interval-list m n) (if (> m n) '() (cons m (interval-list (+ 1 m) n))))",
        f"(interval-list 1 {N})",
        list(range(1, N + 1)),
    ),
    "letrec lambda, beside a tail call of itself": (
        """(define (odds l)
             (letrec ((keep (lambda (l) (cond ((null? l) '())
                                              ((even? (car l)) (keep (cdr l)))
                                              (else (cons (car l) (keep (cdr l))))))))
               (keep l)))""",
        f"(odds (iota {2 * N}))",
        list(range(1, 2 * N, 2)),
    ),
    "argument that is itself a call (sieve)": (
        """(define (sieve l)
             (letrec ((remove-multiples
                       (lambda (n l)
                         (if (null? l) '()
                             (if (= (modulo (car l) n) 0)
                                 (remove-multiples n (cdr l))
                                 (cons (car l) (remove-multiples n (cdr l))))))))
               (if (null? l) '() (cons (car l) (sieve (remove-multiples (car l) (cdr l)))))))""",
        "(length (sieve (iota 30000 2)))",
        3245,
    ),
    "cond with two cons arms and two base arms (merge)": (
        """(define (merge a b)
             (cond ((null? a) b)
                   ((null? b) a)
                   ((< (car a) (car b)) (cons (car a) (merge (cdr a) b)))
                   (else (cons (car b) (merge a (cdr b))))))""",
        f"(merge (iota {N} 0 2) (iota {N} 1 2))",
        list(range(2 * N)),
    ),
    "two conses per round": (
        "(define (pairs-of n) (if (= n 0) '() (cons n (cons (- n) (pairs-of (- n 1))))))",
        f"(pairs-of {N})",
        [x for n in range(N, 0, -1) for x in (n, -n)],
    ),
    "named let called from a cons": (
        "(define (squares n) (let loop ((i 0)) (if (= i n) '() (cons (* i i) (loop (+ i 1))))))",
        f"(squares {N})",
        [i * i for i in range(N)],
    ),
    "case, let and when arms": (
        """(define (tag l)
             (if (null? l) '()
                 (case (car l)
                   ((0) (let ((zero 'zero)) (cons zero (tag (cdr l)))))
                   (else (when #t (cons (car l) (tag (cdr l))))))))""",
        f"(tag (map (lambda (i) (modulo i 3)) (iota {N})))",
        [{0: "zero"}.get(i % 3, i % 3) for i in range(N)],
    ),
    "internal define (frame mode)": (
        """(define (copy-list l)
             (define (walk l) (if (pair? l) (cons (car l) (walk (cdr l))) l))
             (walk l))""",
        f"(copy-list (iota {N}))",
        list(range(N)),
    ),
    "parameters assigned (frame mode)": (
        "(define (countdown n) (set! n (- n 1)) (if (< n 0) '() (cons n (countdown n))))",
        f"(countdown {N})",
        list(range(N - 1, -1, -1)),
    ),
    "rest parameter": (
        "(define (upto n . acc) (if (= n 0) acc (cons n (upto (- n 1) 'end))))",
        f"(upto {N})",
        [*range(N, 0, -1), "end"],
    ),
}


def scheme_list(value: object) -> object:
    return [str(x) if type(x).__name__ == "Symbol" else x for x in value] if isinstance(value, list) else value


@pytest.mark.slow
@pytest.mark.parametrize("shape", SHAPES)
def test_every_shape_runs_as_a_loop(shape: str) -> None:
    definition, call, expected = SHAPES[shape]
    interp = Interpreter(max_depth=N // 10)
    interp.eval(definition)
    got = interp.eval(call)
    assert scheme_list(got) == expected
    assert scheme_list(interp.eval(call)) == expected  # again: the compiled body is reused


def test_the_ordinary_recursion_would_hit_the_depth_limit() -> None:
    """The same procedure calling itself through another name takes the ordinary call."""
    interp = Interpreter(max_depth=N // 10)
    interp.eval("(define (interval-list m n) (if (> m n) '() (cons m (again (+ 1 m) n)))) (define again interval-list)")
    with pytest.raises(SchemeError, match="recursion depth limit"):
        interp.eval(f"(interval-list 1 {N})")


def test_a_name_set_while_running_is_honoured() -> None:
    interp = Interpreter()
    interp.eval(
        """(define (f n)
             (if (= n 0) '()
                 (cons (begin (if (= n 3) (set! f (lambda (n) (list 'other n)))) n) (f (- n 1)))))"""
    )
    assert write_string(interp.eval_scheme("(f 5)")) == "(5 4 3 other 2)"


def test_a_redefined_name_takes_the_ordinary_call() -> None:
    interp = Interpreter()
    interp.eval("(define (f n) (if (= n 0) '() (cons n (f (- n 1))))) (define old f) (define (f n) 'new)")
    assert write_string(interp.eval_scheme("(old 3)")) == "(3 . new)"


def test_a_rebound_cons_is_called_for_every_pair() -> None:
    interp = Interpreter()
    interp.eval(
        "(define made 0) (define cons (let ((c cons)) (lambda (a b) (set! made (+ made 1)) (c a b))))"
        "(define (f n) (if (= n 0) '() (cons n (cons 0 (f (- n 1))))))"
    )
    assert write_string(interp.eval_scheme("(f 3)")) == "(3 0 2 0 1 0)"
    assert interp.eval("made") == 6


def test_cons_rebound_while_running() -> None:
    interp = Interpreter()
    interp.eval(
        """(define real-cons cons)
           (define (f n)
             (if (= n 0) '()
                 (cons (begin (if (= n 2) (set! cons list)) n) (f (- n 1)))))"""
    )
    # a built-in cons is read after its operands, as for any inline built-in in a body
    # (an order Scheme leaves open): the set! in the round for 2 is seen by that round's
    # cons, which calls list, and by every round after it
    assert write_string(interp.eval_scheme("(f 4)")) == "(4 3 2 (1 ()))"
    # the same expression outside the loop reads cons in the same order
    interp.eval("(set! cons real-cons) (define (g) (cons (begin (set! cons list) 1) 2))")
    assert write_string(interp.eval_scheme("(g)")) == "(1 2)"


def test_the_base_arm_may_be_a_tail_call() -> None:
    """The last hole is filled with the value of a pending tail call, not the call itself."""
    interp = Interpreter()
    interp.eval(
        "(define (g x) (list x x)) (define (f n) (if (= n 0) (g 'end) (cons n (f (- n 1)))))"
        "(define (h n) (if (= n 0) (apply list '(a b)) (cons n (h (- n 1)))))"
    )
    assert write_string(interp.eval_scheme("(f 3)")) == "(3 2 1 end end)"
    assert write_string(interp.eval_scheme("(h 2)")) == "(2 1 a b)"
    assert write_string(interp.eval_scheme("(f 0)")) == "(end end)"


def test_operands_are_evaluated_in_order() -> None:
    interp = Interpreter()
    interp.eval(
        """(define log '())
           (define (note x) (set! log (cons x log)) x)
           (define (f n) (if (= n 0) '() (cons (note (list 'e n)) (f (note (- n 1))))))"""
    )
    interp.eval("(f 2)")
    assert write_string(interp.eval_scheme("(reverse log)")) == "((e 2) 1 (e 1) 0)"


@pytest.mark.parametrize("shape", SHAPES)
def test_steps_are_counted_as_for_the_ordinary_recursion(shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """One step per round, as one per call: the same count as the ordinary recursion
    (the body compiled without the loop), and the step limit strikes at the same step."""
    definition, call, _expected = SHAPES[shape]
    small = call.replace(str(2 * N), "80").replace(str(N), "40").replace("30000", "60")
    looped = value_and_steps(definition, small)[1]
    with monkeypatch.context() as patch:
        patch.setattr(body, "has_cons_calls_of_itself", lambda proc: False)
        assert value_and_steps(definition, small)[1] == looped > 40
    step_limit_strikes_at(definition, small, looped)


def test_a_timeout_ends_the_loop() -> None:
    interp = Interpreter(timeout=0.3)
    interp.eval(
        "(define (busy k) (do ((i 0 (+ i 1))) ((= i 300) k)))"
        "(define (forever n) (cons (busy n) (forever (+ n 1))))"
    )
    with pytest.raises(SchemeError, match="time limit"):
        interp.eval("(forever 0)")
    assert interp.eval("(+ 1 2)") == 3  # the interpreter stays usable


def test_an_interrupt_ends_the_loop() -> None:
    interp = Interpreter()
    interp.eval(
        "(define (busy k) (do ((i 0 (+ i 1))) ((= i 300) k)))"
        "(define (forever n) (cons (busy n) (forever (+ n 1))))"
    )
    timer = threading.Timer(0.3, interp.runtime.interrupt)
    timer.start()
    try:
        with pytest.raises(SchemeError, match="interrupted"):
            interp.eval("(forever 0)")
    finally:
        timer.cancel()


def test_an_error_inside_the_element_reports_its_location() -> None:
    interp = Interpreter()
    interp.eval("(define (firsts l)\n  (if (null? l) '()\n      (cons (car (car l)) (firsts (cdr l)))))", filename="t.scm")
    with pytest.raises(SchemeError) as info:
        interp.eval("(firsts '((1) (2) 3 (4)))", filename="u.scm")
    text = info.value.format()
    assert "car: expected a pair, got 3" in text
    assert "(car (car l))" in text and "t.scm:3:13" in text
    assert "in firsts" in text and "u.scm:1:1" in text
    assert "Traceback" not in text


def test_an_escape_from_inside_the_loop() -> None:
    interp = Interpreter()
    interp.eval(
        "(define (upto n k) (if (= n 0) '() (cons (if (= n 2) (k 'escaped) n) (upto (- n 1) k))))"
    )
    assert interp.eval("(call/cc (lambda (k) (upto 5 k)))").name == "escaped"
    assert write_string(interp.eval_scheme("(upto 3 (lambda (x) x))")) == "(3 escaped 1)"


def test_under_parallel_map() -> None:
    interp = Interpreter(max_depth=200, max_steps=10**7)
    interp.eval(SHAPES["if"][0])
    got = interp.eval("(parallel-map (lambda (n) (length (interval-list 1 n))) '(1000 2000 3000 4000))")
    assert got == [1000, 2000, 3000, 4000]


def test_step_limit_under_parallel_map() -> None:
    interp = Interpreter(max_steps=5000)
    interp.eval(SHAPES["if"][0])
    with pytest.raises(SchemeError, match="step limit"):
        interp.eval("(parallel-map (lambda (n) (length (interval-list 1 n))) '(4000 4000))")


def test_a_constant_base_fills_the_hole_in_place(sources: list[str]) -> None:
    """A constant returned while a hole is open (the ``'()`` that ends the list, or any
    quoted tail) is no pending tail call: the body fills the hole itself, not through
    ``filled``."""
    interp = Interpreter()
    interp.eval("(define (upto m n) (if (> m n) '(end) (cons m (upto (+ m 1) n))))")
    assert write_string(interp.eval_scheme("(upto 1 3)")) == "(1 2 3 end)"
    assert write_string(interp.eval_scheme("(upto 4 3)")) == "(end)"
    source = "\n".join(sources)
    assert re.search(r"out = c\d+\n +if hole is None:\n +return out\n +hole\.cdr = out\n +return head", source), source
