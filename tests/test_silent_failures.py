"""Nothing fails in silence: a FAILED TaskResult or LoopResult that a top-level form drops is a
warning on standard error (``--strict``: an error, exit 1); the REPL shows a failed result's error
first, in the error colour."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter import Interpreter, SchemeError, cli
from interpreter.repl.session import ReplSession
from interpreter.tasks.failures import is_failed_result
from interpreter.terminal import RED_BOLD

FAILING_LOOP = """(display "before")
(newline)
(director-evaluator-loop
  (max-iterations 2)
  (director (error "no draft for" 'topic))
  (evaluator #t))
(display "after")
"""

FAILING_PIPELINE = """(define (load-notes) "notes")
(sequential
  (step load (load-notes))
  (step analyze (car '())))
"""


def run_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str, *options: str) -> tuple[int, str, str]:
    prog = tmp_path / "prog.scm"
    prog.write_text(source, encoding="utf-8")
    status = cli.run([*options, str(prog)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err.replace(str(tmp_path) + os.sep, "")


def test_a_dropped_failed_loop_is_one_warning_with_place_type_iteration_phase_and_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run_cli(tmp_path, capsys, FAILING_LOOP)
    assert (status, out) == (0, "before\nafter")
    assert err == (
        "warning: prog.scm:3:1: dropped a FAILED LoopResult: error in iteration 0 (director): "
        "no draft for 'topic (at prog.scm:5:13)\n"
    )


def test_a_dropped_failed_pipeline_names_its_step(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run_cli(tmp_path, capsys, FAILING_PIPELINE)
    assert (status, out) == (0, "")
    assert err.startswith("warning: prog.scm:2:1: dropped a FAILED TaskResult: type-error in step analyze: car: ")
    assert err.count("\n") == 1


def test_a_failed_script_task_result_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = '(define-task (check) (script "sh -c \'echo broken >&2; exit 3\'"))\n(check)\n'
    status, _, err = run_cli(tmp_path, capsys, source)
    assert status == 0
    assert err.startswith("warning: prog.scm:2:1: dropped a FAILED ScriptTaskResult: ")
    assert "exited with code 3" in err and "broken" in err


def test_results_the_program_keeps_or_that_succeed_are_not_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = (
        "(define kept (sequential (step a (car '()))))\n"
        "(sequential (step fine 1))\n"
        "(director-evaluator-loop (max-iterations 1) (director \"d\") (evaluator #t))\n"
        "(display (get kept 'status))\n"
    )
    assert run_cli(tmp_path, capsys, source) == (0, "FAILED", "")


def test_strict_makes_a_dropped_failure_an_error_that_stops_the_program(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run_cli(tmp_path, capsys, FAILING_LOOP, "--strict")
    assert (status, out) == (1, "before\n")
    assert err.splitlines() == [
        "error: TASK_FAILURE: dropped a FAILED LoopResult: error in iteration 0 (director): "
        "no draft for 'topic (at prog.scm:5:13)",
        "  at prog.scm:3:1",
    ]


def test_loaded_files_report_their_dropped_failures_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "lib.scm").write_text(FAILING_PIPELINE, encoding="utf-8")
    status, _, err = run_cli(tmp_path, capsys, '(load "lib.scm")\n')
    assert status == 0
    assert err.startswith("warning: lib.scm:2:1: dropped a FAILED TaskResult: type-error in step analyze")


@pytest.mark.slow
def test_the_warning_reaches_a_real_terminal_session_as_a_process(tmp_path: Path) -> None:
    """The installed command, as a process: stdout and stderr stay in order, the exit status is 0 / 1."""
    (tmp_path / "prog.scm").write_text(FAILING_LOOP, encoding="utf-8")
    command = [sys.executable, "-m", "interpreter"]
    done = subprocess.run([*command, "prog.scm"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "before\nafter")
    assert done.stderr.startswith("warning: prog.scm:3:1: dropped a FAILED LoopResult")
    strict = subprocess.run([*command, "--strict", "prog.scm"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert strict.returncode == 1
    assert strict.stderr.startswith("error: TASK_FAILURE: dropped a FAILED LoopResult")


# -- the REPL ------------------------------------------------------------------------------
def repl(colour: bool) -> tuple[ReplSession, io.StringIO, io.StringIO]:
    out, err = io.StringIO(), io.StringIO()
    session = ReplSession(lambda: Interpreter(stdout=out), err=err, colour=colour)
    return session, out, err


def test_the_repl_shows_a_failed_result_error_first() -> None:
    session, out, err = repl(colour=False)
    session.submit("(sequential (step a 1) (step b (vector-ref (vector) 3)))")
    assert err.getvalue().startswith("error: FAILED TaskResult: index-error in step b: vector-ref: ")
    assert "FAILED" in out.getvalue()  # the record itself follows, on standard output


def test_the_repl_colours_the_failure_as_an_error() -> None:
    session, _, err = repl(colour=True)
    session.submit("(director-evaluator-loop (max-iterations 1) (director (car 5)) (evaluator #t))")
    assert err.getvalue().startswith(f"{RED_BOLD}error: FAILED LoopResult: type-error in iteration 0 (director): car")


def test_the_repl_says_nothing_more_for_results_that_did_not_fail() -> None:
    session, out, err = repl(colour=True)
    session.submit("(sequential (step a 1))")
    assert err.getvalue() == ""
    assert "COMPLETE" in out.getvalue()


# -- the embedding API ---------------------------------------------------------------------
def test_embedders_see_each_top_level_value_with_its_place() -> None:
    interp = Interpreter()
    seen: list[tuple[object, str]] = []
    interp.on_top_level_value = lambda value, span: seen.append((value, str(span)))
    interp.eval("(define x 1)\n(+ x 1)\n(sequential (step a (car '())))", filename="host.scm")
    assert [place for _, place in seen] == ["host.scm:1:1", "host.scm:2:1", "host.scm:3:1"]
    assert seen[1][0] == 2
    assert [is_failed_result(value) for value, _ in seen] == [False, False, True]


def test_whole_run_counts_the_step_limit_once_across_evaluations() -> None:
    busy = "(let loop ((i 0)) (if (< i 400) (loop (+ i 1)) i))"
    interp = Interpreter(max_steps=1500)
    for _ in range(5):
        interp.eval(busy)  # each evaluation is a run of its own: within the limit
    with pytest.raises(SchemeError) as info, interp.whole_run():
        for _ in range(5):
            interp.eval(busy)
    assert info.value.kind == "resource-exhaustion"


def test_e_prints_a_failed_result_with_its_error_first(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["-e", "(sequential (step only (car '())))"]) == 0
    captured = capsys.readouterr()
    assert captured.err.startswith("error: FAILED TaskResult: type-error in step only: car: expected a pair")
    assert "FAILED" in captured.out


def test_a_dropped_list_of_results_with_failures_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What ``parallel-map … #:on-error 'collect`` returns: a list of results, some FAILED."""
    source = (
        "(define (check x) (sequential (step only (if (> x 1) (car '()) x))))\n"
        "(map check (list 1 2 3))\n"
        "(list->vector (map check (list 1 2)))\n"
        "(map check (list 0 1))\n"
        "(define cycle (list 1 2))\n(set-cdr! (cdr cycle) cycle)\ncycle\n"
    )
    status, _, err = run_cli(tmp_path, capsys, source)
    assert status == 0
    assert err.splitlines() == [
        "warning: prog.scm:2:1: dropped a list holding 2 FAILED results; the first is a FAILED TaskResult: "
        "type-error in step only: car: expected a pair, got '() (at prog.scm:1:54)",
        "warning: prog.scm:3:1: dropped a vector holding a FAILED result; the first is a FAILED TaskResult: "
        "type-error in step only: car: expected a pair, got '() (at prog.scm:1:54)",
    ]


def test_parallel_map_collecting_failures_is_not_silent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = "(parallel-map (lambda (x) (if (> x 1) (error \"bad\" x) x)) (list 1 2 3) #:on-error 'collect)\n"
    status, _, err = run_cli(tmp_path, capsys, source)
    assert status == 0
    assert err.startswith("warning: prog.scm:1:1: dropped a list holding 2 FAILED results; the first is a FAILED")
    assert "bad 2" in err
    assert run_cli(tmp_path, capsys, source, "--strict")[0] == 1
