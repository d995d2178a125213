"""Batch runs: interp.batch and `taskscheme batch` on threads, processes and a Dask LocalCluster."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import run_cli, terminal_env

from interpreter import Interpreter

PROGRAM = """
(define-model (echo prompt) (string-upcase prompt))
(define-task (shout word) (model "echo") (prompt "say {{word}}"))
(define (double x) (if (= x 3) (error "no threes" x) (* 2 x)))
(define (spin x) (let loop () (loop)))
(define (slow word) (run-script "sleep 0.3") (string-append word "!"))
"""


def write_lines(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def read_records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``taskscheme ARGS`` in this process (a killed batch below runs in a process of its own)."""
    return run_cli(args, cwd=cwd)


# -- interp.batch on threads ---------------------------------------------------------------
def test_batch_yields_a_record_per_item():
    interp = Interpreter()
    interp.eval(PROGRAM)
    records = sorted(interp.batch("double", [{"x": i} for i in range(6)]), key=lambda r: r["index"])
    assert [r["index"] for r in records] == list(range(6))
    assert [r["result"] for r in records] == [0, 2, 4, None, 8, 10]
    assert [r["status"] for r in records] == ["COMPLETE"] * 3 + ["FAILED"] + ["COMPLETE"] * 2
    assert records[3]["error"]["message"] == "no threes 3"
    assert records[3]["input"] == {"x": 3}
    assert all(r["seconds"] >= 0 for r in records)
    assert set(records[0]) == {"index", "input", "status", "result", "error", "usage", "seconds"}


def test_batch_of_a_task_counts_each_items_usage_and_holds_the_cap():
    lock, now, most = threading.Lock(), [0], [0]

    def model(prompt: str, system: str | None = None) -> str:
        with lock:
            now[0] += 1
            most[0] = max(most[0], now[0])
        time.sleep(0.02)
        with lock:
            now[0] -= 1
        return prompt * 2

    interp = Interpreter(model="m")
    interp.models.register("m", model)
    interp.eval('(define-task (ask word) (prompt "{{word}}"))')
    words = ["a" * 4 * (i + 1) for i in range(12)]
    records = list(interp.batch("ask", [{"word": w} for w in words], workers=3))
    assert most[0] == 3
    for record in records:
        i = record["index"]
        assert record["result"]["content"] == words[i] * 2
        assert record["usage"] == {
            "calls": 1,
            "input_tokens": i + 1,
            "output_tokens": 2 * (i + 1),
            "cache_hits": 0,
            "retries": 0,
        }
    assert interp.usage.total.calls == 12


def test_each_item_has_its_own_time_limit_and_bad_inputs_fail_alone():
    interp = Interpreter(timeout=0.3)
    interp.eval(PROGRAM)
    records = sorted(interp.batch("spin", [{"x": 1}, {"x": 2}]), key=lambda r: r["index"])
    assert [r["status"] for r in records] == ["FAILED", "FAILED"]
    assert "time limit exceeded" in records[0]["error"]["message"]
    records = sorted(interp.batch("double", [{"x": 1}, ["not", "an", "object"], {"y": 2}]), key=lambda r: r["index"])
    assert [r["status"] for r in records] == ["COMPLETE", "FAILED", "FAILED"]
    assert "JSON object" in records[1]["error"]["message"]
    assert "unknown y" in records[2]["error"]["message"]
    assert interp.eval("(double 21)") == 42


def test_skip_leaves_out_indices_already_done():
    interp = Interpreter()
    interp.eval(PROGRAM)
    records = list(interp.batch("double", [{"x": i} for i in range(5)], skip={0, 1, 4}))
    assert sorted(r["index"] for r in records) == [2, 3]


# -- processes and a Dask cluster ---------------------------------------------------------------
@pytest.mark.slow
def test_batch_in_worker_processes():
    interp = Interpreter()
    interp.eval(PROGRAM)
    records = sorted(
        interp.batch("shout", [{"word": w} for w in "abc"], workers=2, processes=True), key=lambda r: r["index"]
    )
    assert [r["result"]["content"] for r in records] == ["SAY A", "SAY B", "SAY C"]
    assert [r["usage"]["calls"] for r in records] == [1, 1, 1]


@pytest.mark.slow
def test_batch_on_a_dask_local_cluster_of_two_workers():
    pytest.importorskip("distributed")
    interp = Interpreter()
    interp.eval(PROGRAM)
    records = sorted(interp.batch("double", [{"x": i} for i in range(5)], cluster="local:2"), key=lambda r: r["index"])
    assert [r["status"] for r in records] == ["COMPLETE", "COMPLETE", "COMPLETE", "FAILED", "COMPLETE"]
    assert [r["result"] for r in records] == [0, 2, 4, None, 8]


