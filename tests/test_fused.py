"""A nest of built-ins in a compiled body is computed behind one type guard
(``compiler/fused.py``): its values and errors are those of the ordinary calls, for every
type the guard refuses, and a built-in rebound at any moment is honoured."""

from __future__ import annotations

import re

import pytest
from test_compiled_equivalence import Interpreters, Ways

from interpreter import Interpreter
from interpreter.compiler.fused import FORMS
from interpreter.compiler.literal_search import SEARCHES

#: Every built-in a nest may fuse, rebound to a procedure that calls it: nothing inline.
WRAPPED = " ".join(
    f"(define {name} (let ((p {name})) (lambda xs (apply p xs))))" for name in {*(n for n, _ in FORMS), *SEARCHES}
)


def unnamed(outcome: str) -> str:
    """An outcome without the name of the procedure an error message starts with: a
    built-in reached through ``apply`` in tail position (the wrappers) is not named."""
    return re.sub(r"^(error [\w-]+): [^ :]+: ", r"\1: ", outcome)


class Reference(Interpreters):
    """The outcome with no inline computation at all (every built-in ``wrapped`` rebinds
    called), in one interpreter reused between calls."""

    def __init__(self, wrapped: str = WRAPPED) -> None:
        super().__init__([(wrapped, None)])

    def run(self, expr: str, a: str, b: str) -> str:
        return self.call(0, expr, a, b)


NESTS = [
    "(= (modulo (car a) b) 0)",
    "(+ (- (* a a) (* b b)) a)",
    "(+ (* 2.0 (* a b)) b)",
    "(> (+ (* a a) (* b b)) 16.0)",
    "(< (vector-ref (vector a b) (car (list 1))) (+ a 1))",
    "(not (null? (cdr a)))",
    "(eq? (car a) 'x)",
    "(eqv? (car a) b)",
    "(list (zero? (- a b)) (even? (+ a 1)) (odd? (* a 3)))",
    "(char<? (car a) (integer->char (+ 1 (char->integer b))))",
    "(+ (vector-length (vector a b)) (* a 2))",
    "(/ (+ a 1.5) (- b 2.0))",
    "(if (pair? (cdr a)) (car (cdr a)) (- b 1))",
    # one guarded built-in with a literal operand: the literal is not tested at run time
    "(* a 3)",
    "(* a 18446744073709551616)",  # a literal past the inline product's limit: not fused
    "(modulo a 4)",
    "(vector-ref v 1)",
    # strings: their text inside the nest, a mutable string only for a result that leaves it
    '(string-length (string-append "k-" (number->string a) s))',
    '(string-append (number->string a) "-" b)',
    "(string-length (string-append a b))",
    "(+ (string-length a) (string-length b))",  # a string being edited has its characters
    # short lists: the built-in's own function, called directly
    "(list a (car (list b 1)) 'x)",
    "(list (string-append s s) (vector-ref v 0) a b)",
    # a character of a string searched in a quoted list of characters
    "(memv (string-ref a 1) '(#\\a #\\b 7))",
    "(if (memv (string-ref s b) '(#\\b)) 'yes 'no)",
    "(memv (car a) '(#\\a 1))",
    "(string-ref a (- b 1))",
    '(char=? (string-ref "hello" b) #\\l)',  # a literal string's characters
    # globals: a vector and a string (HELPERS), and one never bound
    "(= 1 (vector-ref v (vector-ref (vector 0 1 2) a)))",
    "(+ (vector-ref s 0) b)",
    "(< (vector-ref nowhere 0) b)",
    # each part of an and/or is a nest of its own (a later part runs only if it is reached)
    "(and (= 1 (vector-ref v (vector-ref (vector 0 1 2) a))) (= (modulo (car a) b) 0))",
    "(or (null? a) (null? (cdr a)) (< (car a) b))",
    # and/or as tests: Python's own and/or of the parts' truths (Emitter.logic_truth)
    "(if (and (= 1 (vector-ref v (vector-ref (vector 0 1 2) a))) (= (modulo (car a) b) 0)) 'yes 'no)",
    "(if (or (null? a) (car a) 0 (< (car a) b)) 'yes 'no)",
    "(cond ((and (pair? a) (or (null? (cdr a)) (eqv? (car a) b))) 'first) ((and) 'empty) (else 'no))",
    "(if (and (pair? a) (car a) (not (car a))) 1 (if (or #f (memv b '(1 2))) 2 3))",
    "(if (or (null? a) (- b b)) (if (and (pair? a) b) 'yes 'pair-no) 'no)",  # 0 is true
    # a loop's exit test that is an or, part by part (Emitter.exit_when), a call among them
    "(let ((f (lambda (x) (eqv? x b)))) (do ((i 0 (+ i 1))) ((or (= i 4) (f i) (memv i (list (car a))) (> i 9)) i)))",
]

