"""The live display on a real terminal: every way out restores it, program output and
streamed text stay above it, and it counts what runs. Driven through a pty (pexpect);
what ends up on screen is read back with a terminal emulator (pyte)."""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import terminal_env, users_terminal

from interpreter import Interpreter
from interpreter.tasks.observe.progress import TerminalProgress

pexpect = pytest.importorskip("pexpect")
pyte = pytest.importorskip("pyte")
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 120
SPINNER = set("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
ROWS, COLUMNS = 40, 100


def session_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A user's terminal (``helpers.terminal_env``) with the REPL's history in ``tmp_path``."""
    return terminal_env(TASKSCHEME_HISTORY=str(tmp_path / "history"), PROMPT_TOOLKIT_NO_CPR="1", **extra)


def spawn(tmp_path: Path, args: list[str], **extra: str) -> tuple[Any, io.StringIO]:
    transcript = io.StringIO()
    child = pexpect.spawn(
        sys.executable,
        [str(ROOT / "repl.py"), *args],
        cwd=str(tmp_path),
        env=session_env(tmp_path, **extra),
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(ROWS, COLUMNS),
    )
    child.logfile_read = transcript
    return child, transcript


def shown(transcript: str) -> tuple[list[str], Any]:
    """The screen's rows (trailing blanks dropped) and the emulated screen, after ``transcript``."""
    screen = pyte.Screen(COLUMNS, ROWS)
    stream = pyte.Stream(screen)
    stream.feed(transcript.replace("\n", "\r\n").replace("\r\r\n", "\r\n"))
    return [row.rstrip() for row in screen.display], screen


def quiet_for(child: Any, seconds: float) -> str:
    """Everything the child writes in the next ``seconds``."""
    child.expect(pexpect.TIMEOUT, timeout=seconds)
    return child.before


# -- every way out of a script leaves no spinner ----------------------------------------------
#: Forms that run a script, and the name the spinner shows for each.
SCRIPT_FORMS = {
    "run-script": ('(run-script "sleep 30")', "sleep 30"),
    "script task": ('((lambda () (define-task (nap) (script "sleep 30")) (nap)))', "nap"),
}


@pytest.mark.parametrize("form", sorted(SCRIPT_FORMS))
@pytest.mark.parametrize("how", ["ctrl-c", "timeout"])
def test_the_repl_after_an_interrupted_script_draws_nothing_more(tmp_path: Path, how: str, form: str) -> None:
    flags = ["--timeout", "2"] if how == "timeout" else []
    source, name = SCRIPT_FORMS[form]
    child, transcript = spawn(tmp_path, flags)
    try:
        child.expect("> ")
        child.send(f'(begin (display "before") (newline) {source})\r')
        child.expect(rf"script {name} · \d+\.\d s")  # the spinner is up
        if how == "ctrl-c":
            child.sendintr()
        child.expect("interrupted" if how == "ctrl-c" else "time limit")
        child.expect("> ")
        later = quiet_for(child, 1.5)
        assert not SPINNER & set(later), later  # no ghost spinner redrawing after the prompt
        child.send("(+ 40 2)\r")
        child.expect("42")
        child.expect("> ")
    finally:
        child.close(force=True)
    rows, screen = shown(transcript.getvalue())
    assert "before" in rows
    assert not any(SPINNER & set(row) for row in rows), rows
    assert not screen.cursor.hidden


NAP = '(define-task (nap) (script "sleep 30")) (display "before") (newline) (nap)'
CLI_CASES = {
    "ctrl-c": (NAP, [], "interrupted", 130),
    "timeout": (NAP, ["--timeout", "2"], "time limit", 1),
    "error": ('(display "before") (newline) (run-script "sleep 1.5") (car 1)', [], "expected a pair", 1),
    "exit": ('(display "before") (newline) (run-script "sleep 1.5") (display "after")', [], "after", 0),
}


@pytest.mark.parametrize("case", sorted(CLI_CASES))
def test_every_way_out_of_a_program_restores_the_terminal(tmp_path: Path, case: str) -> None:
    source, flags, message, status = CLI_CASES[case]
    (tmp_path / "p.scm").write_text(source)
    child, transcript = spawn(tmp_path, [*flags, "p.scm"])
    try:
        child.expect(r"script (nap|sleep 1\.5) · \d+\.\d s")
        if case == "ctrl-c":
            child.sendintr()
        child.expect(message)
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == status
    rows, screen = shown(transcript.getvalue())
    assert rows[0] == "before"
    assert not any(SPINNER & set(row) for row in rows), rows
    assert not screen.cursor.hidden
    assert any(message in row for row in rows)


# -- program output and streamed text stay above ------------------------------------------------
def test_program_output_is_printed_above_the_live_area_never_over_it(tmp_path: Path) -> None:
    program = """
    (define (lines i)
      (when (< i 12)
        (display "line ") (display i) (newline)
        (run-script "sleep 0.2")
        (lines (+ i 1))))
    (parallel-map (lambda (k) (if (= k 0) (run-script "sleep 3") (lines 0))) '(0 1))
    (display "done") (newline)
    """
    (tmp_path / "p.scm").write_text(program)
    child, transcript = spawn(tmp_path, ["p.scm"])
    try:
        child.expect(r"\(2 running\)")  # the spinner was up while the lines came
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    rows, _ = shown(transcript.getvalue())
    assert [row for row in rows if row] == [f"line {i}" for i in range(12)] + ["done"]


def repl_calling_the_provider(tmp_path: Path) -> tuple[Any, io.StringIO]:
    """A REPL that has defined ``(t)``, a task calling the loopback provider's model, and is calling it."""
    child, transcript = spawn(tmp_path, [], LLM_USER_PATH=os.environ["LLM_USER_PATH"])
    child.expect("> ")
    child.send('(define-task (t) (model "fake") (prompt "go"))\r')
    child.expect("> ")
    child.send("(t)\r")
    return child, transcript


def test_an_interrupted_stream_leaves_no_header_after_the_prompt(tmp_path: Path, provider_model: Any) -> None:
    provider_model.configure(chunk_delay=0.4, reply=lambda prompt: "alpha beta gamma delta epsilon zeta eta theta")
    child, transcript = repl_calling_the_provider(tmp_path)
    try:
        child.expect("│ alpha beta")  # the line as it arrives
        child.sendintr()
        child.expect("interrupted")
        child.expect("> ")
        later = quiet_for(child, 3.0)  # the model's thread may still receive the rest
        assert "┌ model" not in later and "theta" not in later and not SPINNER & set(later), later
    finally:
        child.close(force=True)
    rows, _ = shown(transcript.getvalue())
    assert not any("theta" in row for row in rows)


def test_the_repl_prints_a_streamed_result_short(tmp_path: Path, provider_model: Any) -> None:
    provider_model.configure(chunk_delay=0.2, reply=lambda prompt: "one two three four five six")
    child, transcript = repl_calling_the_provider(tmp_path)
    try:
        child.expect(r"\$1 = #<task-result COMPLETE: 27 characters from fake, streamed above>")
        child.expect("> ")
        child.send("(get $1 'content)\r")
        child.expect('"one two three four five six"')
        child.expect("> ")
    finally:
        child.close(force=True)
    rows, _ = shown(transcript.getvalue())
    assert rows.count("│ one two three four five six") == 1  # the text once, above the result line
    assert rows.index("┌ model fake") + 1 == rows.index("│ one two three four five six")


# -- plain terminals -------------------------------------------------------------------------------
@pytest.mark.parametrize("extra", [{"TERM": "dumb"}, {"NO_COLOR": "1"}])
def test_no_live_display_on_dumb_terminals_or_without_colour(tmp_path: Path, extra: dict[str, str]) -> None:
    (tmp_path / "p.scm").write_text('(run-script "sleep 1.2") (display "after") (newline)')
    child, transcript = spawn(tmp_path, ["p.scm"], **extra)
    try:
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    text = transcript.getvalue()
    assert "\x1b" not in text and not SPINNER & set(text) and "after" in text


# -- what "(N running)" counts ---------------------------------------------------------------------
class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_running_counts_model_calls_and_scripts_in_flight(monkeypatch: pytest.MonkeyPatch) -> None:
    users_terminal(monkeypatch)
    screen = FakeTerminal()
    interp = Interpreter(allow_scripts=True, max_concurrency=2)
    interp.events.use_progress(TerminalProgress(screen, delay=0.1, interval=0.02))
    interp.eval("(parallel-map (lambda (k) (run-script \"sleep 0.8\")) '(1 2 3))")
    text = screen.getvalue()
    assert "(2 running)" in text  # two scripts at a time, the cap
    assert "(3 running)" not in text and "(4 running)" not in text  # the parallel form is not counted
    time.sleep(0.1)
    assert text == screen.getvalue()  # nothing drawn once the run ended


# -- the batch bar and the calls of its items, together ----------------------------------------------
def test_the_batch_bar_shows_with_the_items_spinner_and_goes_at_the_end(tmp_path: Path) -> None:
    (tmp_path / "p.scm").write_text('(define (slow w) (run-script "sleep 0.7") w)')
    (tmp_path / "in.jsonl").write_text("".join(f'{{"w": "{i}"}}\n' for i in range(8)))
    args = ["batch", "p.scm", "--task", "slow", "--inputs", "in.jsonl", "--output", "out.jsonl", "--workers", "2"]
    child, transcript = spawn(tmp_path, args)
    try:
        child.expect(r"script sleep 0\.7 · \d+\.\d s \(2 running\)")  # the items' scripts, counted
        child.expect(r"batch ━*\S* *\d/8 done, 0 failed")  # the bar, drawn in the same area
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    rows, screen = shown(transcript.getvalue())
    text = [row for row in rows if row]
    assert text[0].startswith("batch: 8 items in ") and "(8 complete, 0 failed)" in text[0]
    assert text[1].startswith("  model: 0 calls") and text[2].startswith("  item time: p50 0.7")
    assert len(text) == 3 and not screen.cursor.hidden  # the bar and the spinner are gone


def test_the_spinner_names_the_step_of_a_pipeline_it_is_in(monkeypatch: pytest.MonkeyPatch) -> None:
    users_terminal(monkeypatch)
    screen = FakeTerminal()
    interp = Interpreter(allow_scripts=True)
    interp.events.use_progress(TerminalProgress(screen, delay=0.1, interval=0.02))
    interp.eval('(sequential (step plan "x") (step build (run-script "sleep 0.6")) (step ship "y"))')
    assert "script sleep 0.6 · " in screen.getvalue() and "step sequential/build (2 of 3)" in screen.getvalue()
