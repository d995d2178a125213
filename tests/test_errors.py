"""What a user sees when something goes wrong: kind, message, file:line:col, DSL backtrace."""

from __future__ import annotations

import pytest

from interpreter import Interpreter, SchemeError

PROGRAM = """\
(define (first-item x)
  (car x))

(define (describe x)
  (list 'first (first-item x)))

(describe 5)
"""


def test_backtrace_names_calls_locations_and_procedures(error) -> None:
    err = error(PROGRAM, "prog.scm")
    text = err.format()
    lines = text.splitlines()
    assert lines[0] == "error: car: expected a pair, got 5"
    assert "(car x)" in lines[1] and "prog.scm:2:3" in lines[1] and "in first-item" in lines[1]
    assert "(first-item x)" in lines[2] and "prog.scm:5:16" in lines[2] and "in describe" in lines[2]
    assert "(list 'first (first-item x))" in lines[3] and "prog.scm:5:3" in lines[3]
    assert "(describe 5)" in lines[4] and "prog.scm:7:1" in lines[4]
    assert "Traceback" not in text


def test_error_record_is_serialisable(error) -> None:
    record = error(PROGRAM, "prog.scm").to_record()
    data = record.model_dump()
    assert data["kind"] == "type-error"
    assert data["location"] == "prog.scm:2:3"
    assert [f["procedure"] for f in data["backtrace"]] == ["first-item", "describe", "describe", None]


@pytest.mark.parametrize(
    ("source", "kind", "message"),
    [
        ("(undefined-var)", "unbound-variable", "unbound variable: undefined-var"),
        ("(+ 1 missing)", "unbound-variable", "unbound variable: missing"),
        ("(define (f a b) a) (f 1)", "arity-error", "f: expected 2 arguments, given 1"),
        ("(define (f a . r) a) (f)", "arity-error", "f: expected at least 1, given 0"),
        ("((lambda () 1) 2)", "arity-error", "lambda: expected 0 arguments, given 1"),
        ("(car 1 2)", "arity-error", "car: expected 1 argument, given 2"),
        ("(+ 1 #t)", "type-error", "+: expected a number, got #t"),
        ("(5 3)", "type-error", "not a procedure: 5"),
        ("(\"str\")", "type-error", 'not a procedure: "str"'),
        ("(/ 5 0)", "division-by-zero", "/: division by zero"),
        ("(error \"Something bad:\" 42 'foo)", "error", "Something bad:"),
        ("(raise 'my-condition)", "raise", "uncaught raise: my-condition"),
        ("(set! nope 1)", "unbound-variable", "set!: unbound variable: nope"),
        ("(vector-ref (vector 1 2 3) 10)", "index-error", "vector-ref"),
        # a primitive reached through apply, in tail position and not: named after itself
        ("(define (f . xs) (apply + xs)) (f (expt 10 400) 1.5)", "value-error", "+: numeric overflow"),
        ("(define (g . xs) (list (apply + xs))) (g (expt 10 400) 1.5)", "value-error", "+: numeric overflow"),
        ("(apply + (list (expt 10 400) 1.5))", "value-error", "+: numeric overflow"),
        # a count a compiled call gives wrong (Python refuses it, the call site explains it)
        ("(define (two a b) a) (define (c) (list (two 1))) (c)", "arity-error", "two: expected 2 arguments, given 1"),
        ("(define (one a) a) (define (c) (list (one 1 2))) (c)", "arity-error", "one: expected 1 argument, given 2"),
        ("(define (r a . m) a) (define (c) (list (r))) (c)", "arity-error", "r: expected at least 1, given 0"),
    ],
)
def test_runtime_error_kinds_and_messages(error, source: str, kind: str, message: str) -> None:
    err = error(source)
    assert err.kind == kind
    assert message in err.full_message()
    assert "test.scm:1:" in err.format()


def test_error_irritants_are_written(error) -> None:
    err = error('(error "Something bad:" 42 "text" (list 1 2))')
    assert err.full_message() == "Something bad: 42 \"text\" '(1 2)"


