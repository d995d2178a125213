"""Start-up: the time to the REPL's first prompt, beside ``python -c pass``, in one run.

    python bench/startup.py [--repeat N]

Prints the best of N (default 5) for: ``python -c pass``; the dependency floor
``python -c 'import pydantic, lark'``; the first prompt of ``python repl.py`` in a
pseudo-terminal (pexpect); and ``python repl.py -e '(display 1)'``, with its ratio to the
floor. Then the import profile of that ``-e`` start (``python -X importtime``): the ten
modules that cost most by their own time, and the share of the project's own modules.
The targets (issue 35): ``-e`` within 2x the floor and 0.25 s on an idle machine, a first
prompt within 0.4 s, both with bytecode cached. With ``PYTHONDONTWRITEBYTECODE=1`` (as on
the CI machines) Python compiles every module at each start; ``--cached`` runs with the
bytecode cache a normal install has.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
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
    command = [sys.executable, str(ROOT / "repl.py"), "-e", "(display 1)"]
    python = process_time([sys.executable, "-c", "pass"], opts.repeat)
    floor = process_time([sys.executable, "-c", "import pydantic, lark"], opts.repeat)
    prompt = first_prompt(opts.repeat)
    run = process_time(command, opts.repeat)
    print(f"| `python -c pass` | {python:.3f} s |")
    print(f"| `python -c 'import pydantic, lark'` (the floor) | {floor:.3f} s |")
    print("| first REPL prompt | " + ("pexpect missing" if prompt is None else f"{prompt:.3f} s") + " |")
    print(f"| `repl.py -e '(display 1)'` | {run:.3f} s ({run / floor:.2f}x the floor) |")
    print_import_profile(command)


def print_import_profile(command: list[str], top: int = 10) -> None:
    """The ``top`` modules of ``python -X importtime`` by their own time, and the project's share."""
    done = subprocess.run([command[0], "-X", "importtime", *command[1:]], capture_output=True, text=True)
    rows = []
    for line in done.stderr.splitlines():
        found = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if found:
            rows.append((int(found[1]), int(found[2]), found[4]))
    total = sum(own for own, _, _ in rows)
    ours = sum(own for own, _, name in rows if name.split(".")[0] == "interpreter")
    print(f"\nImport profile of `repl.py -e` (`-X importtime`, {len(rows)} modules, {total / 1000:.1f} ms in all;")
    share = 100 * ours / max(total, 1)
    print(f"the project's own modules {ours / 1000:.1f} ms, {share:.0f}%): top {top} by own time\n")
    names = {name for _, _, name in rows}
    lazy = ["pydantic.main", "interpreter.tasks.records", "interpreter.tasks.library", "llm", "prompt_toolkit"]
    print("loaded at this start: " + ", ".join(f"{n} {'yes' if n in names else 'no'}" for n in lazy) + "\n")
    print("| module | own (ms) | with its imports (ms) |")
    print("|---|---:|---:|")
    for own, cumulative, name in sorted(rows, reverse=True)[:top]:
        print(f"| {name} | {own / 1000:.1f} | {cumulative / 1000:.1f} |")


if __name__ == "__main__":
    main()
