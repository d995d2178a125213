"""A compiled walk over ``(iota …)`` iterates its numbers without making the list, and
``(apply + (map …))``, ``(apply string-append (map …))`` and ``(length (map …))`` take map's values as they are made
(``interpreter/compiler/inline_walks.py``: ``iota_source``, ``Sink``). Values, errors (kind,
message, backtrace), limits and rebindings are those of the ordinary calls."""

from __future__ import annotations

import pytest
from test_compiled_equivalence import Ways
from test_fused import Reference
from test_inline_walks import WRAPPED

from interpreter import Interpreter, SchemeError

#: The ordinary calls: the walks, iota and apply rebound to procedures that call them.
ORDINARY = WRAPPED + (
    " (define iota (let ((p iota)) (lambda xs (apply p xs))))"
    " (define apply (let ((p apply)) (lambda (f l) (p f l))))"
    " (define length (let ((p length)) (lambda (l) (p l))))"
)

EXPRESSIONS = [
    "(map (lambda (x) (* x b)) (iota a))",
    "(filter odd? (iota a b))",
    "(fold-left (lambda (s x) (+ s (* x x))) b (iota a 1 2))",
    "(fold cons '() (iota a b 0.5))",
    "(list (any (lambda (x) (> x b)) (iota a)) (every (lambda (x) (< x b)) (iota a)))",
    "(let ((out '())) (for-each (lambda (x) (set! out (cons x out))) (iota a b)) out)",
    "(map (lambda (f) (f)) (map (lambda (x) (lambda () (list x b))) (iota a)))",  # each its own binding
    "(apply + (map (lambda (x) (* x b)) a))",
    "(apply + (map (lambda (x) (* x b)) (iota a)))",
    "(apply string-append (map number->string a))",
    "(apply string-append (map (lambda (x) (if (> x b) (number->string x) x)) a))",  # bails to the ordinary calls
    "(apply string-append (map number->string (iota a b)))",
    "(apply + (map car a))",
    "(length (map (lambda (x) (+ x b)) a))",
    "(length (map number->string (iota a b)))",
    # a walk over another walk's new list: one loop (inline_fusion)
    "(fold-left + b (filter even? (map (lambda (x) (* x 3)) a)))",
    "(fold-left + 0 (filter (lambda (x) (> x b)) (iota a)))",
    "(filter (lambda (x) (< x b)) (map (lambda (x) (* x x)) a))",
    "(map (lambda (x) (+ x b)) (map car a))",  # the consumer's error at one element, the producer's at a later one
    "(map (lambda (x) (car x)) (map (lambda (x) (+ x b)) a))",
    "(fold cons '() (filter number? (map (lambda (x) (if (> x b) x 'no)) a)))",
]

ARGUMENTS = [
    ("4", "2"),
    ("0", "1"),
    ("'(1 2 3)", "2"),
    ("'(1 2.5 3)", "1"),  # a float: + takes the ordinary way
    ("'(1 2 . 3)", "1"),  # an improper list
    ("'x", "1"),  # iota's type error, or the walk's
    ("-1", "1"),
    ("3", "'y"),
    ("'((1) (2))", "0"),
    ("(let ((l (list 1 2))) (set-cdr! (cdr l) l) l)", "1"),  # a circular list
]


@pytest.mark.slow
@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_a_walk_over_iota_or_into_apply_agrees_with_the_ordinary_calls(expr: str) -> None:
    # every way of running it, a parallel-map branch among them, against the ordinary calls
    ways, reference = Ways(), Reference(ORDINARY)
    for a, b in ARGUMENTS:
        results = set(ways.run(expr, a, b))
        assert results == {reference.run(expr, a, b)}, (expr, a, b, results)


