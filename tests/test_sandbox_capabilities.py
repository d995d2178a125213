"""stdin and models are capabilities the host grants (issue 17, items 4 and 6)."""

from __future__ import annotations

import io
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import run_cli

from interpreter import Interpreter
from interpreter.datatypes import EOF
from interpreter.errors import SchemeError

ROOT = Path(__file__).resolve().parent.parent


# -- stdin -------------------------------------------------------------------------------------
def test_an_embedded_program_reads_no_host_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("the host's secret\n"))
    interp = Interpreter()
    assert interp.eval_scheme("(read-line)") is EOF
    assert interp.eval_scheme("(read-char)") is EOF
    assert sys.stdin.read() == "the host's secret\n"


def test_an_embedded_program_reads_the_stream_the_host_gives() -> None:
    interp = Interpreter(stdin=io.StringIO("first\nsecond\n"))
    assert interp.eval("(read-line)") == "first"
    assert interp.eval("(read-line)") == "second"
    assert interp.eval_scheme("(read-line)") is EOF


def test_the_command_line_keeps_stdin() -> None:
    done = run_cli(["-e", "(display (string-upcase (read-line)))"], stdin="hello\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "HELLO"


def test_ctrl_c_while_a_cli_program_reads_stdin_exits_130() -> None:
    program = '(display "ready") (newline) (flush-output-port) (define line (read-line)) (display "after the read")'
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "repl.py"), "-e", program],
        stdin=subprocess.PIPE,  # kept open: the read waits
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "ready\n"  # started: the read comes next
        time.sleep(0.3)  # let it block in the read
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130
    assert "interrupted" in err
    assert "after the read" not in out
    assert "Traceback" not in err


# -- models -------------------------------------------------------------------------------------
PROGRAM = '(define-task (hello) (model "echo") (prompt "hi")) (get (hello) (quote content))'


def test_an_embedded_program_reaches_no_installed_model() -> None:
    interp = Interpreter()
    with pytest.raises(SchemeError) as info:
        interp.eval(PROGRAM)
    assert "unknown model echo" in info.value.message
    assert "allow_models" in info.value.message


def test_the_same_words_whether_or_not_llm_has_the_model() -> None:
    interp = Interpreter()
    messages = []
    for name in ("echo", "surely-no-such-model"):
        with pytest.raises(SchemeError) as info:
            interp.eval(f'(define-task (t) (model "{name}") (prompt "x")) (t)')
        messages.append(info.value.message.replace(name, "NAME"))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("allow", [True, ["echo"]])
def test_the_host_allows_models(allow: bool | list[str]) -> None:
    interp = Interpreter(allow_models=allow)
    assert "hi" in interp.eval(PROGRAM)


def test_a_list_allows_only_its_models() -> None:
    interp = Interpreter(allow_models=["some-other-model"])
    with pytest.raises(SchemeError):
        interp.eval(PROGRAM)


def test_models_the_host_registers_or_names_need_no_capability() -> None:
    interp = Interpreter()
    interp.models.register("shout", lambda prompt, system: prompt.upper())
    assert interp.eval('(define-task (t) (model "shout") (prompt "hey")) (get (t) (quote content))') == "HEY"
    assert "hi" in Interpreter(model="echo").eval('(define-task (hello) (prompt "hi")) (get (hello) (quote content))')


@pytest.mark.slow
def test_the_command_line_allows_every_model() -> None:
    done = run_cli(["-e", PROGRAM.replace("(get ", "(display (get ") + ")"])
    assert done.returncode == 0, done.stderr
    assert "hi" in done.stdout
