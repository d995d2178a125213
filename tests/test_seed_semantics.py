"""Loop and pipeline semantics as the seeds write them: latest-only feedback, what ``success``
means, errors that keep their cause, and the bindings the seeds name."""

from __future__ import annotations

import sys

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.tasks.errors import TaskError

PY = sys.executable

# A director that needs the feedback: it fixes its draft only when told what is wrong.
FEEDBACK_LOOP = """
(director-evaluator-loop
  (max-iterations 4) {context}
  (director (if (string=? evaluation-feedback "") "draft" (string-append "fixed: " evaluation-feedback)))
  (evaluator (if (string-prefix? "fixed" solution)
                 (make-evaluation #t "good")
                 (make-evaluation #f "add a title"))))
"""


# -- 3. latest-only mode keeps the feedback ------------------------------------------------
@pytest.mark.parametrize("context", ["", "(context (accumulate #f))"])
def test_latest_only_needs_no_more_iterations_than_accumulation(context: str) -> None:
    r = Interpreter().eval(FEEDBACK_LOOP.format(context=context))
    assert (r.status, r.iterations_completed, r.final_output.content) == ("COMPLETE", 2, "fixed: add a title")


def test_latest_only_binds_the_last_evaluation_and_drops_the_history() -> None:
    r = Interpreter().eval(
        """(director-evaluator-loop (max-iterations 3) (context (accumulate #f))
             (director (list evaluation-feedback evaluation-success (length previous-results)
                             (if evaluation (get evaluation 'notes 'feedback) "none")))
             (evaluator (make-evaluation (= current-iteration 1) (string-append "fb" (number->string current-iteration)))))"""
    )
    assert r.final_output.content == "(fb0 #f 0 fb0)"
    assert r.iteration_history[0].output.content == ""  # notes only in latest-only history


# -- 4. success is the final evaluation's --------------------------------------------------
def test_success_status_and_stop_reason() -> None:
    interp = Interpreter()
    stopped = interp.eval(
        """(director-evaluator-loop (director "x") (evaluator #f) (termination-condition (= current-iteration 1)))"""
    )
    assert (stopped.success, stopped.status, stopped.stop_reason) == (False, "COMPLETE", "termination-condition")
    passed = interp.eval('(director-evaluator-loop (director "x") (evaluator #t))')
    assert (passed.success, passed.status, passed.stop_reason) == (True, "COMPLETE", "evaluator-success")
    ran_out = interp.eval('(director-evaluator-loop (max-iterations 2) (director "x") (evaluator #f))')
    assert (ran_out.success, ran_out.status, ran_out.stop_reason) == (False, "MAX_ITERATIONS", "max-iterations")
    failed = interp.eval("(director-evaluator-loop (director (car 1)) (evaluator #t))")
    assert (failed.success, failed.status, failed.stop_reason) == (False, "FAILED", "error")
    assert interp.eval(
        """(let ((r (director-evaluator-loop (director "x") (evaluator #f) (termination-condition #t))))
             (list (get r 'success) (get r 'status) (get r 'stop-reason)))"""
    ) == [False, "COMPLETE", "termination-condition"]


# -- 5. errors keep their cause -----------------------------------------------------------
def test_error_irritants_stay_in_loop_and_step_messages() -> None:
    interp = Interpreter()
    r = interp.eval(
        '(director-evaluator-loop (director "x") (evaluator (error "score out of range" 42)))', filename="e.scm"
    )
    assert r.error.message == "score out of range 42"
    assert (r.error.phase, r.error.location) == ("evaluator", "e.scm:1:52")
    s = interp.eval('(sequential (step a 1) (step b (error "bad thing" \'x "y")))')
    assert s.notes["error"]["message"] == 'bad thing \'x "y"'  # symbols are quoted in messages (issue 15)
    assert s.notes["partial_results"][0].step == "a"


SCRIPT_TASKS = f"""
(define-task (noisy)
  (script "{PY} -c \\"import sys; print('lots of stdout'); print('line 1', file=sys.stderr); print('the real cause', file=sys.stderr); sys.exit(3)\\""))
(define-task (sleepy)
  (script "{PY} -c \\"import time; time.sleep(5)\\"" (timeout 0.3)))
"""