def test_the_numbers_of_iota_are_walked_without_a_list(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval("(define (hof n) (fold-left + 0 (filter even? (map (lambda (x) (* x 3)) (iota n)))))")
    assert interp.eval("(hof 1000)") == sum(y for y in (x * 3 for x in range(1000)) if y % 2 == 0)
    body = next(source for source in sources if "iota_numbers(" in source)
    assert "in polled(" in body.split("else:")[0]


def test_a_walk_over_a_walk_is_one_loop(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval("(define (evens l) (fold-left + 0 (filter even? l)))")
    assert interp.eval("(evens (iota 10))") == 20
    body = next(source for source in sources if "probing_rounds(" in source)
    assert body.count("in probing_rounds(") == 1 and "Pair()" not in body
    # an error in either body: both calls made again the ordinary way, which raise as they do
    interp.eval("(define (firsts l) (map (lambda (x) (+ x 1)) (map car l)))")
    message, shown = frames(interp, "(firsts '((1) 2 (a)))")
    assert message == "car: expected a pair, got 2"
    assert shown == ["(map car l)", "(map (lambda (x) (+ x 1)) (map car l))", "(firsts '((1) 2 (a)))"]


def test_apply_of_a_map_makes_no_list(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval("(define (squares l) (apply + (map (lambda (x) (* x x)) l)))")
    assert interp.eval("(squares (iota 100))") == sum(x * x for x in range(100))
    body = next(source for source in sources if "probing_rounds(" in source)
    fast = body.split("else:")[0]
    assert "Pair()" not in fast and "apply_with_caller" not in fast


def frames(interp: Interpreter, source: str) -> tuple[str, list[str]]:
    with pytest.raises(SchemeError) as caught:
        interp.eval(source)
    return caught.value.message, [frame.expr for frame in caught.value.frames]


def test_errors_have_the_ordinary_calls_backtrace() -> None:
    program = """(define (digits n) (apply string-append (map number->string (iota n))))
(define (squares l) (apply + (map (lambda (x) (* x x)) l)))"""
    fast, ordinary = Interpreter(), Interpreter()
    fast.eval(program)
    ordinary.eval(ORDINARY)  # the same program, every built-in it names taken the ordinary way
    ordinary.eval(program)
    digits, squares = "(apply string-append (map number->str...", "(apply + (map (lambda (x) (* x x)) l))"
    expected = {
        "(digits 'x)": ["(iota n)", "(map number->string (iota n))", digits, "(digits 'x)"],
        "(squares '(1 a))": ["(* x x)", "(map (lambda (x) (* x x)) l)", squares, "(squares '(1 a))"],
        "(squares '(1 2 . 3))": ["(map (lambda (x) (* x x)) l)", squares, "(squares '(1 2 . 3))"],
        "(squares 7)": ["(map (lambda (x) (* x x)) l)", squares, "(squares 7)"],
    }
    for call, shown in expected.items():
        message, fast_frames = frames(fast, call)
        ordinary_message, ordinary_frames = frames(ordinary, call)
        assert message == ordinary_message, call
        assert fast_frames == shown, call
        # the wrappers' own calls aside (a frame of ORDINARY's apply), the ordinary calls show the same
        assert [frame for frame in ordinary_frames if frame != "(p f l)"] == shown, call


def test_a_rebound_builtin_is_the_one_called() -> None:
    interp = Interpreter()
    interp.eval("(define (total n) (apply + (map (lambda (x) (* x 2)) (iota n))))")
    assert interp.eval("(total 4)") == 12
    interp.eval("(define real-iota iota) (set! iota (lambda (n) (list n)))")
    assert interp.eval("(total 4)") == 8
    interp.eval("(set! iota real-iota) (define real+ +) (set! + *)")
    assert interp.eval("(total 4)") == 0
    interp.eval("(set! + real+)")
    assert interp.eval("(total 4)") == 12
    interp.eval("(define real-apply apply) (set! apply (lambda (f l) (length l)))")
    assert interp.eval("(total 4)") == 4
    interp.eval("(set! apply real-apply) (define (count l) (length (map (lambda (x) (* x 2)) l)))")
    assert interp.eval("(count '(1 2 3))") == 3
    interp.eval("(define real-length length) (set! length car)")
    assert interp.eval("(count '(1 2 3))") == 2


def test_each_number_is_a_step_and_the_limits_hold() -> None:
    interp = Interpreter(max_steps=5_000)
    interp.eval("(define (copy n) (map (lambda (x) x) (iota n)))")
    assert interp.eval("(length (copy 1000))") == 1000
    with pytest.raises(SchemeError, match="step limit"):
        interp.eval("(copy 100000)")
    timed = Interpreter(timeout=0.3)
    timed.eval("(define (spin n) (for-each (lambda (x) (let loop ((i 0)) (if (< i 10) (loop (+ i 1))))) (iota n)))")
    with pytest.raises(SchemeError, match="time"):
        timed.eval("(spin 4000000)")


@pytest.mark.parametrize(
    "expr",
    [
        "(map car (list a (begin (set! car cdr) b)))",
        "(for-each car (list a (begin (set! car cdr) b)))",
        "(filter even? (list 1 a (begin (set! even? odd?) b)))",
        "(fold-left + 0 (map car (list (list a) (begin (set! car cdr) (list b)))))",
        "(fold-left + 0 (filter even? (list 1 a (begin (set! even? odd?) b))))",
        "(fold-left + (begin (set! + -) 0) (list a b))",
        "(reduce + (begin (set! + -) 0) (list a b 3))",
        "(fold-right cons (begin (set! cons list) '()) (list a b))",
        "(vector-map car (vector a (begin (set! car cdr) b)))",
    ],
)
def test_a_built_in_by_name_is_read_before_the_operands_after_it(expr: str) -> None:
    """An operand that rebinds the name leaves the call with the procedure it was written with,
    in compiled bodies as at the top level (the differential test found `cdr:` against `car:`)."""
    ways = Ways()
    for a, b in [("0", "1"), ("2", "4"), ("'(1)", "'(2)")]:
        results = set(ways.run(expr, a, b))
        assert len(results) == 1, (expr, a, b, results)
