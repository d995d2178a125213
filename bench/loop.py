"""The director-evaluator loop's own overhead, side by side with the same loop in plain Python.

    .venv/bin/python bench/loop.py [--iterations N]

1. Overhead per iteration: a director and an evaluator that return at once, so all the
   time is the loop's (frames, records, history, events, progress). The plain-Python
   loops do the same job: one builds the same records (TaskResult, EvaluationResult,
   LoopIteration, LoopResult), the other plain dicts. Target: within 20x of Python.
2. Peak memory of a 1,000-iteration latest-only loop whose director returns 100 KB
   each time (tracemalloc): it must stay far below the 100 MB a full history would hold.
3. Memory held after 1,000 and 20,000 iterations of a loop whose director calls a
   DSL-defined model, latest-only beside accumulating: latest-only must not grow.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interpreter import Interpreter
from interpreter.tasks.compose.loop import LoopIteration, LoopResult
from interpreter.tasks.records import EvaluationResult, TaskResult

TARGET = 20.0


def dsl_loop(interp: Interpreter, n: int, latest_only: bool) -> Callable[[], Any]:
    context = "(context (accumulate #f))" if latest_only else ""
    source = f'(director-evaluator-loop (max-iterations {n}) {context} (director "draft") (evaluator #f))'
    from interpreter.reader import read_with_spans

    datum, span = read_with_spans(source, "bench")[0]
    run = interp.analyzer.analyze(datum, None, span).compile(False)
    env = interp.global_env

    def go() -> Any:
        interp.runtime.begin()
        return run(env)

    return go


def python_records_loop(n: int) -> LoopResult:
    """The same loop in plain Python, building the same records."""

    def director(iteration: int, feedback: str) -> str:
        return "draft"

    def evaluator(solution: str) -> bool:
        return False

    history: list[LoopIteration] = []
    feedback, output, evaluation = "", None, None
    for k in range(n):
        output = TaskResult(content=director(k, feedback))
        ok = evaluator(output.content)
        evaluation = EvaluationResult(content="", notes={"success": ok, "feedback": ""})
        history.append(LoopIteration(iteration=k, output=output, evaluation=evaluation))
        if ok:
            break
        feedback = evaluation.notes.feedback
    return LoopResult(
        final_output=output,
        final_evaluation=evaluation,
        success=False,
        iterations_completed=n,
        iteration_history=history,
        status="MAX_ITERATIONS",
    )


def python_dict_loop(n: int) -> dict[str, Any]:
    """The same loop in plain Python with dicts."""

    def director(iteration: int, feedback: str) -> str:
        return "draft"

    def evaluator(solution: str) -> dict[str, Any]:
        return {"success": False, "feedback": ""}

    history = []
    feedback, output, evaluation = "", None, None
    for k in range(n):
        output = {"content": director(k, feedback), "status": "COMPLETE", "notes": {}}
        evaluation = evaluator(output["content"])
        history.append({"iteration": k, "output": output, "evaluation": evaluation})
        if evaluation["success"]:
            break
        feedback = evaluation["feedback"]
    return {"final_output": output, "final_evaluation": evaluation, "iteration_history": history}


def best_of(fn: Callable[[], Any], repeats: int = 5) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def overhead(n: int) -> None:
    interp = Interpreter()
    rows = [
        ("DSL loop, accumulating (default)", best_of(dsl_loop(interp, n, False))),
        ("DSL loop, latest-only", best_of(dsl_loop(interp, n, True))),
    ]
    records = best_of(lambda: python_records_loop(n))
    dicts = best_of(lambda: python_dict_loop(n))
    print(f"loop overhead per iteration ({n} iterations, best of 5)")
    print(f"  {'plain Python, same records':<36} {records / n * 1e6:8.2f} us")
    print(f"  {'plain Python, dicts':<36} {dicts / n * 1e6:8.2f} us")
    for name, seconds in rows:
        per = seconds / n * 1e6
        vs_records, vs_dicts = seconds / records, seconds / dicts
        verdict = "ok" if vs_records <= TARGET else "OVER TARGET"
        print(f"  {name:<36} {per:8.2f} us   {vs_records:5.1f}x records ({verdict})   {vs_dicts:6.1f}x dicts")


def memory(iterations: int = 1000, size: int = 100_000) -> None:
    interp = Interpreter()
    interp.define_primitive("big-draft", lambda: "x" * size)
    source = (
        f"(director-evaluator-loop (max-iterations {iterations}) (context (accumulate #f))"
        " (director (big-draft)) (evaluator #f))"
    )
    tracemalloc.start()
    start = time.perf_counter()
    result = interp.eval(source)
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert result.iterations_completed == iterations
    total = iterations * size
    print(
        f"latest-only loop, {iterations} iterations x {size // 1000} KB director output "
        f"({total / 1e6:.0f} MB produced): peak {peak / 1e6:.2f} MB traced, {seconds:.2f} s"
    )


def growth(counts: tuple[int, ...] = (1000, 20_000)) -> None:
    """Memory held after latest-only and accumulating loops whose director calls a DSL-defined
    model, at each count of iterations (tracemalloc, the result still alive)."""
    print("memory held after a loop whose director calls a DSL-defined model (tracemalloc)")
    for context, label in (("(context (accumulate #f))", "latest-only"), ("", "accumulating")):
        for n in counts:
            interp = Interpreter()
            interp.eval(
                """(define-model "m" (lambda (prompt system) (string-append "draft: " prompt)))
                   (define-task (draft topic feedback) (model "m") (prompt "{{topic}} {{feedback}}"))"""
            )
            source = (
                f"(director-evaluator-loop (max-iterations {n}) {context}"
                ' (director (draft "notes" evaluation-feedback)) (evaluator (make-evaluation #f "more")))'
            )
            tracemalloc.start()
            result = interp.eval(source)
            held, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            assert result.iterations_completed == n
            print(
                f"  {label:<13} {n:>6} iterations: held {held / 1e6:7.2f} MB ({held / n:7.1f} B/iteration), "
                f"peak {peak / 1e6:7.2f} MB, {len(result.iteration_history)} history entries"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--growth", type=int, nargs="*", default=[1000, 20_000], help="iteration counts to measure")
    opts = parser.parse_args()
    overhead(opts.iterations)
    memory()
    growth(tuple(opts.growth))


if __name__ == "__main__":
    main()
