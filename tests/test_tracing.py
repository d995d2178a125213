"""Tracing: events from task calls, model calls, scripts, steps and iterations; --trace; progress."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from helpers import users_terminal

from interpreter import Interpreter
from interpreter.cli import run as cli_run
from interpreter.tasks.observe.tracing import Event, EventHub, JsonlWriter, TerminalProgress

PROGRAM = """
(define-model "m" (lambda (prompt system) (string-append "said " prompt)))
(define-task (speak x) (model "m") (prompt "hello {{x}}"))
(define-task (twice x) (list (speak x) (speak x)))
"""


def traced(source: str, **kwargs: object) -> list[Event]:
    """The events of running ``source``, without the run's own events and single attempts."""
    return [e for e in all_events(source, **kwargs) if e.kind not in ("run", "attempt")]


def all_events(source: str, **kwargs: object) -> list[Event]:
    interp = Interpreter(**kwargs)  # type: ignore[arg-type]
    interp.eval(PROGRAM)
    events: list[Event] = []
    interp.on_event(events.append)
    interp.eval(source)
    return events


def test_task_and_model_calls_emit_events_with_usage() -> None:
    events = traced('(twice "you")')
    kinds = [(e.kind, e.name) for e in events]
    assert kinds == [("model", "m"), ("task", "speak"), ("model", "m"), ("task", "speak"), ("task", "twice")]
    model, speak = events[0], events[1]
    assert model.usage == {"input_tokens": 3, "output_tokens": 4}
    assert model.info == {
        "task": "speak",
        "model": "m",
        "system": None,
        "prompt": "hello you",
        "options": {},
        "response": "said hello you",
        "attempts": 1,
        "cached": False,
    }
    assert speak.status == "COMPLETE"
    assert speak.usage == {"calls": 1, "input_tokens": 3, "output_tokens": 4}
    assert events[-1].usage == {"calls": 2, "input_tokens": 6, "output_tokens": 8}
    for event in events:
        assert event.end >= event.start and event.duration >= 0


def test_the_outer_task_event_covers_its_body() -> None:
    events = traced('(twice "you")')
    outer = events[-1]
    assert outer.start <= events[0].start and outer.end >= events[-2].end


def test_failing_tasks_report_an_error() -> None:
    events = traced("(define-task (bad) (car 1)) (guard (e (#t #f)) (bad))")
    assert (events[-1].kind, events[-1].status) == ("task", "error")
    assert "car" in events[-1].info["error"]
    assert events[-1].error is not None and events[-1].error["type"] == "type-error"
    assert "car" in events[-1].error["message"]


def test_loop_iterations_and_the_loop() -> None:
    events = traced(
        '(director-evaluator-loop (max-iterations 3) (director "x") (evaluator (make-evaluation (= current-iteration 1) "fb\\nmore")))'
    )
    iterations = [e for e in events if e.kind == "iteration"]
    assert [e.name for e in iterations] == ["director-evaluator-loop#0", "director-evaluator-loop#1"]
    assert [e.status for e in iterations] == ["continue", "success"]
    assert iterations[0].info == {"iteration": 0, "success": False, "feedback": "fb\nmore"}  # whole, for the viewer
    assert (events[-1].kind, events[-1].status, events[-1].info["iterations"]) == ("loop", "COMPLETE", 2)


def test_a_loop_inside_a_task_is_named_after_it() -> None:
    events = traced('(define-task (refine) (director-evaluator-loop (director "x") (evaluator #t))) (refine)')
    assert [e.name for e in events if e.kind == "iteration"] == ["refine#0"]


def test_sequential_steps() -> None:
    events = traced('(sequential (step a "x") (step b (speak "y")) (car 1))')
    steps = [(e.name, e.status) for e in events if e.kind == "step"]
    assert steps == [("sequential/a", "ok"), ("sequential/b", "ok"), ("sequential/3", "error")]


def test_script_runs() -> None:
    events = traced(
        f"""(run-script '("{sys.executable}" "-c" "print(1)"))
            (define-task (print-two) (script "{sys.executable} -c 'print(2)'"))
            (print-two)
            (director-evaluator-loop (max-iterations 1) (director "s")
              (script-execution '("{sys.executable}" "-c" "import sys; sys.exit(4)")) (evaluator #f))""",
        allow_scripts=True,
    )
    scripts = [e for e in events if e.kind == "script"]
    assert [e.status for e in scripts] == ["exit 0", "exit 0", "exit 4"]
    assert scripts[1].name == "print-two"


def test_unsubscribe_and_no_cost_without_subscribers() -> None:
    interp = Interpreter()
    interp.eval(PROGRAM)
    events: list[Event] = []
    stop = interp.on_event(events.append)
    interp.eval('(speak "a")')
    stop()
    interp.eval('(speak "b")')
    assert [e.kind for e in events] == ["run", "attempt", "model", "task", "run"]


