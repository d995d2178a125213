"""The one script runner, shared by ``run-script``, script tasks and the loop's script stage.

A command runs in its own process group (in the caller's session) without a shell (unless asked), with
optional standard input, working folder, extra environment and a timeout that
kills the whole group. Each output stream is capped; bytes that are not UTF-8
are replaced.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from .errors import task_failure
from .models.journaled import SCRIPT_RUNS, script_request
from .records import ScriptResult

#: Bytes kept of each output stream by default (1 MiB).
MAX_OUTPUT = 1 << 20
#: Seconds between checks of the running program (cancellation, its time limit) while a command runs.
POLL_EVERY = 0.05
#: Seconds a script may run when its task, loop or call gives no timeout (the seeds' default).
DEFAULT_TIMEOUT = 300.0
CHUNK = 1 << 16


class _Capture(threading.Thread):
    """Reads a pipe to its end, keeping the first ``cap`` bytes."""

    def __init__(self, pipe: object, cap: int) -> None:
        super().__init__(daemon=True)
        self.pipe = pipe
        self.cap = cap
        self.data = bytearray()
        self.truncated = False

    def run(self) -> None:
        read = self.pipe.read  # type: ignore[attr-defined]
        try:
            while chunk := read(CHUNK):
                room = self.cap - len(self.data)
                if len(chunk) > room:
                    self.truncated = True
                    chunk = chunk[: max(room, 0)]
                self.data += chunk
        except (OSError, ValueError):
            pass

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


#: Lines of standard error a failure message quotes.
TAIL_LINES = 5
#: Characters of standard error a failure message quotes at most.
TAIL_CHARS = 600


def stderr_tail(result: ScriptResult) -> str:
    """``": "`` and the last lines of the script's standard error, or "" when it wrote none."""
    lines = result.stderr.rstrip().splitlines()[-TAIL_LINES:]
    text = "\n".join(lines)
    if len(text) > TAIL_CHARS:
        text = "…" + text[-TAIL_CHARS:]
    return f": {text}" if text else ""


def failure_message(result: ScriptResult, timeout: float | None) -> str | None:
    """Why a script run failed (a timeout, or a non-zero exit with its stderr's tail), or None."""
    if result.timed_out:
        return f"script timed out after {timeout or 0:g} s{stderr_tail(result)}"
    if result.exit_code != 0:
        return f"script exited with code {result.exit_code}{stderr_tail(result)}"
    return None


def timeout_or_default(timeout: float | None) -> float:
    """``timeout``, or :data:`DEFAULT_TIMEOUT` when none was given: no script runs without a limit."""
    return DEFAULT_TIMEOUT if timeout is None else timeout


def split_command(command: str | Sequence[str], shell: bool = False) -> list[str] | str:
    """A command string split as a POSIX shell would (kept whole for a shell), or a list as is."""
    if isinstance(command, str):
        if shell:
            return command
        try:
            return shlex.split(command)
        except ValueError as exc:
            raise task_failure("bad_command", f"cannot split the command {command!r}: {exc}") from None
    return [str(arg) for arg in command]


def run_script(
    command: str | Sequence[str],
    *,
    input: str | None = None,
    timeout: float | None = None,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    shell: bool = False,
    max_output: int = MAX_OUTPUT,
    poll: Callable[[], None] | None = None,
) -> ScriptResult:
    """Run ``command`` and return what it did; ``env`` adds to (or overrides) the environment.

    ``poll`` (the runtime's limit check) is called every :data:`POLL_EVERY` seconds while
    the command runs; if it raises (the program was cancelled or ran out of time), the
    command's whole process group is killed and the error propagates. In a durable run the
    result is journaled, and a resumed run is answered from the journal (docs/durable.md).
    """
    argv = split_command(command, shell)
    if not argv:
        raise task_failure("bad_command", "run-script: empty command")
    if shell and not isinstance(argv, str):
        argv = shlex.join(argv)
    request = script_request(argv, input, cwd, env, shell, timeout, max_output)
    return SCRIPT_RUNS(request, lambda: _run(argv, input, timeout, cwd, env, shell, max_output, poll))


def _run(
    argv: list[str] | str,
    input: str | None,
    timeout: float | None,
    cwd: str | Path | None,
    env: Mapping[str, str] | None,
    shell: bool,
    max_output: int,
    poll: Callable[[], None] | None,
) -> ScriptResult:
    """Start the command and wait for it (see :func:`run_script`)."""
    environment = {**os.environ, **env} if env else None
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=environment,
            shell=shell,
            # Its own process group (killed as a whole), in the session of the process that
            # runs it: an isolated interpreter's child leads a session, and the host kills
            # that whole session with the child (isolation/host.py end_process).
            process_group=0,
        )
    except FileNotFoundError:
        if cwd is not None and not Path(cwd).is_dir():
            raise task_failure("bad_cwd", f"run-script: no such folder: {cwd}") from None
        name = argv if isinstance(argv, str) else argv[0]
        raise task_failure("command_not_found", f"run-script: command not found: {name}") from None
    except PermissionError:
        name = argv if isinstance(argv, str) else argv[0]
        raise task_failure("command_not_executable", f"run-script: permission denied: {name}") from None
    except OSError as exc:  # not a directory, exec format error …
        name = argv if isinstance(argv, str) else argv[0]
        raise task_failure("command_failed", f"run-script: cannot run {name}: {exc.strerror or exc}") from None
    readers = [_Capture(proc.stdout, max_output), _Capture(proc.stderr, max_output)]
    for reader in readers:
        reader.start()
    if input is not None:
        threading.Thread(target=_feed, args=(proc, input), daemon=True).start()
    try:
        timed_out = not _wait(proc, readers, start, timeout, poll)
    except BaseException:
        _kill_group(proc)
        proc.wait()
        raise
    if timed_out:
        _kill_group(proc)
        proc.wait()
        for reader in readers:
            reader.join(1.0)
    out, err = readers
    return ScriptResult(
        stdout=out.text(),
        stderr=err.text(),
        exit_code=proc.returncode if proc.returncode is not None else -1,
        timed_out=timed_out,
        duration_s=round(time.monotonic() - start, 6),
        truncated=out.truncated or err.truncated,
    )


def _feed(proc: subprocess.Popen[bytes], text: str) -> None:
    """Write ``text`` to the process's standard input and close it."""
    assert proc.stdin is not None
    try:
        proc.stdin.write(text.encode("utf-8"))
        proc.stdin.close()
    except (BrokenPipeError, OSError, ValueError):
        pass


def _wait(
    proc: subprocess.Popen[bytes],
    readers: list[_Capture],
    start: float,
    timeout: float | None,
    poll: Callable[[], None] | None = None,
) -> bool:
    """Wait for the process and its output; False if the timeout came first."""

    def left() -> float | None:
        return None if timeout is None else max(0.0, start + timeout - time.monotonic())

    def done(wait: Callable[[float | None], bool]) -> bool:
        """Call ``wait(seconds)`` until it succeeds (True) or the time is up (False), polling."""
        while True:
            remaining = left()
            if poll is None:
                return wait(remaining)
            if wait(POLL_EVERY if remaining is None else min(remaining, POLL_EVERY)):
                return True
            if remaining is not None and remaining <= POLL_EVERY:
                return False
            poll()

    def exited(seconds: float | None) -> bool:
        try:
            proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            return False
        return True

    def drained(reader: _Capture) -> Callable[[float | None], bool]:
        def wait(seconds: float | None) -> bool:
            reader.join(seconds)
            return not reader.is_alive()

        return wait

    return done(exited) and all(done(drained(reader)) for reader in readers)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the process and everything it started in its group."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
