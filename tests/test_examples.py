"""Every example for the real jobs runs offline through the command line and prints what it
promises (examples/embed_tool.py, the embedding tool, is tested in tests/test_embedding.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_cli

pytestmark = pytest.mark.stdlib  # CI also runs these against the built wheel

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def taskscheme(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``taskscheme ARGS`` in this process, from an empty folder, offline, with its own cache and llm
    folders (the interpreter this test imports: the checkout, or the installed wheel under --installed)."""
    env = {**os.environ, "LLM_USER_PATH": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    return run_cli(args, env=env, cwd=tmp_path)


def taskscheme_process(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """:func:`taskscheme` as ``python -m interpreter`` in a new process."""
    env = {**os.environ, "LLM_USER_PATH": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    return subprocess.run(
        [sys.executable, "-m", "interpreter", *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240
    )


def test_the_code_review_loop_runs_the_real_tests_on_each_draft(tmp_path: Path) -> None:
    run = taskscheme_process(tmp_path, "--trace", "review.jsonl", str(EXAMPLES / "code_review" / "review.scm"))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("draft 0: failing: test_collapses_spaces") and "test_drops_punctuation" in lines[0]
    assert lines[1:] == ["draft 1: all tests pass", "COMPLETE after 2 drafts"]
    events = [json.loads(line) for line in (tmp_path / "review.jsonl").read_text().splitlines()]
    assert [e["kind"] for e in events].count("script") == 2  # one test run per draft, in the trace


def test_the_spec_pipeline_passes_its_quality_gate_on_the_second_draft(tmp_path: Path) -> None:
    run = taskscheme(tmp_path, str(EXAMPLES / "spec_pipeline.scm"))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "COMPLETE"
    assert lines[1].startswith("spec accepted after 2 drafts; first review: completeness 12/25")
    assert "(total 62%, needs 80%). Suggestions: cover the error cases" in lines[1]
    assert "## Errors" in lines and lines[-1] == "3. mail large exports with 3 retries"


def test_the_batch_evaluation_scores_every_item_with_its_metric(tmp_path: Path) -> None:
    folder = EXAMPLES / "batch_eval"
    args = ["batch", str(folder / "classify.scm"), "--task", "classify", "--inputs", str(folder / "sentiment.jsonl")]
    run = taskscheme(tmp_path, *args, "--output", "results.jsonl", "--metric", "exact-label")
    assert run.returncode == 0, run.stderr
    assert "metric: mean 0.833, pass rate 83.3% (5/6), count 6" in run.stderr + run.stdout
    records = sorted((json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()),
                     key=lambda r: r["index"])
    assert [r["metric"] for r in records] == [1.0, 1.0, 0.0, 1.0, 1.0, 1.0]
    assert records[2]["input"]["review"] == "Great sound, terrible app." and records[2]["result"]["content"] == "positive"


def test_the_summariser_retries_in_parallel_and_caches(tmp_path: Path) -> None:
    program = str(EXAMPLES / "summariser" / "summarise.scm")
    first = taskscheme(tmp_path, "--cache", "summaries.sqlite", program)
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines() == [
        "release.txt: The new release adds CSV export",
        "incident.txt: The outage on May 2 lasted 40 minutes",
        "hiring.txt: Hiring: two backend engineers join in June",
        "office.txt: The office moves to Pier 4 in September",
        "4 model calls, 0 cached, 8 attempts",
    ]
    second = taskscheme(tmp_path, "--cache", "summaries.sqlite", program)
    assert second.returncode == 0, second.stderr
    assert second.stdout.splitlines()[0] == "release.txt: The new release adds CSV export (cached)"
    assert second.stdout.splitlines()[-1] == "0 model calls, 4 cached, 0 attempts"


def test_questions_are_answered_from_the_indexed_notes(tmp_path: Path) -> None:
    run = taskscheme(tmp_path, str(EXAMPLES / "notes_qa" / "ask.scm"))
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "3 notes indexed",
        "When do deploys run?",
        "  Deploys run every Tuesday at 10:00 UTC. A deploy needs two approvals.",
        "  best match: deploys.md#1",
        "How fast must on-call answer pages?",
        "  The on-call engineer answers pages within 15 minutes. Handover is on Monday.",
        "  best match: on-call.md#1",
    ]


def test_the_readme_links_every_example() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for path in ["code_review/review.scm", "spec_pipeline.scm", "batch_eval/classify.scm",
                 "summariser/summarise.scm", "notes_qa/ask.scm", "embed_tool.py"]:
        assert f"](examples/{path})" in readme, path
