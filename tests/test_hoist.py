"""Loop-invariant tests (``compiler/hoist.py``): a parameter every round passes on unchanged
is type-tested once before the loop, and again wherever a call out re-reads it."""

from __future__ import annotations

import re

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.printer import write_string

REMOVE_MULTIPLES = """
(define (remove-multiples n l)
  (if (null? l) '()
      (if (= (modulo (car l) n) 0)
          (remove-multiples n (cdr l))
          (cons (car l) (remove-multiples n (cdr l))))))
"""


def body_of(sources: list[str], marker: str) -> str:
    (source,) = [source for source in sources if marker in source]
    return source


def test_the_divisor_is_tested_once_before_the_loop(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval(REMOVE_MULTIPLES)
    assert write_string(interp.eval_scheme("(remove-multiples 3 (iota 12 1))")) == "(1 2 4 5 7 8 10 11)"
    body = body_of(sources, "% arg0")
    before_loop = body[: body.index("while True:")]
    # the guard's flag (modulo, car … still the built-ins) ends the run and moves with it
    hoisted = re.search(r"(inv\d+) = (type\(arg0\) is int and arg0 != 0 and ok\d+)\n", before_loop)
    assert hoisted, before_loop
    local, run = hoisted.groups()
    assert re.search(rf"if type\(arg1\) is Pair and .* and {local}:", body), body
    # inside the loop the test is made only where a call out has returned
    loop = body[body.index("while True:") :]
    recomputed = re.sub(r"inv\d+ :?= \(?type\(arg0\) is int and arg0 != 0( and ok\d+)?\)?", "", loop)
    assert "type(arg0)" not in recomputed
    assert run not in re.sub(rf"{local} :?= \(?{re.escape(run)}\)?", "", loop)


@pytest.mark.parametrize(
    ("divisor", "expected"),
    [
        ("3", "(1 2 4 5 7 8)"),
        ("-3", "(1 2 4 5 7 8)"),
        ("3.", "(1 2 4 5 7 8)"),
        ("(expt 10 30)", "(1 2 3 4 5 6 7 8 9)"),
        ("1", "()"),
    ],
)
def test_every_divisor_gives_what_the_slow_path_gives(divisor: str, expected: str) -> None:
    interp = Interpreter()
    interp.eval(REMOVE_MULTIPLES)
    assert write_string(interp.eval_scheme(f"(remove-multiples {divisor} (iota 9 1))")) == expected
    interp.eval("(define modulo (let ((m modulo)) (lambda (a b) (m a b))))")  # no inline code at all
    assert write_string(interp.eval_scheme(f"(remove-multiples {divisor} (iota 9 1))")) == expected


@pytest.mark.parametrize(
    ("divisor", "message"),
    [("0", "modulo: division by zero"), ('"3"', 'modulo: expected an integer, got "3"')],
)
def test_a_divisor_the_guard_refuses_gets_the_primitives_error(divisor: str, message: str) -> None:
    interp = Interpreter()
    interp.eval(REMOVE_MULTIPLES)
    with pytest.raises(SchemeError) as info:
        interp.eval(f"(remove-multiples {divisor} (iota 9 1))")
    assert info.value.message == message
    assert "(modulo (car l) n)" in str(info.value)


def test_a_parameter_that_a_round_changes_is_tested_at_every_round(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval("(define (sum-to n acc) (if (= n 0) acc (sum-to (- n 1) (+ acc n))))")
    assert interp.eval("(sum-to 100 0)") == 5050
    assert "= type(arg" not in body_of(sources, "def run(outer, depth, rt, arg0, arg1)")  # flags alone move


def test_a_body_without_a_loop_is_left_as_it_is(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval("(define (scale k x) (if (< x 0) (* k (- x)) (* k x)))")
    assert interp.eval("(scale 3 -4)") == 12
    assert "inv" not in body_of(sources, "def run(outer, depth, rt, arg0, arg1)")


def test_a_task_that_assigns_the_parameter_in_the_middle_of_the_loop_is_seen() -> None:
    """A task run in the body's frame re-binds ``n``: the rounds after it test ``n`` again."""
    interp = Interpreter()
    interp.eval(
        """(define-task (retype!) (context (inherit full)) (set! n "x") #f)
           (define (shift n l acc)
             (if (null? l) (reverse acc)
                 (begin (if (= (car l) 3) (retype!))
                        (shift n (cdr l) (cons (+ (car l) n) acc)))))"""
    )
    assert write_string(interp.eval_scheme("(shift 10 '(1 2) '())")) == "(11 12)"
    with pytest.raises(SchemeError) as info:
        interp.eval("(shift 10 '(1 2 3 4) '())")
    assert info.value.message == '+: expected a number, got "x"'


def test_a_task_that_assigns_the_parameter_inside_an_expression_is_seen() -> None:
    """The re-read inside an expression (the slow path of an inline ``+``, which calls the
    task ``+`` was rebound to) recomputes too: the ``modulo`` after it in the same
    expression tests ``n`` again."""
    interp = Interpreter()
    interp.eval(
        """(define-task (retype! a b) (context (inherit full)) (set! n 2.5) 0)
           (define (walk n l acc)
             (if (null? l) (reverse acc)
                 (walk n (cdr l) (cons (list (+ (car l) 0) (modulo 7 n)) acc))))"""
    )
    assert write_string(interp.eval_scheme("(walk 2 '(1 2) '())")) == "((1 1) (2 1))"
    interp.eval("(define + (task-ref 'retype!))")
    with pytest.raises(SchemeError) as info:
        interp.eval("(walk 2 '(1 2) '())")
    assert info.value.message == "modulo: expected an integer, got 2.5"


def test_the_loop_runs_under_parallel_map() -> None:
    interp = Interpreter()
    interp.eval(REMOVE_MULTIPLES)
    expected = [interp.eval(f"(remove-multiples {d} (iota 200 1))") for d in range(2, 12)]
    assert interp.eval("(parallel-map (lambda (d) (remove-multiples d (iota 200 1))) (iota 10 2))") == expected


def test_limits_still_end_the_loop() -> None:
    interp = Interpreter(max_steps=5_000)
    interp.eval(REMOVE_MULTIPLES)
    with pytest.raises(SchemeError) as info:
        interp.eval("(remove-multiples 7 (iota 100000 1))")
    assert info.value.kind == "resource-exhaustion"
    assert "steps" in info.value.message


def test_a_test_inside_a_do_loop_is_made_once_per_call(sources: list[str]) -> None:
    """No self call: the body's own loop does not go round, its ``do`` does."""
    interp = Interpreter()
    interp.eval(
        "(define (fill-mod v n) (do ((i 0 (+ i 1))) ((= i (vector-length v)) v) (vector-set! v i (modulo i n))))"
    )
    assert write_string(interp.eval_scheme("(fill-mod (make-vector 7 #f) 3)")) == "#(0 1 2 0 1 2 0)"
    body = body_of(sources, "def run(outer, depth, rt, arg0, arg1)")
    inner = body.index("\n            while True:")  # the do loop, inside the body's own
    before_loop = body[body.index("while True:") : inner]  # made as the do loop starts
    assert "= type(arg0) is list\n" in before_loop  # the vector
    assert "= type(arg1) is int and arg1 != 0\n" in before_loop  # the divisor
    assert "type(arg" not in re.sub(r"inv\d+ :?= \(?type\(arg.*", "", body[inner:])
    with pytest.raises(SchemeError) as info:
        interp.eval("(fill-mod (make-vector 7 #f) 0)")
    assert info.value.message == "modulo: division by zero"


def test_a_test_made_once_per_call_anyway_stays_where_it_is(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval(
        """(define (scaled-sum k l)
             (let ((base (* k 2)))
               (let loop ((l l) (acc base)) (if (null? l) acc (loop (cdr l) (+ acc (car l)))))))"""
    )
    assert interp.eval("(scaled-sum 5 '(1 2 3))") == 16
    assert "= type(arg" not in body_of(sources, "def run(outer, depth, rt, arg0, arg1)")  # flags alone move


def test_a_flag_is_tested_once_before_the_loop(sources: list[str]) -> None:
    """``null?`` still the built-in: one local, read where the loop's guard was."""
    interp = Interpreter()
    interp.eval("(define (len l n) (if (null? l) n (len (cdr l) (+ n 1))))")
    assert interp.eval("(len '(a b c) 0)") == 3
    body = body_of(sources, "def run(outer, depth, rt, arg0, arg1)")
    hoisted = dict(re.findall(r"\n        (inv\d+) = (ok\d+)(?=\n)", body))
    local = re.search(r"arg0 is NIL if (inv\d+) else", body)[1]  # type: ignore[index]
    # read again only where a call out returned, if a flag is down
    assert not re.search(rf"(?<!:= \()(?<!= ){hoisted[local]}\b", body[body.index("while True:") :])


def test_a_builtin_that_a_call_in_the_loop_rebinds_is_seen_at_once(sources: list[str]) -> None:
    """``swap!`` rebinds ``+`` in the middle of the loop: the same round's ``+`` is the new one."""
    interp = Interpreter()
    interp.eval(
        """(define (swap!) (set! + -))
           (define (sum l acc)
             (if (null? l) acc
                 (begin (if (= (car l) 0) (swap!)) (sum (cdr l) (+ acc (car l))))))"""
    )
    assert interp.eval("(sum '(1 2 0 3 4) 0) ") == 1 + 2 - 0 - 3 - 4
    assert "okall" in body_of(sources, "def run(outer, depth, rt, arg0, arg1)")


def test_a_builtin_that_a_fallback_inside_an_expression_rebinds_is_seen_next_round() -> None:
    """``abs`` is the program's own: its call (the inline ``abs``'s fallback, inside the
    expression) rebinds ``+``, and the next round adds with the new one."""
    interp = Interpreter()
    interp.eval("(define (sum l acc) (if (null? l) acc (sum (cdr l) (+ acc (abs (car l))))))")
    assert interp.eval("(sum '(1 -2 3) 0)") == 6  # compiled with the built-ins
    interp.eval("(define abs (let ((real abs)) (lambda (x) (set! + -) (real x))))")
    assert interp.eval("(sum '(0 2 3) 0)") == 0 - 2 - 3


def test_a_flag_that_comes_back_up_is_safe() -> None:
    """``car`` rebound and restored while the loop runs: the rounds after take the
    ordinary path or the inline one, and both give the built-in's answer."""
    interp = Interpreter()
    interp.eval(
        """(define real-car car)
           (define (flip! x) (set! car cdr) (set! car real-car) x)
           (define (total l acc) (if (null? l) acc (total (cdr l) (+ acc (flip! (car l))))))"""
    )
    assert interp.eval("(total '(1 2 3 4) 0)") == 10


def test_a_body_moves_a_bounded_number_of_flags(sources: list[str]) -> None:
    """Each moved flag is written out again at every call out: at most MAX_FLAGGED move (the
    first in the source), so the source stays linear in the body's size; the others are read
    where they are used. This loop tests eleven."""
    from interpreter.compiler.hoist import MAX_FLAGGED

    tests = ["zero?", "even?", "odd?", "negative?", "positive?", "vector?", "string?", "symbol?", "char?", "null?"]
    clauses = " ".join(f"(({test} x) {k})" for k, test in enumerate(tests))
    interp = Interpreter()
    interp.eval(
        f"(define (walk l acc) (if (null? l) acc (let ((x (car l))) (walk (cdr l) (+ acc (cond {clauses} (else 99)))))))"
    )
    assert interp.eval("(walk '(1 2 3 -4) 0)") == 2 + 1 + 2 + 1
    body = body_of(sources, "def run(outer, depth, rt, arg0, arg1)")
    assert len(re.findall(r"\n        inv\d+ = .*\bok\d+(?=\n)", body)) == MAX_FLAGGED
