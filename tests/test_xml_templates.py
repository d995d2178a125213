"""XML task templates: parsing (hardened), validation with element paths, and running through the DSL's nodes."""

from __future__ import annotations

from pathlib import Path

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.tasks.compose.loop import LoopResult
from interpreter.tasks.errors import TaskError
from interpreter.tasks.templates.loader import load_templates, parse_xml

DATA = Path(__file__).parent / "data" / "templates"

MODELS = """
(define-model "poet" (lambda (prompt system)
  (if (string-contains prompt "Feedback: needs three lines")
      "autumn rain falls\\non the quiet roof\\nsleep comes"
      "autumn rain")))
(define-model "critic" (lambda (prompt system)
  (if (string-contains prompt "Line count: 3")
      "{\\"success\\": true, \\"feedback\\": \\"good\\"}"
      "{\\"success\\": false, \\"feedback\\": \\"needs three lines\\"}")))
(define-model "echo-model" (lambda (prompt system) (string-append "echo: " prompt)))
"""

SAME_LOOP_IN_THE_DSL = """
(director-evaluator-loop
  (max-iterations 4)
  (context (inherit none) (accumulate #t) (format notes-only) (fresh enabled))
  (inputs (user-query "autumn rain"))
  (director (write-haiku #:topic user-query #:feedback evaluation-feedback))
  (script-execution "python3 -c \\"import sys; print(len(sys.stdin.read().splitlines()))\\"" (timeout 30))
  (evaluator (judge-haiku #:poem solution #:counts script-stdout))
  (termination-condition (>= (get/default evaluation 'notes 'details 'metrics 'score 0) 0.9)))
"""


def make() -> Interpreter:
    interp = Interpreter(allow_scripts=True, allow_files=True)
    interp.eval(MODELS, filename="models.scm")
    return interp


def without_durations(data: object) -> object:
    if isinstance(data, dict):
        return {k: without_durations(v) for k, v in data.items() if k not in ("duration_s", "last_turn_at")}
    if isinstance(data, list):
        return [without_durations(v) for v in data]
    return data


# -- the director_evaluator_loop template --------------------------------------------------
def test_the_loop_template_registers_its_tasks() -> None:
    interp = make()
    names = interp.eval(f'(load-task-templates "{DATA / "refine_loop.xml"}")')
    assert [s.name for s in names] == ["write-haiku", "judge-haiku", "refine-haiku"]
    definition = interp.tasks.describe("refine-haiku")
    assert definition.type == "director_evaluator_loop"
    assert [p.name for p in definition.params] == ["user-query"]
    assert definition.context.inherit_context == "none" and definition.context.fresh_context == "enabled"
    assert definition.body.startswith("(director-evaluator-loop (max-iterations 4)")
    assert interp.tasks.describe("judge-haiku").subtype == "evaluator"


def test_the_loop_template_runs_and_matches_the_dsl_loop() -> None:
    interp = make()
    load_templates(interp, DATA / "refine_loop.xml")
    from_xml = interp.eval('(refine-haiku "autumn rain")')
    from_dsl = interp.eval(SAME_LOOP_IN_THE_DSL)
    assert isinstance(from_xml, LoopResult)
    assert (from_xml.status, from_xml.iterations_completed) == ("COMPLETE", 2)
    assert from_xml.final_output.content.count("\n") == 2
    assert from_xml.final_evaluation.notes.script_output.stdout == "3\n"
    assert without_durations(from_xml.model_dump()) == without_durations(from_dsl.model_dump())


def test_a_folder_loads_every_xml_file(tmp_path: Path) -> None:
    (tmp_path / "a.xml").write_text('<task name="a"><instructions>A</instructions></task>')
    (tmp_path / "b.xml").write_text('<task name="b"><instructions>B</instructions></task>')
    (tmp_path / "notes.txt").write_text("not a template")
    assert load_templates(make(), tmp_path) == ["a", "b"]


def test_relative_paths_are_relative_to_the_loading_file(tmp_path: Path) -> None:
    (tmp_path / "t.xml").write_text('<task name="rel"><instructions>R</instructions></task>')
    (tmp_path / "prog.scm").write_text('(load-task-templates "t.xml")')
    interp = make()
    interp.eval_file(tmp_path / "prog.scm")
    assert "rel" in interp.tasks


def test_loading_needs_file_access() -> None:
    with pytest.raises(SchemeError) as info:
        Interpreter().eval(f'(load-task-templates "{DATA / "refine_loop.xml"}")')
    assert info.value.kind == "permission"


