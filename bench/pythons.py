"""``bench/library.py --python PATH …``: the same suite under other Pythons, one table.

Each Python runs ``bench/library.py --suite-only`` in a child process (it needs only the
runtime dependencies: ``python -m venv V && V/bin/pip install lark pydantic prompt_toolkit
pygments llm jsonschema platformdirs``), which times taskscheme and plain Python *under that
Python*; the rows of its tables are read back and printed side by side: each Python's
ratio (taskscheme / the same algorithm in plain Python on that Python) and taskscheme's seconds.
"""

from __future__ import annotations

import math
import os
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run_suite(python: str, extra: list[str]) -> tuple[str, dict[str, tuple[float, float]]]:
    """Python's version, and for each program title: (taskscheme seconds, ratio)."""
    version = subprocess.run(
        [python, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True, text=True, check=True
    ).stdout.strip()
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    done = subprocess.run(
        [python, str(HERE / "library.py"), "--suite-only", *extra], capture_output=True, text=True, env=env
    )
    if done.returncode != 0:
        raise SystemExit(f"{python} ({version}) failed:\n{done.stderr[-3000:]}")
    rows = {}
    for line in done.stdout.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[3].endswith("×") and not cells[0].startswith("**"):
            rows[cells[0]] = (float(cells[1]), float(cells[3].rstrip("×")))
    return version, rows


def compare(pythons: list[str], extra: list[str], sections: list[tuple[str, list[str]]]) -> None:
    """Print a table per section (its heading, its program titles): a program per row, for each
    Python its ratio and taskscheme's seconds, and each Python's geometric mean of the section.

    Each program runs under every Python in turn before the next program (a child per program
    and Python), so the columns of a row are measured minutes apart at most, not a whole suite
    apart, on a machine whose load moves."""
    if not any(titles for _, titles in sections):
        raise SystemExit("no program's title contains the -k text")
    for heading, titles in sections:
        if not titles:
            continue
        results: list[tuple[str, dict[str, tuple[float, float]]]] = [("", {}) for _ in pythons]
        for title in titles:
            for index, python in enumerate(pythons):
                version, rows = run_suite(python, [*extra, "-k", title])
                results[index] = (version, {**results[index][1], **{title: rows[title]}})
        print(f"\n### {heading}\n")
        header = " | ".join(f"{version} ratio | {version} (s)" for version, _ in results)
        print(f"| program | {header} |")
        print("|---|" + "---:|---:|" * len(results))
        for title in titles:
            cells = []
            for _, rows in results:
                seconds, ratio = rows.get(title, (math.nan, math.nan))
                cells.append(f"{ratio:.1f}× | {seconds:.3f}")
            print(f"| {title} | {' | '.join(cells)} |")
        means = []
        for _, rows in results:
            ratios = [ratio for _, ratio in rows.values()]
            means.append(f"**{math.exp(sum(map(math.log, ratios)) / len(ratios)):.1f}×** |" if ratios else "|")
        print("| **geometric mean** | " + " | ".join(means) + " |")
