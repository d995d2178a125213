"""Frames a compiled body empties as it leaves them (interpreter/nodes/release.py).

A ``letrec`` or internal define binding local procedures is a cycle (frame -> closure ->
frame). When the procedures cannot outlive the frame, the body breaks the cycle as it
leaves: what the frame reaches is freed by reference counting, not left to the cyclic
collector. The garbage a run leaves is counted with the collector off; the shapes that
must keep their frame (a procedure passed, returned, stored or captured) keep working.
"""

from __future__ import annotations

import gc

import pytest

from interpreter import Interpreter
from interpreter.env import Env
from interpreter.printer import write_string

SIEVE = """
(define (interval-list m n) (if (> m n) '() (cons m (interval-list (+ 1 m) n))))
(define (sieve l)
  (letrec ((remove-multiples
            (lambda (n l)
              (if (null? l) '()
                  (if (= (modulo (car l) n) 0)
                      (remove-multiples n (cdr l))
                      (cons (car l) (remove-multiples n (cdr l))))))))
    (if (null? l) '() (cons (car l) (sieve (remove-multiples (car l) (cdr l)))))))
"""

DEFINES = """
(define (count-matching l acc)
  (define (wanted? x) (= (modulo x 3) 0))
  (if (null? l) acc (count-matching (cdr l) (if (wanted? (car l)) (+ acc 1) acc))))
(define (total-of-lists ls acc)
  (if (null? ls) acc (total-of-lists (cdr ls) (+ acc (count-matching (car ls) 0)))))
"""


