"""Macros (syntax-rules, hygiene, define-macro, let-syntax), libraries, the test harness,
continuations' limits and the file capability of file ports."""

from __future__ import annotations

from pathlib import Path

import pytest

from interpreter import Interpreter
from interpreter.errors import SchemeError

pytestmark = pytest.mark.stdlib  # CI also runs these against the built wheel


@pytest.fixture
def interp() -> Interpreter:
    return Interpreter()


def ev(interp: Interpreter, src: str) -> str:
    from interpreter.printer import write_string

    return write_string(interp.eval_scheme(src))


# -- syntax-rules ------------------------------------------------------------------------
SWAP = "(define-syntax swap! (syntax-rules () ((_ a b) (let ((tmp a)) (set! a b) (set! b tmp)))))"


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        (SWAP + "(define tmp 1) (define other 2) (swap! tmp other) (list tmp other)", "(2 1)"),
        (SWAP + "(let ((tmp 1) (y 2)) (swap! tmp y) (list tmp y))", "(2 1)"),
        (
            "(define-syntax my-or (syntax-rules () ((_ a b) (let ((t a)) (if t t b)))))"
            "(let ((if list) (t 5)) (my-or #f t))",
            "5",
        ),
        ("(define-syntax pair-up (syntax-rules () ((_ a b) (list a b)))) (let ((list vector)) (pair-up 1 2))", "(1 2)"),
        ("(define-syntax f (syntax-rules () ((_ (a b ...) ...) '((b ... a) ...)))) (f (1 2 3) (4))", "((2 3 1) (4))"),
        ("(define-syntax f (syntax-rules () ((_ a ... . r) '(r a ...)))) (f 1 2 . 3)", "(3 1 2)"),
        ("(define-syntax f (syntax-rules () ((_ #(a ...)) '(a ...)))) (f #(1 2))", "(1 2)"),
        ("(define-syntax f (syntax-rules ::: () ((_ a :::) '(a ::: ...)))) (f 1 2)", "(1 2 ...)"),
        ("(define-syntax f (syntax-rules () ((_ _ x) x))) (f 1 2)", "2"),
        ("(define-syntax f (syntax-rules (to) ((_ a to b) (- b a)))) (f 1 to 5)", "4"),
        ("(define-syntax f (syntax-rules () ((_ x) 'x))) (eq? (f 1) 1)", "#t"),
        ("(define-syntax f (syntax-rules () ((_) 'sym))) (eq? (f) 'sym)", "#t"),
        ("(define-syntax f (syntax-rules () ((_ x) `(x ,x)))) (f 2)", "(2 2)"),
        ("(define n 0) (define-syntax inc! (syntax-rules () ((_) (set! n (+ n 1))))) (let ((n 10)) (inc!) n)", "10"),
        ("(define n 0) (define-syntax inc! (syntax-rules () ((_) (set! n (+ n 1))))) (inc!) (inc!) n", "2"),
        ("(define-syntax def2 (syntax-rules () ((_ a b) (begin (define a 1) (define b 2))))) (def2 p q) (+ p q)", "3"),
        ("(define (g) (define-syntax twice (syntax-rules () ((_ x) (* 2 x)))) (twice 21)) (g)", "42"),
        ("(let-syntax ((m (syntax-rules () ((_) 'outer)))) (m))", "outer"),
        (
            "(letrec-syntax ((ev? (syntax-rules () ((_ n) (if (= n 0) #t (od? (- n 1))))))"
            " (od? (syntax-rules () ((_ n) (if (= n 0) #f #t))))) (ev? 2))",
            "#t",
        ),
    ],
)
def test_syntax_rules(interp: Interpreter, src: str, expected: str) -> None:
    assert ev(interp, src) == expected


def test_no_matching_pattern_names_macro_and_use_site(interp: Interpreter) -> None:
    interp.eval_scheme("(define-syntax my-macro (syntax-rules () ((_ a) a)))")
    with pytest.raises(SchemeError) as info:
        interp.eval_scheme("\n  (my-macro 1 2)", filename="prog.scm")
    err = info.value
    assert err.kind == "syntax-error"
    assert "no syntax-rules pattern of my-macro matches (my-macro 1 2)" in err.message
    assert err.span is not None and (err.span.file, err.span.line, err.span.col) == ("prog.scm", 2, 3)


def test_error_inside_expansion_names_macro(interp: Interpreter) -> None:
    interp.eval_scheme("(define-syntax bad (syntax-rules () ((_ x) (let ((x)) x))))")
    with pytest.raises(SchemeError) as info:
        interp.eval_scheme("(bad y)", filename="p.scm")
    assert "in the expansion of bad" in info.value.message
    assert info.value.span is not None and info.value.span.file == "p.scm"


