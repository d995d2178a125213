"""Helpers shared by the test files: primitives' checks, a spy on compiled bodies, and the
command line run in this process (:func:`run_cli`), and the environment of a child on a
pseudo-terminal (:func:`terminal_env`)."""

from __future__ import annotations

import gc
import io
import os
import subprocess
import sys
import traceback
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from interpreter import Interpreter, SchemeError, cli
from interpreter.collector import HEAP
from interpreter.compiler import body
from interpreter.equality import is_equal
from interpreter.reader import read_all


def same(value: object, expected_src: str) -> bool:
    """``equal?`` to the datum written in ``expected_src`` (exactness matters)."""
    return is_equal(value, read_all(expected_src)[0])


def assert_error(interp: Interpreter, src: str, message: str, kind: str) -> None:
    """Evaluating ``src`` fails with an error of ``kind`` whose message holds ``message``."""
    with pytest.raises(SchemeError) as info:
        interp.eval_scheme(src)
    assert message in info.value.message
    assert info.value.kind == kind


@contextmanager
def compiled_sources() -> Iterator[list[str]]:
    """The Python source of every procedure body compiled inside the block (a spy on
    ``interpreter.compiler.body.compiled``, which then compiles every source afresh, its
    cache of recent code objects bypassed)."""
    seen: list[str] = []
    real = body.compiled

    def spy(source: str) -> Any:
        seen.append(source)
        return real.__wrapped__(source)

    body.compiled = spy  # type: ignore[assignment]
    try:
        yield seen
    finally:
        body.compiled = real  # type: ignore[assignment]


#: Variables that make a session on a terminal behave unlike a user's: CI (``.ci/run`` runs with
#: CI=true, which turns the progress spinner off), NO_COLOR and TASKSCHEME_PROGRESS.
NOT_A_USERS_TERMINAL = ("CI", "NO_COLOR", "TASKSCHEME_PROGRESS")


def terminal_env(**settings: str) -> dict[str, str]:
    """The environment for a child on a pseudo-terminal, as a user's terminal has it, the same
    in CI as on a developer's machine: this process's, with ``TERM=xterm`` and without
    :data:`NOT_A_USERS_TERMINAL` (unless ``settings`` give them), then ``settings``."""
    env = {key: value for key, value in os.environ.items() if key not in NOT_A_USERS_TERMINAL}
    return {**env, "TERM": "xterm", **settings}


def users_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process's environment as a user's terminal has it (see :func:`terminal_env`), for a
    test that draws on a fake terminal in this process."""
    for key in NOT_A_USERS_TERMINAL:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("TERM", "xterm")


def run_cli(
    args: Sequence[str],
    *,
    stdin: str = "",
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """``taskscheme ARGS`` run in this process through the command's entry point
    (``interpreter.cli.main``), as ``subprocess.run(..., input=stdin, capture_output=True,
    text=True)`` would run it: ``stdin`` piped in (never a terminal), ``env`` the whole
    environment (default: this process's), ``cwd`` the current folder; the exit status and what
    the command wrote to standard output and standard error.

    A fraction of a millisecond against half a second of CPU for a new Python that imports the
    package and loads the stdlib. For what only a process shows (signals, a terminal, start-up
    imports, the closed pipe, the installed command) tests still start one. What the command sets
    process-wide is put back afterwards: the environment, the folder, ``sys.argv`` and the standard
    streams, and the collector settings that :func:`interpreter.collector.tune_collector` changes;
    the run's interpreter is collected, so its files and locks are let go as at a process's end.
    A Python exception that escapes the command is printed on its standard error with status 1,
    as the interpreter would."""
    out, err = io.StringIO(), io.StringIO()
    with _command_process(["taskscheme", *args], io.StringIO(stdin), out, err, env, cwd):
        try:
            cli.main()
            status = 0
        except SystemExit as done:
            status = _exit_status(done.code, err)
        except Exception:  # a real process prints it and exits 1; so does this
            traceback.print_exc(file=err)
            status = 1
    return subprocess.CompletedProcess(list(args), status, out.getvalue(), err.getvalue())


def _exit_status(code: object, err: io.StringIO) -> int:
    """The status ``sys.exit(code)`` gives a process (a message goes to standard error, status 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=err)
    return 1


@contextmanager
def _command_process(
    argv: list[str],
    stdin: io.StringIO,
    stdout: io.StringIO,
    stderr: io.StringIO,
    env: Mapping[str, str] | None,
    cwd: str | Path | None,
) -> Iterator[None]:
    """This process dressed as the command's own for the block, then put back as it was."""
    saved_env, saved_cwd, saved_argv = dict(os.environ), os.getcwd(), sys.argv
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    saved_gc = gc.get_threshold(), gc.get_freeze_count(), HEAP.tuned, HEAP.froze
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    if cwd is not None:
        os.chdir(cwd)
    sys.argv = argv
    sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
    try:
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        if os.environ != saved_env:  # env given, or the program set a variable
            os.environ.clear()
            os.environ.update(saved_env)
        thresholds, frozen, HEAP.tuned, HEAP.froze = saved_gc
        if gc.get_freeze_count() > frozen:  # tune_collector froze the heap: a real process ends instead
            gc.unfreeze()
        gc.set_threshold(*thresholds)
        # The process would end here, letting go of what the run held: its journal's lock, its
        # cache and memory files. The interpreter sits in reference cycles, so collect them.
        gc.collect()


def value_and_steps(definitions: str, call: str) -> tuple[Any, int]:
    """``call``'s value in a fresh interpreter that ran ``definitions``, and the steps it counted."""
    interp = Interpreter(max_steps=10**9)
    interp.eval(definitions)
    before = interp.runtime.steps
    value = interp.eval(call)
    return value, interp.runtime.steps - before


def step_limit_strikes_at(definitions: str, call: str, steps: int) -> Any:
    """Check that ``call``, run after ``definitions``, ends at the step limit exactly at
    ``steps``: under ``max_steps=steps + 1`` it returns (counting ``steps``), under
    ``max_steps=steps`` it fails with the step limit. Returns the value it returned."""
    interp = Interpreter(max_steps=steps + 1)
    interp.eval(definitions)
    before = interp.runtime.steps
    value = interp.eval(call)
    assert interp.runtime.steps - before == steps
    interp = Interpreter(max_steps=steps)
    interp.eval(definitions)
    with pytest.raises(SchemeError, match="step limit"):
        interp.eval(call)
    return value
