"""Start-up: the time to the REPL's first prompt, beside ``python -c pass``, in one run.

    python bench/startup.py [--repeat N]

Prints the best of N (default 5) for: ``python -c pass``; the first prompt of
``python repl.py`` in a pseudo-terminal (pexpect); and ``python repl.py -e '(display 1)'``.
The target is a first prompt within 0.4 s. With ``PYTHONDONTWRITEBYTECODE=1`` (as on the CI
machines) Python compiles every module at each start; ``--cached`` runs with the bytecode
cache a normal install has.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from library import ROOT, first_prompt, process_time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cached", action="store_true", help="let Python keep its bytecode cache")
    opts = parser.parse_args()
    if opts.cached:
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        process_time([sys.executable, "-c", "import interpreter.repl.prompt"], 1)  # fill the cache
    python = process_time([sys.executable, "-c", "pass"], opts.repeat)
    prompt = first_prompt(opts.repeat)
    run = process_time([sys.executable, str(ROOT / "repl.py"), "-e", "(display 1)"], opts.repeat)
    print(f"| `python -c pass` | {python:.3f} s |")
    print("| first REPL prompt | " + ("pexpect missing" if prompt is None else f"{prompt:.3f} s") + " |")
    print(f"| `repl.py -e '(display 1)'` | {run:.3f} s |")


if __name__ == "__main__":
    main()
