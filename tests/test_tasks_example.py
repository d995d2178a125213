"""The offline example task program runs and prints what it promises."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from interpreter import Interpreter

pytestmark = pytest.mark.stdlib  # CI also runs these against the built wheel

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "summarize.scm"


def test_summarize_example_runs_offline():
    out = io.StringIO()
    interp = Interpreter(stdout=out)
    interp.eval_file(EXAMPLE)
    assert out.getvalue().splitlines() == [
        "Taskscheme runs task programs.",
        "#t",
        "short enough",
        "(caught RESOURCE_EXHAUSTION 2)",
        "3 model calls",
    ]
    assert interp.usage.by_task["summarize"].calls == 2
    assert interp.usage.by_task["review"].calls == 1