# -- the command line ----------------------------------------------------------------------------
def test_cli_batch_writes_records_and_a_summary(tmp_path: Path):
    (tmp_path / "prog.scm").write_text(PROGRAM, encoding="utf-8")
    write_lines(tmp_path / "in.jsonl", [{"x": i} for i in range(4)])
    done = cli("batch", "prog.scm", "--task", "double", "--inputs", "in.jsonl", "--output", "out.jsonl", cwd=tmp_path)
    assert done.returncode == 1  # one item failed
    assert "batch: 4 items in" in done.stderr and "(3 complete, 1 failed)" in done.stderr
    records = read_records(tmp_path / "out.jsonl")
    assert sorted(r["index"] for r in records) == [0, 1, 2, 3]
    again = cli(
        "batch",
        "prog.scm",
        "--task",
        "double",
        "--inputs",
        "in.jsonl",
        "--output",
        "out.jsonl",
        "--quiet",
        cwd=tmp_path,
    )
    assert again.returncode == 1 and again.stderr == ""  # item 3 is still FAILED
    assert len(read_records(tmp_path / "out.jsonl")) == 4  # nothing run twice


@pytest.mark.slow
def test_cli_batch_resumes_after_being_killed_half_way(tmp_path: Path):
    (tmp_path / "prog.scm").write_text(PROGRAM, encoding="utf-8")
    write_lines(tmp_path / "in.jsonl", [{"word": f"w{i}"} for i in range(10)])
    out = tmp_path / "out.jsonl"
    args = [sys.executable, "-m", "interpreter", "batch", "prog.scm", "--task", "slow"]
    args += ["--inputs", "in.jsonl", "--output", "out.jsonl", "--workers", "2", "--quiet"]
    proc = subprocess.Popen(args, cwd=tmp_path, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 3):
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    first = read_records(out)  # every line whole
    assert 3 <= len(first) < 10
    with out.open("a", encoding="utf-8") as partial:  # as if killed in the middle of a write
        partial.write('{"index": 9, "inp')
    done = cli("batch", "prog.scm", "--task", "slow", "--inputs", "in.jsonl", "--output", "out.jsonl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    records = read_records(out)
    assert sorted(r["index"] for r in records) == list(range(10))
    assert records[: len(first)] == first
    assert all(r["result"] == f"w{r['index']}!" for r in records)
    assert f"{len(first)} already done" in done.stderr


def test_cli_batch_reports_bad_arguments(tmp_path: Path):
    (tmp_path / "prog.scm").write_text(PROGRAM, encoding="utf-8")
    (tmp_path / "in.jsonl").write_text("{not json\n", encoding="utf-8")
    done = cli("batch", "prog.scm", "--task", "double", "--inputs", "in.jsonl", "--output", "o.jsonl", cwd=tmp_path)
    assert done.returncode == 2 and "in.jsonl:1: not JSON" in done.stderr
    write_lines(tmp_path / "in.jsonl", [{"x": 1}])
    done = cli("batch", "prog.scm", "--task", "nothing", "--inputs", "in.jsonl", "--output", "o.jsonl", cwd=tmp_path)
    assert done.returncode == 1
    assert "no task named nothing" in read_records(tmp_path / "o.jsonl")[0]["error"]["message"]


def test_cli_batch_draws_a_live_progress_line_on_a_terminal(tmp_path: Path):
    pexpect = pytest.importorskip("pexpect")
    (tmp_path / "prog.scm").write_text(PROGRAM, encoding="utf-8")
    # 12 items of 0.3 s on 2 workers: 1.8 s of frames to catch, even on a loaded machine
    write_lines(tmp_path / "in.jsonl", [{"word": str(i)} for i in range(12)])
    args = ["-m", "interpreter", "batch", "prog.scm", "--task", "slow", "--inputs", "in.jsonl"]
    args += ["--output", "out.jsonl", "--workers", "2"]
    # a terminal as a user has one: CI=true (as .ci/run sets) or NO_COLOR would turn the live display off
    child = pexpect.spawn(sys.executable, args, cwd=str(tmp_path), env=terminal_env(), encoding="utf-8", timeout=60)
    child.expect(r"batch ━*\S* *(\d+/12 done, 0 failed, [\d.]+ items/s, ETA \S+ s, 0 tokens)")
    live = child.match.group(1)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert not live.startswith("12/12")  # drawn while items were still running
    assert "batch: 12 items in" in child.before and "(12 complete, 0 failed)" in child.before
