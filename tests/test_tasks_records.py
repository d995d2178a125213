"""Task records: validation, printing, ``get``, constructors, context defaults, task errors."""

from __future__ import annotations

import json

import pydantic
import pytest

from interpreter import Interpreter, SchemeError
from interpreter.printer import write_string
from interpreter.tasks.errors import TaskError
from interpreter.tasks.records import (
    ContextManagement,
    EvaluationResult,
    ScriptResult,
    TaskDefinition,
    TaskParam,
    TaskResult,
    context_for,
)


@pytest.fixture
def ev():
    interp = Interpreter()
    return lambda source: interp.eval_scheme(source, filename="t.scm")


def test_task_result_validates_status():
    assert TaskResult(content="x").status == "COMPLETE"
    with pytest.raises(pydantic.ValidationError):
        TaskResult(content="x", status="DONE")


def test_records_are_json_serialisable():
    result = EvaluationResult(
        content="ok",
        notes={"success": True, "feedback": "fine", "details": {"metrics": {"score": 0.5}, "extra": 1}},
    )
    data = json.loads(result.model_dump_json())
    assert data["notes"]["details"]["metrics"] == {"score": 0.5}
    assert data["notes"]["details"]["extra"] == 1
    assert EvaluationResult.model_validate(data) == result
    script = ScriptResult(stdout="a", stderr="", exit_code=0)
    assert json.loads(script.model_dump_json())["timed_out"] is False


@pytest.mark.parametrize(
    ("task_type", "subtype", "expected"),
    [
        ("atomic", None, ("full", False, "notes_only", "disabled")),
        ("sequential", None, ("full", True, "notes_only", "disabled")),
        ("script", None, ("full", False, "notes_only", "disabled")),
        ("director_evaluator_loop", None, ("none", True, "notes_only", "enabled")),
        ("atomic", "director", ("full", False, "notes_only", "disabled")),
        ("atomic", "evaluator", ("full", False, "notes_only", "disabled")),
    ],
)
def test_context_defaults_per_type(task_type, subtype, expected):
    c = context_for(task_type, subtype)
    assert (c.inherit_context, c.accumulate_data, c.accumulation_format, c.fresh_context) == expected


def test_context_override_is_field_by_field():
    c = context_for("director_evaluator_loop", None, {"accumulation_format": "full_output"})
    assert (c.inherit_context, c.accumulate_data, c.accumulation_format, c.fresh_context) == (
        "none",
        True,
        "full_output",
        "enabled",
    )


def test_full_inherit_with_fresh_context_is_invalid():
    with pytest.raises(pydantic.ValidationError, match="cannot be combined"):
        ContextManagement(inherit_context="full", fresh_context="enabled")
    with pytest.raises(pydantic.ValidationError, match="cannot be combined"):
        context_for("director_evaluator_loop", None, {"inherit_context": "full"})


def test_definition_checks_templates_and_params():
    with pytest.raises(pydantic.ValidationError, match=r"\{\{tone\}\} in the prompt of task t is not a parameter"):
        TaskDefinition(name="t", type="atomic", params=[TaskParam(name="text")], body="{{text}} {{tone}}")
    with pytest.raises(pydantic.ValidationError, match="required parameter b follows an optional one"):
        TaskDefinition(
            name="t", type="atomic", body="x", params=[TaskParam(name="a", required=False), TaskParam(name="b")]
        )
    ok = TaskDefinition(name="t", type="atomic", params=[TaskParam(name="max-words")], body="{{max_words}}")
    assert ok.context.inherit_context == "full"


def test_make_task_result_and_get(ev):
    assert ev('(get (make-task-result "hi") \'content)') == "hi"
    assert ev("(get (make-task-result \"hi\" 'WAITING) 'status)") == "WAITING"
    assert ev("(get (make-task-result \"hi\" 'complete '((score . 3))) 'notes 'score)") == 3
    assert ev('(task-result? (make-task-result "x"))') is True