def test_a_failed_script_step_reports_exit_code_and_stderr() -> None:
    interp = Interpreter(allow_scripts=True)
    interp.eval(SCRIPT_TASKS)
    r = interp.eval("(sequential (step lint (noisy)))")
    message = r.notes["error"]["message"]
    assert message == "script exited with code 3: line 1\nthe real cause"
    assert "lots of stdout" not in message
    assert r.content == f"step lint failed: TASK_FAILURE: {message}"


def test_a_timed_out_script_says_so() -> None:
    interp = Interpreter(allow_scripts=True)
    interp.eval(SCRIPT_TASKS)
    r = interp.eval("(sleepy)")
    assert r.status == "FAILED"
    assert r.notes["script_output"]["timed_out"] is True
    assert interp.eval("(get (sleepy) 'notes 'script-output 'timed-out)") is True
    assert r.notes["error"]["message"] == "script timed out after 0.3 s"
    step = interp.eval("(sequential (step wait (sleepy)))")
    assert "timed out after 0.3 s" in step.notes["error"]["message"]


def test_an_error_in_a_dsl_model_is_a_task_failure() -> None:
    interp = Interpreter()
    interp.eval(
        """(define-model "broken" (lambda (prompt system) (error "quota gone for" prompt)))
           (define-task (ask q) (model "broken") (prompt "{{q}}"))""",
        filename="m.scm",
    )
    with pytest.raises(TaskError) as info:
        interp.eval('(ask "x")')
    assert info.value.error_type == "TASK_FAILURE"
    assert info.value.record.reason == "model_error"
    assert 'quota gone for "x"' in info.value.message
    assert str(info.value.span).startswith("m.scm:1:")
    caught = interp.eval(
        """(guard (e ((task-error? e) (list (task-error-type e) (get (task-error-details e) 'reason))))
             (ask "y"))"""
    )
    assert [str(x) for x in caught] == ["TASK_FAILURE", "model_error"]
    loop = interp.eval('(director-evaluator-loop (director (ask "z")) (evaluator #t))')
    assert loop.error.type == "TASK_FAILURE" and "quota gone for" in loop.error.message


def test_limits_inside_a_dsl_model_stay_limits() -> None:
    interp = Interpreter(max_steps=20_000)
    interp.eval(
        """(define-model "spin" (lambda (prompt system) (let loop () (loop))))
           (define-task (ask q) (model "spin") (prompt "{{q}}"))"""
    )
    with pytest.raises(SchemeError) as info:
        interp.eval('(ask "x")')
    assert info.value.kind == "resource-exhaustion" and not isinstance(info.value, TaskError)


# -- 6. bindings the seeds name -----------------------------------------------------------
def test_script_output_is_bound_as_a_record() -> None:
    r = Interpreter(allow_scripts=True).eval(
        f"""(director-evaluator-loop (max-iterations 1) (director "abc")
              (script-execution '("{PY}" "-c" "import sys; sys.stdout.write(sys.stdin.read()[::-1]); sys.exit(2)"))
              (evaluator (make-evaluation #f (string-append (get script-output 'stdout) " "
                                                            (number->string (get script-output 'exit-code)) " "
                                                            (if (get script-output 'timed-out) "late" "on time")))))"""
    )
    assert r.final_evaluation.notes.feedback == "cba 2 on time"
    assert r.iteration_history[0].script_output.exit_code == 2


def test_script_output_is_false_without_a_script() -> None:
    r = Interpreter().eval('(director-evaluator-loop (director "x") (evaluator (not script-output)))')
    assert r.success is True


def test_a_bash_script_request_gets_the_directors_output_on_stdin() -> None:
    interp = Interpreter(allow_scripts=True)
    interp.eval(
        f"""(define-task (runner script-stdout) (subtype "evaluator") (criteria "script output check")
              (make-evaluation #t script-stdout))
            (define-task (director last)
              (if last (make-task-result (get last 'notes 'feedback))
                  (make-task-result "solution text" "CONTINUATION"
                    (list (cons 'evaluation_request
                                (list (cons 'type "bash_script") (cons 'criteria "script output")
                                      (cons 'target "{PY} -c 'import sys; print(sys.stdin.read().upper())'")))))))"""
    )
    assert interp.eval("(with-evaluation (director last-evaluator-output))").content == "SOLUTION TEXT\n"


