"""Scheme regressions found by outside suites (issue 33, item 9): a custom ellipsis that is
also a local variable's name, ``include`` in a library falling back to the working
directory, ``guard`` passing a continuable exception on in the dynamic environment of the
raise; and ``let-syntax`` kept a contour of its own, as R7RS (not R6RS) has it."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import assert_error, same

from interpreter import Interpreter

# -- a custom ellipsis (R7RS 4.3.2, SRFI 46) ---------------------------------------------


def test_al_petrofskys_custom_ellipsis_test(interp: Interpreter) -> None:
    """larceny's test/R7RS/Lib/tests/scheme/base.sld (suggested by Al Petrofsky): the ``...``
    the outer template writes is the inner ellipsis, the user's ``...`` (passed as ``dots``)
    its literal, two different identifiers. It failed with ``no syntax-rules pattern of n
    matches (n ...)``; it had passed at aee215f only because a literal ``...`` was then
    still taken for the ellipsis."""
    src = """(let-syntax
               ((m (syntax-rules ::: ()
                     ((m dots)
                      (let-syntax ((n (syntax-rules ... (dots)
                                        ((n dots ...) 1))))
                        (n dots))))))
               (m ...))"""
    assert interp.eval_scheme(src) == 1


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        # chibi's r7rs-tests: a macro writing a macro, its ellipsis escaped or named.
        (
            "(define-syntax be1 (syntax-rules () ((_ name) (define-syntax name (syntax-rules ()"
            " ((name expr (... ...)) (begin expr (... ...)))))))) (be1 s1) (s1 0 1 2 3)",
            "3",
        ),
        (
            "(define-syntax be2 (syntax-rules () ((_ name) (define-syntax name (... (syntax-rules ()"
            " ((name expr ...) (begin expr ...)))))))) (be2 s2) (s2 1 2 3 4)",
            "4",
        ),
        (
            "(define-syntax be3 (syntax-rules () ((_ name) (define-syntax name (syntax-rules dots ()"
            " ((name expr dots) (begin expr dots))))))) (be3 s3) (s3 2 3 4 5)",
            "5",
        ),
        (
            "(define-syntax e1 (syntax-rules () ((_) '(... ...)) ((_ x) '(... (x ...))))) (list (e1) (e1 100))",
            "(... (100 ...))",
        ),
        # The ellipsis named in the form is the ellipsis even where ... is a variable:
        # the check that a bound ... is no ellipsis is for the default one only.
        (
            "(let ((... 2)) (let-syntax ((n (syntax-rules ... (dots) ((n dots ...) 1)))) (list (n) (n dots dots))))",
            "(1 1)",
        ),
        ("(let ((::: 2)) (let-syntax ((m (syntax-rules ::: () ((_ x :::) '(x :::))))) (m 1 2 3)))", "(1 2 3)"),
        (
            "(define-syntax n (syntax-rules ... (dots) ((n dots ...) 1))) (list (n) (n dots) (n dots dots dots))",
            "(1 1 1)",
        ),
        # What stays as it was: a bound ... is no default ellipsis; a literal ellipsis is a literal.
        ("(let ((... 5)) (let-syntax ((k (syntax-rules () ((_ a) (list a ...))))) (k 1)))", "(1 5)"),
        ("(let () (define-syntax e (syntax-rules ... (...) ((_ x) '(x ...)))) (e 100))", "(100 ...)"),
    ],
)
def test_a_custom_ellipsis_is_the_ellipsis_even_where_it_is_bound(interp: Interpreter, src: str, expected: str) -> None:
    assert same(interp.eval_scheme(src), expected)


def test_a_pattern_with_a_literal_under_a_custom_ellipsis_still_refuses_other_input(interp: Interpreter) -> None:
    interp.eval_scheme("(define-syntax n (syntax-rules ... (dots) ((n dots ...) 1)))")
    assert_error(interp, "(n x)", "no syntax-rules pattern of n matches (n x)", "syntax-error")


# -- include inside a library -------------------------------------------------------------


def larceny_layout(root: Path) -> Path:
    """Larceny's test libraries: ``lib/tests/scheme/base.sld`` includes its body by a path
    from the suite's root (the working directory), not from the library's folder."""
    lib = root / "lib" / "tests" / "scheme"
    lib.mkdir(parents=True)
    (lib / "base.body.scm").write_text("(define (run-base-tests) (list 'base (* 6 7)))")
    (lib / "base.sld").write_text(
        "(define-library (tests scheme base) (export run-base-tests) (import (scheme base))"
        ' (include "lib/tests/scheme/base.body.scm"))'
    )
    main = root / "run.scm"
    main.write_text('(load "lib/tests/scheme/base.sld") (import (tests scheme base)) (define result (run-base-tests))')
    return main


def test_include_in_a_library_falls_back_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    main = larceny_layout(tmp_path)
    monkeypatch.chdir(tmp_path)
    interp = Interpreter(allow_files=[str(tmp_path)])
    interp.eval_file(main)
    assert same(interp.eval_scheme("result"), "(base 42)")


def test_include_beside_the_library_is_still_preferred(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "body.scm").write_text("(define where 'beside-the-library)")
    (tmp_path / "body.scm").write_text("(define where 'working-directory)")
    (lib / "util.sld").write_text('(define-library (util) (export where) (import (scheme base)) (include "body.scm"))')
    (tmp_path / "main.scm").write_text('(load "lib/util.sld") (import (util)) (define result where)')
    monkeypatch.chdir(tmp_path)
    interp = Interpreter(allow_files=[str(tmp_path)])
    interp.eval_file(tmp_path / "main.scm")
    assert same(interp.eval_scheme("result"), "beside-the-library")


def test_include_found_nowhere_names_the_file_beside_the_library(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "util.sld").write_text('(define-library (util) (export x) (import (scheme base)) (include "missing.scm"))')
    monkeypatch.chdir(tmp_path)
    interp = Interpreter(allow_files=[str(tmp_path)])
    assert_error(interp, '(load "lib/util.sld")', "include: cannot read missing.scm", "file-error")


def test_the_fallback_does_not_reach_outside_allow_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    allowed = tmp_path / "allowed"
    lib = allowed / "lib"
    lib.mkdir(parents=True)
    (lib / "util.sld").write_text('(define-library (util) (export x) (import (scheme base)) (include "secret.scm"))')
    (tmp_path / "secret.scm").write_text("(define x 1)")
    monkeypatch.chdir(tmp_path)  # the working directory is outside the allowed folder
    interp = Interpreter(allow_files=[str(allowed)])
    assert_error(interp, f'(load "{lib / "util.sld"}")', "include: cannot read secret.scm", "file-error")


# -- guard, with no clause that matches (R7RS 4.2.7) -----------------------------------


def test_guard_passes_a_continuable_exception_on_where_it_was_raised(interp: Interpreter) -> None:
    """R7RS 4.2.7: with no matching clause, raise-continuable is invoked on the object "within
    the dynamic environment of the original call to raise or raise-continuable, except that
    the current exception handler is that of the guard expression": the outer handler's 10
    is the value of raise-continuable, so the guard's body gives 10 and the sum 11."""
    src = """(with-exception-handler
               (lambda (e) 10)
               (lambda ()
                 (+ (guard (e ((string? e) 1)) (raise-continuable 'oops)) 1)))"""
    assert interp.eval_scheme(src) == 11


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        # A clause that matches takes it, and its tests run once.
        (
            "(let ((n 0)) (guard (e ((begin (set! n (+ n 1)) (symbol? e)) (list e n))) (+ 1 (raise-continuable 'x))))",
            "(x 1)",
        ),
        ("(guard (e ((assq 'a e) => cdr) ((assq 'b e))) (raise-continuable (list (cons 'a 42))))", "42"),
        # An inner guard passes it on to the outer one.
        ("(guard (e (#t (list 'outer e))) (guard (e ((string? e) 'inner)) (raise-continuable 'x)))", "(outer x)"),
        # Its tests run with the guard's handler: an error in one goes outside the guard.
        ("(guard (e (#t 'outer)) (guard (e ((car e) 'inner)) (raise-continuable 'x)))", "outer"),
        # A handler's own raise goes to the handler outside it, not to itself.
        (
            "(with-exception-handler (lambda (e) (list 'outer e)) (lambda () (with-exception-handler (lambda (e) (raise-continuable (list 'again e))) (lambda () (raise-continuable 'x)))))",
            "(outer (again x))",
        ),
        (
            "(guard (e (#t (list 'guard e))) (with-exception-handler (lambda (e) (raise 'y)) (lambda () (raise-continuable 'x))))",
            "(guard y)",
        ),
        # The R7RS examples with raise still hold.
        ("(guard (e ((assq 'a e) => cdr) ((assq 'b e))) (raise (list (cons 'b 23))))", "(b . 23)"),
    ],
)
def test_guard_and_handlers_take_continuable_exceptions_in_order(interp: Interpreter, src: str, expected: str) -> None:
    assert same(interp.eval_scheme(src), expected)