def test_a_failing_subscriber_is_dropped_with_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    interp = Interpreter()
    interp.eval(PROGRAM)

    def broken(event: Event) -> None:
        raise OSError("disk full")

    interp.on_event(broken)
    assert interp.eval('(get (speak "a") \'content)') == "said hello a"
    assert "disk full" in capsys.readouterr().err
    assert interp.events.subscribers == []


def test_events_print_readably() -> None:
    event = Event(kind="task", name="t", start=1.0, end=1.5, duration=0.5, status="ok", usage={"calls": 1})
    assert str(event) == "task t: ok in 500.0 ms (calls 1)"


def test_jsonl_writer() -> None:
    out = io.StringIO()
    hub = EventHub()
    hub.subscribe(JsonlWriter(out))
    hub.finish("step", "s", 0.0, "ok", info={"index": 1})
    data = json.loads(out.getvalue())
    assert data["kind"] == "step" and data["info"] == {"index": 1}


def test_cli_trace_writes_json_lines(tmp_path: Path) -> None:
    program = tmp_path / "p.scm"
    program.write_text(PROGRAM + '(twice "x")')
    trace = tmp_path / "run.jsonl"
    assert cli_run(["--trace", str(trace), str(program)]) == 0
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert [x["kind"] for x in lines if x["kind"] != "attempt"] == [
        "run",
        "model",
        "task",
        "model",
        "task",
        "task",
        "run",
    ]
    fields = {
        "kind",
        "name",
        "id",
        "parent_id",
        "run_id",
        "start",
        "end",
        "duration",
        "status",
        "error",
        "usage",
        "info",
    }
    assert all(set(line) == fields for line in lines)


# -- terminal progress -----------------------------------------------------------------
class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


#: How the live display ends: the last line erased, the cursor shown again.
ERASED_AND_CURSOR_SHOWN = "\x1b[2K\x1b[?25h\r"


def test_progress_draws_on_a_terminal_and_clears_at_the_end(monkeypatch: pytest.MonkeyPatch) -> None:
    users_terminal(monkeypatch)
    screen = FakeTerminal()
    progress = TerminalProgress(screen, delay=0.0, interval=0.0)
    progress.begin()
    progress.update("loop: iteration 1 of 3 · needs work")
    progress.update("loop: iteration 2 of 3 · better")
    progress.end()
    text = screen.getvalue()
    assert "iteration 1 of 3 · needs work" in text and "iteration 2 of 3" in text
    assert text.endswith(ERASED_AND_CURSOR_SHOWN)


def test_a_long_loop_shows_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    users_terminal(monkeypatch)
    screen = FakeTerminal()
    interp = Interpreter()
    interp.events.progress = TerminalProgress(screen, delay=0.0, interval=0.0)
    interp.eval(
        '(director-evaluator-loop (max-iterations 2) (director "x") (evaluator (make-evaluation #f "try harder")))'
    )
    assert "director-evaluator-loop: iteration 2 of 2 · try harder" in screen.getvalue()


PLAIN = "loop: iteration 1 of 3 · needs work\n"


@pytest.mark.parametrize(("env", "shown"), [({"TERM": "dumb"}, PLAIN), ({"NO_COLOR": "1"}, PLAIN), ({"CI": "1"}, "")])
def test_plain_lines_on_dumb_terminals_and_without_colour_nothing_in_ci(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], shown: str
) -> None:
    users_terminal(monkeypatch)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    screen = FakeTerminal()
    progress = TerminalProgress(screen, delay=0.0, interval=0.0)
    progress.begin()
    progress.update("loop: iteration 1 of 3 · needs work")
    progress.end()
    assert screen.getvalue() == shown


def test_no_progress_in_pipes() -> None:
    pipe = io.StringIO()
    progress = TerminalProgress(pipe, delay=0.0, interval=0.0)
    progress.begin()
    progress.update("x")
    progress.end()
    assert pipe.getvalue() == ""


def test_short_loops_draw_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    users_terminal(monkeypatch)
    screen = FakeTerminal()
    progress = TerminalProgress(screen)  # default delay: half a second
    progress.begin()
    progress.update("x")
    progress.end()
    assert screen.getvalue() == ""


def test_repl_trace_command_prints_events() -> None:
    from interpreter.repl.session import ReplSession

    err, out = io.StringIO(), io.StringIO()

    def make() -> Interpreter:
        interp = Interpreter(stdout=out)
        interp.eval(PROGRAM)
        return interp

    session = ReplSession(make, err=err)
    session.submit(",trace on")
    session.submit('(speak "x")')
    session.submit(",trace off")
    session.submit('(speak "y")')
    lines = [line for line in err.getvalue().splitlines() if line.startswith("·")]
    assert lines == [line for line in lines if "speak" in line or "model m" in line]
    assert len(lines) == 2
    assert lines[1].startswith("· task speak: COMPLETE in ")
