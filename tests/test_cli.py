"""The command line: exit codes, standard error, ``-e``, standard input, ``-i``; run in this process
(``helpers.run_cli``), and as a subprocess where the process itself is tested."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_cli

ROOT = Path(__file__).resolve().parent.parent
REPL = str(ROOT / "repl.py")


def run(*args: str, stdin: str = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``taskscheme ARGS`` in this process, with ``stdin`` piped in (so never a terminal)."""
    full_env = {**os.environ, "TASKSCHEME_HISTORY": "", "NO_COLOR": "1", **(env or {})}
    return run_cli(args, stdin=stdin, env=full_env, cwd=ROOT)


def run_process(*args: str, stdin: str = "", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python repl.py ARGS`` in a new process, with ``stdin`` piped in (so never a terminal)."""
    full_env = {**os.environ, "TASKSCHEME_HISTORY": "", "NO_COLOR": "1", **(env or {})}
    return subprocess.run(
        [sys.executable, REPL, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=30,
        cwd=ROOT,
        env=full_env,
    )


@pytest.fixture
def prog(tmp_path: Path) -> Path:
    path = tmp_path / "prog.scm"
    path.write_text(
        "(define (first-of x)\n  (car x))\n(display (command-line))\n(newline)\n(first-of (cadr (command-line)))\n"
    )
    return path


def test_e_prints_the_values_of_each_expression() -> None:
    done = run_process("-e", "(define x 2) (+ x 1)", "-e", '(values 1 "a")', "-e", "'sym (if #f #f)")
    assert done.returncode == 0
    assert done.stdout == '3\n1\n"a"\nsym\n'


def test_e_display_output_has_no_newline_added() -> None:
    done = run("-e", "(display 1)")
    assert (done.returncode, done.stdout, done.stderr) == (0, "1", "")


def test_program_runs_with_its_arguments_and_fails_with_location(prog: Path) -> None:
    done = run(str(prog), "not-a-pair", "b")
    assert done.returncode == 1
    assert done.stdout == f"({prog} not-a-pair b)\n"
    assert done.stderr.startswith('error: car: expected a pair, got "not-a-pair"')
    assert f"{prog}:2:3" in done.stderr and "in first-of" in done.stderr
    assert f"{prog}:5:1" in done.stderr


def test_program_options_after_the_file_belong_to_the_program(tmp_path: Path) -> None:
    path = tmp_path / "args.scm"
    path.write_text("(write (cdr (command-line)))")
    done = run(str(path), "-e", "--usage", "x")
    assert (done.returncode, done.stdout) == (0, '("-e" "--usage" "x")')


@pytest.mark.slow
def test_exit_sets_the_status(tmp_path: Path) -> None:
    path = tmp_path / "exit.scm"
    path.write_text('(display "before")\n(exit 7)\n(display "after")\n')
    done = run_process(str(path))  # the process's own exit status
    assert (done.returncode, done.stdout) == (7, "before")
    assert run("-e", "(exit)").returncode == 0
    assert run("-e", "(exit #f)").returncode == 1


def test_syntax_error_reports_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.scm"
    path.write_text("(display 1)\n(display (+ 1 2)\n")
    done = run(str(path))
    assert done.returncode == 1
    assert done.stderr.startswith("error:") and f"{path}:2:" in done.stderr


def test_missing_file() -> None:
    done = run("no-such-file.scm")
    assert done.returncode == 1
    assert "cannot read no-such-file.scm" in done.stderr


def test_piped_stdin_is_a_program() -> None:
    done = run_process(stdin='(display "hi")\n(newline)\n(+ 1 2)\n(display (command-line))\n')
    assert (done.returncode, done.stdout) == (0, "hi\n(taskscheme)")


def test_dash_reads_the_program_from_stdin_with_arguments() -> None:
    done = run("-", "a", "b", stdin="(write (command-line))")
    assert (done.returncode, done.stdout) == (0, '("-" "a" "b")')


def test_stdin_program_error_names_stdin() -> None:
    done = run(stdin="(display 1)\n(car 5)\n")
    assert done.returncode == 1
    assert done.stdout == "1"
    assert "<stdin>:2:1" in done.stderr


def test_i_loads_a_file_then_reads_expressions_line_by_line(prog: Path, tmp_path: Path) -> None:
    lib = tmp_path / "lib.scm"
    lib.write_text("(define (twice x)\n  (* 2 x))\n")
    stdin = "(twice\n  21)\n(car 1)\n(twice 2) (twice 3)\n,describe twice\n,nope\n(exit 4)\n(twice 0)\n"
    done = run("-i", str(lib), stdin=stdin)
    assert done.returncode == 4
    assert done.stdout.startswith("$1 = 42\n$2 = 4\n$3 = 6\n(twice x)  procedure, 1 argument\n")
    assert "error: car: expected a pair, got 1" in done.stderr
    assert "unknown command ,nope" in done.stderr
    assert "> " not in done.stdout + done.stderr  # no prompts when nobody is typing


def test_i_starts_the_repl_even_if_loading_fails(tmp_path: Path) -> None:
    lib = tmp_path / "lib.scm"
    lib.write_text("(define ok 1)\n(car '())\n")
    done = run("-i", str(lib), stdin="ok\n")
    assert (done.returncode, done.stdout) == (0, "$1 = 1\n")
    assert f"{lib}:2:1" in done.stderr


def test_i_with_e_and_without_file() -> None:
    done = run("-i", "-e", "(define z 9)", stdin="(* z z)\n")
    assert (done.returncode, done.stdout) == (0, "$1 = 81\n")


def test_no_stdlib_still_has_builtins() -> None:
    done = run("--no-stdlib", "-e", "(+ 1 2)")
    assert (done.returncode, done.stdout) == (0, "3\n")


@pytest.mark.slow
def test_version_and_help() -> None:
    from interpreter import __version__

    assert run("--version").stdout.strip() == f"taskscheme {__version__}"
    text = run("--help").stdout
    for flag in ("-e EXPR", "-i [FILE]", "--model", "--record", "--replay", "--trace", "--usage", "--no-stdlib"):
        assert flag in text
    assert "examples:" in text and "files" in text


def test_errors_are_coloured_only_on_request() -> None:
    done = run("-e", "(car 1)")
    assert "\x1b[" not in done.stderr


def test_running_a_program_does_not_import_prompt_toolkit() -> None:
    code = (
        "import sys; from interpreter.cli import run; status = run(['-e', '(+ 1 2)']);"
        "print('prompt_toolkit' in sys.modules, 'pygments' in sys.modules, status)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, cwd=ROOT)
    assert done.stdout == "3\nFalse False 0\n"


@pytest.mark.slow
def test_usage_is_printed_on_stderr_at_the_end() -> None:
    done = run("--usage", "-e", "(+ 1 2)")
    assert (done.returncode, done.stdout) == (0, "3\n")
    assert done.stderr.startswith("usage: 0 calls")


@pytest.mark.slow
def test_model_record_and_replay_flags(tmp_path: Path) -> None:
    pytest.importorskip("llm_echo")
    prog = tmp_path / "shout.scm"
    prog.write_text(
        '(define-task (shout text)\n  (prompt "Shout: {{text}}"))\n(display (get (shout "hi") \'content))\n'
    )
    recording = tmp_path / "calls.jsonl"
    recorded = run("--model", "echo", "--record", str(recording), str(prog))
    assert recorded.returncode == 0, recorded.stderr
    assert "Shout: hi" in recorded.stdout and recording.exists()
    replayed = run("--replay", str(recording), "--usage", str(prog))
    assert (replayed.returncode, replayed.stdout) == (0, recorded.stdout)
    assert replayed.stderr.startswith("usage: 1 call")


@pytest.mark.skipif(sys.platform == "win32", reason="uses a POSIX shell pipeline")
def test_a_closed_pipe_ends_the_program_quietly(tmp_path: Path) -> None:
    loop = "(let loop ((i 0)) (display i) (newline) (loop (+ i 1)))"
    command = f"'{sys.executable}' '{REPL}' -e '{loop}' 2>'{tmp_path}/err' | head -1"
    done = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=30, cwd=ROOT)
    assert done.stdout == "0\n"
    assert (tmp_path / "err").read_text() == ""


def test_the_command_line_tunes_the_garbage_collector_after_start_up() -> None:
    """interpreter.collector: the start-up heap is frozen and the youngest generation is
    collected less often (a separate process: the settings are process-wide)."""
    code = (
        "import gc; from interpreter.collector import tune_collector, YOUNG_THRESHOLD; tune_collector(); "
        "print(gc.get_threshold()[0] == YOUNG_THRESHOLD, gc.get_freeze_count() > 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "True"]