def test_syntax_error_form(interp: Interpreter) -> None:
    interp.eval_scheme('(define-syntax f (syntax-rules () ((_ x) (syntax-error "f wants no" x))))')
    with pytest.raises(SchemeError, match="f wants no 1"):
        interp.eval_scheme("(f 1)")


def test_bad_syntax_rules_spec(interp: Interpreter) -> None:
    with pytest.raises(SchemeError, match="syntax-rules"):
        interp.eval_scheme("(define-syntax f (lambda (x) x))")
    with pytest.raises(SchemeError, match="keyword used as a variable"):
        interp.eval_scheme("(define-syntax g (syntax-rules () ((_) 1))) (list g)")


def test_define_macro(interp: Interpreter) -> None:
    interp.eval_scheme("(define-macro (my-unless c . body) `(if ,c #f (begin ,@body)))")
    assert ev(interp, "(my-unless #f 1 2)") == "2"
    interp.eval_scheme("(define-macro capture (lambda (e) `(let ((it ,e)) it)))")
    assert ev(interp, "(capture 5)") == "5"


def test_toplevel_define_replaces_macro(interp: Interpreter) -> None:
    interp.eval_scheme("(define-syntax m (syntax-rules () ((_) 1)))")
    interp.eval_scheme("(define (m) 2)")
    assert ev(interp, "(list (m) (procedure? m))") == "(2 #t)"


# -- libraries ------------------------------------------------------------------------
LIB = """(define-library (my util)
  (export double (rename hidden-count count) twice)
  (import (scheme base))
  (begin (define hidden-count 7)
         (define (helper x) (* 2 x))
         (define (double x) (helper x))
         (define-syntax twice (syntax-rules () ((_ x) (helper x))))))"""


def test_library_from_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my").mkdir()
    (tmp_path / "my" / "util.sld").write_text(LIB)
    (tmp_path / "main.scm").write_text(
        "(import (scheme base) (prefix (my util) u:)) (list (u:double 4) u:count (u:twice 5))"
    )
    interp = Interpreter(allow_files=[str(tmp_path)])
    assert interp.eval_file(tmp_path / "main.scm") == [8, 7, 10]
    with pytest.raises(SchemeError, match="unbound variable: helper"):
        interp.eval_scheme("(helper 1)")


def test_library_file_needs_capability(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my").mkdir()
    (tmp_path / "my" / "util.sld").write_text(LIB)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SchemeError) as info:
        Interpreter().eval_scheme("(import (my util))")
    assert info.value.kind == "permission"


def test_import_sets(interp: Interpreter) -> None:
    interp.eval_scheme(LIB)
    interp.eval_scheme("(import (rename (only (my util) double) (double dbl)))")
    assert ev(interp, "(dbl 3)") == "6"
    with pytest.raises(SchemeError):
        interp.eval_scheme("(double 3)")
    interp.eval_scheme("(import (except (my util) double))")
    assert ev(interp, "count") == "7"
    with pytest.raises(SchemeError, match=r"\(no such lib\)"):
        interp.eval_scheme("(import (no such lib))")
    interp.eval_scheme("(import (prefix (scheme base) s:))")
    assert ev(interp, "(s:if #t (s:car '(1)) 0)") == "1"


def test_cond_expand_and_features(interp: Interpreter) -> None:
    assert ev(interp, "(cond-expand ((and r7rs (not nope)) 'y) (else 'n))") == "y"
    assert ev(interp, "(cond-expand ((library (scheme base)) 'y) (else 'n))") == "y"
    assert ev(interp, "(cond-expand (nope 'y) (else 'n))") == "n"
    assert ev(interp, "(and (memq 'r7rs (features)) #t)") == "#t"


def test_include(tmp_path: Path) -> None:
    (tmp_path / "inc.scm").write_text("(define included 1) (define also 2)")
    (tmp_path / "main.scm").write_text('(include "inc.scm") (+ included also)')
    assert Interpreter(allow_files=True).eval_file(tmp_path / "main.scm") == 3
    with pytest.raises(SchemeError) as info:
        Interpreter().eval_file(tmp_path / "main.scm")
    assert info.value.kind == "permission"


# -- the harness ------------------------------------------------------------------------
def test_harness_counts(interp: Interpreter) -> None:
    out = interp.eval_scheme(
        '(test-begin "t") (test 3 (+ 1 2)) (test-equal "named" 1 2) (test-assert (= 1 1)) '
        "(test-error (car 1)) (test-eqv 1 1) (test-eq 'a 'a) (test 1 (car 5)) (test-end) (test-results)"
    )
    assert list(out) == [5, 2]
    failures = [str(x) for x in interp.eval_scheme("(test-failures)")]
    assert any('"named"' in f and "expected 1, got 2" in f for f in failures)


def test_harness_is_lazy() -> None:
    from interpreter.datatypes import sym

    interp = Interpreter()
    assert sym("%test-check") not in interp.global_env.vars
    interp.eval_scheme("(test-results)")
    assert sym("%test-check") in interp.global_env.vars