def cyclic_garbage(interp: Interpreter, expression: str) -> tuple[object, int]:
    """The value of ``expression`` and the frames of ``interp`` the run left to the cyclic
    collector. Only this interpreter's frames count: garbage an earlier test's run left in
    the process (its frozen heap, unfrozen when a run in another thread ends) is not this run's."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        value = interp.eval(expression)
        gc.collect()
        return value, sum(1 for o in gc.garbage if type(o) is Env and o.root() is interp.global_env)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def primes(n: int) -> list[int]:
    return [p for p in range(2, n + 1) if all(p % d for d in range(2, p))]


def test_a_letrec_made_each_round_leaves_no_cycles() -> None:
    interp = Interpreter()
    interp.eval(SIEVE)
    value, garbage = cyclic_garbage(interp, "(length (sieve (interval-list 2 2000)))")
    assert value == len(primes(2000))
    assert garbage < 10  # a frame at most; thousands before


def test_internal_defines_leave_no_cycles() -> None:
    interp = Interpreter()
    interp.eval(DEFINES)
    value, garbage = cyclic_garbage(interp, "(total-of-lists (make-list 300 (iota 30)) 0)")
    assert value == 300 * 10
    assert garbage < 10


def test_a_procedure_that_escapes_keeps_its_frame() -> None:
    """The control: a helper stored in a global is not released (and the count shows it)."""
    interp = Interpreter()
    interp.eval(SIEVE)
    interp.eval(
        """(define last-helper #f)
           (define (sieve l)
             (letrec ((remove-multiples
                       (lambda (n l)
                         (cond ((null? l) '())
                               ((= (modulo (car l) n) 0) (remove-multiples n (cdr l)))
                               (else (cons (car l) (remove-multiples n (cdr l))))))))
               (set! last-helper remove-multiples)
               (if (null? l) '() (cons (car l) (sieve (remove-multiples (car l) (cdr l)))))))"""
    )
    value, garbage = cyclic_garbage(interp, "(length (sieve (interval-list 2 2000)))")
    assert value == len(primes(2000))
    assert garbage >= len(primes(2000))  # a frame (or two) left by every round
    assert write_string(interp.eval_scheme("(last-helper 2 '(1 2 3 4 5))")) == "(1 3 5)"


@pytest.mark.parametrize(
    ("program", "expression", "expected"),
    [
        # returned, passed, stored in a data structure, captured by an inner lambda
        ("(define (f) (letrec ((h (lambda (x) (* x 2)))) h))", "((f) 21)", "42"),
        ("(define (f l) (letrec ((h (lambda (x) (* x 2)))) (map h l)))", "(f '(1 2))", "(2 4)"),
        ("(define (f) (letrec ((h (lambda (x) (* x 2)))) (list h)))", "((car (f)) 5)", "10"),
        ("(define (f n) (letrec ((h (lambda (x) (+ x n)))) (lambda (y) (h y))))", "((f 1) 2)", "3"),
        ("(define (f) (define (h x) (- x)) h)", "((f) 4)", "-4"),
        ("(define (f n) (define (h x) (+ x n)) (lambda () (h 1)))", "((f 2))", "3"),
        # a pending tail call of the helper is not emptied before it runs
        (
            "(define (f n) (letrec ((h (lambda (k acc) (if (= k 0) acc (h (- k 1) (+ acc k)))))) (h n 0)))",
            "(f 100)",
            "5050",
        ),
        ("(define (f n) (define (h k) (if (= k 0) 'done (h (- k 1)))) (h n))", "(f 10)", "done"),
        # helpers calling each other, made again in every round of a loop
        (
            """(define (parities l acc)
                 (letrec ((ev? (lambda (n) (if (= n 0) #t (od? (- n 1)))))
                          (od? (lambda (n) (if (= n 0) #f (ev? (- n 1))))))
                   (if (null? l) (reverse acc) (parities (cdr l) (cons (ev? (car l)) acc)))))""",
            "(parities '(0 1 2 3) '())",
            "(#t #f #t #f)",
        ),
        # a round that returns early from inside the letrec, and one that goes on after it
        (
            """(define (first-big l)
                 (let loop ((l l))
                   (letrec ((big? (lambda (x) (> x 10))))
                     (cond ((null? l) #f) ((big? (car l)) (car l)) (else (loop (cdr l)))))))""",
            "(first-big '(1 5 12 30))",
            "12",
        ),
    ],
)
def test_shapes_that_keep_or_release_their_frame(program: str, expression: str, expected: str) -> None:
    interp = Interpreter()
    interp.eval(program)
    for _ in range(3):  # the first call runs before the body is compiled
        assert write_string(interp.eval_scheme(expression)) == expected


def test_an_error_inside_a_released_helper_still_names_it() -> None:
    interp = Interpreter()
    interp.eval(
        """(define (f l acc)
             (letrec ((half (lambda (x) (quotient x (car l)))))
               (if (null? (cdr l)) acc (f (cdr l) (+ acc (half 10))))))"""
    )
    assert interp.eval("(f '(1 2 5 7) 0)") == 10 + 5 + 2
    with pytest.raises(Exception) as caught:
        interp.eval("(f '(1 0 5) 0)")
    text = str(caught.value)
    assert "quotient" in text and "division by zero" in text


def test_released_frames_under_parallel_map() -> None:
    """Each branch runs its own activations: every frame is released by the one that made it."""
    interp = Interpreter()
    interp.eval(SIEVE)
    value = interp.eval_scheme("(parallel-map (lambda (n) (length (sieve (interval-list 2 n)))) '(100 200 300 400))")
    assert write_string(value) == write_string(
        interp.eval_scheme("(map (lambda (n) (length (sieve (interval-list 2 n)))) '(100 200 300 400))")
    )
    assert write_string(value) == f"({' '.join(str(len(primes(n))) for n in (100, 200, 300, 400))})"


def test_a_named_let_that_is_not_in_tail_position_leaves_no_cycles() -> None:
    interp = Interpreter()
    interp.eval(
        """(define (sum-plus-one l) (+ 1 (let loop ((l l) (acc 0)) (if (null? l) acc (loop (cdr l) (+ acc (car l)))))))
           (define (sums ls acc) (if (null? ls) acc (sums (cdr ls) (+ acc (sum-plus-one (car ls))))))
           (define saved #f)
           (define (keeps-loop) (+ 1 (let loop ((n 0)) (set! saved loop) (if (< n 3) (loop (+ n 1)) n))))"""
    )
    value, garbage = cyclic_garbage(interp, "(sums (make-list 300 (iota 30)) 0)")
    assert value == 300 * (435 + 1)
    assert garbage < 10
    # a loop stored away keeps its frame: called later, it still finds its own name
    assert interp.eval("(keeps-loop)") == 4
    assert interp.eval("(saved 0)") == 3
