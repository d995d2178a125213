"""Issue 33 item 7: Ctrl-C during the command line's start-up exits 130 quietly; a second
run with the same ``--record`` file is refused unless ``--record-overwrite``; ``index-files``
refuses a linked folder that leads outside the allowed folders."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import run_cli

from interpreter import Interpreter, SchemeError

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_during_start_up_exits_130_quietly(tmp_path: Path) -> None:
    """SIGINT lands while the interpreter's modules are being imported: ``-X importtime``
    reports each module as it finishes, so the signal is sent as soon as the first
    taskscheme module past the package itself is in (before, a traceback from the import)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [sys.executable, "-X", "importtime", "-m", "interpreter", "-e", "(display 1)"]
    proc = subprocess.Popen(args, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    deadline = time.monotonic() + 60
    for line in proc.stderr:
        if "| interpreter." in line or time.monotonic() > deadline:
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    shown = [line for line in err.splitlines() if not line.startswith("import time:")]
    assert proc.returncode == 130, err[-2000:]
    assert shown == [] and out == ""


def taskscheme(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``taskscheme ARGS`` in this process."""
    return run_cli(args, cwd=tmp_path, env={**os.environ, "LLM_USER_PATH": str(tmp_path / "llm")})


def test_a_second_run_does_not_replace_a_recording(tmp_path: Path) -> None:
    (tmp_path / "prog.scm").write_text(
        '(define-model (echo prompt) (string-upcase prompt))\n(define-task (ask w) (model "echo") (prompt "say {{w}}"))\n'
        "(display (get (ask (cadr (command-line))) 'content))\n",
        encoding="utf-8",
    )
    first = taskscheme(tmp_path, "--record", "calls.jsonl", "prog.scm", "one")
    assert first.returncode == 0 and first.stdout == "SAY ONE", first.stderr
    recording = (tmp_path / "calls.jsonl").read_text()
    again = taskscheme(tmp_path, "--record", "calls.jsonl", "prog.scm", "two")
    assert again.returncode == 2 and again.stdout == ""
    assert again.stderr == (
        "error: --record: calls.jsonl already holds a recording; pass --record-overwrite to replace it\n"
    )
    assert (tmp_path / "calls.jsonl").read_text() == recording
    replaced = taskscheme(tmp_path, "--record", "calls.jsonl", "--record-overwrite", "prog.scm", "two")
    assert replaced.returncode == 0 and replaced.stdout == "SAY TWO", replaced.stderr
    [call] = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert call["prompt"] == "say two"


def test_index_files_refuses_a_linked_folder_leading_outside(tmp_path: Path) -> None:
    inside, outside = tmp_path / "notes", tmp_path / "private"
    inside.mkdir()
    outside.mkdir()
    (inside / "kept.md").write_text("shared note\n", encoding="utf-8")
    (outside / "secret.md").write_text("secret note\n", encoding="utf-8")
    os.symlink(outside, inside / "more")
    interp = Interpreter(allow_files=[str(inside)])
    with pytest.raises(SchemeError) as info:
        interp.eval(f'(index-files "{inside}" #:glob "*.md")')
    err = info.value
    assert err.kind == "permission" and err.details["capability"] == "allow_files"
    assert f"{inside / 'more'} is outside the folders allowed by allow_files" in err.message
    assert interp.eval('(length (recall "secret"))') == 0
