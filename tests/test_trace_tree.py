"""Traces as trees: ids and parent links, run events, redaction, ``taskscheme trace``,
OpenTelemetry spans, and what a terminal shows (streamed model text, a spinner)."""

from __future__ import annotations

import io
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import terminal_env, users_terminal

from interpreter import Interpreter
from interpreter.cli import run as cli_run
from interpreter.tasks.observe.progress import TerminalProgress
from interpreter.tasks.observe.tracing import Event

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = """
(define tries 0)
(define-model (busy prompt system)
  (set! tries (+ tries 1))
  (if (= tries 2) (transient-error "overloaded") (string-append "ok " prompt)))
(define-task (ask q) (model "busy") (retries 2 (backoff 0.001)) (system "be brief") (prompt "{{q}}"))
(sequential
  (step first (ask "one"))
  (step refine
    (director-evaluator-loop (max-iterations 3)
      (director (ask "draft"))
      (evaluator (make-evaluation (> current-iteration 0) "again")))))
"""


@pytest.fixture(autouse=True)
def _llm_in_a_temporary_folder(llm_home: Path) -> None:
    """Every test here runs with llm's user folder in a temporary folder."""


def events_of(source: str, **kwargs: Any) -> list[Event]:
    interp = Interpreter(**kwargs)
    events: list[Event] = []
    interp.on_event(events.append)
    interp.eval(source, filename="prog.scm")
    return events


def test_every_event_has_ids_and_the_tree_links_up() -> None:
    events = events_of(PROGRAM)
    assert events[0].kind == "run" and events[0].status == "started" and events[0].end is None
    assert events[0].info["program"] == "prog.scm" and "version" in events[0].info and "argv" in events[0].info
    assert events[-1].kind == "run" and events[-1].id == events[0].id and events[-1].status == "ok"
    run_id = events[0].run_id
    by_id = {e.id: e for e in events}
    assert all(e.run_id == run_id and len(e.id) == 16 for e in events)
    assert all(e.parent_id is None or e.parent_id in by_id for e in events)

    def path(event: Event) -> list[str]:
        chain = []
        while event.parent_id is not None:
            event = by_id[event.parent_id]
            chain.append(f"{event.kind} {event.name}")
        return chain

    retried = next(e for e in events if e.kind == "attempt" and e.status == "error")
    assert path(retried) == [
        "model busy",
        "task ask",
        "iteration director-evaluator-loop#0",
        "loop director-evaluator-loop",
        "step sequential/refine",
        "run prog.scm",
    ]
    assert retried.error == {"type": "TASK_FAILURE", "message": "model busy failed: overloaded"}
    first_model = next(e for e in events if e.kind == "model")
    assert path(first_model) == ["task ask", "step sequential/first", "run prog.scm"]
    for event in events[1:]:
        assert event.end is not None and event.duration is not None and event.end >= event.start


def test_model_events_carry_the_call() -> None:
    events = events_of(PROGRAM)
    model = [e for e in events if e.kind == "model"][1]
    assert model.info["system"] == "be brief" and model.info["prompt"] == "draft"
    assert model.info["response"] == "ok draft" and model.info["attempts"] == 2
    assert model.info["cached"] is False and model.info["options"] == {}
    assert model.usage == {"input_tokens": 4, "output_tokens": 2}


def test_redaction_leaves_the_texts_out() -> None:
    interp = Interpreter()
    interp.events.redact = True
    events: list[Event] = []
    interp.on_event(events.append)
    interp.eval(PROGRAM)
    model = next(e for e in events if e.kind == "model")
    assert not {"system", "prompt", "response"} & set(model.info)
    assert model.info["attempts"] == 1 and model.usage is not None


def test_a_failed_iteration_carries_its_error() -> None:
    events = events_of("(director-evaluator-loop (max-iterations 2) (director (car 1)) (evaluator #t))")
    iteration = next(e for e in events if e.kind == "iteration")
    assert iteration.status == "error" and iteration.error is not None
    assert "car" in iteration.error["message"]


def test_a_schema_mismatch_event_keeps_the_answer() -> None:
    interp = Interpreter()
    interp.models.register("m", lambda p, s: "no json here")
    events: list[Event] = []
    interp.on_event(events.append)
    interp.eval('(define-task (t) (model "m") (schema "{\\"type\\": \\"object\\"}") (prompt "x"))')
    with pytest.raises(Exception, match="not JSON"):
        interp.eval("(t)")
    model = next(e for e in events if e.kind == "model")
    assert model.status == "error" and model.info["response"] == "no json here"
    assert model.error is not None and model.error["type"] == "TASK_FAILURE"