def test_make_task_result_bad_status_is_validation_error(ev):
    with pytest.raises(TaskError) as info:
        ev('(make-task-result "hi" \'DONE)')
    assert info.value.error_type == "VALIDATION_ERROR"
    assert info.value.record.path == "status"
    assert "make-task-result: status" in info.value.message


def test_make_evaluation(ev):
    ev('(define e (make-evaluation #f "too long" \'((metrics . ((words . 120))) (violations . ("length")))))')
    assert ev("(evaluation? e)") is True
    assert ev("(get e 'notes 'success)") is False
    assert ev("(get e 'notes 'feedback)") == "too long"
    assert ev("(get e 'notes 'details 'metrics 'words)") == 120.0
    assert write_string(ev("(get e 'notes 'details 'violations)")) == '("length")'
    with pytest.raises(SchemeError, match="make-evaluation: expected a boolean"):
        ev('(make-evaluation "yes" "x")')


@pytest.mark.parametrize("details", ["'()", "#f", ""])
def test_make_evaluation_with_no_details(ev, details):
    """The empty alist is no details, as #f and a missing argument are (it was a validation error)."""
    ev(f'(define e (make-evaluation #t "ok" {details}))')
    assert ev("(get e 'notes 'success)") is True
    assert ev("(get e 'notes 'details)") is False


def test_get_kebab_and_snake_case(ev):
    ev('(define s (make-evaluation #t "ok" \'((metrics . ((x . 1))))))')
    assert ev("(get s 'notes 'details 'metrics 'x)") == 1.0
    interp = Interpreter(allow_scripts=True)
    interp.eval('(define r (run-script "true"))')
    assert interp.eval("(get r 'exit-code)") == 0
    assert interp.eval("(get r 'exit_code)") == 0
    assert interp.eval("(get r 'timed-out)") is False


def test_get_missing_field_names_it_and_lists_fields(ev):
    with pytest.raises(SchemeError) as info:
        ev('(get (make-task-result "x") \'final-output)')
    assert info.value.message == "get: no field final-output in task-result (fields: content, status, notes)"


def test_get_default(ev):
    assert ev("(get/default (make-task-result \"x\") 'final-output 'none)").name == "none"
    assert ev("(get/default (make-evaluation #t \"ok\") 'notes 'details 'nothing)") is not None
    assert ev("(get/default (make-evaluation #t \"ok\") 'notes 'details 'nothing)").name == "nothing"
    assert ev("(get/default (make-task-result \"x\") 'content 'none)") == "x"


def test_get_reads_hash_tables_alists_records_and_lists(ev):
    ev('(define h (make-equal-hash-table)) (hash-table-set! h \'final_output "done")')
    assert ev("(get h 'final-output)") == "done"
    assert ev("(get '((a . ((b . 2)))) 'a 'b)") == 2
    assert ev('(get \'(("name" . "x")) \'name)') == "x"
    ev("(define-record-type point (make-point x y) point? (x point-x) (y point-y))")
    assert ev("(get (make-point 1 2) 'y)") == 2
    assert ev("(get '((items . (10 20 30))) 'items 1)") == 20
    with pytest.raises(SchemeError, match=r"get: no field c in association list \(fields: a\)"):
        ev("(get '((a . 1)) 'c)")
    with pytest.raises(SchemeError, match="get: cannot read field a of 42"):
        ev("(get 42 'a)")


def test_records_print_readably(ev):
    text = write_string(ev('(make-task-result "hi" \'FAILED \'((why . "x")))'))
    assert text == '#<task-result content: "hi" status: "FAILED" notes: ((why . "x"))>'
    assert write_string(ev('(make-evaluation #t "ok")')).startswith('#<evaluation-result content: "ok"')


def test_record_to_alist(ev):
    assert write_string(ev('(record->alist (make-task-result "a"))')) == (
        '((content . "a") (status . "COMPLETE") (notes))'
    )


