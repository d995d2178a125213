"""The library suite: programs that lean on the library, and ten r7rs-benchmarks programs,
each beside the same algorithm in plain Python, in one run.

    .venv/bin/python bench/library.py            # best of 3 each
    .venv/bin/python bench/library.py --quick    # one repetition each
    .venv/bin/python bench/library.py -k mbrot   # only titles containing "mbrot"
    .venv/bin/python bench/library.py --python /path/to/python3.12 --python /path/to/python3.13
                                                 # the suite under each Python too, side by side

Prints Markdown tables (seconds, ratio = taskscheme / Python) with the geometric mean of
the ratios: first the idiomatic programs, embedded with a default ``Interpreter()`` in a
process with CPython's collector settings (as a host runs them), then the library and
r7rs-benchmarks programs with the command line's collector settings; then the time to the
first REPL prompt and the cold start of ``python repl.py -e '(display 1)'`` beside
``python -c pass``. The programs are in ``bench/programs.py``. Wall-clock figures on a
shared machine move by 10-30% between runs: compare ratios from one run, and take the best
of several.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from programs import ELEMENTS, IDIOMATIC, LIBRARY, R7RS, Case  # noqa: E402
from timing import best  # noqa: E402

from interpreter import Interpreter  # noqa: E402
from interpreter.collector import tune_collector  # noqa: E402

sys.setrecursionlimit(max(sys.getrecursionlimit(), 100_000))  # for the plain-Python side only


def run_cases(title: str, cases: list[Case], repeat: int) -> list[float]:
    """Time every case on both sides; print one table; return the ratios."""
    interpreters: dict[str, Interpreter] = {}
    ratios = []
    print(f"\n### {title}\n")
    print("| program | taskscheme (s) | Python (s) | ratio |")
    print("|---|---:|---:|---:|")
    for case in cases:
        interp = interpreters.get(case.definitions)
        if interp is None:
            interp = interpreters[case.definitions] = Interpreter()
            interp.eval(case.definitions)
        expected = case.python()
        got = interp.eval(case.expression)
        assert got == expected, f"{case.title}: taskscheme {got!r} != Python {expected!r}"
        ours = best(lambda case=case, interp=interp: interp.eval(case.expression), repeat)
        theirs = best(case.python, repeat)
        ratios.append(ours / theirs)
        print(f"| {case.title} | {ours:.3f} | {theirs:.4f} | {ours / theirs:.1f}× |", flush=True)
    print(f"| **geometric mean** | | | **{geometric_mean(ratios):.1f}×** |")
    return ratios


def geometric_mean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def first_prompt(repeat: int) -> float | None:
    """Best time from starting ``python repl.py`` in a pseudo-terminal to its first prompt."""
    try:
        import pexpect
    except ImportError:
        return None
    times = []
    with tempfile.TemporaryDirectory() as home:
        env = {
            **os.environ,
            "TERM": "xterm",
            "TASKSCHEME_HISTORY": str(Path(home) / "history"),
            "PROMPT_TOOLKIT_NO_CPR": "1",
        }
        for _ in range(repeat):
            start = time.perf_counter()
            child = pexpect.spawn(sys.executable, [str(ROOT / "repl.py")], env=env, encoding="utf-8", timeout=20)
            child.expect("> ")
            times.append(time.perf_counter() - start)
            child.sendcontrol("d")
            child.expect(pexpect.EOF)
            child.close()
    return min(times)


def process_time(cmd: list[str], repeat: int) -> float:
    """Best wall time of a fresh process running ``cmd``."""
    return best(lambda: subprocess.run(cmd, check=True, capture_output=True), repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one repetition each")
    parser.add_argument("-k", default="", help="only programs whose title contains this text")
    parser.add_argument("--python", action="append", help="run the suite under this Python too (repeatable)")
    parser.add_argument("--suite-only", action="store_true", help="no start-up figures (used by --python)")
    opts = parser.parse_args()
    if opts.python:  # each Python in a child process, one table with a column per Python
        from pythons import compare

        def chosen(cases: list[Case]) -> list[str]:
            return [c.title for c in cases if opts.k.lower() in c.title.lower()]

        sections = [
            ("Idiomatic programs, embedded with a default Interpreter()", chosen(IDIOMATIC)),
            ("Library and r7rs-benchmarks programs", chosen(LIBRARY + R7RS)),
        ]
        compare([sys.executable, *opts.python], ["--quick"] * opts.quick, sections)
        return
    repeat = 1 if opts.quick else 3
    # First as a host runs them: a default Interpreter(), CPython's collector settings.
    idioms = [c for c in IDIOMATIC if opts.k.lower() in c.title.lower()]
    if idioms:
        run_cases("Idiomatic programs, embedded with a default Interpreter()", idioms, repeat)
    elements = [c for c in ELEMENTS if opts.k.lower() in c.title.lower()]
    if elements:
        run_cases("Single list operations beside Python's C loops (embedded, not in any mean)", elements, repeat)
    tune_collector()  # as the command line does after start-up
    ratios = []
    for title, cases in (("Library programs", LIBRARY), ("r7rs-benchmarks programs", R7RS)):
        chosen = [c for c in cases if opts.k.lower() in c.title.lower()]
        if chosen:
            ratios += run_cases(title, chosen, repeat)
    print(f"\ngeometric mean of the {len(ratios)} library and r7rs ratios: **{geometric_mean(ratios):.1f}×**")
    if opts.k or opts.suite_only:
        return
    starts = max(repeat, 5)
    python = process_time([sys.executable, "-c", "pass"], starts)
    cold = process_time([sys.executable, str(ROOT / "repl.py"), "-e", "(display 1)"], starts)
    prompt = first_prompt(starts)
    print(f"\n`python -c pass`: {python:.3f} s; cold start `python repl.py -e '(display 1)'`: {cold:.3f} s", end="")
    print("" if prompt is None else f"; first REPL prompt: {prompt:.3f} s", f"(best of {starts})")


if __name__ == "__main__":
    main()
