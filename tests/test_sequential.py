"""``sequential`` and ``sequential/strict``: order, history, accumulation, failures."""

from __future__ import annotations

import json

import pytest

from interpreter import Interpreter
from interpreter.tasks.compose.sequence import SequentialEntry, SequentialHistory
from interpreter.tasks.errors import TaskError
from interpreter.tasks.records import TaskResult


def run(source: str) -> object:
    return Interpreter().eval(source, filename="seq.scm")


def test_steps_run_in_order_and_the_last_content_is_returned() -> None:
    result = run(
        """(define log '())
           (sequential
             (step a (set! log (cons 'a log)) "first")
             (step b (set! log (cons 'b log)) "second")
             (list 'done (reverse log)))"""
    )
    assert isinstance(result, TaskResult)
    assert result.status == "COMPLETE"
    assert result.content == "(done (a b))"
    assert [e.step for e in result.notes["steps"]] == ["a", "b", "3"]


def test_history_entries_have_step_output_notes_and_timestamp() -> None:
    result = run('(sequential (step load (make-task-result "notes text" "COMPLETE" \'((words . 2)))) (step two 42))')
    first, second = result.notes["steps"]
    assert isinstance(first, SequentialEntry)
    assert first.step == "load" and first.output.content == "notes text" and first.notes == {"words": 2}
    assert second.output == 42 and second.notes == "42"
    assert second.timestamp >= first.timestamp > 0
    history = SequentialHistory(entries=result.notes["steps"])
    assert json.loads(history.model_dump_json())["entries"][1]["output"] == 42


def test_history_is_readable_with_get() -> None:
    interp = Interpreter()
    value = interp.eval('(define r (sequential (step a "x") (step b "y"))) (get r \'notes \'steps 1 \'step)')
    assert value == "b"


def test_previous_outputs_notes_only_by_default() -> None:
    result = run(
        """(sequential
             (step a (make-task-result "long content" "COMPLETE" '((summary . "short"))))
             (step b "plain")
             (step c previous-outputs))"""
    )
    assert result.content == '(((summary . short)) "plain")'


def test_previous_outputs_full_output() -> None:
    result = run(
        """(sequential (context (accumulate #t) (format full-output))
             (step a (make-task-result "long content"))
             (step b '(1 2))
             (step c previous-outputs))"""
    )
    assert result.content == "(long content (1 2))"


def test_previous_outputs_empty_without_accumulation() -> None:
    result = run('(sequential (context (accumulate #f)) (step a "x") (step b (length previous-outputs)))')
    assert result.content == "0"


def test_every_step_of_a_long_pipeline_sees_the_earlier_outputs_oldest_first() -> None:
    steps = " ".join(f"(step s{k} (if (equal? previous-outputs (iota {k})) {k} 'wrong))" for k in range(300))
    result = Interpreter().eval(f"(sequential (context (format full-output)) {steps})")
    assert [e.output for e in result.notes["steps"]] == list(range(300))


def test_previous_outputs_is_the_history_list_grown_in_place() -> None:
    """One list per run, extended as steps finish: a kept list grows; list-copy keeps a snapshot."""
    result = run(
        """(define kept #f) (define snapshot #f)
           (sequential (context (format full-output))
             (step a "x")
             (step b (set! kept previous-outputs) (set! snapshot (list-copy previous-outputs)) "y")
             (step c previous-outputs)
             (step d (list (length kept) (length snapshot) (eq? kept previous-outputs))))"""
    )
    assert result.content == "(3 1 #t)"
    assert result.notes["steps"][2].output == ["x", "y"]  # the history keeps what the step returned then


def test_an_output_holding_previous_outputs_joins_it_as_a_copy() -> None:
    """A step that returns the list (or a tail of it, inside other data) must not make it circular."""
    result = run(
        """(define kept #f)
           (sequential (context (format full-output))
             (step a 1)
             (step b (set! kept previous-outputs) previous-outputs)
             (step c (vector 'x (cdr previous-outputs)))
             (step d (call-with-output-string (lambda (port) (write kept port)))))"""
    )
    assert result.content == "(1 (1) #(x ((1))))"


def test_bare_expressions_are_named_by_index() -> None:
    result = run('(sequential "a" (step named "b") "c")')
    assert [e.step for e in result.notes["steps"]] == ["1", "named", "3"]


def test_steps_see_enclosing_locals_with_full_context() -> None:
    assert run('(let ((x "local")) (get (sequential (step a x)) \'content))') == "local"


