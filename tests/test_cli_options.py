"""Command-line options a user installing from a package index expects: ``--timeout`` for the
whole run, the seeds' 300 s default for scripts, ``--help`` naming the environment it reads, a
``--record`` path checked at start, and ``,model`` refusing an unknown id."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from interpreter import Interpreter, SchemeError, cli
from interpreter.repl.session import ReplSession
from interpreter.tasks import scripts

PACKAGE = Path(cli.__file__).resolve().parent


# -- --timeout ------------------------------------------------------------------------------
def test_timeout_stops_a_runaway_program_with_resource_exhaustion(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["--timeout", "0.2", "-e", "(let loop () (loop))"]) == 1
    assert capsys.readouterr().err.startswith("error: time limit exceeded: timeout = 0.2 s\n")


def test_timeout_covers_the_whole_run_not_each_expression(capsys: pytest.CaptureFixture[str]) -> None:
    """Each -e expression alone stays under the limit; together they pass it."""
    wait = "(let ((end (+ (current-jiffy) (* 0.3 (jiffies-per-second))))) (let loop () (if (< (current-jiffy) end) (loop) 'done)))"
    status = cli.run(["--timeout", "0.5", "-e", wait, "-e", wait, "-e", wait])
    captured = capsys.readouterr()
    assert status == 1
    assert captured.out.count("done") < 3
    assert "error: time limit exceeded: timeout = 0.5 s" in captured.err


def test_timeout_stops_a_script_that_runs_too_long(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prog = tmp_path / "prog.scm"
    prog.write_text('(run-script (list "sleep" "30"))\n(display "not reached")\n')
    assert cli.run(["--timeout", "0.5", str(prog)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "error: time limit exceeded: timeout = 0.5 s" in captured.err


@pytest.mark.parametrize("bad", ["0", "-1", "soon", "inf", "nan"])
def test_timeout_must_be_a_positive_number(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        cli.run(["--timeout", bad, "-e", "1"])
    assert done.value.code == 2
    assert "--timeout: expected a" in capsys.readouterr().err


# -- the seeds' default script timeout --------------------------------------------------------
def test_the_default_script_timeout_is_the_seeds_300_seconds() -> None:
    assert scripts.DEFAULT_TIMEOUT == 300.0


@pytest.mark.parametrize(
    "program",
    [
        '(define-task (slow) (script "sleep 30")) (get (slow) \'notes \'error \'message)',
        '(get (run-script (list "sleep" "30")) \'timed-out)',
        "(get (director-evaluator-loop (max-iterations 1) (director \"draft\")"
        ' (script-execution (list "sleep" "30")) (evaluator #t)) \'error \'message)',
    ],
    ids=["script task", "run-script", "loop script"],
)
def test_scripts_without_a_timeout_get_the_default(program: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scripts, "DEFAULT_TIMEOUT", 0.3)
    value = Interpreter(allow_scripts=True).eval(program)
    assert value is True or "timed out after 0.3 s" in value


def test_a_scripts_own_timeout_wins_over_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scripts, "DEFAULT_TIMEOUT", 0.2)
    value = Interpreter(allow_scripts=True).eval('(get (run-script (list "sleep" "0.5") #:timeout 20) \'timed-out)')
    assert value is False


# -- --help ------------------------------------------------------------------------------------
def environment_variables_read() -> set[str]:
    """Every environment variable the package's source reads."""
    names: set[str] = set()
    for path in PACKAGE.rglob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if re.search(r"environ|getenv|_ENV\s*=", line):
                names |= set(re.findall(r"[\"']([A-Z][A-Z0-9_]{1,})[\"']", line))
    return names


def test_help_lists_every_environment_variable_the_program_reads(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        cli.run(["--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    environment = text[text.index("environment:") :]
    read = environment_variables_read()
    assert {"TASKSCHEME_MODEL", "TASKSCHEME_HISTORY", "NO_COLOR"} <= read
    missing = sorted(name for name in read | {"LLM_USER_PATH"} if name not in environment)
    assert not missing, f"--help does not mention {missing}"
    for option in ("--timeout SECONDS", "--strict"):
        assert option in text


# -- --record ----------------------------------------------------------------------------------
def test_an_unwritable_record_path_is_an_error_at_start(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "no-such-folder" / "calls.jsonl"
    assert cli.run(["--record", str(target), "-e", '(display "ran")']) == 1
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing ran
    assert captured.err.splitlines() == [
        f"error: cannot write the recording {target}: No such file or directory"
    ]


def test_a_folder_is_not_a_record_file(tmp_path: Path) -> None:
    with pytest.raises(SchemeError) as info:
        Interpreter(record=tmp_path)
    assert info.value.kind == "file-error"
    assert f"cannot write the recording {tmp_path}" in info.value.message


def test_checking_the_record_path_leaves_no_file_and_keeps_an_old_one(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.jsonl"
    Interpreter(record=fresh)
    assert not fresh.exists()
    old = tmp_path / "old.jsonl"
    old.write_text("kept\n")
    Interpreter(record=old)
    assert old.read_text() == "kept\n"


# -- ,model ------------------------------------------------------------------------------------
def model_repl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[ReplSession, io.StringIO, io.StringIO]:
    monkeypatch.setenv("LLM_USER_PATH", str(tmp_path))
    out, err = io.StringIO(), io.StringIO()
    session = ReplSession(lambda: Interpreter(stdout=out, allow_models=True), err=err)
    session.submit('(define-model "drafter" (lambda (prompt system) "draft"))')
    session.submit(",model drafter")
    return session, out, err


def test_model_switches_to_a_known_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session, out, err = model_repl(tmp_path, monkeypatch)
    assert out.getvalue().splitlines()[-1] == "; default model: drafter"
    session.submit(",model echo")  # an llm model (the llm-echo plugin)
    assert out.getvalue().splitlines()[-1] == "; default model: echo"
    assert err.getvalue() == ""


def test_model_refuses_an_unknown_id_with_a_did_you_mean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session, _, err = model_repl(tmp_path, monkeypatch)
    session.submit(",model drafer")
    assert err.getvalue().startswith("error: TASK_FAILURE: unknown model drafer; did you mean: drafter")
    assert session.interp.models.default == "drafter"  # unchanged
