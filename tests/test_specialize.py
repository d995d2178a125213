"""A test whose fused guard teaches types (``(pair? l)``, ``(< n 2)``) emits its arms
twice (``Emitter.specialize``): under one flag for every built-in they name, knowing
those types, and as usual. What is known ends at the next call out, which may rebind a
built-in or assign a variable through a task."""

from __future__ import annotations

import re

import pytest
from test_fused import assert_agrees

from interpreter import Interpreter
from interpreter.compiler import emitter
from interpreter.printer import write_string

SHAPES = [
    "(if (pair? a) (+ (car a) (if (pair? (cdr a)) (car (cdr a)) 0)) a)",
    "(cond ((not (pair? a)) (if (eq? a 'x) 1 0)) ((eq? (car a) '+) (cons '+ (cdr a))) (else (list (car a) b)))",
    "(if (< a 2) a (+ (- a 1) (- a 2)))",
    "(if (pair? a) (begin (h b) (car a)) (cdr b))",  # a call out between the test and the use
    "(let loop ((l a) (n 0)) (if (pair? l) (loop (cdr l) (+ n (car l))) n))",
    "(if (pair? a) (vector-ref (vector (car a) b) (if (pair? b) 0 1)) (modulo b 3))",
    # a do loop's test teaches its round: the steps and a vector-set! guard use what it found
    "(do ((i 0 (+ i 1)) (v (vector 1 2 3))) ((>= i a) (vector->list v)) (vector-set! v (modulo i 3) (list i b)))",
    # a test the next one's guard refutes is taken as false while that guard holds
    "(if (null? a) b (if (= (car a) 1) (cdr a) (list (car a) b)))",
    "(cond ((null? a) b) ((eq? (car a) b) (cdr a)) (else (cons b (cdr a))))",
    "(if (not (pair? a)) b (if (< (car a) 2) (car a) b))",
    "(let loop ((l a) (n 0)) (if (null? l) n (if (< (car l) 2) (loop (cdr l) (+ n 1)) (loop (cdr l) n))))",
    "(if (null? b) (null? a) (cond ((pair? a) 'pair) ((< a 2) a) (else b)))",
    # a pair's test refutes the test, and the rest takes the pair apart
    "(if (null? a) b (cons (car a) (cdr a)))",
    "(cond ((null? a) b) (else (list (car a) b)))",
    "(if (not (pair? a)) b (+ (car a) 1))",
    "(let walk ((l a) (n 0)) (if (null? l) n (walk (cdr l) (+ n (car l)))))",
]

ARGUMENTS = [
    ("'(1 2)", "'(3)"),
    ("'(1 . 2)", "5"),
    ("'x", "'y"),
    ("'(+ 4)", "#f"),
    ("1.5", "'(2.5)"),
    ("3", "'()"),
    ("5", "2"),
    ("2.5", "1"),
]


@pytest.mark.slow
@pytest.mark.parametrize("expr", SHAPES)
def test_a_specialized_branch_agrees_with_every_other_way(expr: str) -> None:
    assert_agrees(expr, ARGUMENTS)


