"""Task calls build the body's frame from the caller's frame, as the context says."""

from __future__ import annotations

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.printer import write_string


def written(interp: Interpreter, source: str) -> str:
    return write_string(interp.eval_scheme(source))


@pytest.fixture
def interp() -> Interpreter:
    it = Interpreter()
    it.eval("""
      (define-task (show-full label) (context (inherit full)) (list label secret))
      (define-task (show-none label) (context (inherit none)) (list label secret))
      (define-task (show-subset label) (context (inherit subset) (subset secret)) (list label secret))
      (define-task (show-subset-other label) (context (inherit subset) (subset secret)) (list label other))
    """)
    return it


def test_full_sees_the_callers_locals(interp: Interpreter) -> None:
    assert written(interp, "(let ((secret 42)) (show-full 'a))") == "(a 42)"


def test_full_sees_locals_of_a_calling_procedure(interp: Interpreter) -> None:
    interp.eval("(define (caller secret) (show-full 'b))")
    assert written(interp, "(caller 7)") == "(b 7)"


def test_full_falls_back_to_globals(interp: Interpreter) -> None:
    interp.eval("(define secret 'global)")
    assert written(interp, "(show-full 'c)") == "(c global)"
    assert written(interp, "(let ((secret 'local)) (show-full 'c))") == "(c local)"


def test_none_cannot_see_the_callers_locals(interp: Interpreter) -> None:
    with pytest.raises(SchemeError) as info:
        interp.eval("(let ((secret 42)) (show-none 'a))")
    assert "unbound variable: secret" in info.value.message


def test_subset_copies_only_the_listed_names_from_the_caller(interp: Interpreter) -> None:
    assert written(interp, "(let ((secret 1) (other 2)) (show-subset 'a))") == "(a 1)"
    with pytest.raises(SchemeError) as info:
        interp.eval("(let ((secret 1) (other 2)) (show-subset-other 'a))")
    assert "unbound variable: other" in info.value.message


def test_full_task_can_set_the_callers_variable(interp: Interpreter) -> None:
    interp.eval("(define-task (bump!) (set! counter (+ counter 1)) counter)")
    assert interp.eval("(let ((counter 10)) (bump!) (bump!) counter)") == 12


def test_task_called_through_map_runs_from_the_global_frame(interp: Interpreter) -> None:
    interp.eval("(define secret 'g)")
    assert written(interp, "(let ((secret 'l)) (map (task-ref 'show-full) '(x)))") == "((x g))"


def test_tail_recursive_task_without_inheritance_runs_deep(interp: Interpreter) -> None:
    interp.eval("(define-task (down n) (context (inherit none)) (if (= n 0) 'done (down (- n 1))))")
    assert interp.eval("(down 100000)").name == "done"