# -- continuations and dynamic-wind -------------------------------------------------------
def test_reentry_fails_clearly(interp: Interpreter) -> None:
    interp.eval_scheme("(define k #f) (+ 1 (call/cc (lambda (c) (set! k c) 1)))")
    with pytest.raises(SchemeError) as info:
        interp.eval_scheme("(k 5)")
    assert info.value.kind == "continuation"
    assert "escape-only" in info.value.message


def test_generator_style_reentry_fails_clearly(interp: Interpreter) -> None:
    src = """
    (define (make-gen lst)
      (define return #f)
      (define (gen)
        (call/cc (lambda (r)
          (set! return r)
          (for-each (lambda (x) (call/cc (lambda (next) (set! gen (lambda () (next #f))) (return x)))) lst)
          (return 'done))))
      (lambda () (gen)))
    (define g (make-gen '(1 2 3)))
    (g)"""
    assert ev(interp, src) == "1"
    with pytest.raises(SchemeError) as info:
        interp.eval_scheme("(g)")
    assert info.value.kind == "continuation"


def test_dynamic_wind_on_escape_and_error(interp: Interpreter) -> None:
    src = """(define log '())
    (define (note x) (set! log (cons x log)))
    (call/cc (lambda (k) (dynamic-wind (lambda () (note 'in)) (lambda () (k 1) (note 'no)) (lambda () (note 'out)))))
    (guard (e (#t (note 'caught)))
      (dynamic-wind (lambda () (note 'in2)) (lambda () (error "x")) (lambda () (note 'out2))))
    (reverse log)"""
    assert ev(interp, src) == "(in out in2 out2 caught)"


# -- error objects and files --------------------------------------------------------------
@pytest.mark.parametrize(
    "expr",
    ["(car 1)", "(vector-ref (vector) 1)", "(/ 1 0)", "(eval (quote nope))", '(error "x")', '(string-ref "" 0)', "((lambda (x) x))"],
)
def test_builtin_errors_are_error_objects(interp: Interpreter, expr: str) -> None:
    assert ev(interp, f"(guard (e (#t (error-object? e))) {expr})") == "#t"


def test_read_and_file_errors(interp: Interpreter, tmp_path: Path) -> None:
    assert ev(interp, '(guard (e (#t (read-error? e))) (read (open-input-string "(1")))') == "#t"
    files = Interpreter(allow_files=[str(tmp_path)])
    missing = tmp_path / "missing.txt"
    assert ev(files, f'(guard (e (#t (file-error? e))) (open-input-file "{missing}"))') == "#t"


@pytest.mark.parametrize(
    "expr",
    [
        '(open-input-file "x.txt")',
        '(open-output-file "x.txt")',
        '(file-exists? "x.txt")',
        '(delete-file "x.txt")',
        '(call-with-output-file "x.txt" (lambda (p) 1))',
        '(with-output-to-file "x.txt" (lambda () 1))',
        '(open-binary-input-file "x.txt")',
        '(get-environment-variable "HOME")',
    ],
)
def test_files_need_capability(interp: Interpreter, expr: str) -> None:
    with pytest.raises(SchemeError) as info:
        interp.eval_scheme(expr)
    assert info.value.kind == "permission"


def test_file_ports_inside_allowed_folder(tmp_path: Path) -> None:
    interp = Interpreter(allow_files=[str(tmp_path)])
    path = tmp_path / "out.txt"
    interp.eval_scheme(f'(call-with-output-file "{path}" (lambda (p) (write (list 1 "a") p)))')
    assert path.read_text() == '(1 "a")'
    assert ev(interp, f'(call-with-input-file "{path}" read)') == '(1 "a")'
    with pytest.raises(SchemeError) as info:
        interp.eval_scheme('(open-output-file "/tmp/../etc/taskscheme-outside.txt")')
    assert info.value.kind == "permission"


def test_include_ci_folds_identifiers(tmp_path: Path) -> None:
    (tmp_path / "inc.scm").write_text('(DEFINE Folded "Text")')
    interp = Interpreter(allow_files=True)
    interp.eval_scheme(f'(include-ci "{tmp_path / "inc.scm"}")')
    assert interp.eval_scheme("folded") == "Text"


def test_circular_and_shared_literals_survive_after_a_macro_use() -> None:
    from interpreter import Interpreter

    interp = Interpreter()
    interp.eval("(define-syntax my-id (syntax-rules () ((_ x) x)))")
    assert interp.eval_scheme("(my-id 1)") == 1
    assert interp.eval_scheme("(define c '#0=(a b . #0#)) (eq? c (cddr c))") is True
    assert interp.eval_scheme("(define v '#0=#(1 #0#)) (eq? v (vector-ref v 1))") is True
    assert interp.eval_scheme("(define s '(#1=(x) #1#)) (eq? (car s) (cadr s))") is True