def test_the_arms_use_what_the_test_found(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval("(define (sum l acc) (if (pair? l) (sum (cdr l) (+ acc (car l))) acc))")
    assert interp.eval("(sum '(1 2 3) 0)") == 6
    source = "\n".join(sources)
    # one flag for pair?, cdr, + and car (in the local hoist.py keeps it in), one test of
    # the list; then l is used untested
    assert re.search(r"if (ok|inv)\d+:\n +if \(type\(arg0\) is Pair\):", source), source
    assert re.search(r"t\d+ = \(arg0\.cdr\)\n", source), source


def test_a_builtin_rebound_by_a_call_in_the_arm_is_called_after_it() -> None:
    interp = Interpreter()
    interp.eval(
        """(define (rebind!) (set! car (lambda (p) 'mine)))
           (define (f l) (if (pair? l) (begin (rebind!) (car l)) 'none))"""
    )
    assert write_string(interp.eval_scheme("(f '(1 2))")) == "mine"


def test_a_variable_set_by_a_task_in_the_arm_is_read_again() -> None:
    interp = Interpreter()
    interp.eval(
        """(define-task (replace!) (context (inherit full)) (set! l 42))
           (define (f l) (if (pair? l) (begin (replace!) (if (pair? l) 'still-a-pair l)) 'none))"""
    )
    assert interp.eval("(f '(1 2))") == 42


def test_the_arms_are_emitted_twice_only_within_a_budget(sources: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A deep nest of such tests grows the code by at most the budget, not by its depth."""
    nest = "x"
    for _ in range(40):
        nest = f"(if (pair? l) (cons (car l) {nest}) (cdr l))"
    program = f"(define (f l x) {nest})"
    Interpreter().eval(f"{program} (f '(1) 0)")
    specialized = sum(len(source) for source in sources)
    sources.clear()
    monkeypatch.setattr(emitter, "SPECIALIZE_BUDGET", 0)
    Interpreter().eval(f"{program} (f '(1) 0)")
    plain = sum(len(source) for source in sources)
    assert plain < specialized < 2 * plain


def test_under_parallel_map() -> None:
    interp = Interpreter()
    interp.eval("(define (depth t) (if (pair? t) (+ 1 (max (depth (car t)) (depth (cdr t)))) 0))")
    trees = "(map (lambda (i) (iota i)) (iota 40))"
    assert interp.eval(f"(parallel-map depth {trees})") == interp.eval(f"(map depth {trees})")


def test_a_do_loop_round_uses_what_its_test_found(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval("(define (fill n) (let ((v (make-vector n 0))) (do ((i 0 (+ i 1))) ((>= i n) v) (vector-set! v i i))))")
    assert interp.eval("(vector->list (fill 4))") == [0, 1, 2, 3]
    source = "\n".join(sources)
    # the index is known to be an exact integer: neither the step nor vector-set! tests it
    assert re.search(r"\[(l\d+)\] = \1\n", source), source
    assert re.search(r"t\d+ = \(l\d+ \+ 1\)\n", source), source


def test_a_test_the_next_guard_refutes_is_not_computed_while_it_holds(sources: list[str]) -> None:
    """``(if (null? l) … (if (= (car l) x) …))``: the second test's guard finds ``l`` a
    pair, so ``(null? l)`` is false there; it is computed only where that guard fails."""
    interp = Interpreter()
    interp.eval(
        "(define (count-of x l n) (if (null? l) n (if (= (car l) x) (count-of x (cdr l) (+ n 1)) (count-of x (cdr l) n))))"
    )
    assert interp.eval("(count-of 2 '(2 1 2 3) 0)") == 2
    source = "\n".join(sources)
    guard = source.index("if type(arg1) is Pair and type(")
    assert guard < source.index("arg1 is NIL"), source


def test_a_rebound_refuted_test_is_called() -> None:
    interp = Interpreter()
    interp.eval("(define (f l) (if (null? l) 'empty (if (= (car l) 1) 'one 'other)))")
    assert write_string(interp.eval_scheme("(f '(1))")) == "one"
    interp.eval("(set! null? pair?)")
    assert write_string(interp.eval_scheme("(f '(1))")) == "empty"


def test_a_walk_takes_its_list_apart_knowing_it_is_a_pair(sources: list[str]) -> None:
    """``(if (null? l) … (cons (f (car l)) (walk f (cdr l))))``: while ``l`` is a pair the
    rest runs knowing it, ``(null? l)`` is not computed and ``(car l)`` reads the field."""
    interp = Interpreter()
    interp.eval("(define (walk f l) (if (null? l) '() (cons (f (car l)) (walk f (cdr l)))))")
    assert interp.eval("(walk (lambda (x) (* x x)) '(1 2 3))") == [1, 4, 9]
    source = "\n".join(sources)
    guard = source.index("if type(arg1) is Pair and ")
    assert guard < source.index("arg1 is NIL"), source
    assert re.search(r"t\d+ = \(arg1\.car\)\n", source), source
    interp.eval("(set! null? pair?)")
    assert interp.eval("(walk (lambda (x) (* x x)) '(1 2 3))") == []


def test_a_walk_leaves_a_test_inside_that_learns_more(sources: list[str]) -> None:
    """merge: ``(cond ((null? a) b) ((null? b) a) ((< (car a) (car b)) …) …)``. The third
    clause's test, specialized, finds both lists pairs and both cars exact integers; the
    walk on ``(null? a)`` would have kept it from being specialized (no branch is
    specialized inside another), so it is not taken."""
    interp = Interpreter()
    interp.eval(
        """(define (merge a b)
             (cond ((null? a) b)
                   ((null? b) a)
                   ((< (car a) (car b)) (cons (car a) (merge (cdr a) b)))
                   (else (cons (car b) (merge a (cdr b))))))"""
    )
    assert interp.eval("(merge '(1 3 5) '(2 4))") == [1, 2, 3, 4, 5]
    source = "\n".join(sources)
    assert re.search(r"if type\(arg0\) is Pair and type\(t\d+ := \(arg0\.car\)\) is int and type\(arg1\) is Pair", source)
