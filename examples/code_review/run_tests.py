#!/usr/bin/env python3
"""The evaluator of review.scm: runs the real unit tests (test_slugify.py, with `python3 -m
unittest`) against the code read from standard input; prints a JSON verdict for the loop.

The code is written to a fresh temporary folder as slugify.py, beside a copy of the tests, so a
draft never touches the checkout. Exit status 0 when every test passes, 1 otherwise.
"""

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def verdict(code: str) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "slugify.py").write_text(code, encoding="utf-8")
        shutil.copy(HERE / "test_slugify.py", folder)
        run = subprocess.run(
            [sys.executable, "-m", "unittest", "-q", "test_slugify"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=30,
        )
    report = run.stderr.strip().splitlines()
    failures = [line.split(" ", 1)[1] for line in report if line.startswith(("FAIL:", "ERROR:"))]
    return {
        "success": run.returncode == 0,
        "feedback": "all tests pass" if run.returncode == 0 else "failing: " + "; ".join(failures),
        "details": {"metrics": {"failures": len(failures)}, "summary": report[-1] if report else ""},
    }


if __name__ == "__main__":
    result = verdict(sys.stdin.read())
    print(json.dumps(result))
    sys.exit(0 if result["success"] else 1)