@pytest.mark.parametrize(
    ("source", "message", "where"),
    [
        ("(if)", "if: expected", "1:1"),
        ("(if 1 2 3 4)", "if: expected", "1:1"),
        ("(let ((x)) x)", "let: each binding must be (name value)", "1:7"),
        ("(lambda)", "lambda: expected", "1:1"),
        ("(lambda (x x) x)", "duplicate parameter", "1:1"),
        ("(lambda (1) x)", "parameter must be a symbol", "1:1"),
        ("(define)", "define: expected", "1:1"),
        ("(define 5 1)", "define: the name must be a symbol", "1:1"),
        ("(set! 5 1)", "set!: expected", "1:1"),
        ("(quote)", "quote: expected exactly one datum", "1:1"),
        ("(let loop)", "let: expected", "1:1"),
        ("(cond (else))", "else clause needs a body", "1:7"),
        ("(case)", "case: expected", "1:1"),
        ("(do ((i 0)) )", "do: expected", "1:1"),
        ("()", "empty combination", "1:1"),
        ("(define x 1)\n\n   (if)", "if: expected", "3:4"),
        ("(guard 5)", "guard: expected", "1:1"),
        ("(let-values (((a) 1 2)) a)", "let-values: each binding must be (formals expr)", "1:14"),
        (",x", "unquote: not inside a quasiquote", "1:1"),
        ("(car . 1)", "improper list", "1:1"),
        ("(if . 1)", "improper list", "1:1"),
    ],
)
def test_syntax_errors_point_at_the_form(error, source: str, message: str, where: str) -> None:
    err = error(source)
    assert err.kind == "syntax-error"
    assert message in err.message
    assert f"test.scm:{where}" in err.format()


def test_syntax_error_is_found_before_running(error) -> None:
    err = error('(define (f) (display "ran") (if)) 1')
    assert err.kind == "syntax-error"


def test_unclosed_parenthesis_points_where_the_list_opened(error) -> None:
    err = error("(define x 1)\n(define (f y)\n  (+ y 1)\n")
    assert err.kind == "read-error"
    assert "test.scm:2:1" in err.format()
    assert "unclosed '(define …'" in err.format()


def test_unexpected_close_paren_is_a_read_error(error) -> None:
    err = error("(+ 1 2))")
    assert err.kind == "read-error"
    assert "test.scm:1:8" in err.format()


def test_errors_are_catchable_and_the_interpreter_continues() -> None:
    interp = Interpreter()
    interp.eval("(define (safe-div a b) (guard (e (#t 'div-error)) (/ a b)))")
    assert interp.eval("(safe-div 1 0)").name == "div-error"
    with pytest.raises(SchemeError):
        interp.eval("(car '())")
    assert interp.eval("(safe-div 10 2)") == 5


def test_tail_calls_do_not_flood_the_backtrace(error) -> None:
    err = error("(define (loop n) (if (= n 0) (car n) (loop (- n 1)))) (loop 100000)")
    assert len(err.frames) <= 5


def test_deep_non_tail_error_backtrace_is_capped(error) -> None:
    err = error("(define (down n) (if (= n 0) (car n) (+ (down (- n 1)) 1))) (down 3000)")
    text = err.format()
    assert text.count("\n") < 60
    assert "more frames" in text


def test_python_exception_inside_primitive_becomes_scheme_error() -> None:
    interp = Interpreter()

    def broken(x: object) -> object:
        raise RuntimeError("kaput")

    interp.define_primitive("broken", broken)
    with pytest.raises(SchemeError) as info:
        interp.eval("(broken 1)", filename="p.scm")
    assert info.value.kind == "internal-error"
    assert "broken" in info.value.message and "kaput" in info.value.message
    assert "p.scm:1:1" in info.value.format()


def test_wrong_arity_of_python_primitive_is_an_arity_error() -> None:
    interp = Interpreter()
    interp.define_primitive("two", lambda a, b: a)
    with pytest.raises(SchemeError) as info:
        interp.eval("(two 1)")
    assert info.value.kind == "arity-error"
    assert "two: expected 2 arguments, given 1" in info.value.message


def test_unbound_variable_in_effect_position_is_an_error(error) -> None:
    err = error("(define (f) (begin undefined-thing 1)) (f)")
    assert err.message == "unbound variable: undefined-thing"


def test_an_error_in_code_the_program_built_points_at_the_eval(error) -> None:
    """Pairs a compiled loop made carry no span (they read None): analysing them as code
    reports the location of the ``eval`` that ran them."""
    program = """\
(define (build n) (if (= n 0) '() (cons n (build (- n 1)))))
(define built (build 3))
(eval (cons 'car built) (interaction-environment))
"""
    err = error(program, "built.scm")
    lines = err.format().splitlines()
    assert lines[0] == "error: car: expected 1 argument, given 3"
    assert "(car 3 2 1)" in lines[1]
    assert "built.scm:3:1" in lines[2]
