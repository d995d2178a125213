"""Small R7RS corrections: apply's arity, port predicates, flush-output-port, binary I/O
defaults, include inside a library, and hygiene for locally bound quasiquote and ellipsis names."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import assert_error, same

from interpreter import Interpreter


def test_apply_without_a_list_is_an_arity_error(interp: Interpreter) -> None:
    assert_error(interp, "(apply +)", "apply: expected at least 2 arguments", "arity-error")
    assert interp.eval_scheme("(apply + '())") == 0


def test_port_open_predicates_answer_false_for_the_other_direction(interp: Interpreter) -> None:
    src = """(define in (open-input-string "x")) (define out (open-output-string))
             (define bin (open-input-bytevector (bytevector 1))) (define bout (open-output-bytevector))
             (list (input-port-open? in) (output-port-open? in) (input-port-open? out) (output-port-open? out)
                   (input-port-open? bout) (output-port-open? bin) (input-port-open? bin) (output-port-open? bout))"""
    assert same(interp.eval_scheme(src), "(#t #f #f #t #f #f #t #t)")
    assert_error(interp, "(input-port-open? 5)", "input-port-open?: expected a port", "type-error")


def test_flush_output_port_accepts_a_binary_port(interp: Interpreter) -> None:
    src = "(let ((p (open-output-bytevector))) (write-u8 7 p) (flush-output-port p) (get-output-bytevector p))"
    assert same(interp.eval_scheme(src), "#u8(7)")


def test_binary_io_defaults_to_the_current_ports(interp: Interpreter) -> None:
    src = """(define out (open-output-bytevector))
             (parameterize ((current-input-port (open-input-bytevector (bytevector 1 2 3 4 5)))
                            (current-output-port out))
               (let* ((a (read-u8)) (b (peek-u8)) (ready (u8-ready?)) (two (read-bytevector 2))
                      (into (make-bytevector 2 0)) (n (read-bytevector! into)))
                 (write-u8 9)
                 (write-bytevector (bytevector 8 7))
                 (list a b ready two n into (get-output-bytevector out))))"""
    assert same(interp.eval_scheme(src), "(1 2 #t #u8(2 3) 2 #u8(4 5) #u8(9 8 7))")


def test_binary_io_on_a_textual_current_port_is_a_clear_error(interp: Interpreter) -> None:
    assert_error(interp, "(read-u8)", "read-u8: expected a binary input port", "type-error")
    assert_error(interp, "(read-u8 1 2)", "read-u8: expected 0 to 1 argument", "arity-error")


def test_include_inside_a_library_resolves_against_the_library_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lib_dir = tmp_path / "lib"
    lib_dir.mkdir()
    (lib_dir / "body.scm").write_text("(define (twice x) (* 2 x))")
    (lib_dir / "util.scm").write_text(
        "(define-library (util) (export twice) (import (scheme base)) (begin (include \"body.scm\")))"
    )
    main = tmp_path / "app" / "main.scm"
    main.parent.mkdir()
    main.write_text('(load "../lib/util.scm") (import (util)) (define result (twice 21))')
    monkeypatch.chdir(tmp_path / "app")
    interp = Interpreter(allow_files=[str(tmp_path)])
    interp.eval_file(main)
    assert interp.eval("result") == 42


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ("(let ((x 1)) `(,x ,@(list 2)))", "(1 2)"),
        ("(let ((x 1) (unquote list)) `(,x))", "((unquote x))"),
        ("(let ((x '(1)) (unquote-splicing 5)) `(,@x ,@x))", "((unquote-splicing x) (unquote-splicing x))"),
        ("(let ((x 1) (unquote-splicing 5)) `(,x))", "(1)"),
        ("(let ((... 5)) (let-syntax ((k (syntax-rules () ((_ a) (list a ...))))) (k 1)))", "(1 5)"),
        ("(let () (define-syntax e (syntax-rules ... (...) ((_ x) '(x ...)))) (e 100))", "(100 ...)"),
        ("(let () (define-syntax m (syntax-rules () ((_ x ...) '(x ...)))) (m 1 2))", "(1 2)"),
    ],
)
def test_locally_bound_syntax_names_lose_their_meaning(interp: Interpreter, src: str, expected: str) -> None:
    assert same(interp.eval_scheme(src), expected)
