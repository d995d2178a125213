"""``quality-gate`` (stdlib/lazy/quality.scm): rubric scores, feedback, acceptance, escalation."""

from __future__ import annotations

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.tasks.compose.loop import LoopResult

pytestmark = pytest.mark.stdlib  # CI also runs these against the built wheel

PRELUDE = """
(define drafts '())
(define (generate feedback)
  (set! drafts (cons feedback drafts))
  (if (string=? feedback "") "draft 1" (string-append "draft " (number->string (length drafts)))))
(define (scores c k l a . suggestions)
  (list (cons 'completeness c) (cons 'correctness k) (cons 'clarity l) (cons 'actionability a)
        (cons 'suggestions suggestions)))
"""


def gate(call: str) -> tuple[Interpreter, LoopResult]:
    interp = Interpreter()
    interp.eval(PRELUDE, filename="prelude.scm")
    result = interp.eval(call, filename="gate.scm")
    assert isinstance(result, LoopResult)
    return interp, result


def test_accepts_on_the_first_try() -> None:
    _, r = gate("(quality-gate generate (lambda (d) (scores 20 20 20 20)))")
    assert (r.status, r.success, r.iterations_completed) == ("COMPLETE", True, 1)
    assert r.final_output.content == "draft 1"
    metrics = r.final_evaluation.notes.details.metrics
    assert metrics == {
        "completeness": 20,
        "correctness": 20,
        "clarity": 20,
        "actionability": 20,
        "total": 80,
        "score": 0.8,
    }


def test_feedback_reaches_the_next_generation_and_accepts_later() -> None:
    interp, r = gate(
        """(quality-gate generate
             (lambda (d) (if (string=? d "draft 1") (scores 10 15 20 5 "add steps" "cite sources") (scores 25 25 10 10))))"""
    )
    assert (r.status, r.iterations_completed) == ("COMPLETE", 2)
    feedback = [str(x) for x in interp.eval("(reverse drafts)")]
    assert feedback[0] == ""
    assert feedback[1] == (
        "completeness 10/25, correctness 15/25, clarity 20/25, actionability 5/25 (total 50%, needs 70%). "
        "Suggestions: add steps; cite sources"
    )


def test_exactly_the_threshold_accepts() -> None:
    _, r = gate("(quality-gate generate (lambda (d) (scores 25 25 10 10)))")
    assert r.success


def test_escalates_after_the_last_iteration_keeping_every_attempt() -> None:
    _, r = gate('(quality-gate generate (lambda (d) (scores 5 5 5 5 "more")) #:max-iterations 3)')
    assert (r.status, r.success, r.iterations_completed) == ("ESCALATE", False, 3)
    assert [e.output.content for e in r.iteration_history] == ["draft 1", "draft 2", "draft 3"]
    assert all(e.evaluation.notes.details.metrics["total"] == 20 for e in r.iteration_history)
    assert r.iteration_history[0].evaluation.notes.details.suggestions == ["more"]


def test_threshold_option() -> None:
    _, r = gate("(quality-gate generate (lambda (d) (scores 15 15 15 15)) #:threshold 0.5 #:max-iterations 1)")
    assert r.status == "COMPLETE"
    _, r = gate("(quality-gate generate (lambda (d) (scores 15 15 15 15)) #:threshold 0.9 #:max-iterations 1)")
    assert r.status == "ESCALATE"


def test_json_answers_from_a_model() -> None:
    _, r = gate(
        """(quality-gate generate
             (lambda (d) "Here you go:\\n```json\\n{\\"completeness\\": 25, \\"correctness\\": 20, \\"clarity\\": 20, \\"actionability\\": 15, \\"suggestions\\": \\"none\\"}\\n```"))"""
    )
    assert r.success
    assert r.final_evaluation.notes.details.suggestions == ["none"]


def test_generate_may_return_task_results() -> None:
    _, r = gate('(quality-gate (lambda (f) (make-task-result "tr")) (lambda (d) (scores 25 25 25 25)))')
    assert r.final_output.content == "tr"


def test_a_score_out_of_range_fails_the_loop() -> None:
    _, r = gate("(quality-gate generate (lambda (d) (scores 30 20 20 20)))")
    assert r.status == "FAILED"
    assert "completeness score must be a number from 0 to 25" in r.error.message


@pytest.mark.parametrize(
    "call, message",
    [
        ("(quality-gate generate generate #:colour 1)", "unknown option"),
        ("(quality-gate generate generate #:threshold)", "option without a value"),
        ("(quality-gate generate generate #:threshold 7)", "#:threshold must be a number from 0 to 1"),
    ],
)
def test_bad_options(call: str, message: str) -> None:
    interp = Interpreter()
    interp.eval(PRELUDE)
    with pytest.raises(SchemeError) as info:
        interp.eval(call)
    assert message in info.value.message


def test_the_gate_is_loaded_on_first_use_only() -> None:
    interp = Interpreter()
    assert interp.global_env.vars.get(interp.symbol("quality-gate")) is None
    interp.eval(PRELUDE + "(quality-gate generate (lambda (d) (scores 25 25 25 25)))")
    assert interp.global_env.vars.get(interp.symbol("quality-gate")) is not None
