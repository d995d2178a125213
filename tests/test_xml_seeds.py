"""The seeds' XML templates as written: unnamed loops, descriptions as prompts, ``from=`` inputs,
script inputs and placeholders, ``<condition>`` in the seeds' JavaScript-like syntax."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from interpreter import Interpreter
from interpreter.tasks.errors import TaskError

SEEDS = Path(__file__).parent / "data" / "seeds"

MODEL = '(define-model "toy" (lambda (prompt system) "a draft"))'


def make(tmp_path: Path) -> Interpreter:
    interp = Interpreter(allow_scripts=True, allow_files=True, model="toy")
    interp.eval(MODEL)
    return interp


def test_the_seed_loop_template_loads_unchanged(tmp_path: Path) -> None:
    interp = make(tmp_path)
    names = interp.eval(f'(load-task-templates "{SEEDS / "seed_loop.xml"}")')
    assert [str(n) for n in names] == ["seed-loop/director", "seed-loop/evaluator", "seed-loop"]
    loop = interp.tasks.describe("seed-loop")
    assert [p.name for p in loop.params] == ["user-query", "script-path"]
    director = interp.tasks.describe("seed-loop/director").body
    assert (
        director == "Generate solution for {{original_prompt}}\n\nfeedback:\n{{feedback}}\n\niteration:\n{{iteration}}"
    )
    assert interp.tasks.describe("seed-loop/evaluator").subtype == "evaluator"
    assert "(get/default evaluation 'notes 'success #f)" in loop.body


def test_the_seed_loop_runs_with_its_script_and_condition(tmp_path: Path) -> None:
    interp = make(tmp_path)
    checker = tmp_path / "check.py"
    checker.write_text("import sys\nprint('checked: ' + sys.stdin.read().upper())\n")
    interp.eval(
        """(define-model "toy"
              (let ((n 0))
                (lambda (prompt system)
                  (if (string-prefix? "Evaluate" prompt)
                      (if (string-contains prompt "solution:\\npoem") "{\\"success\\": true, \\"feedback\\": \\"ok\\"}"
                          "{\\"success\\": false, \\"feedback\\": \\"no\\"}")
                      (begin (set! n (+ n 1)) (if (= n 1) "draft" "poem"))))))"""
    )
    interp.eval(f'(load-task-templates "{SEEDS / "seed_loop.xml"}")')
    r = interp.eval(f'(seed-loop "a verse" "{sys.executable} {checker}")')
    assert r.status == "COMPLETE", r.error
    assert r.iterations_completed == 2
    assert r.final_output.content == "poem"
    assert r.iteration_history[0].script_output.stdout == "checked: DRAFT\n"


def write(tmp_path: Path, name: str, xml: str) -> Path:
    path = tmp_path / name
    path.write_text(xml)
    return path


LOOP = """<task type="director_evaluator_loop">
  <max_iterations>3</max_iterations>
  <director><description>Draft about {{{{topic}}}}</description>
    <inputs><input name="topic" from="user_query"/></inputs></director>
  <evaluator ref="judge"><inputs><input name="text" from="director_result"/></inputs></evaluator>
  <termination_condition>
    <condition>{condition}</condition>
  </termination_condition>
</task>"""


@pytest.mark.parametrize(
    "condition, iterations",
    [
        ("evaluation.success === true", 3),
        ("current_iteration >= 1", 2),
        ("evaluation.details.metrics.score > 0.5 &amp;&amp; !evaluation.success", 1),
        ('evaluation.details.metrics.score > 0.9 || evaluation.feedback !== "short"', 3),
        ("evaluation.feedback === 'short' || current_iteration === 2", 1),
        ("evaluation.details.metrics.missing >= 1", 3),
        ("(= current-iteration 1)", 2),
    ],
)
def test_conditions_in_the_seeds_syntax(tmp_path: Path, condition: str, iterations: int) -> None:
    interp = make(tmp_path)
    interp.eval(
        """(define-task (judge text)
             (make-evaluation #f (if (> (string-length text) 100) "long" "short")
                              (list (cons 'metrics (list (cons 'score 0.7))))))"""
    )
    path = write(tmp_path, "loop.xml", LOOP.format(condition=condition))
    interp.eval(f'(load-task-templates "{path}")')
    r = interp.eval('(loop "x")')
    assert r.status in ("COMPLETE", "MAX_ITERATIONS") and r.error is None
    assert r.iterations_completed == iterations


@pytest.mark.parametrize(
    "condition, column, message",
    [
        ("evaluation.check(1)", 32, "calls are not supported"),
        ("score = 1", 22, "unexpected '='"),
        ("a ||", 20, "found the end of the condition"),
        ("x ? 1 : 2", 18, "unexpected '?'"),
    ],
)
def test_conditions_outside_the_subset_fail_with_line_and_column(
    tmp_path: Path, condition: str, column: int, message: str
) -> None:
    interp = make(tmp_path)
    path = write(tmp_path, "loop.xml", LOOP.format(condition=condition))
    with pytest.raises(TaskError) as info:
        interp.eval(f'(load-task-templates "{path}")')
    assert info.value.error_type == "VALIDATION_ERROR"
    assert message in info.value.message
    assert str(info.value.span) == f"{path}:7:{column}"
    assert "judge" not in interp.tasks  # nothing of the file was registered


def test_an_unknown_model_fails_at_load_time_with_a_suggestion(tmp_path: Path) -> None:
    interp = make(tmp_path)
    path = write(tmp_path, "t.xml", "<task>\n  <model>toi</model>\n  <instructions>x</instructions>\n</task>")
    with pytest.raises(TaskError) as info:
        interp.eval(f'(load-task-templates "{path}")')
    assert "unknown model toi; did you mean: toy?" in info.value.message
    assert str(info.value.span) == f"{path}:2:3"


def test_case_tests_in_the_seeds_syntax(tmp_path: Path) -> None:
    interp = make(tmp_path)
    interp.eval('(define-task (ok) "valid") (define-task (bad) "errors")')
    path = write(
        tmp_path,
        "pick.xml",
        """<task type="sequential">
  <inputs><input name="output"/></inputs>
  <context_management><inherit_context>none</inherit_context></context_management>
  <steps>
    <cond>
      <case test="output.valid == true"><task ref="ok"/></case>
      <case test="output.errors > 0"><task ref="bad"/></case>
    </cond>
  </steps>
</task>""",
    )
    interp.eval(f'(load-task-templates "{path}")')
    assert interp.eval("(get (pick '((valid . #t) (errors . 0))) 'content)") == "valid"
    assert interp.eval("(get (pick '((valid . #f) (errors . 2))) 'content)") == "errors"


def test_a_sequential_templates_inputs_reach_its_steps_under_inherit_none(tmp_path: Path) -> None:
    interp = make(tmp_path)
    interp.eval("(define-task (shout text) (string-upcase text))")
    path = write(
        tmp_path,
        "loud.xml",
        """<task type="sequential">
  <inputs><input name="notes"/></inputs>
  <context_management><inherit_context>none</inherit_context></context_management>
  <steps><task ref="shout"><inputs><input name="text" from="notes"/></inputs></task></steps>
</task>""",
    )
    interp.eval(f'(load-task-templates "{path}")')
    r = interp.eval('(loud "quiet words")')
    assert (r.status, r.content) == ("COMPLETE", "QUIET WORDS")
