"""Byte caps on the files a run writes (issue 33 item 6): the recording, the response
cache, the memory and the CLI's trace. Going over is ``resource-exhaustion`` with
resource ``disk``; an embedded interpreter caps at 100 MB by default, the command line
only when given ``--max-file-bytes``."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
from pathlib import Path

import pytest
from helpers import run_cli

from interpreter import Interpreter, SchemeError

ROOT = Path(__file__).resolve().parent.parent
CHATTY = """
(define-model (echo prompt) (string-append prompt (make-string 500 #\\x)))
(define-task (ask n) (model "echo") (prompt "say {{n}}"))
(define (chat k) (let loop ((i 0)) (if (< i k) (begin (ask (number->string i)) (loop (+ i 1))))))
"""


def over_the_cap(interp: Interpreter, program: str, path: Path, cap: int) -> SchemeError:
    with pytest.raises(SchemeError) as info:
        interp.eval(program)
    err = info.value
    assert err.kind == "resource-exhaustion", err.message
    assert err.details["resource"] == "disk" and err.details["limit"] == cap
    assert err.message == f"disk limit exceeded: max_file_bytes = {cap} bytes ({path})"
    return err


def test_the_embedded_default_cap_is_100_mb() -> None:
    assert inspect.signature(Interpreter).parameters["max_file_bytes"].default == 100_000_000


def test_a_recording_stops_at_its_cap_with_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    interp = Interpreter(record=path, max_file_bytes=20_000)
    interp.eval(CHATTY)
    over_the_cap(interp, "(chat 1000)", path, 20_000)
    assert 15_000 < path.stat().st_size <= 20_000
    assert all(json.loads(line)["model"] == "echo" for line in path.read_text().splitlines())


def test_the_response_cache_stops_at_its_cap(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    interp = Interpreter(cache=path, max_file_bytes=100_000)
    interp.eval(CHATTY)
    over_the_cap(interp, "(chat 1000)", path, 100_000)


def test_the_memory_file_stops_at_its_cap(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    interp = Interpreter(memory=path, max_file_bytes=200_000)
    program = (
        '(let loop ((i 0)) (remember (string-append "note " (number->string i) " " (make-string 1000 #\\y)))'
        " (loop (+ i 1)))"
    )
    over_the_cap(interp, program, path, 200_000)
    assert interp.eval('(length (recall "note"))') > 0  # what was stored before is still there


def test_without_a_cap_the_files_grow(tmp_path: Path) -> None:
    path = tmp_path / "calls.jsonl"
    interp = Interpreter(record=path, max_file_bytes=None)
    interp.eval(CHATTY + "(chat 50)")
    assert path.stat().st_size > 20_000


def cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "prog.scm").write_text(CHATTY + "(chat 100)\n", encoding="utf-8")
    env = {**os.environ, "LLM_USER_PATH": str(tmp_path / "llm")}
    return run_cli([*args, "prog.scm"], cwd=tmp_path, env=env)  # in this process


@pytest.mark.parametrize("flag", ["--trace", "--record"])
def test_the_command_line_caps_only_when_asked(tmp_path: Path, flag: str) -> None:
    uncapped = cli(tmp_path, flag, "first.jsonl")
    assert uncapped.returncode == 0, uncapped.stderr
    assert (tmp_path / "first.jsonl").stat().st_size > 20_000
    capped = cli(tmp_path, flag, "second.jsonl", "--max-file-bytes", "20000")
    assert capped.returncode == 1
    assert "disk limit exceeded: max_file_bytes = 20000 bytes (second.jsonl)" in capped.stderr
    assert "Traceback" not in capped.stderr
    assert (tmp_path / "second.jsonl").stat().st_size <= 20_000
