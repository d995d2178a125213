"""The REPL without a screen: read lines, evaluate each complete input. For pipes, CI and dumb terminals."""

from __future__ import annotations

from typing import IO

from ..reader import is_complete
from .commands import is_command
from .session import ReplSession

PROMPT = "> "
CONTINUATION = ".. "


def run_plain(session: ReplSession, stdin: IO[str], prompt_to: IO[str] | None = None) -> int:
    """Read ``stdin`` line by line until it ends or the session is done; the exit status.

    ``prompt_to`` (when given) receives the prompts: standard error when a person is typing.
    """
    buffer = ""
    while not session.done:
        if prompt_to is not None:
            prompt_to.write(CONTINUATION if buffer else PROMPT)
            prompt_to.flush()
        try:
            line = stdin.readline()
        except KeyboardInterrupt:
            buffer = ""
            if prompt_to is not None:
                prompt_to.write("\n")
            continue
        if not line:
            if buffer.strip():
                session.submit(buffer)  # an unfinished expression: let the reader say what is missing
            break
        if not buffer and is_command(line):
            session.submit(line)
            continue
        buffer += line
        if is_complete(buffer):
            text, buffer = buffer, ""
            session.submit(text)
    return session.exit_code
