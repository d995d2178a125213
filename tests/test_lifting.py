"""Internal defines of procedures that capture nothing of the defining body but each other
are made once (``interpreter/compiler/lifting.py``), with the ordinary body's meaning."""

from __future__ import annotations

import pytest
from helpers import assert_error

from interpreter import Interpreter
from interpreter.printer import write_string

MERGE_SORT = """
(define (merge-sort lst)
  (define (merge a b)
    (cond ((null? a) b)
          ((null? b) a)
          ((< (car a) (car b)) (cons (car a) (merge (cdr a) b)))
          (else (cons (car b) (merge a (cdr b))))))
  (define (split lst)  ; its parameter shadows merge-sort's: split captures nothing
    (if (or (null? lst) (null? (cdr lst)))
        (values lst '())
        (let-values (((a b) (split (cddr lst))))
          (values (cons (car lst) a) (cons (cadr lst) b)))))
  (if (or (null? lst) (null? (cdr lst)))
      lst
      (let-values (((a b) (split lst)))
        (merge (merge-sort a) (merge-sort b)))))
"""


def lifted_bodies(sources: list[str]) -> list[str]:
    return [source for source in sources if ".closures_in(outer)" in source]


def test_merge_sorts_helpers_are_made_once(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval(MERGE_SORT)
    assert interp.eval("(merge-sort '(5 3 9 1 4 1))") == [1, 1, 3, 4, 5, 9]
    (body,) = lifted_bodies(sources)
    assert body.count(".closures_in(outer)") == 2  # merge and split, no closure made per call


@pytest.mark.parametrize(
    ("program", "call", "expected"),
    [
        # mutual recursion between lifted procedures
        ("(define (parity n) (define (ev? k) (if (= k 0) #t (od? (- k 1)))) (define (od? k) (if (= k 0) #f (ev? (- k 1))))"
         " (ev? n))", "(list (parity 10) (parity 7))", "(#t #f)"),
        # a parameter captured: not lifted, still right
        ("(define (scale l k) (define (times x) (* x k)) (map times l))", "(scale '(1 2) 3)", "(3 6)"),
        ("(define (scale l k) (define (go l) (if (null? l) '() (cons (* k (car l)) (go (cdr l))))) (go l))",
         "(list (scale '(1 2) 3) (scale '(1 2) 10))", "((3 6) (10 20))"),
        # a procedure nested in another: the lifted helper is made again for each frame it closes over
        ("(define (make-counter start) (lambda (n) (define (up i) (if (= i 0) 0 (+ 1 (up (- i 1))))) (+ start (up n))))",
         "(list ((make-counter 10) 2) ((make-counter 100) 3))", "(12 103)"),
        ("(define (outer-proc a) (define (inner b) (define (twice x) (* 2 x)) (+ a (twice b))) (inner 5))",
         "(list (outer-proc 1) (outer-proc 100))", "(11 110)"),
        # a helper that escapes is made afresh at every call: two calls' closures differ
        ("(define (make) (define (h) 1) h)", "(list (eq? (make) (make)) ((make)))", "(#f 1)"),
        ("(define (pair-up) (define (h) 1) (cons h (h)))", "(eq? (car (pair-up)) (car (pair-up)))", "#f"),
    ],
)
def test_values(program: str, call: str, expected: str) -> None:
    interp = Interpreter()
    interp.eval(program)
    assert write_string(interp.eval_scheme(call)) == expected


def test_a_call_before_a_later_define_is_still_an_error() -> None:
    interp = Interpreter()
    interp.eval("(define (f) (define (a) (b)) (a) (define (b) 1) (a))")
    assert_error(interp, "(f)", "used before its definition", "unbound-variable")


def test_a_helper_that_sets_a_parameter_is_not_lifted(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval("(define (f n) (define (bump!) (set! n (+ n 1))) (bump!) (bump!) n)")
    assert interp.eval("(f 1)") == 3
    assert not lifted_bodies(sources)


def test_escaping_or_capturing_helpers_are_not_lifted(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval("(define (make) (define (h) 1) h)")
    interp.eval("(define (scale l k) (define (times x) (* x k)) (map times l))")
    interp.eval("(make) (scale '(1) 2)")
    assert not lifted_bodies(sources)


def test_lifted_helpers_under_parallel_map() -> None:
    interp = Interpreter()
    interp.eval(MERGE_SORT)
    serial = interp.eval("(map (lambda (n) (merge-sort (iota n 100 -3))) (iota 30))")
    assert interp.eval("(parallel-map (lambda (n) (merge-sort (iota n 100 -3))) (iota 30))") == serial
    assert serial[4] == [91, 94, 97, 100]