# -- sequential, atomic and cond -------------------------------------------------------------
def test_the_sequential_template_with_inline_and_conditional_steps() -> None:
    interp = make()
    interp.eval(
        """(define-task (clean-notes text) (string-upcase text))
           (define-task (short-report items) (string-append "short:" (number->string (length items))))
           (define-task (long-report items) (string-append "long:" (number->string (length items))))"""
    )
    names = load_templates(interp, DATA / "pipeline.xml")
    assert names == ["report-pipeline/patterns", "report-pipeline"]
    inline = interp.tasks.describe("report-pipeline/patterns")
    assert inline.type == "atomic" and inline.model == "echo-model"
    assert inline.metadata["manual_xml"] is True and inline.metadata["disable_reparsing"] is False
    short = interp.eval('(report-pipeline "a few notes")')
    assert short.status == "COMPLETE" and short.content == "short:2"
    steps = short.notes["steps"]
    assert [e.step for e in steps] == ["clean-notes", "patterns", "3"]
    assert steps[1].output.content == "echo: Patterns in: (A FEW NOTES)"
    assert interp.eval('(report-pipeline "a much longer set of notes")').content == "long:2"


def test_a_cond_step_that_no_case_matches_fails_with_the_steps_before_it(tmp_path: Path) -> None:
    """A <cond> without an else whose tests all fail is a TASK_FAILURE naming the block (it was a void step)."""
    interp = make()
    interp.eval('(define-task (clean-notes text) (string-upcase text))')
    path = tmp_path / "picky.xml"
    path.write_text(
        """<task name="picky" type="sequential">
  <inputs><input name="notes"/></inputs>
  <steps>
    <task ref="clean-notes"><inputs><input name="text" from="notes"/></inputs></task>
    <cond>
      <case test="(> (string-length notes) 1000)"><task ref="clean-notes"/></case>
    </cond>
  </steps>
</task>"""
    )
    load_templates(interp, path)
    result = interp.eval('(picky "short notes")')
    assert result.status == "FAILED"
    assert "TASK_FAILURE: no <case> of the <cond> in picky/2" in result.content
    assert f"{path}:5:5) matched" in result.content
    assert result.notes["error"]["reason"] == "no_case_matched", result.notes
    assert [entry.output for entry in result.notes["partial_results"]] == ["SHORT NOTES"]


def test_atomic_templates_with_every_field() -> None:
    interp = make()
    path = DATA.parent / "atomic.xml"
    try:
        path.write_text(
            """<tasks><task name="greet" subtype="evaluator">
                 <description>Greets</description><system>Be kind</system><model>echo-model</model>
                 <criteria>greeting politeness</criteria>
                 <instructions>Hello {{who}}</instructions>
                 <inputs><input name="who"/></inputs>
                 <context_management><inherit_context>subset</inherit_context></context_management>
               </task></tasks>"""
        )
        load_templates(interp, path)
    finally:
        path.unlink()
    d = interp.tasks.describe("greet")
    assert (d.type, d.subtype, d.system, d.criteria, d.description) == (
        "atomic",
        "evaluator",
        "Be kind",
        "greeting politeness",
        "Greets",
    )
    assert d.context.inherit_context == "subset"


# -- hardened parsing --------------------------------------------------------------------
def test_malformed_xml_is_an_xml_parse_error_with_line_and_column() -> None:
    with pytest.raises(TaskError) as info:
        load_templates(make(), DATA / "malformed.xml")
    err = info.value
    assert err.error_type == "XML_PARSE_ERROR"
    assert "mismatched tag" in err.message
    assert err.record.location == f"{DATA / 'malformed.xml'}:5:3"
    assert (err.span.line, err.span.col) == (5, 3)


def test_a_billion_laughs_file_is_rejected_not_expanded() -> None:
    with pytest.raises(TaskError) as info:
        load_templates(make(), DATA / "billion_laughs.xml")
    assert info.value.error_type == "XML_PARSE_ERROR"
    assert "entity declarations are not allowed" in info.value.message


def test_external_entities_are_rejected() -> None:
    with pytest.raises(TaskError) as info:
        load_templates(make(), DATA / "external_entity.xml")
    assert info.value.error_type == "XML_PARSE_ERROR"


def test_parse_errors_are_catchable_in_the_dsl() -> None:
    value = make().eval(
        f"""(guard (e ((task-error? e) (task-error-type e)))
              (load-task-templates "{DATA / "malformed.xml"}"))"""
    )
    assert value.name == "XML_PARSE_ERROR"


