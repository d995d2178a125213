"""Shared structure crossing into Python, records and JSON (issue 33 item 1): a value
built by doubling converts in time linear in its distinct parts, or is refused at once.
The time polls inside these walks are in tests/test_time_polls.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import run_cli

from interpreter import Interpreter, SchemeError

ROOT = Path(__file__).resolve().parent.parent


def doubling(n: int) -> str:
    return f"(let loop ((x '()) (n 0)) (if (= n {n}) x (loop (list x x) (+ n 1))))"


def test_a_shared_value_returned_to_python_stays_shared() -> None:
    """2^40 leaves: copied at every meeting it was refused after seconds of work."""
    value = Interpreter(timeout=5).eval(doubling(40))
    assert isinstance(value, list) and len(value) == 2
    assert value[0] is value[1]
    depth = 0
    while value:
        value, depth = value[0], depth + 1
    assert depth == 40


def test_shared_python_values_stay_shared_in_scheme() -> None:
    part: list[object] = [1, 2]
    for _ in range(40):
        part = [part, part]
    interp = Interpreter(timeout=5)
    interp.eval("(define (same-halves? x) (eq? (car x) (cadr x)))")
    assert interp.call("same-halves?", part) is True


def test_a_record_refuses_a_doubled_value_at_once() -> None:
    """Records become JSON, which cannot share: the unfolded size is measured first."""
    interp = Interpreter(timeout=1)
    with pytest.raises(SchemeError) as info:
        interp.eval(f"(make-task-result \"x\" 'COMPLETE (list (cons 'k {doubling(30)})))")
    err = info.value
    assert err.kind == "resource-exhaustion"
    assert "make-task-result: number of elements (shared parts counted at each use)" in err.message
    small = interp.eval(f"(get (make-task-result \"x\" 'COMPLETE (list (cons 'k {doubling(3)}))) 'notes)")
    assert small is not None


def test_a_doubled_value_as_an_equal_hash_key_is_refused() -> None:
    interp = Interpreter(timeout=1)
    with pytest.raises(SchemeError) as info:
        interp.eval(f"(hash-table-set! (make-equal-hash-table) {doubling(40)} 1)")
    assert info.value.kind == "resource-exhaustion"
    assert "cannot be an equal? key" in info.value.message


def test_a_batch_result_too_big_for_json_fails_its_item(tmp_path: Path) -> None:
    (tmp_path / "prog.scm").write_text(
        "(define (big n) (let loop ((x '()) (k 0)) (if (= k n) x (loop (list x x) (+ k 1)))))\n"
    )
    (tmp_path / "in.jsonl").write_text('{"n": 40}\n{"n": 2}\n')
    done = run_cli(
        ["batch", "--task", "big", "--quiet", "--inputs", "in.jsonl", "--output", "out.jsonl", "prog.scm"],
        cwd=tmp_path, env={"PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    records = (json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines())
    first, second = sorted(records, key=lambda record: record["index"])  # written as items complete
    assert first["status"] == "FAILED" and first["error"]["type"] == "resource-exhaustion"
    assert "shared parts counted at each use" in first["error"]["message"]
    assert second["status"] == "COMPLETE" and second["result"] == [[[], []], [[], []]]
