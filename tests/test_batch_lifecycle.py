"""`taskscheme batch` ends its worker processes with it (issue 33 item 3): after SIGKILL
and SIGTERM no worker and no resource tracker is left (checked with ``ps``); SIGTERM
exits 143 with every record whole."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = '(define (slow word) (run-script "sleep 0.3") (string-append word "!"))\n'

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and ps")


def start_batch(tmp_path: Path, *extra: str) -> subprocess.Popen[bytes]:
    (tmp_path / "prog.scm").write_text(PROGRAM, encoding="utf-8")
    lines = [json.dumps({"word": f"w{i}"}) for i in range(40)]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = [sys.executable, "-m", "interpreter", "batch", "prog.scm", "--task", "slow", "--inputs", "in.jsonl"]
    args += ["--output", "out.jsonl", "--workers", "4", "--quiet", *extra]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(args, cwd=tmp_path, env=env, stderr=(tmp_path / "err.txt").open("wb"))
    out = tmp_path / "out.jsonl"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 3):
        time.sleep(0.05)
    assert out.exists(), (tmp_path / "err.txt").read_text()
    return proc


def children(pid: int) -> list[int]:
    listed = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(line) for line in listed.split()]


def living(pids: list[int]) -> list[int]:
    """The processes of ``pids`` still running (a zombie waiting for init is not)."""
    if not pids:
        return []
    listed = subprocess.run(
        ["ps", "-o", "pid=,stat=", "-p", ",".join(map(str, pids))], capture_output=True, text=True
    ).stdout
    return [int(row.split()[0]) for row in listed.splitlines() if row.split() and not row.split()[1].startswith("Z")]


def gone_within(pids: list[int], seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while (left := living(pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def whole_records(tmp_path: Path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_worker_processes_end_with_the_batch(tmp_path: Path, sig: signal.Signals) -> None:
    proc = start_batch(tmp_path, "--processes")
    workers = children(proc.pid)
    assert len(workers) >= 5  # four workers and the resource tracker
    proc.send_signal(sig)
    status = proc.wait(30)
    try:
        assert gone_within(workers, 10) == []
    finally:
        for pid in living(workers):  # never leave them behind, even when the test fails
            os.kill(pid, signal.SIGKILL)
    assert status == (-signal.SIGKILL if sig == signal.SIGKILL else 143)
    records = whole_records(tmp_path)
    assert 3 <= len(records) < 40
    if sig == signal.SIGTERM:
        assert "batch: terminated; run again with the same --output to resume" in (tmp_path / "err.txt").read_text()


def test_sigterm_ends_a_threaded_batch_with_143(tmp_path: Path) -> None:
    proc = start_batch(tmp_path)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 143
    assert 3 <= len(whole_records(tmp_path)) < 40
    assert gone_within(children(proc.pid), 1) == []
