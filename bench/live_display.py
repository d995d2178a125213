"""What the terminal's live display costs (tasks/observe/screen.py, tasks/observe/progress.py), beside plain writes.

    .venv/bin/python bench/live_display.py            # best of 5
    .venv/bin/python bench/live_display.py --lines 5000

Rows, all into an in-memory terminal (a StringIO that says it is a TTY), so the figures are
the display's own work, not the terminal's:
- a line of program output written straight to the stream, through the guard while the
  display is idle (the usual case), and while it is showing a spinner (it steps aside for
  every line and is redrawn at the next tick);
- a piece of streamed model text (a line ends every 8 pieces) shown by the display, beside
  writing the same piece straight to the stream.
Wall-clock figures on a shared machine move by 10-30% between runs: compare within one run.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.pop("NO_COLOR", None)
os.environ.pop("CI", None)
os.environ["TERM"] = "xterm"

from interpreter.tasks.observe.progress import TerminalProgress  # noqa: E402
from interpreter.tasks.observe.screen import GuardedStream, Screen  # noqa: E402
from interpreter.tasks.observe.tracing import Span  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from timing import best  # noqa: E402


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def span(name: str) -> Span:
    return Span("model", name, name, None, "run", time.time() - 5.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    opts = parser.parse_args()
    n, line = opts.lines, "a line of program output, about sixty characters long....\n"

    def straight() -> None:
        out = Terminal()
        for _ in range(n):
            out.write(line)

    def guarded(showing: bool) -> None:
        out = Terminal()
        screen = Screen(out, interval=3600)  # no ticker redraws inside the timing
        progress = TerminalProgress(out, delay=0.0)
        progress._screen = screen
        if showing:
            progress.opened(span("busy"))
        stream = GuardedStream(out, screen)
        for _ in range(n):
            stream.write(line)
        screen.close()

    pieces = ["word " * 3] * 7 + ["end of a line\n"]

    def streamed() -> None:
        out = Terminal()
        screen = Screen(out, interval=3600)
        progress = TerminalProgress(out, delay=0.0)
        progress._screen = screen
        call = span("writer")
        progress.opened(call)
        for i in range(n):
            progress.stream_text(call, pieces[i % 8])
        screen.close()

    def streamed_straight() -> None:
        out = Terminal()
        for i in range(n):
            out.write(pieces[i % 8])

    rows = [
        ("program line, straight", straight),
        ("program line, guard, display idle", lambda: guarded(False)),
        ("program line, guard, spinner showing", lambda: guarded(True)),
        ("streamed piece, straight", streamed_straight),
        ("streamed piece, live display", streamed),
    ]
    print(f"{n} writes per row, best of {opts.repeat} (µs per write)")
    for label, fn in rows:
        print(f"  {label:<40} {best(fn, opts.repeat) / n * 1e6:9.2f}")


if __name__ == "__main__":
    main()
