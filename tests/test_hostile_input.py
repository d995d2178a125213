"""Hostile programs and data files end in taskscheme errors, on time (issue 17, items 3, 7, 8)."""

from __future__ import annotations

from pathlib import Path

import pytest

from interpreter import Interpreter
from interpreter.errors import SchemeError
from interpreter.reader import ReadError


def failure(interp: Interpreter, source: str) -> SchemeError:
    with pytest.raises(SchemeError) as info:
        interp.eval(source)
    return info.value


@pytest.mark.parametrize(
    "literal", ["#e1e999999999", "#e1e2000000", "#e1.5e-99999999", "1" * 60_000, "#x" + "f" * 60_000]
)
@pytest.mark.timeout(60)  # a hang guard, not a timing: building 10**999999999 first would take hours
def test_the_reader_refuses_an_exact_literal_past_max_digits(literal: str) -> None:
    err = failure(Interpreter(timeout=1), literal)
    assert isinstance(err, ReadError)
    assert "max_digits = 50000" in err.message


def test_string_to_number_past_max_digits_is_a_resource_error() -> None:
    err = failure(Interpreter(), '(string->number "#e1e999999999")')
    assert err.kind == "resource-exhaustion"


@pytest.mark.parametrize(
    "source",
    [
        "(expt 10 60000)",
        "(* (expt 10 30000) (expt 10 30000))",
        "(let loop ((x 2)) (loop (* x x)))",
        "(square (expt 7 40000))",
    ],
)
def test_bignum_results_past_max_digits_are_refused(source: str) -> None:
    err = failure(Interpreter(timeout=5), source)
    assert err.kind == "resource-exhaustion"
    assert err.details["resource"] == "digits"
    assert err.details["limit"] == 50_000


def test_max_digits_is_configurable() -> None:
    small = Interpreter(max_digits=100)
    assert failure(small, "(expt 10 200)").details["limit"] == 100
    assert failure(small, "1" * 150).kind == "read-error"
    big = Interpreter(max_digits=200_000)
    assert big.eval("(expt 10 100000)") == 10**100_000
    assert Interpreter().eval("(expt 2 100000)") == 2**100_000  # the default allows ordinary bignums


def test_huge_fraction_in_a_step_is_no_python_exception() -> None:
    result = Interpreter().eval("(sequential (step y (/ (expt 10 400) 3)))")
    assert result.status == "COMPLETE"
    assert result.content == "1" + "0" * 400 + "/3"


def test_a_replay_file_of_binary_garbage_is_a_file_error(tmp_path: Path) -> None:
    replay = tmp_path / "calls.jsonl"
    replay.write_bytes(b"\xff\xfe\x00garbage\x80\x81")
    with pytest.raises(SchemeError) as info:
        Interpreter(replay=replay)
    assert info.value.kind == "file-error"
    assert "not UTF-8" in info.value.message


# -- linear text scans -------------------------------------------------------------------
def test_json_extraction_is_linear_on_an_unclosed_fence() -> None:
    """``find_json`` on a fence followed by 200,000 spaces (a backtracking regex took
    about 7 s at 40,000) fails at once as not JSON."""
    from interpreter.tasks.evaluation import find_json

    with pytest.raises(ValueError):
        find_json("```" + " " * 200_000)
    assert find_json('prose ```json\n{"success": true}\n``` more') == {"success": True}
    assert find_json('```{"a": [1]}``` then ```[2]```') == {"a": [1]}


def test_schema_answers_unfence_linearly() -> None:
    """The fence of a structured answer is found in one pass (the regex took 108 s on a
    fence followed by 5,000 newlines)."""
    from interpreter.tasks.models.schemas import unfenced

    hostile = "```\n" + "\n" * 100_000
    assert unfenced(hostile) == hostile
    assert unfenced('```json\n{"a": 1}\n```') == '{"a": 1}'
    assert unfenced("  ```\n[1]\n  ``` ") == "[1]"
    assert unfenced('{"a": 1}') == '{"a": 1}'


