"""Names bound nowhere are reported before anything runs: all at once, with did-you-mean,
for files, -e, standard input and REPL input; forward references and tasks are fine."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helpers import run_cli

from interpreter import Interpreter, SchemeError
from interpreter.repl.session import ReplSession

PROGRAM = """(define (main)
  (display "started")
  (for-eech display '(1 2))
  (helper (lenght '(1 2))))
(define (helper n) (* n (undefined-thing n)))
(main)
"""


def taskscheme(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """``taskscheme ARGS`` in this process."""
    return run_cli(args, stdin=stdin)


def test_a_file_with_unbound_names_runs_nothing_and_lists_them_all(tmp_path: Path) -> None:
    program = tmp_path / "typos.scm"
    program.write_text(PROGRAM)
    done = taskscheme(str(program))
    assert done.returncode == 1
    assert done.stdout == ""  # "started" was never displayed
    assert "3 unbound variables; nothing was run" in done.stderr
    assert f"unbound variable: for-eech; did you mean 'for-each (at {program}:3:3)" in done.stderr
    assert f"unbound variable: lenght; did you mean 'length (at {program}:4:11)" in done.stderr
    assert f"unbound variable: undefined-thing (at {program}:5:25)" in done.stderr


def test_expressions_and_standard_input_are_whole_programs_too() -> None:
    done = taskscheme("-e", '(display "x") (display (+ 1 y))')
    assert (done.returncode, done.stdout) == (1, "")
    assert "unbound variable: y" in done.stderr and "<-e>:1:29" in done.stderr
    done = taskscheme(stdin='(display "x")\n(define (f) (lenght 1))\n')
    assert (done.returncode, done.stdout) == (1, "")
    assert "unbound variable: lenght; did you mean 'length" in done.stderr


@pytest.mark.parametrize(
    "program",
    [
        "(define (f) (g)) (define (g) 1) (f)",  # a forward reference to a procedure
        "(define (run) (greet \"x\")) (define-task (greet who) (model m) (prompt \"hi {{who}}\")) (procedure? run)",
        "(define (all xs) (map greet xs)) (define-task (greet who) (prompt \"hi {{who}}\")) #t",  # a task as a value
        "(let loop ((i 0)) (if (< i 3) (loop (+ i 1)) i))",
        "(define-record-type point (make-point x y) point? (x point-x) (y point-y)) (point-x (make-point 1 2))",
        "(define-values (a b) (values 1 2)) (let*-values (((c) (values a))) (+ b c))",
        "(do ((i 0 (+ i 1)) (acc '() (cons i acc))) ((= i 2) acc))",
        "(guard (e ((string? e) e)) (raise \"x\"))",
        "(case 2 ((1) 'one) (else => (lambda (x) x)))",
        "(define (f . args) (define-values (x y) (values 1 2)) (begin (define z 3)) (+ x y z)) (f)",
        "(define-syntax swap! (syntax-rules () ((_ a b) (let ((tmp a)) (set! a b) (set! b tmp))))) (define p 1) (define q 2) (swap! p q)",
        "`(1 ,(+ 1 1) ,@(list 3))",
        "(eval '(no-such-thing-checked-later))",  # eval: names the walk cannot see
        "(define-syntax def2 (syntax-rules () ((_ a b) (begin (define a 1) (define b 2))))) (def2 p q) (+ p q)",
    ],
)
def test_programs_that_bind_their_names_are_not_refused(program: str) -> None:
    interp = Interpreter()
    try:
        interp.eval_scheme(program, whole=True)
    except SchemeError as err:  # only the run-time error of the eval'd name may happen
        assert "no-such-thing-checked-later" in program and err.kind == "unbound-variable", err


def test_repl_input_names_unbound_code_at_once_and_warns_about_procedure_bodies(tmp_path: Path) -> None:
    import io

    err = io.StringIO()
    session = ReplSession(Interpreter, err=err)
    session.submit('(display "a") (lenght 1)')
    assert "unbound variable: lenght; did you mean 'length" in err.getvalue()
    session.submit("(define (f) (later-helper 2))")
    assert "warning: possibly unbound (not defined yet): later-helper at <repl-2>:1:13" in err.getvalue()
    session.submit("(define (later-helper n) (* n 10))")
    session.submit("(f)")
    assert session.results == [20]


def test_a_name_close_to_a_task_suggests_the_task() -> None:
    interp = Interpreter()
    interp.eval('(define-task (summarize text) (prompt "{{text}}"))')
    with pytest.raises(SchemeError, match="unbound variable: sumarize; did you mean the task summarize"):
        interp.eval_scheme('(display 1) (sumarize "x")', whole=True)


def test_the_python_api_checks_code_that_runs_now() -> None:
    interp = Interpreter()
    with pytest.raises(SchemeError, match="2 unbound variables"):
        interp.eval("(list (foo 1) bar)")
    interp.eval("(define (later) (not-yet))")  # a procedure body may name what comes later
