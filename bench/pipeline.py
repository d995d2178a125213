"""What a ``sequential`` step costs, by the number of steps, beside the same pipeline in plain Python.

    .venv/bin/python bench/pipeline.py               # 10, 100 and 400 steps, best of 5 (thread CPU time)
    .venv/bin/python bench/pipeline.py --steps 10 1000

Each step returns a short string at once, so all the time is the form's own: the step's
frame, ``previous-outputs``, the history entry (seed 002's TaskOutput: output, notes,
times, usage) and the step's events. The per-step cost must not grow with the number of
steps. The plain-Python pipeline keeps the same history as dicts.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from interpreter import Interpreter  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from timing import best  # noqa: E402


def source(steps: int) -> str:
    """A pipeline of ``steps`` steps, each returning a string; the last one reads previous-outputs."""
    body = " ".join(f'(step s{k} "out {k}")' for k in range(steps - 1))
    return f"(sequential {body} (step last (length previous-outputs)))"


def python_pipeline(steps: int) -> dict[str, Any]:
    """The same pipeline in plain Python: a history of dicts, the previous outputs as a list."""
    history: list[dict[str, Any]] = []
    outputs: list[Any] = []
    value: Any = None
    for k in range(steps):
        started = time.time()
        value = f"out {k}" if k < steps - 1 else len(outputs)
        history.append(
            {"step": f"s{k}", "output": value, "notes": value, "start_time": started, "timestamp": time.time()}
        )
        outputs.append(value)
    return {"content": str(value), "status": "COMPLETE", "notes": {"steps": history}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, nargs="*", default=[10, 100, 400])
    parser.add_argument("--repeat", type=int, default=5)
    opts = parser.parse_args()
    interp = Interpreter()
    print("| steps | per step, sequential (µs) | per step, plain Python (µs) | ratio |")
    print("|---:|---:|---:|---:|")
    for n in opts.steps:
        interp.eval(f"(define (pipeline) {source(n)})")
        result = interp.eval("(pipeline)")
        assert result.content == str(n - 1), result
        runs = max(1, 2000 // n)
        loop = f"(do ((i 0 (+ i 1))) ((= i {runs})) (pipeline))"
        dsl = best(lambda: interp.eval(loop), opts.repeat, time.thread_time) / (runs * n)
        plain = best(lambda: [python_pipeline(n) for _ in range(runs)], opts.repeat, time.thread_time) / (runs * n)
        print(f"| {n} | {dsl * 1e6:.1f} | {plain * 1e6:.2f} | {dsl / plain:.1f}× |")


if __name__ == "__main__":
    main()