def test_a_failing_run_ends_with_its_error() -> None:
    interp = Interpreter()
    events: list[Event] = []
    interp.on_event(events.append)
    with pytest.raises(Exception, match="car"):
        interp.eval("(car 1)")
    assert events[-1].kind == "run" and events[-1].status == "error"
    assert events[-1].error is not None and events[-1].error["type"] == "type-error"


# -- taskscheme trace ------------------------------------------------------------------
def test_trace_command_prints_each_run_as_a_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "p.scm"
    program.write_text(PROGRAM + "(guard (e (#t #f)) (sequential (step bad (car 1))))")
    trace = tmp_path / "run.jsonl"
    assert cli_run(["--trace", str(trace), str(program)]) == 0
    assert cli_run(["--trace", str(trace), "-e", "(+ 1 2)"]) == 0  # a second run appends
    capsys.readouterr()
    assert cli_run(["trace", str(trace)]) == 0
    text = capsys.readouterr().out
    lines = [line for line in text.splitlines() if line]
    assert lines[0].startswith(f"run {program}  ") and lines[0].split("  ")[2] == "ok"
    assert "├─ step sequential/first" in text
    assert "│  └─ task ask" in text and "COMPLETE  3→2 tokens" in text
    assert "model busy" in text and "2 attempts" in text
    assert "attempt busy#1" in text and "✗ TASK_FAILURE: model busy failed: overloaded" in text
    assert "iteration director-evaluator-loop#0" in text and "iteration director-evaluator-loop#1" in text
    assert "step sequential/bad" in text and "✗ type-error: car: expected a pair, got 1" in text
    assert "run <-e>" in text
    # a model answered at its first attempt does not list the attempt
    assert text.count("attempt busy#") == 2
    assert cli_run(["trace", "--last", str(trace)]) == 0
    last = capsys.readouterr().out
    assert last.startswith("run <-e>") and "step" not in last


def test_trace_command_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_run(["trace", str(tmp_path / "missing.jsonl")]) == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    assert cli_run(["trace", str(bad)]) == 2
    assert f"{bad}:1: not a trace event" in capsys.readouterr().err


def test_trace_redact_from_the_command_line(tmp_path: Path) -> None:
    program = tmp_path / "p.scm"
    program.write_text(PROGRAM)
    trace = tmp_path / "run.jsonl"
    assert cli_run(["--trace", str(trace), "--trace-redact", str(program)]) == 0
    text = trace.read_text()
    assert "be brief" not in text and "ok draft" not in text and '"attempts": 2' in text.replace('":2', '": 2')


def test_cached_calls_show_in_the_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "p.scm"
    program.write_text('(define-model "m" (lambda (p s) "x")) (define-task (t) (model "m") (prompt "q")) (t) (t)')
    trace = tmp_path / "run.jsonl"
    assert cli_run(["--trace", str(trace), "--cache", str(tmp_path / "c.sqlite"), "--usage", str(program)]) == 0
    assert "1 call, 1 cached" in capsys.readouterr().err
    assert cli_run(["trace", str(trace)]) == 0
    tree = capsys.readouterr().out
    assert tree.count("  cached") == 1 and "model m  0.0" in tree


