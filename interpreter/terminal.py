"""What the terminal can show, and errors dressed for it."""

from __future__ import annotations

import os
from typing import IO, Any

from .errors import SchemeError
from .evaluator import Interrupted
from .tasks.failures import failure_summary
from .tasks.observe.screen import is_terminal

RED_BOLD = "\x1b[1;31m"
YELLOW_BOLD = "\x1b[1;33m"
DIM = "\x1b[2m"
RESET = "\x1b[0m"

#: Frames shown for an interrupted program: where it was, not the whole stack.
INTERRUPT_FRAMES = 3


def supports_colour(stream: IO[str] | None) -> bool:
    """True for a terminal that takes ANSI colour (honours ``NO_COLOR`` and ``TERM=dumb``)."""
    if "NO_COLOR" in os.environ or os.environ.get("TERM") == "dumb":
        return False
    return is_terminal(stream)


def format_error(err: SchemeError, colour: bool = False) -> str:
    """``err.format()``, shortened for an interruption, with the first line in red when ``colour``."""
    if isinstance(err, Interrupted) and len(err.frames) > INTERRUPT_FRAMES:
        hidden = len(err.frames) - INTERRUPT_FRAMES
        err.frames = err.frames[:INTERRUPT_FRAMES]
        text = err.format() + f"\n  … {hidden} more frames"
    else:
        text = err.format()
    if not colour:
        return text
    head, _, rest = text.partition("\n")
    lines = [f"{RED_BOLD}{head}{RESET}"]
    if rest:
        lines.append(f"{DIM}{rest}{RESET}")
    return "\n".join(lines)


def format_warning(text: str, colour: bool = False) -> str:
    """A one-line warning, in yellow when ``colour``."""
    return f"{YELLOW_BOLD}{text}{RESET}" if colour else text


def format_failure(result: Any, colour: bool = False) -> str:
    """A FAILED TaskResult or LoopResult's error, worded and coloured as an error."""
    text = f"error: FAILED {type(result).__name__}: {failure_summary(result)}"
    return f"{RED_BOLD}{text}{RESET}" if colour else text
