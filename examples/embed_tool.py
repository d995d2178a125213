"""A small host tool that runs a model-written taskscheme program safely.

    python examples/embed_tool.py                 # runs the built-in sample program
    python examples/embed_tool.py program.scm     # runs your program instead

The program gets no processes, no Python and no files outside ./workspace; it is
stopped after 200,000 steps, 5 seconds, 500 nested calls or 10,000 characters of
output. It sees only what the host gives it: two Python functions, one validated
task and an offline "model". Whatever happens, the tool prints a JSON report.
"""

from __future__ import annotations

import asyncio
import io
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from interpreter import Interpreter, SchemeError

WORKSPACE = Path(__file__).resolve().parent / "workspace"

#: What a model might have written: summarise open tickets by priority.
SAMPLE = """
(define tickets (open-tickets))
(define (urgent? t) (>= (get t 'priority) 2))
(define lines
  (map (lambda (t)
         (string-append "#" (number->string (get t 'id)) " " (get (summarize (get t 'title)) 'content)))
       (filter urgent? tickets)))
(display (string-join lines "\\n"))
(newline)
(list (length tickets) (length lines) (escalate 7 #:reason "customer waiting"))
"""


class Ticket(BaseModel):
    id: int
    title: str
    priority: int


TICKETS = [
    Ticket(id=7, title="Checkout page times out for EU customers", priority=3),
    Ticket(id=8, title="Typo in footer", priority=0),
    Ticket(id=9, title="Password reset mail arrives late", priority=2),
]


def offline_model(prompt: str, system: str | None) -> str:
    """Stands in for a real model so the example runs anywhere: keeps the last five words."""
    return " ".join(prompt.split()[-5:])


def make_interpreter(out: io.StringIO) -> Interpreter:
    interp = Interpreter(
        stdout=out,
        allow_files=[str(WORKSPACE)],  # load/include/file ports only inside ./workspace
        max_steps=200_000,
        timeout=5.0,
        max_depth=500,
        max_output=10_000,
    )
    interp.models.register("offline", offline_model)
    interp.eval('(define-task (summarize text) (model "offline") (prompt "Summarize in five words: {{text}}"))')

    @interp.primitive
    def open_tickets() -> list[Ticket]:
        """The open tickets (read-only copies)."""
        return [t.model_copy() for t in TICKETS]

    @interp.task
    def escalate(ticket_id: int, reason: str = "") -> str:
        """Escalate a ticket; pydantic checks the arguments."""
        if ticket_id not in {t.id for t in TICKETS}:
            raise ValueError(f"no ticket {ticket_id}")
        return f"escalated #{ticket_id}" + (f" ({reason})" if reason else "")

    return interp


async def run(program: str) -> dict[str, Any]:
    out = io.StringIO()
    interp = make_interpreter(out)
    report: dict[str, Any] = {}
    try:
        # The interpreter's own timeout stops the program; wait_for is the host's last resort.
        value = await asyncio.wait_for(interp.aeval(program, filename="model-program.scm"), timeout=10)
        report["ok"] = True
        report["value"] = value
    except SchemeError as err:
        report["ok"] = False
        report["error"] = err.to_record().model_dump()
    except TimeoutError:
        report["ok"] = False
        report["error"] = {"kind": "host-timeout", "message": "the program was cancelled"}
    report["output"] = out.getvalue()
    report["model_calls"] = interp.usage.total.calls
    return report


def main(argv: list[str]) -> int:
    program = Path(argv[1]).read_text(encoding="utf-8") if len(argv) > 1 else SAMPLE
    report = asyncio.run(run(program))
    print(json.dumps(report, indent=2, default=str))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