NESTED_JSON = '{"content": "checked", "status": "COMPLETE", "notes": {"success": false, "feedback": "too long", "details": {"metrics": {"score": 0.4}}}}'


@pytest.mark.parametrize(
    "answer",
    [
        '\'((content . "checked") (status . "COMPLETE") (notes (success . #f) (feedback . "too long") (details (metrics (score . 0.4)))))',
        "json-text",
        '(make-task-result "checked" "COMPLETE" \'((notes (success . #f) (feedback . "too long") (details (metrics (score . 0.4))))))',
    ],
)
def test_nested_evaluator_answers_are_accepted(answer: str) -> None:
    interp = Interpreter()
    interp.define("json-text", NESTED_JSON)
    r = interp.eval(f'(director-evaluator-loop (max-iterations 1) (director "x") (evaluator {answer}))')
    notes = r.final_evaluation.notes
    assert (notes.success, notes.feedback, notes.details.metrics) == (False, "too long", {"score": 0.4})


def test_an_evaluator_task_may_answer_in_the_nested_shape() -> None:
    interp = Interpreter()
    interp.tasks.models.register("judge", lambda prompt, system: NESTED_JSON)
    interp.eval('(define-task (judge text) (subtype "evaluator") (model "judge") (prompt "{{text}}"))')
    r = interp.eval('(judge "x")')
    assert (r.notes.success, r.notes.feedback) == (False, "too long")


# -- 8. sequential history as seed 002 describes it -----------------------------------------
def test_the_history_has_start_time_current_step_and_usage_per_step() -> None:
    interp = Interpreter()
    interp.eval(
        """(define-model "toy" (lambda (prompt system) "three word answer"))
           (define-task (ask q) (model "toy") (prompt "{{q}}"))"""
    )
    r = interp.eval('(sequential (step plain (+ 1 2)) (step model (ask "a question")) (step again (ask "b")))')
    assert r.notes["current_step"] == 2
    assert r.notes["start_time"] <= r.notes["steps"][0].start_time <= r.notes["steps"][0].timestamp
    usage = [e.resource_usage for e in r.notes["steps"]]
    assert [u["calls"] for u in usage] == [0, 1, 1]
    assert usage[1]["output_tokens"] > 0 and usage[1]["seconds"] >= 0
    assert r.notes["resource_usage"]["calls"] == 2
    assert interp.eval(
        """(let ((r (sequential (step a (ask "x")) (step b (car '())))))
             (list (get r 'notes 'current-step) (get r 'notes 'resource-usage 'calls)
                   (get (car (get r 'notes 'partial-results)) 'resource-usage 'calls)))"""
    ) == [1, 1, 1]


def test_long_outputs_are_truncated_in_the_history_but_not_in_the_trace() -> None:
    interp = Interpreter()
    events: list = []
    interp.on_event(events.append)
    r = interp.eval(
        """(sequential (context (format full-output) (max-stored-chars 10))
             (step long (make-string 25 #\\a))
             (step short (string-length (car previous-outputs))))"""
    )
    long = r.notes["steps"][0].output
    assert long == "a" * 10 + "…[truncated 15 chars]"
    assert r.content == str(len(long))  # previous-outputs is what the history keeps
    [step] = [e for e in events if e.kind == "step" and e.name.endswith("/long")]
    assert step.info["output"] == "a" * 25


def test_the_default_limit_is_100000_chars_and_must_be_positive() -> None:
    interp = Interpreter()
    r = interp.eval("(sequential (step a (make-string 100001 #\\b)))")
    assert r.notes["steps"][0].output.endswith("…[truncated 1 chars]")
    with pytest.raises(SchemeError, match="max_stored_chars"):
        interp.eval("(sequential (context (max-stored-chars 0)) (step a 1))")
