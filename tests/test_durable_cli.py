"""Durable runs from the command line: --resume, --resume-from, --resume-quiet, and traces."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from helpers import run_cli

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = """
(define-model (m prompt system) (string-append "A:" prompt))
(define-task (ask q) (model "m") (prompt "{{q}}"))
(display (get (ask "one") 'content)) (newline)
(display (get (run-script "echo ran") 'stdout))
"""


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``taskscheme ARGS`` in this process."""
    return run_cli(args, env={**os.environ, "NO_COLOR": "1", "TASKSCHEME_PROGRESS": "0"}, cwd=cwd)


def run_process(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python repl.py ARGS`` in a new process."""
    env = {**os.environ, "NO_COLOR": "1", "TASKSCHEME_PROGRESS": "0", "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, str(ROOT / "repl.py"), *args], capture_output=True, text=True, timeout=60, cwd=cwd, env=env
    )


def test_a_resumed_run_says_so_and_its_trace_marks_replayed_calls(tmp_path: Path) -> None:
    (tmp_path / "prog.scm").write_text(PROGRAM)
    first = run("--resume", "run.journal", "--trace", "one.jsonl", "prog.scm", cwd=tmp_path)
    assert (first.returncode, first.stdout, first.stderr) == (0, "A:one\nran\n", "")
    second = run("--resume", "run.journal", "--trace", "two.jsonl", "--usage", "prog.scm", cwd=tmp_path)
    assert (second.returncode, second.stdout) == (0, first.stdout)
    assert "resuming from run.journal: 2 journaled results (1 model call, 1 script run)" in second.stderr
    assert "journal run.journal: 2 results answered from it (1 model call, 1 script run;" in second.stderr
    tree = run("trace", "two.jsonl", cwd=tmp_path)
    [model] = [line for line in tree.stdout.splitlines() if "model m" in line]
    [script] = [line for line in tree.stdout.splitlines() if "script" in line]
    assert "replayed" in model and "replayed" in script
    assert "replayed" not in run("trace", "one.jsonl", cwd=tmp_path).stdout


def test_a_divergence_from_the_command_line_and_resume_from(tmp_path: Path) -> None:
    (tmp_path / "prog.scm").write_text(PROGRAM)
    assert run("--resume", "run.journal", "prog.scm", cwd=tmp_path).returncode == 0
    (tmp_path / "prog.scm").write_text(PROGRAM.replace('(ask "one")', '(ask "ONE")'))
    diverged = run_process("--resume", "run.journal", "prog.scm", cwd=tmp_path)
    assert diverged.returncode == 1 and diverged.stdout == ""
    assert "error: the run diverged from its journal run.journal at line 2" in diverged.stderr
    assert '≠ prompt       "one"' in diverged.stderr and "Traceback" not in diverged.stderr
    assert "prog.scm:4:" in diverged.stderr  # where the program asked
    fresh = run("--resume", "run.journal", "--resume-from", "1", "prog.scm", cwd=tmp_path)
    assert (fresh.returncode, fresh.stdout) == (0, "A:ONE\nran\n"), fresh.stderr
    assert "moved to run.journal.dropped-from-1" in fresh.stderr


def test_resume_options_need_a_journal_and_a_program(tmp_path: Path) -> None:
    alone = run("--resume-quiet", "-e", "1", cwd=tmp_path)
    assert alone.returncode == 2 and "go with --resume JOURNAL" in alone.stderr
    repl = run("--resume", "run.journal", "-i", cwd=tmp_path)
    assert repl.returncode == 2 and "not the REPL" in repl.stderr
    bad = run("--resume", "run.journal", "--resume-from", "0", "-e", "1", cwd=tmp_path)
    assert bad.returncode == 2 and "at least 1" in bad.stderr
    folder = run("--resume", str(tmp_path), "-e", "1", cwd=tmp_path)
    assert folder.returncode == 1 and "cannot open the journal" in folder.stderr


def test_a_run_that_asks_for_less_than_its_journal_holds_is_warned_about(tmp_path: Path) -> None:
    (tmp_path / "prog.scm").write_text(PROGRAM)
    assert run("--resume", "run.journal", "prog.scm", cwd=tmp_path).returncode == 0
    (tmp_path / "prog.scm").write_text(PROGRAM.replace('(display (get (run-script "echo ran") \'stdout))', ""))
    shorter = run("--resume", "run.journal", "prog.scm", cwd=tmp_path)
    assert (shorter.returncode, shorter.stdout) == (0, "A:one\n")
    assert "this run did not ask for 1 journaled result (line 4): it took a shorter path" in shorter.stderr
