"""A pipeline or loop ended by a runtime limit hands the host what it had done (issue 17, item 7):
``SchemeError.partial`` from Python, the completed steps or iterations on the command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import run_cli

from interpreter import Interpreter, SchemeError
from interpreter.tasks.compose.loop import LoopResult
from interpreter.tasks.records import TaskResult

ROOT = Path(__file__).resolve().parent.parent
SPIN = "(define (spin n) (if (= n 0) 0 (spin (- n 1))))"
PIPELINE = """
(define-task (pipeline topic)
  (sequential
    (step load (string-append "notes on " topic))
    (step analyze (string-length (car previous-outputs)))
    (step stuck STUCK)
    (step never "unreached")))
"""


def ended(interp: Interpreter, source: str) -> SchemeError:
    with pytest.raises(SchemeError) as info:
        interp.eval(source, filename="prog.scm")
    assert info.value.kind == "resource-exhaustion"
    return info.value


def completed_steps(partial: TaskResult) -> list[tuple[str, object]]:
    return [(entry.step, entry.output) for entry in partial.notes["partial_results"]]


@pytest.mark.parametrize(
    "settings, stuck, message",
    [
        ({"timeout": 0.5}, "(spin -1)", "time limit exceeded"),
        ({"max_steps": 20_000}, "(spin -1)", "step limit exceeded"),
        ({"max_depth": 200}, "(+ 1 (down 0))", "recursion depth limit exceeded"),
        ({"max_memory": 16 * 2**20, "timeout": 30}, "(make-vector 3000000 0)", "max_memory"),
    ],
)
def test_a_named_pipeline_ended_by_a_limit_keeps_its_completed_steps(
    settings: dict[str, object], stuck: str, message: str
) -> None:
    interp = Interpreter(**settings)  # type: ignore[arg-type]
    interp.eval(SPIN + "(define (down n) (+ 1 (down n)))" + PIPELINE.replace("STUCK", stuck))
    err = ended(interp, '(pipeline "limits")')
    assert message in err.message
    partial = err.partial
    assert isinstance(partial, TaskResult) and partial.status == "FAILED"
    assert completed_steps(partial) == [("load", "notes on limits"), ("analyze", 17)]
    assert partial.notes["failed_step"] == "stuck"
    assert partial.notes["error"]["type"] == "resource-exhaustion"
    assert message in partial.notes["error"]["message"]
    assert interp.eval('(string-length "still usable")') == 12


def test_strict_pipelines_and_nested_forms_keep_the_outermost_with_the_inner_inside() -> None:
    interp = Interpreter(timeout=0.5)
    interp.eval(SPIN)
    err = ended(
        interp,
        """(sequential/strict
             (step first "one")
             (step inner (sequential (step a "x") (step b (spin -1)))))""",
    )
    partial = err.partial
    assert completed_steps(partial) == [("first", "one")]
    inner = partial.notes["failed_output"]  # what the inner pipeline had
    assert isinstance(inner, TaskResult) and completed_steps(inner) == [("a", "x")]


def test_a_loop_whose_director_runs_a_pipeline_keeps_its_iterations_and_the_pipeline_under_way() -> None:
    interp = Interpreter(timeout=0.5)
    interp.eval(SPIN)
    err = ended(
        interp,
        """(director-evaluator-loop (max-iterations 50)
             (director (sequential (step a "draft") (step b (if (= current-iteration 2) (spin -1) current-iteration))))
             (evaluator #f))""",
    )
    partial = err.partial
    assert isinstance(partial, LoopResult)
    assert (partial.status, partial.stop_reason, partial.iterations_completed) == ("FAILED", "error", 2)
    assert (partial.error.iteration, partial.error.phase) == (2, "director")
    assert "time limit exceeded" in partial.error.message
    under_way = partial.iteration_history[-1]
    assert under_way.iteration == 2 and under_way.evaluation is None
    assert completed_steps(under_way.output) == [("a", "draft")]


def test_under_parallel_map_the_branch_that_hit_the_limit_hands_its_pipeline() -> None:
    """A limit raised inside one branch (here its depth) carries that branch's pipeline. (A timeout
    may instead end the run at the parallel form itself, whose error carries no partial.)"""
    interp = Interpreter(max_depth=300)
    interp.eval("(define (down n) (+ 1 (down n)))")
    err = ended(
        interp,
        """(parallel-map (lambda (x) (sequential (step a (* x 10)) (step b (if (= x 2) (down 0) x))))
                         '(1 2 3))""",
    )
    assert "recursion depth limit exceeded" in err.message
    assert completed_steps(err.partial) == [("a", 20)]


def test_the_command_line_prints_what_completed(tmp_path: Path) -> None:
    program = tmp_path / "pipeline.scm"
    program.write_text(SPIN + PIPELINE.replace("STUCK", "(spin -1)") + '(pipeline "limits")\n', encoding="utf-8")
    done = run_cli(["--timeout", "0.5", str(program)])
    assert done.returncode == 1
    assert "error: time limit exceeded" in done.stderr
    assert (
        'completed before it ended (partial TaskResult): 2 steps\n  step load: "notes on limits"\n  step analyze: 17\n'
    ) in done.stderr
