"""``with-evaluation``: CONTINUATION results with evaluation requests, evaluator selection, rounds."""

from __future__ import annotations

import sys

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.tasks.compose.selection import select_evaluator, words
from interpreter.tasks.records import TaskResult

EVALUATORS = """
(define-task (style-check text)
  (subtype "evaluator")
  (criteria "style, tone, readability")
  (description "Checks prose style")
  (make-evaluation #f (string-append "style:" text)))

(define-task (test-runner solution)
  (subtype "evaluator")
  (criteria "code correctness, unit tests")
  (description "Runs the tests")
  (make-evaluation (string-prefix? "fixed" solution) (string-append "tests:" solution)))

(define-task (security-review code)
  (subtype "evaluator")
  (criteria "security, injection")
  (make-evaluation #t "secure"))

(define-task (not-an-evaluator x)
  (criteria "code correctness unit tests everything")
  x)
"""

DIRECTOR = """
(define-task (write-code last)
  (if (and last (get last 'notes 'success))
      (make-task-result "done" "COMPLETE")
      (make-task-result (if last "fixed code" "buggy code") "CONTINUATION"
                        '((evaluation_request (type . "code") (criteria . "correctness of the code") (target . "code.py"))))))
"""


def make(source: str = "", scripts: bool = False) -> Interpreter:
    interp = Interpreter(allow_scripts=scripts)
    interp.eval(EVALUATORS + DIRECTOR + source, filename="dyn.scm")
    return interp


def test_rounds_until_the_director_completes() -> None:
    r = make().eval("(with-evaluation (write-code last-evaluator-output))")
    assert isinstance(r, TaskResult)
    assert (r.status, r.content) == ("COMPLETE", "done")
    rounds = r.notes["evaluation_rounds"]
    assert [x["evaluator"] for x in rounds] == ["test-runner", "test-runner"]
    assert [x["evaluation"].notes.success for x in rounds] == [False, True]
    assert rounds[0]["evaluation"].notes.feedback == "tests:buggy code"
    assert rounds[0]["request"]["criteria"] == "correctness of the code"


def test_the_best_matching_evaluator_is_chosen() -> None:
    interp = make(
        """(define (ask criteria)
             (lambda (last) (if last (make-task-result (get last 'notes 'feedback))
                                (make-task-result "prose" "CONTINUATION"
                                  (list (cons 'evaluation_request (list (cons 'criteria criteria))))))))"""
    )
    for criteria, chosen in [
        ('"readability and tone"', "style:prose"),
        ('\'("security" "injection")', "secure"),
        ('"Unit TESTS"', "tests:prose"),
    ]:
        r = interp.eval(f"(with-evaluation ((ask {criteria}) last-evaluator-output))")
        assert r.content == chosen, criteria


def test_ties_go_to_the_first_registered() -> None:
    interp = make()
    definitions = [interp.tasks.describe(n) for n in interp.tasks.names()]
    assert select_evaluator(definitions, "style security").name == "style-check"


def test_no_matching_evaluator_lists_the_evaluators() -> None:
    interp = make()
    with pytest.raises(SchemeError) as info:
        interp.eval(
            """(with-evaluation (make-task-result "x" "CONTINUATION" '((evaluation_request (criteria . "astronomy")))))""",
            filename="dyn.scm",
        )
    message = info.value.message
    assert "no evaluator matches" in message
    for name in ("style-check", "test-runner", "security-review"):
        assert name in message
    assert "not-an-evaluator" not in message
    assert str(info.value.span).startswith("dyn.scm:1:")


def test_no_evaluators_at_all() -> None:
    with pytest.raises(SchemeError) as info:
        Interpreter().eval(
            """(with-evaluation (make-task-result "x" "CONTINUATION" '((evaluation_request (criteria . "x")))))"""
        )
    assert "evaluators: none" in info.value.message


def test_max_rounds_stops_a_director_that_keeps_asking() -> None:
    interp = make(
        """(define-task (needy last)
             (make-task-result "again" "CONTINUATION" '((evaluation_request (criteria . "style")))))"""
    )
    r = interp.eval("(with-evaluation (needy last-evaluator-output) (max-rounds 3))")
    assert r.status == "CONTINUATION"
    assert len(r.notes["evaluation_rounds"]) == 3
    r = interp.eval("(with-evaluation (needy last-evaluator-output))")
    assert len(r.notes["evaluation_rounds"]) == 5


def test_a_result_that_does_not_ask_is_returned_with_no_rounds() -> None:
    r = make().eval('(with-evaluation (make-task-result "plain"))')
    assert r.notes["evaluation_rounds"] == []
    assert make().eval("(with-evaluation 42)") == 42


def test_only_last_evaluator_output_carries_over() -> None:
    interp = make(
        """(define seen '())
           (define-task (director last)
             (set! seen (cons (if last (get last 'notes 'feedback) 'none) seen))
             (if last (make-task-result "ok")
                 (make-task-result "draft" "CONTINUATION" '((evaluation_request (criteria . "tone"))))))"""
    )
    interp.eval("(with-evaluation (director last-evaluator-output))")
    assert [str(x) for x in interp.eval("(reverse seen)")] == ["none", "style:draft"]


def test_bash_script_requests_run_the_target_and_pass_its_output() -> None:
    interp = make(
        f"""(define-task (runner script-stdout script-exit-code)
              (subtype "evaluator")
              (criteria "script exit status")
              (make-evaluation (= script-exit-code 0) script-stdout))
            (define-task (scripted last)
              (if last (make-task-result (get last 'notes 'feedback))
                  (make-task-result "x" "CONTINUATION"
                    (list (cons 'evaluation_request
                                (list (cons 'type "bash_script") (cons 'criteria "exit status")
                                      (cons 'target "{sys.executable} -c 'print(7*6)'")))))))""",
        scripts=True,
    )
    r = interp.eval("(with-evaluation (scripted last-evaluator-output))")
    assert r.content == "42\n"
    evaluation = r.notes["evaluation_rounds"][0]["evaluation"]
    assert evaluation.notes.script_output.stdout == "42\n"


def test_invalid_requests_are_validation_errors() -> None:
    interp = make()
    with pytest.raises(SchemeError) as info:
        interp.eval(
            """(with-evaluation (make-task-result "x" "CONTINUATION" '((evaluation_request (type . "bash_script") (criteria . "style")))))"""
        )
    assert "needs a target" in info.value.message
    assert info.value.details.path == "notes.evaluation_request.target"


def test_evaluator_answers_are_converted() -> None:
    interp = make(
        """(define-task (json-judge text)
             (subtype "evaluator") (criteria "json verdicts")
             "{\\"success\\": true, \\"feedback\\": \\"fine\\"}")
           (define-task (asker last)
             (if last (make-task-result (get last 'notes 'feedback))
                 (make-task-result "x" "CONTINUATION" '((evaluation_request (criteria . "json"))))))"""
    )
    assert interp.eval("(with-evaluation (asker last-evaluator-output))").content == "fine"


def test_syntax() -> None:
    with pytest.raises(SchemeError) as info:
        Interpreter().eval("(with-evaluation 1 (rounds 2))")
    assert "max-rounds" in info.value.message


def test_words_ignore_case_and_common_words() -> None:
    assert words("The Style and TONE of it") == {"style", "tone"}