def test_no_cache_beats_cache(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "p.scm"
    program.write_text(
        '(define-model "m" (lambda (p s) "x")) (define-task (t) (model "m") (cache #t) (prompt "q")) (t) (t)'
    )
    assert cli_run(["--cache", str(tmp_path / "c.sqlite"), "--no-cache", "--usage", str(program)]) == 0
    assert "2 calls," in capsys.readouterr().err


# -- OpenTelemetry -----------------------------------------------------------------------
def test_spans_go_to_opentelemetry_with_genai_names() -> None:
    sdk = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from interpreter.tasks.observe.otel import OtelExporter

    exporter = InMemorySpanExporter()
    provider = sdk.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    interp = Interpreter()
    interp.events.watch(OtelExporter(provider))
    interp.eval('(define-task (warm q) (model "busy") (options (temperature 0.3)) (prompt "{{q}}"))' + PROGRAM)
    interp.eval('(warm "hot")')
    spans = exporter.get_finished_spans()
    by_id = {s.context.span_id: s for s in spans}
    chat = [s for s in spans if s.name == "chat busy"]
    assert len(chat) == 4
    first = chat[0]
    assert first.attributes["gen_ai.operation.name"] == "chat"
    assert first.attributes["gen_ai.request.model"] == "busy"
    assert first.attributes["gen_ai.usage.input_tokens"] == 3
    assert first.attributes["gen_ai.usage.output_tokens"] == 2
    assert json.loads(first.attributes["gen_ai.input.messages"])[0]["parts"][0]["content"] == "one"
    assert by_id[first.parent.span_id].name == "task ask"
    assert by_id[by_id[first.parent.span_id].parent.span_id].name == "step sequential/first"
    assert chat[-1].attributes["gen_ai.request.temperature"] == 0.3
    retried = next(s for s in spans if s.name == "attempt busy#1" and s.status.status_code.name == "ERROR")
    assert retried.attributes["error.type"] == "TASK_FAILURE"
    runs = [s for s in spans if s.name.startswith("run ")]
    assert len(runs) == 2 and all(s.parent is None for s in runs)
    assert len({s.context.trace_id for s in spans}) == 2  # one trace per run


def test_interpreter_otel_uses_the_global_provider() -> None:
    sdk = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry import trace
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = sdk.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    if trace.get_tracer_provider() is not provider:
        pytest.skip("another test set the global tracer provider first")
    interp = Interpreter(otel=True)
    interp.models.register("m", lambda p, s: "x")
    with trace.get_tracer("host").start_as_current_span("host request"):
        interp.eval('(define-task (t) (model "m") (prompt "q")) (t)')
    spans = {s.name: s for s in exporter.get_finished_spans()}
    assert {"chat m", "task t", "host request"} <= set(spans)
    assert spans["run <string>"].parent.span_id == spans["host request"].context.span_id


# -- the terminal: streamed text and a spinner --------------------------------------------
class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def terminal_interp(monkeypatch: pytest.MonkeyPatch, **kwargs: Any) -> tuple[Interpreter, FakeTerminal]:
    users_terminal(monkeypatch)  # in CI too
    screen = FakeTerminal()
    interp = Interpreter(**{"allow_models": True, **kwargs})  # the llm-echo plugin's model
    interp.events.use_progress(TerminalProgress(screen, delay=0.05, interval=0.01))
    return interp, screen


def test_model_text_streams_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    interp, screen = terminal_interp(monkeypatch)

    def words(prompt: str, system: str | None) -> Any:
        yield from ("Hel", "lo ", "world")

    interp.models.register("words", words)
    interp.eval('(define-task (t) (model "words") (prompt "x"))')
    assert interp.eval("(get (t) 'content)") == "Hello world"
    text = screen.getvalue()
    assert "┌ model words" in text and "│ Hel" in text  # the line as it arrives, in the live area
    assert text.endswith("┌ model words\x1b[0m\n\x1b[2m│ Hello world\x1b[0m\n")  # then above it, once


def test_llm_models_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("llm_echo")
    interp, screen = terminal_interp(monkeypatch)
    interp.eval('(define-task (t) (model "echo") (prompt "streamed"))')
    content = interp.eval("(get (t) 'content)")
    assert json.loads(content)["stream"] is True
    assert "┌ model echo" in screen.getvalue() and '"prompt": "streamed"' in screen.getvalue()


def test_no_stream_turns_streaming_off(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("llm_echo")
    interp, screen = terminal_interp(monkeypatch)
    interp.events.progress.stream_models = False
    interp.eval('(define-task (t) (model "echo") (prompt "quiet"))')
    assert json.loads(interp.eval("(get (t) 'content)"))["stream"] is False
    assert "quiet" not in screen.getvalue()


def test_nothing_streams_or_spins_off_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TASKSCHEME_PROGRESS", raising=False)
    pipe = io.StringIO()
    interp = Interpreter()
    interp.events.use_progress(TerminalProgress(pipe, delay=0.0, interval=0.01))
    interp.models.register("slow", lambda p, s: time.sleep(0.1) or "done")
    interp.eval('(define-task (t) (model "slow") (prompt "x")) (t)')
    assert pipe.getvalue() == "" and interp.events.watchers == []


def test_a_spinner_shows_for_long_model_calls_and_scripts(monkeypatch: pytest.MonkeyPatch) -> None:
    interp, screen = terminal_interp(monkeypatch, allow_scripts=True)
    interp.models.register("slow", lambda p, s: time.sleep(0.3) or "done")
    interp.eval('(define-task (t) (model "slow") (prompt "x")) (t)')
    text = screen.getvalue()
    assert "model slow" in text and " s" in text and text.endswith("\x1b[2K\x1b[?25h\r")
    screen.truncate(0)
    screen.seek(0)
    interp.eval(f'(run-script \'("{sys.executable}" "-c" "import time; time.sleep(0.3)"))')
    assert "script" in screen.getvalue()


def test_the_progress_switch_forces_the_display(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TASKSCHEME_PROGRESS", "1")
    assert TerminalProgress(io.StringIO()).enabled()
    monkeypatch.setenv("TASKSCHEME_PROGRESS", "0")
    assert not TerminalProgress(FakeTerminal()).enabled()


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
@pytest.mark.parametrize("flags", [[], ["--no-stream"]])
def test_the_cli_streams_in_a_real_terminal(tmp_path: Path, llm_home: Path, flags: list[str]) -> None:
    pexpect = pytest.importorskip("pexpect")
    pytest.importorskip("llm_echo")
    program = tmp_path / "p.scm"
    program.write_text('(define-task (t) (model "echo") (prompt "through a pty")) (display (get (t) \'status))')
    env = terminal_env(LLM_USER_PATH=str(llm_home))
    child = pexpect.spawn(
        sys.executable, [str(ROOT / "repl.py"), *flags, str(program)], env=env, encoding="utf-8", timeout=30
    )
    child.expect(pexpect.EOF)
    text = child.before
    assert "COMPLETE" in text
    if flags:
        assert "┌ model echo" not in text
    else:
        assert "┌ model echo" in text and "through a pty" in text


def test_otel_flag_exports_over_otlp_http(tmp_path: Path) -> None:
    """--otel sends the spans to the OTLP endpoint the standard variables name (here a local server)."""
    pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")
    import subprocess
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    received: list[tuple[str, bytes]] = []

    class Collector(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            received.append((self.path, body))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        program = tmp_path / "p.scm"
        program.write_text('(define-model "m" (lambda (p s) "x")) (define-task (t) (model "m") (prompt "q")) (t)')
        env = {**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{server.server_port}"}
        done = subprocess.run(
            [sys.executable, str(ROOT / "repl.py"), "--otel", str(program)], env=env, capture_output=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
    finally:
        server.shutdown()
    assert [path for path, _ in received] == ["/v1/traces"]
    body = received[0][1]
    assert b"chat m" in body and b"gen_ai.request.model" in body and b"task t" in body


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_the_repl_streams_in_a_real_terminal(tmp_path: Path, llm_home: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    pytest.importorskip("llm_echo")
    env = terminal_env(
        LLM_USER_PATH=str(llm_home), TASKSCHEME_HISTORY=str(tmp_path / "history"), PROMPT_TOOLKIT_NO_CPR="1"
    )
    child = pexpect.spawn(
        sys.executable, [str(ROOT / "repl.py")], env=env, encoding="utf-8", timeout=30, dimensions=(30, 100)
    )
    try:
        child.expect("Ctrl-D exits")
        child.expect("> ")
        child.send('(get ((lambda () (define-task (t) (model "echo") (prompt "typed at the repl")) (t))) \'status)\r')
        child.expect("┌ model echo")
        child.expect("typed at the repl")
        child.expect("COMPLETE")
    finally:
        child.close(force=True)


# -- under parallel-map -----------------------------------------------------------------------
def test_parallel_branches_hang_under_the_parallel_span_with_exact_usage(tmp_path: Path) -> None:
    from interpreter import TransientModelError

    lock = threading.Lock()
    seen: dict[str, int] = {}

    def flaky(prompt: str, system: str | None) -> str:
        """Fails the first call for each prompt, then answers (after a little work)."""
        with lock:
            seen[prompt] = seen.get(prompt, 0) + 1
            first = seen[prompt] == 1
        time.sleep(0.01)
        if first:
            raise TransientModelError("rate limited")
        return f"ok {prompt}"

    interp = Interpreter(retries={"retries": 2, "backoff": 0.001}, cache=tmp_path / "c.sqlite")
    interp.models.register("flaky", flaky)
    events: list[Event] = []
    interp.on_event(events.append)
    interp.eval('(define-task (ask q) (model "flaky") (prompt "{{q}}"))')
    items = [f"p{i}" for i in range(12)]
    interp.define("items", items)
    source = "(map (lambda (r) (get r 'content)) (parallel-map ask items #:max-concurrency 4))"
    assert interp.eval(source) == [f"ok {p}" for p in items]
    total = interp.usage.total
    assert (total.calls, total.attempts, total.cached) == (12, 24, 0)
    by_id = {e.id: e for e in events}
    parallel = next(e for e in events if e.kind == "parallel")
    tasks = [e for e in events if e.kind == "task"]
    assert len(tasks) == 12 and all(e.parent_id == parallel.id for e in tasks)
    models = [e for e in events if e.kind == "model"]
    assert all(by_id[e.parent_id].kind == "task" for e in models)
    assert sorted(e.info["prompt"] for e in models) == sorted(items)
    assert all(e.info["attempts"] == 2 for e in models)
    # A second run answers all twelve from the cache, in parallel, without calling the model.
    assert interp.eval(source) == [f"ok {p}" for p in items]
    assert (interp.usage.total.calls, interp.usage.total.cached) == (12, 12)
    assert all(count == 2 for count in seen.values())
