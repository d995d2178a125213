"""Batch as an evaluation tool: faithful JSON results, the main command's run flags, a
metric and a summary, --retry-failed and exit statuses (interp.batch and `taskscheme batch`)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import run_cli

from interpreter import Interpreter

ROOT = Path(__file__).resolve().parent.parent

SHAPES = """
(define-record-type point (make-point x y) point? (x point-x) (y point-y))
(define-model (echo prompt) (string-upcase prompt))
(define-task (shout word) (model "echo") (prompt "say {{word}}"))
(define (table pairs)
  (let ((h (make-hash-table)))
    (for-each (lambda (p) (hash-table-set! h (car p) (cdr p))) pairs)
    h))
(define (circular) (let ((l (list 1 2))) (set-cdr! (cdr l) l) l))
(define (shape kind)
  (cond ((equal? kind "alist") (list (cons 'name "ada") (cons 'tags (list 'x 'y)) (cons 'name "shadowed")))
        ((equal? kind "symbol-table") (table (list (cons 'a 1) (cons 'b (vector 1 2)))))
        ((equal? kind "number-table") (table (list (cons 1 "one") (cons 2 "two"))))
        ((equal? kind "record") (make-point 3 4))
        ((equal? kind "task-result") (shout "hi"))
        ((equal? kind "procedure") car)
        ((equal? kind "fraction") 1/3)
        ((equal? kind "circular") (circular))
        ((equal? kind "nested") (list (make-point 1 (list (cons 'deep #t))) (if #f #f) 2.5))
        (else (list 1 2 3))))
(define (double x) (if (= x 3) (error "no threes" x) (* 2 x)))
(define (maybe x) (if (file-exists? "fixed") x (error "not fixed yet")))
(define (slow x) (run-script "sleep 0.3") x)
"""


def write_lines(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def read_records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def batch_cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``taskscheme batch prog.scm ARGS`` in this process."""
    return run_cli(["batch", "prog.scm", *args], cwd=tmp_path)


def batch_process(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python repl.py batch prog.scm ARGS`` in a new process."""
    return subprocess.run(
        [sys.executable, str(ROOT / "repl.py"), "batch", "prog.scm", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def program(tmp_path: Path) -> Path:
    (tmp_path / "prog.scm").write_text(SHAPES, encoding="utf-8")
    return tmp_path


# -- faithful JSON -------------------------------------------------------------------------------
def test_results_become_json_faithfully_and_never_crash_the_batch() -> None:
    interp = Interpreter()
    interp.eval(SHAPES)
    kinds = ["alist", "symbol-table", "number-table", "record", "task-result", "procedure", "fraction"]
    kinds += ["circular", "nested", "list"]
    records = {r["index"]: r for r in interp.batch("shape", [{"kind": k} for k in kinds])}
    result = {kinds[i]: r["result"] for i, r in records.items()}
    assert all(r["status"] == "COMPLETE" for r in records.values())
    assert result["alist"] == {"name": "ada", "tags": ["x", "y"]}  # the first entry of a key, as assq
    assert result["symbol-table"] == {"a": 1, "b": [1, 2]}
    assert sorted(result["number-table"]) == [[1, "one"], [2, "two"]]
    assert result["record"] == {"x": 3, "y": 4}
    assert result["task-result"]["content"] == "SAY HI" and result["task-result"]["status"] == "COMPLETE"
    assert result["procedure"] == {"unrepresentable": "#<procedure car>"}
    assert result["fraction"] == {"unrepresentable": "1/3"}
    assert result["circular"] == {"unrepresentable": "#0=(1 2 . #0#)"}
    assert result["nested"] == [{"x": 1, "y": {"deep": True}}, None, 2.5]
    assert result["list"] == [1, 2, 3]


def test_the_cli_writes_a_hash_table_with_symbol_keys_as_an_object(program: Path) -> None:
    write_lines(program / "in.jsonl", [{"kind": "symbol-table"}, {"kind": "procedure"}])
    done = batch_process(program, "--task", "shape", "--inputs", "in.jsonl", "--output", "out.jsonl")
    assert done.returncode == 0, done.stderr
    results = {r["index"]: r["result"] for r in read_records(program / "out.jsonl")}
    assert results == {0: {"a": 1, "b": [1, 2]}, 1: {"unrepresentable": "#<procedure car>"}}


# -- exit statuses and --retry-failed ----------------------------------------------------------
def test_retry_failed_runs_the_failed_items_again_and_the_status_follows(program: Path) -> None:
    write_lines(program / "in.jsonl", [{"x": i} for i in range(3)])
    args = ["--task", "maybe", "--inputs", "in.jsonl", "--output", "out.jsonl"]
    first = batch_cli(program, *args)
    assert first.returncode == 1 and "(0 complete, 3 failed)" in first.stderr
    (program / "fixed").write_text("")
    resumed = batch_cli(program, *args)
    assert resumed.returncode == 1  # the FAILED items are not run again, and still count
    assert "3 items FAILED in an earlier run (--retry-failed runs them again)" in resumed.stderr
    assert len(read_records(program / "out.jsonl")) == 3
    retried = batch_cli(program, *args, "--retry-failed")
    assert retried.returncode == 0, retried.stderr
    assert "(3 complete, 0 failed)" in retried.stderr
    records = read_records(program / "out.jsonl")
    assert [r["status"] for r in records] == ["FAILED"] * 3 + ["COMPLETE"] * 3
    assert batch_cli(program, *args, "--retry-failed").returncode == 0  # nothing left to run


def test_ctrl_c_stops_the_batch_with_status_130(program: Path) -> None:
    write_lines(program / "in.jsonl", [{"x": i} for i in range(40)])
    args = [sys.executable, str(ROOT / "repl.py"), "batch", "prog.scm", "--task", "slow"]
    args += ["--inputs", "in.jsonl", "--output", "out.jsonl", "--workers", "2"]
    proc = subprocess.Popen(args, cwd=program, stderr=subprocess.PIPE, text=True)
    out = program / "out.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not out.exists() or not out.read_text()):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and 0 < len(read_records(out)) < 40


# -- the metric and the summary -------------------------------------------------------------------
def test_a_boolean_metric_gives_mean_pass_rate_and_count(program: Path) -> None:
    write_lines(program / "in.jsonl", [{"x": i} for i in range(5)])
    metric = "(lambda (input result) (= result (* 2 (get input 'x))))"
    done = batch_cli(program, "--task", "double", "--inputs", "in.jsonl", "--output", "out.jsonl", "--metric", metric)
    assert done.returncode == 1  # item 3 failed
    records = {r["index"]: r for r in read_records(program / "out.jsonl")}
    assert [records[i]["metric"] for i in range(5)] == [True, True, True, None, True]
    assert "metric: mean 0.800, pass rate 80.0% (4/5), count 5, 1 without a score (counted 0)" in done.stderr
    assert "item time: p50 " in done.stderr and "p95 " in done.stderr


def test_a_numeric_metric_a_failing_metric_and_the_pass_threshold(program: Path) -> None:
    write_lines(program / "in.jsonl", [{"x": i} for i in (0, 1, 2, 4)])
    metric = "(lambda (input result) (if (= result 8) 'oops (/ result 4)))"
    args = ["--task", "double", "--inputs", "in.jsonl", "--output", "out.jsonl", "--metric", metric]
    done = batch_cli(program, *args, "--pass-threshold", "0.5")
    records = {r["input"]["x"]: r for r in read_records(program / "out.jsonl")}
    assert [records[x]["metric"] for x in (0, 1, 2)] == [0.0, 0.5, 1.0]
    assert records[4]["metric"] is None
    assert "metric returned oops: expected a number or a boolean" in records[4]["metric_error"]["message"]
    assert records[4]["status"] == "COMPLETE" and done.returncode == 0
    assert "metric: mean 0.375, pass rate 50.0% (2/4), count 4" in done.stderr


def test_a_metric_that_is_not_a_procedure_is_an_error_before_any_item(program: Path) -> None:
    write_lines(program / "in.jsonl", [{"x": 1}])
    done = batch_cli(program, "--task", "double", "--inputs", "in.jsonl", "--output", "out.jsonl", "--metric", "42")
    assert done.returncode == 1 and "metric: expected a procedure" in done.stderr
    assert not (program / "out.jsonl").exists()


def test_interp_batch_takes_a_metric_in_the_dsl_or_in_python() -> None:
    interp = Interpreter()
    interp.eval(SHAPES)
    inputs = [{"x": i} for i in range(3)]
    dsl = {r["index"]: r["metric"] for r in interp.batch("double", inputs, metric="(lambda (i r) (* r 10))")}
    assert dsl == {0: 0.0, 1: 20.0, 2: 40.0}
    seen: list[tuple[object, object]] = []

    def close_enough(given: object, result: object) -> bool:
        seen.append((given, result))
        return result == 2

    python = {r["index"]: r["metric"] for r in interp.batch("double", inputs, metric=close_enough)}
    assert python == {0: False, 1: True, 2: False}
    assert sorted((g["x"], r) for g, r in seen) == [(0, 0), (1, 2), (2, 4)]


def test_a_metric_travels_to_worker_processes() -> None:
    interp = Interpreter()
    interp.eval(SHAPES)
    records = interp.batch("double", [{"x": 1}, {"x": 2}], processes=True, workers=2, metric="(lambda (i r) (> r 3))")
    assert sorted((r["index"], r["metric"]) for r in records) == [(0, False), (1, True)]


# -- the main command's run flags -----------------------------------------------------------------
def test_batch_takes_the_run_flags_cache_model_trace(program: Path, tmp_path: Path) -> None:
    (program / "prog.scm").write_text(
        '(define-model (m prompt) (string-append "<" prompt ">")) (define-task (ask w) (prompt "{{w}}"))'
    )
    write_lines(program / "in.jsonl", [{"w": "a b"}, {"w": "c d e"}])
    args = ["--task", "ask", "--inputs", "in.jsonl", "--model", "m", "--cache", str(tmp_path / "cache.db")]
    first = batch_cli(program, *args, "--output", "one.jsonl", "--trace", "run.jsonl")
    assert first.returncode == 0, first.stderr
    assert {r["result"]["content"] for r in read_records(program / "one.jsonl")} == {"<a b>", "<c d e>"}
    assert "model: 2 calls" in first.stderr and "0 cache hits" in first.stderr
    events = [json.loads(line) for line in (program / "run.jsonl").read_text().splitlines()]
    assert sum(e["kind"] == "model" for e in events) == 2
    again = batch_cli(program, *args, "--output", "two.jsonl")
    assert again.returncode == 0, again.stderr
    assert "model: 0 calls, 0 tokens" in again.stderr and "2 cache hits" in again.stderr
    assert [r["usage"]["cache_hits"] for r in read_records(program / "two.jsonl")] == [1, 1]


def test_the_help_lists_the_subcommands_and_batch_has_the_run_flags() -> None:
    main = run_cli(["--help"])
    assert "taskscheme batch " in main.stdout and "taskscheme trace " in main.stdout
    batch = run_cli(["batch", "--help"])
    for flag in ("--model", "--cache", "--retries", "--trace", "--log", "--max-memory", "--timeout", "--retry-failed"):
        assert flag in batch.stdout, flag
    assert "--isolate" not in batch.stdout and "-e EXPR" not in batch.stdout


def test_records_and_the_summary_count_retries_and_cache_hits(tmp_path: Path) -> None:
    from interpreter import TransientModelError
    from interpreter.batch.summary import BatchSummary

    failed_once: set[str] = set()

    def flaky(prompt: str, system: str | None = None) -> str:
        if prompt not in failed_once:
            failed_once.add(prompt)
            raise TransientModelError("overloaded")
        return prompt.upper()

    interp = Interpreter(model="flaky", retries={"retries": 2, "backoff": 0.01}, cache=str(tmp_path / "c.db"))
    interp.models.register("flaky", flaky)
    interp.eval('(define-task (ask w) (prompt "{{w}}") (cache #t))')
    inputs = [{"w": "a"}, {"w": "b"}, {"w": "a"}]
    first = sorted(interp.batch("ask", inputs[:2]), key=lambda r: r["index"])
    assert [r["usage"]["retries"] for r in first] == [1, 1]
    again = list(interp.batch("ask", inputs, skip={0, 1}))
    assert again[0]["usage"] == {"calls": 0, "input_tokens": 0, "output_tokens": 0, "cache_hits": 1, "retries": 0}
    summary = BatchSummary(total=3)
    for record in first + again:
        summary.add(record)
    assert "2 calls" in summary.lines()[1] and "1 cache hits, 2 retries" in summary.lines()[1]


def test_item_times_are_summarised_by_nearest_rank_percentiles() -> None:
    from interpreter.batch.summary import BatchSummary

    summary = BatchSummary(total=20)
    for i in range(20):
        summary.add({"status": "COMPLETE", "seconds": float(20 - i), "usage": {}})
    assert summary.lines()[2] == "  item time: p50 10.000 s, p95 19.000 s"


def test_the_cache_and_retries_settings_travel_to_worker_processes(tmp_path: Path) -> None:
    interp = Interpreter(model="m", cache=str(tmp_path / "cache.db"), retries=2)
    interp.eval('(define-model (m prompt) (string-append "<" prompt ">")) (define-task (ask w) (prompt "{{w}}"))')
    assert interp.settings["cache"] == str(tmp_path / "cache.db") and interp.settings["retries"] == 2
    inputs = [{"w": "a"}, {"w": "b"}]
    first = list(interp.batch("ask", inputs, processes=True, workers=2))
    again = list(interp.batch("ask", inputs, processes=True, workers=2))
    assert sorted(r["usage"]["calls"] for r in first) == [1, 1]
    assert sorted(r["usage"]["cache_hits"] for r in again) == [1, 1]  # the workers answered from the cache
