"""What the terminal can show, and errors dressed for it."""

from __future__ import annotations

import os
from typing import IO

from .errors import SchemeError
from .evaluator import Interrupted

RED_BOLD = "\x1b[1;31m"
DIM = "\x1b[2m"
RESET = "\x1b[0m"

#: Frames shown for an interrupted program: where it was, not the whole stack.
INTERRUPT_FRAMES = 3


def is_terminal(stream: IO[str] | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


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