# -- XML templates: size and depth --------------------------------------------------------
def load_template(tmp_path: Path, xml: str | bytes) -> SchemeError:
    path = tmp_path / "hostile.xml"
    path.write_bytes(xml.encode() if isinstance(xml, str) else xml)
    return failure(Interpreter(allow_files=[str(tmp_path)], timeout=5), f'(load-task-templates "{path}")')


def test_deeply_nested_xml_is_refused(tmp_path: Path) -> None:
    err = load_template(tmp_path, '<task name="t" type="atomic">' + "<a>" * 100_000 + "</a>" * 100_000 + "</task>")
    assert "refused" in err.message and "nested" in err.message


def test_too_many_xml_elements_are_refused(tmp_path: Path) -> None:
    err = load_template(tmp_path, '<task name="t" type="atomic">' + "<a/>" * 100_000 + "</task>")
    assert "refused" in err.message


def test_a_huge_xml_file_is_refused_before_parsing(tmp_path: Path) -> None:
    err = load_template(
        tmp_path, '<task name="t" type="atomic"><instructions>' + "&#65;" * 2_000_000 + "</instructions></task>"
    )
    assert "larger than" in err.message


def test_many_character_references_join_in_linear_time(tmp_path: Path) -> None:
    """Text arriving in many pieces (one per character reference) is joined once."""
    text = "&#65;" * 400_000  # 2 MB, under the size limit
    path = tmp_path / "refs.xml"
    path.write_text(f'<task name="refs" type="atomic"><instructions>{text}</instructions></task>')
    interp = Interpreter(allow_files=[str(tmp_path)])
    assert interp.eval(f'(load-task-templates "{path}")') == [interp.symbol("refs")]


# -- the files capability follows links ---------------------------------------------------
def test_a_symlink_in_a_template_folder_cannot_lead_outside(tmp_path: Path) -> None:
    allowed, outside = tmp_path / "allowed", tmp_path / "outside"
    allowed.mkdir()
    outside.mkdir()
    (outside / "secret.xml").write_text('<task name="secret" type="atomic"><instructions>x</instructions></task>')
    (allowed / "ok.xml").write_text('<task name="ok" type="atomic"><instructions>y</instructions></task>')
    (allowed / "z-link.xml").symlink_to(outside / "secret.xml")
    interp = Interpreter(allow_files=[str(allowed)])
    err = failure(interp, f'(load-task-templates "{allowed}")')
    assert err.kind == "permission"
    assert "secret" not in interp.tasks


def test_import_does_not_reveal_whether_a_library_file_exists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "mylib.sld").write_text(
        "(define-library (mylib) (export x) (import (scheme base)) (begin (define x 1)))"
    )
    monkeypatch.chdir(tmp_path)
    present = failure(Interpreter(), "(import (mylib))")
    absent = failure(Interpreter(), "(import (nolib))")
    assert present.kind == absent.kind == "permission"
    assert present.message.replace("mylib", "X") == absent.message.replace("nolib", "X")
    assert Interpreter(allow_files=True).eval("(import (mylib)) x") == 1


# -- a limit keeps the partial result ---------------------------------------------------------
def test_a_loop_ended_by_a_limit_hands_the_host_its_iterations() -> None:
    interp = Interpreter(timeout=0.5)
    program = """
    (define (spin n) (if (= n 0) 0 (spin (- n 1))))
    (director-evaluator-loop
      (max-iterations 100)
      (director (if (< current-iteration 2) (string-append "draft " (number->string current-iteration)) (spin -1)))
      (evaluator (make-evaluation #f "again")))
    """
    err = failure(interp, program)
    assert err.details["resource"] == "time"
    partial = err.partial
    assert partial.status == "FAILED"
    assert partial.iterations_completed == 2
    assert [i.output.content for i in partial.iteration_history] == ["draft 0", "draft 1"]