@pytest.mark.parametrize(
    ("source", "error_type", "field", "value"),
    [
        ('(make-task-error \'TASK_FAILURE "boom" #:reason "crash")', "TASK_FAILURE", "reason", "crash"),
        ('(make-task-error \'XML_PARSE_ERROR "bad" #:location "1:2")', "XML_PARSE_ERROR", "location", "1:2"),
        ('(make-task-error \'VALIDATION_ERROR "bad" #:path "a.b")', "VALIDATION_ERROR", "path", "a.b"),
        ('(make-task-error \'INVALID_OUTPUT "bad" #:violations \'("v"))', "INVALID_OUTPUT", "violations", ["v"]),
        (
            "(make-task-error 'RESOURCE_EXHAUSTION \"big\" #:resource 'turns #:metrics '((used . 3) (limit . 2)))",
            "RESOURCE_EXHAUSTION",
            "resource",
            "turns",
        ),
    ],
)
def test_every_task_error_is_catchable(ev, source, error_type, field, value):
    got = ev(
        f"(guard (e ((task-error? e) (list (task-error-type e) (task-error-details e) (error-object-message e))))"
        f" (raise {source}))"
    )
    items = list(got)
    assert items[0].name == error_type
    assert getattr(items[1], field) == value
    assert items[2].startswith(f"{error_type}: ")


def test_task_error_accessors_reject_other_errors(ev):
    assert ev("(guard (e (#t (task-error? e))) (car '()))") is False
    with pytest.raises(SchemeError, match="task-error-type: expected a task error"):
        ev("(task-error-type 1)")
    with pytest.raises(SchemeError, match="unknown task error type OOPS"):
        ev('(make-task-error \'OOPS "x")')
    with pytest.raises(TaskError, match="reason: Field required"):
        ev('(make-task-error \'TASK_FAILURE "x")')


def test_uncaught_task_error_shows_location():
    with pytest.raises(TaskError) as info:
        source = '(define (f) (raise (make-task-error \'TASK_FAILURE "no" #:reason "r")))\n(f)'
        Interpreter().eval(source, filename="p.scm")
    text = info.value.format()
    assert text.startswith("error: TASK_FAILURE: no")
    assert "p.scm:2:1" in text


CIRCULAR = "(define l (list 1 2)) (set-cdr! (cdr l) l)"
CIRCULAR_ALIST = "(define l (list (cons 'a 1))) (set-cdr! l l)"
SELF_CONTAINING = "(define l (list 1 2)) (set-car! l l)"
TABLE_IN_ITSELF = "(define l (make-equal-hash-table)) (hash-table-set! l 'me l)"


@pytest.mark.parametrize("setup", [CIRCULAR, CIRCULAR_ALIST, SELF_CONTAINING, TABLE_IN_ITSELF])
def test_data_that_loops_is_refused_by_a_record_not_a_hang(ev, setup):
    with pytest.raises(SchemeError) as info:
        ev(f'{setup} (make-task-result "x" "COMPLETE" l)')
    assert info.value.message.startswith("make-task-result: cannot ")
    assert info.value.span is not None and info.value.span.line == 1


@pytest.mark.parametrize("setup", [CIRCULAR, CIRCULAR_ALIST, SELF_CONTAINING, TABLE_IN_ITSELF])
def test_a_sequential_step_with_looping_data_keeps_it_in_written_form(ev, setup):
    result = ev(f"{setup} (sequential (step a l))")
    assert result.status == "COMPLETE"
    assert result.content == write_string(ev("l"))


def test_data_nested_too_deeply_for_a_record_is_an_error(ev):
    with pytest.raises(SchemeError) as info:
        ev('(define (nest n acc) (if (= n 0) acc (nest (- n 1) (list acc)))) (make-task-result "x" "COMPLETE" (nest 100000 1))')
    assert "make-task-result" in info.value.message