def test_a_raising_step_ends_the_sequence_with_partial_results() -> None:
    result = run(
        """(define ran-c #f)
           (define r (sequential (step a "one") (step b (car '())) (step c (set! ran-c #t))))
           (list r ran-c)"""
    )
    r, ran_c = list(result)
    assert ran_c is False
    assert r.status == "FAILED"
    assert r.notes["failed_step"] == "b"
    assert r.notes["error"]["type"] == "type-error"
    assert "car" in r.notes["error"]["message"]
    assert r.notes["error"]["location"].startswith("seq.scm:2:")
    assert [e.step for e in r.notes["partial_results"]] == ["a"]
    assert r.notes["partial_results"][0].output == "one"


def test_a_failed_result_ends_the_sequence() -> None:
    r = run('(sequential (step a "one") (step b (make-task-result "it broke" "FAILED")) (step c "three"))')
    assert r.status == "FAILED"
    assert r.notes["failed_step"] == "b"
    assert r.notes["error"] == {"type": "TASK_FAILURE", "message": "it broke", "location": "seq.scm:1:28", "step": "b"}
    assert len(r.notes["partial_results"]) == 1


def test_a_task_error_keeps_its_type() -> None:
    r = run('(sequential (step a (raise (make-task-error \'INVALID_OUTPUT "bad shape"))))')
    assert r.notes["error"]["type"] == "INVALID_OUTPUT"


def test_strict_raises_a_task_failure_with_the_partial_results() -> None:
    interp = Interpreter()
    with pytest.raises(TaskError) as info:
        interp.eval('(sequential/strict (step a "one") (step b (error "boom" 1)))', filename="s.scm")
    err = info.value
    assert err.error_type == "TASK_FAILURE"
    assert "step b failed" in err.message and "boom" in err.message
    assert [e.step for e in err.record.partial_results] == ["a"]
    assert str(err.span).startswith("s.scm:1:")


def test_strict_is_catchable_in_the_dsl() -> None:
    value = run(
        """(guard (e ((task-error? e) (string-append (symbol->string (task-error-type e)) " "
                                                     (number->string (length (get (task-error-details e) 'partial-results))))))
             (sequential/strict (step a 1) (step b 2) (step c (make-task-result "no" "FAILED"))))"""
    )
    assert value == "TASK_FAILURE 2"


def test_strict_success_is_like_sequential() -> None:
    assert run('(get (sequential/strict (step a "x")) \'content)') == "x"


@pytest.mark.parametrize(
    "source, message",
    [
        ("(sequential)", "at least one step"),
        ("(sequential (step a))", "a step is (step name expr ...)"),
        ("(sequential (step a 1) (step a 2))", "two steps are named a"),
        ("(sequential (context (colour red)) 1)", "unknown context setting colour"),
        ("(sequential (context (inherit full) (fresh enabled)) 1)", "cannot be combined"),
    ],
)
def test_syntax_errors(source: str, message: str) -> None:
    from interpreter import SchemeError

    with pytest.raises(SchemeError) as info:
        Interpreter().eval(source, filename="bad.scm")
    assert message in info.value.message
    assert str(info.value.span).startswith("bad.scm:1:")


def test_steps_see_enclosing_locals_under_inherit_none() -> None:
    r = run("(let ((secret 1)) (sequential (context (inherit none)) (step a (+ secret 1))))")
    assert (r.status, r.content) == ("COMPLETE", "2")


def test_define_task_with_a_sequential_body() -> None:
    interp = Interpreter()
    interp.eval(
        """(define-task (pipeline text)
             (sequential (step up (string-upcase text)) (step len (string-length (car previous-outputs)))))"""
    )
    result = interp.eval('(pipeline "abc")')
    assert result.content == "5"  # the notes-only summary of "ABC" is the written "\"ABC\""


def test_a_task_error_in_a_step_or_phase_names_its_type_once() -> None:
    interp = Interpreter()
    interp.eval(
        """(define-model "broken" (lambda (prompt system) (error "boom" 42)))
           (define-task (ask q) (model "broken") (prompt "{{q}}"))""",
        filename="seq.scm",
    )
    step = interp.eval('(sequential (step a (ask "x")))')
    assert step.notes["error"]["type"] == "TASK_FAILURE"
    assert step.notes["error"]["message"] == "model broken failed: boom 42"
    loop = interp.eval('(director-evaluator-loop (max-iterations 1) (director (ask "x")) (evaluator #t))')
    assert loop.error.type == "TASK_FAILURE"
    assert loop.error.message == "model broken failed: boom 42"