def test_a_non_continuable_raise_through_a_guard_still_cannot_return(interp: Interpreter) -> None:
    src = "(with-exception-handler (lambda (e) 10) (lambda () (+ (guard (e ((string? e) 1)) (raise 'oops)) 1)))"
    assert_error(interp, src, "exception handler returned from a non-continuable exception", "error")


def test_a_continuable_exception_no_handler_takes_is_uncaught(interp: Interpreter) -> None:
    assert_error(interp, "(guard (e ((string? e) 1)) (raise-continuable 'x))", "uncaught raise: x", "raise")


# -- let-syntax and letrec-syntax: a block contour (R7RS 4.3.1, erratum 13) ---------------


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        # chibi's r7rs-tests (4.3): R7RS keeps R5RS's let-syntax, a contour like let; only
        # R6RS splices the body into the enclosing one, so x is still 1 here.
        ("(let () (define x 1) (let-syntax () (define x 2) #f) x)", "1"),
        ("(let () (define x 1) (letrec-syntax () (define x 2) #f) x)", "1"),
        # R7RS 4.3.1's own examples.
        ("(let ((x 'outer)) (let-syntax ((m (syntax-rules () ((m) x)))) (let ((x 'inner)) (m))))", "outer"),
        (
            "(letrec-syntax ((my-or (syntax-rules () ((my-or) #f) ((my-or e) e)"
            " ((my-or e1 e2 ...) (let ((temp e1)) (if temp temp (my-or e2 ...)))))))"
            " (let ((x #f) (y 7) (temp 8) (let odd?) (if even?)) (my-or x (let temp) (if y) y)))",
            "7",
        ),
        # larceny's tests of the semantics WG1 approved (test/R7RS/Lib/tests/scheme/base.sld).
        (
            "(let ((x 13)) (define y 14) (let-syntax ((def (syntax-rules () ((_ var val) (define var val)))))"
            " (def x 56) (set! y (+ x y))) (list x y))",
            "(13 70)",
        ),
        (
            "(let ((x 13)) (define y 14) (letrec-syntax ((def (syntax-rules () ((_ var val) (define var val)))))"
            " (def x 56) (set! y (+ x y))) (list x y))",
            "(13 70)",
        ),
        # Definitions in its body are its own, and its last form gives its value.
        ("(let () (let-syntax ((two (syntax-rules () ((_) 2)))) (define y (two)) (* y 3)))", "6"),
    ],
)
def test_let_syntax_is_a_contour_of_its_own(interp: Interpreter, src: str, expected: str) -> None:
    assert same(interp.eval_scheme(src), expected)
