"""What the model-call machinery costs per call, beside calling the model function in plain Python.

    .venv/bin/python bench/models.py            # 2000 calls per row, best of 3
    .venv/bin/python bench/models.py --calls 500

First a procedure task called in a loop beside a plain procedure call (target: <= 3 µs).
Then rows: a Python model called directly; the same model through an atomic task (limits,
usage, the one gateway); traced to a JSON-lines file; answered from the SQLite response
cache; and a 20 ms model with 1 transient failure per call and a 1 ms backoff (the retry
path, printed apart). Wall-clock figures on a shared machine move by 10-30% between runs: compare the
per-call overheads within one run.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter import Interpreter, TransientModelError  # noqa: E402
from interpreter.tasks.observe.tracing import JsonlWriter  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from timing import best  # noqa: E402


def model(prompt: str, system: str | None) -> str:
    return prompt.upper()


def task_interp(**kwargs: object) -> Interpreter:
    interp = Interpreter(**kwargs)  # type: ignore[arg-type]
    interp.models.register("m", model)
    interp.eval('(define-task (ask q) (model "m") (prompt "say {{q}}"))')
    return interp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()
    n = opts.calls
    loop = f'(do ((i 0 (+ i 1))) ((= i {n})) (ask "x"))'
    rows: list[tuple[str, float]] = []

    rows.append(("Python: model(prompt, system)", best(lambda: [model("say x", None) for _ in range(n)], opts.repeat)))
    plain = task_interp()
    rows.append(("task call, untraced", best(lambda: plain.eval(loop), opts.repeat)))

    traced = task_interp()
    with open(os.devnull, "w", encoding="utf-8") as sink:
        traced.on_event(JsonlWriter(sink))
        rows.append(("task call, --trace to a file", best(lambda: traced.eval(loop), opts.repeat)))

    with tempfile.TemporaryDirectory() as folder:
        cached = task_interp(cache=Path(folder) / "cache.sqlite")
        cached.eval('(ask "x")')  # the first call fills the cache
        rows.append(("task call, cache hit (SQLite)", best(lambda: cached.eval(loop), opts.repeat)))

    base = rows[0][1]
    procedure_calls(n * 10, max(opts.repeat, 7))
    model_call_cpu(n, max(opts.repeat, 7))
    print(f"\n{n} calls per row\n")
    print("| what | total (s) | per call (µs) | over plain Python (µs/call) |")
    print("|---|---:|---:|---:|")
    for title, seconds in rows:
        per = seconds / n * 1e6
        print(f"| {title} | {seconds:.3f} | {per:.1f} | {per - base / n * 1e6:.1f} |")
    retry_path(opts.repeat)


def procedure_calls(n: int, repeat: int) -> None:
    """A procedure task ``(define-task (inc x) (+ x 1))`` called in a loop, beside a plain
    procedure of the same body and a Python function; the empty loop's time is subtracted."""
    interp = Interpreter()
    interp.eval(
        """(define-task (inc x) (+ x 1))
           (define-task (inc-alone x) (context (inherit none)) (+ x 1))
           (define (plain-inc x) (+ x 1))"""
    )

    def per_call(call: str) -> float:
        interp.eval(f"(define (go n) (do ((k 0 (+ k 1))) ((= k n)) {call}))")
        return best(lambda: interp.eval(f"(go {n})"), repeat, time.thread_time) / n

    empty = per_call("k")
    rows = [
        ("procedure task call (inherit full, the default)", per_call("(inc k)") - empty),
        ("procedure task call, (context (inherit none))", per_call("(inc-alone k)") - empty),
        ("plain procedure call", per_call("(plain-inc k)") - empty),
    ]
    inc = lambda x: x + 1
    python = best(lambda: [inc(k) for k in range(n)], repeat, time.thread_time) / n
    print(f"\nprocedure task calls ({n} calls per row, thread CPU time, the loop's own time subtracted)\n")
    print("| what | per call (µs) | over a plain procedure call |")
    print("|---|---:|---:|")
    plain = rows[-1][1]
    for title, seconds in rows:
        print(f"| {title} | {seconds * 1e6:.2f} | {seconds / plain:.1f}× |")
    print(f"| Python: inc(k) | {python * 1e6:.2f} | {python / plain:.1f}× |")


def model_call_cpu(n: int, repeat: int) -> None:
    """CPU (of the whole process: a call handed to another thread counts too) of a task call
    to an instant Python model and an instant DSL model (target ≤ 30 µs), the loop's own
    time subtracted."""
    interp = task_interp()
    interp.eval('(define-model (dm prompt system) prompt) (define-task (ask-dsl q) (model "dm") (prompt "say {{q}}"))')

    def per_call(call: str) -> float:
        interp.eval(f"(define (go n) (do ((k 0 (+ k 1))) ((= k n)) {call}))")
        return best(lambda: interp.eval(f"(go {n})"), repeat, time.process_time) / n

    empty = per_call("k")
    print(f"\nmodel task calls ({n} calls per row, process CPU time, the loop's own time subtracted)\n")
    print("| what | per call (µs) | target |")
    print("|---|---:|---|")
    for title, call in [("instant Python model", '(ask "x")'), ("instant DSL model", '(ask-dsl "x")')]:
        print(f"| task call, {title} | {(per_call(call) - empty) * 1e6:.1f} | ≤ 30 µs |")


def retry_path(repeat: int, calls: int = 10) -> None:
    """A 20 ms model failing once per call, retried after a 1 ms backoff, beside 2 × 20 ms of sleep."""
    failures = {"left": 0}

    def flaky(prompt: str, system: str | None) -> str:
        time.sleep(0.02)
        if failures["left"]:
            failures["left"] -= 1
            raise TransientModelError("rate limited")
        failures["left"] = 1
        return prompt

    interp = Interpreter(retries={"retries": 2, "backoff": 0.001})
    interp.models.register("flaky", flaky)
    interp.eval('(define-task (ask q) (model "flaky") (prompt "{{q}}"))')
    loop = f'(do ((i 0 (+ i 1))) ((= i {calls})) (ask "x"))'
    retried = best(lambda: interp.eval(loop), repeat) / calls
    slept = best(lambda: [time.sleep(0.02) for _ in range(2 * calls)], repeat) / calls
    print(
        f"\nretry path: {retried * 1000:.1f} ms per call (2 attempts, 0.5-1 ms backoff) beside "
        f"{slept * 1000:.1f} ms of plain 2 × 20 ms sleeps"
    )


if __name__ == "__main__":
    main()