# -- schema violations ---------------------------------------------------------------------
def test_schema_violations_name_the_element_path() -> None:
    interp = make()
    with pytest.raises(TaskError) as info:
        load_templates(interp, DATA / "invalid_schema.xml")
    err = info.value
    assert err.error_type == "VALIDATION_ERROR"
    assert err.record.path == "tasks/task[2]/colour"
    assert "unexpected <colour>" in err.message
    assert "fine" not in interp.tasks  # nothing from a bad file is registered


@pytest.mark.parametrize(
    "xml, path, message",
    [
        ('<task name="t"><model>no-such-modle</model><instructions>x</instructions></task>', "task/model", "unknown model"),
        ('<task name="t" type="magic"/>', "task@type", "unknown task type"),
        ('<task name="t"/>', "task/instructions", "needs a <instructions>"),
        ('<task name="t" colour="red"><instructions>x</instructions></task>', "task@colour", "no attribute colour"),
        ('<task name="t"><instructions>{{nope}}</instructions></task>', "task", "is not a parameter"),
        (
            '<task name="t" type="director_evaluator_loop"><director ref="a"/></task>',
            "task/evaluator",
            "needs a <evaluator>",
        ),
        (
            '<task name="t" type="director_evaluator_loop"><max_iterations>zero</max_iterations>'
            '<director ref="a"/><evaluator ref="b"/></task>',
            "task/max_iterations",
            "positive integer",
        ),
        ('<task name="t" type="sequential"><steps/></task>', "task/steps", "at least one step"),
        (
            '<task name="t" type="sequential"><steps><task ref="a"><instructions>x</instructions></task></steps></task>',
            "task/steps/task[1]",
            "takes only <inputs>",
        ),
        (
            '<task name="t"><instructions>x</instructions><inputs><input/></inputs></task>',
            "task/inputs/input[1]@name",
            "needs a name",
        ),
        (
            '<task name="t"><instructions>x</instructions><context_management><inherit_context>full</inherit_context>'
            "<fresh_context>enabled</fresh_context></context_management></task>",
            "task/context_management",
            "cannot be combined",
        ),
        (
            '<task name="t"><instructions>x</instructions><context_management><accumulate_data>maybe</accumulate_data>'
            "</context_management></task>",
            "task/context_management",
            "true or false",
        ),
        (
            '<tasks><task name="t"><instructions>x</instructions></task><task name="t"><instructions>y</instructions></task></tasks>',
            "tasks/task[2]@name",
            "defined twice",
        ),
        ("<template/>", "template", "root element"),
    ],
)
def test_validation_errors(tmp_path: Path, xml: str, path: str, message: str) -> None:
    file = tmp_path / "t.xml"
    file.write_text(xml)
    with pytest.raises(TaskError) as info:
        load_templates(make(), file)
    err = info.value
    assert err.error_type == "VALIDATION_ERROR", err.message
    assert message in err.message
    assert err.record.path.startswith(path), err.record.path
    assert err.span is not None and err.span.file == str(file)


def test_a_bad_termination_expression_points_into_the_xml(tmp_path: Path) -> None:
    file = tmp_path / "t.xml"
    file.write_text(
        '<task name="t" type="director_evaluator_loop">\n<director ref="a"/><evaluator ref="b"/>\n'
        "<termination_condition>(oops</termination_condition></task>"
    )
    with pytest.raises(TaskError) as info:
        load_templates(make(), file)
    assert "cannot read the expression" in info.value.message
    assert info.value.span.line == 3


def test_runtime_errors_in_generated_code_point_into_the_xml(tmp_path: Path) -> None:
    file = tmp_path / "t.xml"
    file.write_text(
        '<task name="t" type="director_evaluator_loop">\n<director ref="missing-task"/>\n<evaluator ref="b"/></task>'
    )
    interp = make()
    load_templates(interp, file)
    result = interp.eval("(t)")
    assert result.status == "FAILED"
    assert result.error.location == f"{file}:2:1"


def test_parse_xml_keeps_positions_and_paths() -> None:
    root = parse_xml(
        b"<tasks>\n  <task name='a'>\n    <inputs><input name='x'/><input name='y'/></inputs>\n  </task>\n</tasks>",
        "m.xml",
    )
    task = root.children[0]
    second = task.children[0].children[1]
    assert (task.line, task.col, second.path) == (2, 3, "tasks/task[1]/inputs/input[2]")
