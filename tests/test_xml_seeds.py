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
    assert "(result-field evaluation 'notes 'success)" in loop.body


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


# The seeds' static director-evaluator pipeline (seed 004, protocols.md), with the <command>
# the seed leaves to the reader.
STATIC_PIPELINE = """<task type="sequential">
  <description>Static Director-Evaluator Pipeline</description>
  <context_management>
    <inherit_context>none</inherit_context>
    <accumulate_data>true</accumulate_data>
    <accumulation_format>notes_only</accumulation_format>
  </context_management>
  <steps>
    <task>
      <description>Generate Initial Output</description>
    </task>
    <task type="script">
      <description>Run Target Script</description>
      <command>{command}</command>
      <inputs>
        <input name="director_output">
          <task>
            <description>Pass director output to script</description>
          </task>
        </input>
      </inputs>
    </task>
    <task>
      <description>Evaluate Script Output</description>
      <inputs>
        <input name="script_output">
          <task>
            <description>Process output from target script</description>
          </task>
        </input>
      </inputs>
    </task>
  </steps>
</task>"""


def static_pipeline(tmp_path: Path, script: str) -> Interpreter:
    interp = Interpreter(allow_scripts=True, allow_files=True, model="echo")
    interp.eval('(define-model "echo" (lambda (prompt system) (string-append "[" prompt "]")))')
    checker = tmp_path / "check.py"
    checker.write_text(script)
    path = write(tmp_path, "static.xml", STATIC_PIPELINE.format(command=f"{sys.executable} {checker}"))
    interp.eval(f'(load-task-templates "{path}")')
    return interp


def test_the_seeds_static_pipeline_passes_outputs_through_its_script(tmp_path: Path) -> None:
    interp = static_pipeline(tmp_path, "import sys\nprint(len(sys.stdin.read()))\n")
    assert interp.tasks.describe("static/2").type == "script"
    r = interp.eval("(static)")
    assert r.status == "COMPLETE"
    # the director's output "[Generate Initial Output]" (25 characters) went to the script
    assert r.content == "[Evaluate Script Output\n\nscript_output:\n25\n]"
    script_step = r.notes["steps"][1]
    assert script_step.notes["script_output"]["stdout"] == "25\n"


def test_a_failing_script_step_fails_the_pipeline_with_its_stderr(tmp_path: Path) -> None:
    interp = static_pipeline(tmp_path, "import sys\nsys.exit('lint: 2 problems')\n")
    r = interp.eval("(static)")
    assert r.status == "FAILED" and r.notes["failed_step"] == "2"
    assert r.notes["error"]["message"] == "script exited with code 1: lint: 2 problems"
    assert r.notes["partial_results"][0].output.content == "[Generate Initial Output]"


def test_output_slots_and_input_sources(tmp_path: Path) -> None:
    interp = Interpreter(allow_files=True, model="echo")
    interp.eval(
        """(define-model "echo" (lambda (prompt system) (string-append "[" prompt "]")))
           (define-task (judge text) (make-evaluation (if (string-contains text "longer") #t #f) "longer"))"""
    )
    path = write(
        tmp_path,
        "slots.xml",
        """<tasks>
  <task name="writer" type="director">
    <input_source>last_evaluator_output</input_source>
    <instructions>Write; last verdict: {{last_evaluator_output}}</instructions>
  </task>
  <task name="drafts" type="sequential">
    <steps>
      <task name="first"><instructions>first</instructions><output_slot>draft</output_slot></task>
      <task name="second"><instructions>second</instructions></task>
      <task name="third"><instructions>again {{d}}</instructions>
        <inputs><input name="d" from="draft"/></inputs></task>
    </steps>
  </task>
  <task name="refine" type="director_evaluator_loop">
    <max_iterations>3</max_iterations>
    <director ref="writer"><input_source>last_evaluator_output</input_source></director>
    <evaluator ref="judge"><inputs><input name="text" from="director_result"/></inputs></evaluator>
  </task>
</tasks>""",
    )
    interp.eval(f'(load-task-templates "{path}")')
    assert [p.name for p in interp.tasks.describe("writer").params] == ["last-evaluator-output"]
    assert interp.tasks.describe("writer").subtype == "director"
    assert "[again [first]]" in interp.eval("(get (drafts) 'content)")
    r = interp.eval("(refine)")
    assert (r.status, r.iterations_completed) == ("COMPLETE", 2)
    assert r.final_output.content == "[Write; last verdict: longer]"  # a result reads as its content


def test_max_stored_chars_in_an_xml_context(tmp_path: Path) -> None:
    interp = make(tmp_path)
    interp.eval("(define-task (long) (make-string 30 #\\z))")
    path = write(
        tmp_path,
        "cut.xml",
        """<task type="sequential">
  <context_management><max_stored_chars>8</max_stored_chars></context_management>
  <steps><task ref="long"/></steps>
</task>""",
    )
    interp.eval(f'(load-task-templates "{path}")')
    assert interp.tasks.describe("cut").context.max_stored_chars == 8
    assert interp.eval("(cut)").notes["steps"][0].output == "zzzzzzzz…[truncated 22 chars]"


@pytest.mark.parametrize(
    "condition, message",
    [("(" * 5000 + "a" + ")" * 5000, "longer than 10000 characters"), ("!" * 40 + "a", "deeper than 32 levels")],
)
def test_hostile_conditions_are_refused(tmp_path: Path, condition: str, message: str) -> None:
    from interpreter.tasks.templates.conditions import ConditionError, translate

    with pytest.raises(ConditionError, match=message):
        translate(condition, "x.xml", 1, 1)
    with pytest.raises(ConditionError, match="deeper than 32"):
        translate("(" * 40 + "a" + ")" * 40, "x.xml", 1, 1)