ARGUMENTS = [
    ("3", "2"),
    ("2.5", "0.5"),
    ("'(7 8)", "3"),
    ("'(6 . 9)", "0"),  # a zero divisor
    ("'(6.0 1)", "4"),  # a float where modulo wants exact integers
    ("'(x 1)", "x"),
    ("'(#\\a)", "#\\b"),
    ("(expt 10 30)", "(expt 10 25)"),  # products past the inline size limit
    ("(expt 10 30000)", "(expt 10 29000)"),  # a product past max_digits: the primitive's error
    ("1/2", "3"),  # an exact rational: the primitives' own arithmetic
    ("2", "2.0"),  # a division by zero in floats; mixed exact and inexact
    ("#f", "'()"),
    ("'(5)", "1"),  # a list of one: its cdr is '()
    ('"ab"', '(string-copy "cd")'),
    ("(make-string 70000 #\\a)", '"x"'),  # an append past the inline length: the primitive's
    ('(let ((m (string-copy "xy"))) (string-set! m 0 #\\z) m)', '"!"'),  # a string being edited
]


def assert_agrees(expr: str, arguments: list[tuple[str, str]]) -> None:
    """Every way of running ``expr`` on each pair gives the outcome of the reference run."""
    ways, reference = Ways(), Reference()
    for a, b in arguments:
        results = {unnamed(result) for result in ways.run(expr, a, b)}
        assert results == {unnamed(reference.run(expr, a, b))}, (expr, a, b, results)


@pytest.mark.slow
@pytest.mark.parametrize("expr", NESTS)
def test_a_fused_nest_agrees_with_every_other_way_of_running_it(expr: str) -> None:
    assert_agrees(expr, ARGUMENTS)


#: ``(= (modulo (car x) n) 0)`` fused: the remainder compared as computed, behind one guard.
FUSED_MODULO = re.compile(r"\(\(\((\w+) % arg1\) == 0\) if type\(arg0\) is Pair and type\(\1 := \(arg0\.car\)\) is int")


def test_the_nest_is_computed_behind_one_guard(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval("(define (multiple? x n) (= (modulo (car x) n) 0))")
    assert interp.eval("(multiple? '(9) 3)") is True
    assert any(FUSED_MODULO.search(source) for source in sources), sources


def test_each_part_of_an_and_is_fused(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval("(define (both? x n) (and (pair? x) (= (modulo (car x) n) 0) (> (car x) n)))")
    assert interp.eval("(both? '(9) 3)") is True
    assert interp.eval("(both? '(9) 2)") is False
    assert any(FUSED_MODULO.search(source) for source in sources), sources


def test_floats_that_look_like_floats_take_the_float_form(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval("(define (norm x y) (+ (* x x) (* y 2.0)))")
    assert interp.eval("(norm 1.5 2.0)") == 6.25
    assert interp.eval("(norm 3 4)") == 17.0  # exact integers: not the fused form, the same value
    assert any("type(arg1) is float" in source and "type(arg0) is float" in source for source in sources)


def test_an_arm_reads_a_field_its_test_read_from_the_tests_name(sources: list[str]) -> None:
    """``(car a)`` in an arm of ``(if (< b (car a)) …)`` is the name the test read it into,
    until a call out (``set-car!`` here) may have changed the pair."""
    expr = "(if (< b (car a)) (list (car a) (begin (set-car! a 5) (+ (car a) 1)) (car a)) 'no)"
    assert_agrees(expr, [("(list 7 8)", "3"), ("(list 7 8)", "9"), ("(list 1.5)", "1"), ("(cons 2 3)", "1")])
    body = next(source for source in sources if "(arg0.car)) is int" in source)
    read = re.search(r"type\((t\d+) := \(arg0\.car\)\) is int", body)
    assert read is not None and f"list_of({read[1]}, " in body  # the next two are read again


def test_a_built_in_rebound_in_the_middle_of_a_loop_is_called_from_the_next_round() -> None:
    interp = Interpreter()
    interp.eval(
        """(define (count l n acc)
             (if (null? l) acc
                 (begin (if (= (car l) 3) (set! modulo (lambda (a b) 0)))
                        (count (cdr l) n (if (= (modulo (car l) n) 0) (+ acc 1) acc)))))"""
    )
    # 0 and 2 are even before the rebinding; from 3 on every number counts
    assert interp.eval("(count (iota 8) 2 0) ") == 2 + 5


def test_a_fused_nest_under_parallel_map() -> None:
    """Fused code keeps nothing of its own between runs: branches agree with a serial map."""
    interp = Interpreter()
    interp.eval("(define (f x) (+ (* x x) (modulo (car (list x)) 7)))")
    serial = interp.eval("(map f (iota 200))")
    assert interp.eval("(parallel-map f (iota 200))") == serial
