"""Model calls in production: retries, the response cache, options, schemas, llm's log.

Offline: DSL and Python models, a flaky model that fails k times and then answers,
and the llm-echo plugin with LLM_USER_PATH in a temporary folder.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from interpreter import Interpreter, SchemeError, TransientModelError
from interpreter.cli import run as cli_run
from interpreter.tasks.errors import TaskError
from interpreter.tasks.models.backends import is_transient
from interpreter.tasks.observe.tracing import Event
from interpreter.tasks.records import RetryPolicy


@pytest.fixture(autouse=True)
def _llm_in_a_temporary_folder(llm_home: Path) -> None:
    """Every test here runs with llm's user folder in a temporary folder."""


class Flaky:
    """A Python model that fails ``k`` times with ``error`` and then answers."""

    def __init__(self, k: int, error: Exception | None = None) -> None:
        self.k = k
        self.error = error or TransientModelError("rate limited")
        self.calls = 0
        self.lock = threading.Lock()

    def __call__(self, prompt: str, system: str | None) -> str:
        with self.lock:
            self.calls += 1
            if self.calls <= self.k:
                raise self.error
        return f"answer to {prompt}"


def flaky_interp(k: int, error: Exception | None = None, **kwargs: Any) -> tuple[Interpreter, Flaky]:
    interp = Interpreter(**kwargs)
    model = Flaky(k, error)
    interp.models.register("flaky", model)
    interp.eval('(define-task (ask q) (model "flaky") (prompt "{{q}}"))')
    return interp, model


# -- retries ---------------------------------------------------------------------------
def test_a_transient_failure_is_retried_and_every_attempt_counted() -> None:
    interp, model = flaky_interp(2, retries={"retries": 3, "backoff": 0})
    result = interp.eval('(ask "x")')
    assert result.content == "answer to x" and result.notes["attempts"] == 3
    assert model.calls == 3
    total = interp.usage.total
    assert (total.calls, total.attempts) == (1, 3)
    assert "1 call (3 attempts)" in str(interp.usage)


def test_without_retries_a_transient_failure_fails_the_task() -> None:
    interp, model = flaky_interp(1)
    with pytest.raises(TaskError) as info:
        interp.eval('(ask "x")')
    assert info.value.record.reason == "model_error"
    assert info.value.record.notes["attempts"] == 1 and info.value.record.notes["transient"] is True
    assert model.calls == 1


def test_the_final_failure_carries_its_attempts() -> None:
    interp, model = flaky_interp(10, retries=2)
    interp.tasks.gateway.retry = RetryPolicy(retries=2, backoff=0)
    with pytest.raises(TaskError) as info:
        interp.eval('(ask "x")')
    record = info.value.record
    assert record.notes["attempts"] == 3 and len(record.notes["errors"]) == 3
    assert "after 3 attempts" in record.message
    assert model.calls == 3
    assert (interp.usage.total.calls, interp.usage.total.attempts) == (0, 3)


def test_permanent_errors_are_not_retried() -> None:
    interp, model = flaky_interp(5, ValueError("bad request"), retries={"retries": 3, "backoff": 0})
    with pytest.raises(TaskError) as info:
        interp.eval('(ask "x")')
    assert model.calls == 1 and info.value.record.notes["transient"] is False


def test_the_retries_clause_and_a_dsl_transient_error() -> None:
    interp = Interpreter()
    interp.eval(
        """(define tries 0)
           (define-model (busy prompt system)
             (set! tries (+ tries 1))
             (if (< tries 3) (transient-error "overloaded") (string-append "ok " prompt)))
           (define-task (ask q) (model "busy") (retries 2 (backoff 0.001)) (prompt "{{q}}"))"""
    )
    assert interp.eval('(get (ask "a") \'content)') == "ok a"
    assert interp.eval("tries") == 3
    assert interp.eval("(get (usage) 'total 'attempts)") == 3


def test_the_clause_overrides_the_interpreter() -> None:
    interp, model = flaky_interp(1, retries={"retries": 5, "backoff": 0})
    interp.eval('(define-task (once q) (model "flaky") (retries 0) (prompt "{{q}}"))')
    with pytest.raises(TaskError):
        interp.eval('(once "x")')
    assert model.calls == 1


def test_backoff_is_exponential_with_jitter() -> None:
    policy = RetryPolicy(retries=5, backoff=1.0, max_backoff=5.0)
    assert [policy.delay(n, 0.999999) for n in (1, 2, 3, 4)] == pytest.approx([1.0, 2.0, 4.0, 5.0])
    assert [policy.delay(n, 0.0) for n in (1, 2, 3)] == [0.5, 1.0, 2.0]


def test_retry_waits_really_wait_and_respect_the_timeout() -> None:
    interp, model = flaky_interp(10, retries={"retries": 10, "backoff": 5}, timeout=0.3)
    with pytest.raises(SchemeError) as info:
        interp.eval('(ask "x")')
    assert "time limit" in str(info.value)
    assert model.calls == 1


class StatusError(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(f"HTTP {status}")
        self.status_code = status


class APIConnectionError(Exception):
    pass


@pytest.mark.parametrize(
    ("error", "transient"),
    [
        (StatusError(429), True),
        (StatusError(503), True),
        (StatusError(408), True),
        (StatusError(409), True),
        (StatusError(400), False),
        (StatusError(401), False),
        (ConnectionResetError(), True),
        (TimeoutError(), True),
        (APIConnectionError("no route"), True),
        (ValueError("nope"), False),
    ],
)
def test_which_errors_are_transient(error: Exception, transient: bool) -> None:
    assert is_transient(error) is transient


def test_retries_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "p.scm"
    program.write_text(
        """(define tries 0)
           (define-model (busy prompt system)
             (set! tries (+ tries 1))
             (if (< tries 2) (transient-error "overloaded") "fine"))
           (define-task (ask) (model "busy") (prompt "q"))
           (display (get (ask) 'notes 'attempts))"""
    )
    assert cli_run(["--retries", "2", str(program)]) == 0
    assert capsys.readouterr().out == "2"


def test_retry_attempts_are_trace_events() -> None:
    interp, _ = flaky_interp(1, retries={"retries": 1, "backoff": 0})
    events: list[Event] = []
    interp.on_event(events.append)
    interp.eval('(ask "x")')
    attempts = [e for e in events if e.kind == "attempt"]
    model = next(e for e in events if e.kind == "model")
    assert [e.status for e in attempts] == ["error", "ok"]
    assert attempts[0].error == {"type": "TASK_FAILURE", "message": "model flaky failed: rate limited"}
    assert all(e.parent_id == model.id for e in attempts)
    assert model.info["attempts"] == 2


# -- the response cache ----------------------------------------------------------------
def counting_interp(cache: Any, **kwargs: Any) -> tuple[Interpreter, list[str]]:
    interp = Interpreter(cache=cache, **kwargs)
    seen: list[str] = []
    interp.models.register("count", lambda prompt, system: seen.append(prompt) or f"#{len(seen)} {prompt}")
    interp.eval('(define-task (ask q) (model "count") (prompt "{{q}}"))')
    return interp, seen


def test_identical_calls_hit_the_cache(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    interp, seen = counting_interp(path)
    first = interp.eval('(ask "a")')
    second = interp.eval('(ask "a")')
    assert first.content == second.content == "#1 a" and seen == ["a"]
    assert (first.notes["cached"], second.notes["cached"]) == (False, True)
    assert (interp.usage.total.calls, interp.usage.total.cached) == (1, 1)
    assert "1 cached" in str(interp.usage)
    assert interp.eval("(get (usage) 'total 'cached)") == 1
    # A new interpreter (a new process) reads the same file.
    again, seen_again = counting_interp(path)
    assert again.eval('(ask "a")').content == "#1 a" and seen_again == []


def test_the_key_covers_model_system_prompt_options_and_schema(tmp_path: Path) -> None:
    from interpreter.tasks.models.cache import ModelRequest

    base = ModelRequest("m", "p", "s", {"temperature": 0.1}, {"type": "object"})
    variants = [
        ModelRequest("m2", "p", "s", {"temperature": 0.1}, {"type": "object"}),
        ModelRequest("m", "p2", "s", {"temperature": 0.1}, {"type": "object"}),
        ModelRequest("m", "p", "s2", {"temperature": 0.1}, {"type": "object"}),
        ModelRequest("m", "p", "s", {"temperature": 0.2}, {"type": "object"}),
        ModelRequest("m", "p", "s", {"temperature": 0.1}, {"type": "array"}),
        ModelRequest("m", "p", "s", {"temperature": 0.1}, {"type": "object"}, ("https://example.com/a.png",)),
    ]
    keys = {base.key(), *(v.key() for v in variants)}
    assert len(keys) == 7
    assert ModelRequest("m", "p", "s", {"temperature": 0.1}, {"type": "object"}).key() == base.key()


def test_different_prompts_or_options_miss(tmp_path: Path) -> None:
    interp, seen = counting_interp(tmp_path / "c.sqlite")
    interp.eval('(define-task (warm q) (model "count") (options (temperature 0.9)) (prompt "{{q}}"))')
    interp.eval('(ask "a") (ask "b") (warm "a")')
    assert seen == ["a", "b", "a"]


def test_the_cache_clause_and_no_cache(tmp_path: Path) -> None:
    interp, seen = counting_interp(None)
    interp.tasks.gateway.cache_path = tmp_path / "task-cache.sqlite"
    interp.eval('(define-task (kept q) (model "count") (cache #t) (prompt "{{q}}"))')
    interp.eval('(kept "a") (kept "a") (ask "b") (ask "b")')
    assert seen == ["a", "b", "b"]
    interp.tasks.gateway.cache_disabled = True
    interp.eval('(kept "a")')
    assert seen == ["a", "b", "b", "a"]


def test_a_cache_clause_needs_a_cache_the_host_allowed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    interp, seen = counting_interp(None)
    interp.eval('(define-task (kept q) (model "count") (cache #t) (prompt "{{q}}"))')
    with pytest.raises(SchemeError) as info:
        interp.eval('(kept "a")')
    assert info.value.kind == "permission" and "allow_files" in str(info.value)
    # no response cache; the folder itself may hold the interpreter's own start-up caches
    # (the read prelude, Lark's grammar: prelude_cache.py), which no program can write to
    assert not (tmp_path / "xdg" / "taskscheme" / "responses.sqlite").exists()
    trusted, seen = counting_interp(None, allow_files=True)
    trusted.eval('(define-task (kept q) (model "count") (cache #t) (prompt "{{q}}"))')
    trusted.eval('(kept "a") (kept "a")')
    assert seen == ["a"] and (tmp_path / "xdg" / "taskscheme" / "responses.sqlite").exists()


def test_a_cache_false_clause_bypasses_the_interpreter_cache(tmp_path: Path) -> None:
    interp, seen = counting_interp(tmp_path / "c.sqlite")
    interp.eval('(define-task (fresh q) (model "count") (cache #f) (prompt "{{q}}"))')
    interp.eval('(fresh "a") (fresh "a")')
    assert seen == ["a", "a"]


def test_the_default_cache_is_in_the_user_cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setattr("sys.platform", "linux")
    interp, seen = counting_interp(True)
    interp.eval('(ask "a") (ask "a")')
    assert seen == ["a"]
    assert interp.tasks.gateway.cache is not None
    assert interp.tasks.gateway.cache.path == tmp_path / "xdg" / "taskscheme" / "responses.sqlite"
    rows = sqlite3.connect(interp.tasks.gateway.cache.path).execute("SELECT model, response FROM responses").fetchall()
    assert rows == [("count", "#1 a")]


def test_cache_beside_record_and_replay(tmp_path: Path) -> None:
    recording = tmp_path / "calls.jsonl"
    interp, seen = counting_interp(tmp_path / "c.sqlite", record=recording)
    interp.eval('(ask "a") (ask "a")')
    assert seen == ["a"]
    assert len(recording.read_text().splitlines()) == 2  # the recording is complete: hits are recorded too
    replayed, seen_replay = counting_interp(tmp_path / "c2.sqlite", replay=recording)
    assert replayed.eval('(get (ask "a") \'content)') == "#1 a" and seen_replay == []


def test_concurrent_calls_share_the_cache_safely(tmp_path: Path) -> None:
    from interpreter.tasks.models.cache import ModelRequest, ResponseCache

    cache = ResponseCache(tmp_path / "c.sqlite")
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(20):
                request = ModelRequest("m", f"p{i % 5}")
                if cache.get(request) is None:
                    cache.put(request, f"r{i % 5}", 1, 1)
                assert cache.get(request) is not None
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(cache) == 5
    mode = sqlite3.connect(cache.path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_usage_sums_are_exact_from_many_threads() -> None:
    from interpreter.tasks.observe.usage import Usage

    usage = Usage()

    def work() -> None:
        for _ in range(500):
            usage.add("t", "m", 2, 3, 0.0)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert (usage.total.calls, usage.total.input_tokens, usage.by_model["m"].output_tokens) == (4000, 8000, 12000)


def test_an_unwritable_cache_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(SchemeError) as info:
        Interpreter(cache=blocker / "sub" / "c.sqlite")
    assert "cannot open the response cache" in str(info.value)


# -- options and schemas ---------------------------------------------------------------
def test_python_and_dsl_models_receive_options_and_schema() -> None:
    interp = Interpreter()
    seen: dict[str, Any] = {}

    def python_model(prompt: str, system: str | None, options: dict[str, Any], schema: Any) -> str:
        seen.update(options=options, schema=schema)
        return '{"name": "Ada"}'

    interp.models.register("py", python_model)
    interp.eval(
        """(define got #f)
           (define-model (dsl prompt system options schema)
             (set! got (list options (cdr (assq 'type schema))))
             "{\\"name\\": \\"Bo\\"}")
           (define-task (py-person) (model "py") (options (temperature 0.2) (max-tokens 40))
             (schema "{\\"type\\": \\"object\\", \\"properties\\": {\\"name\\": {\\"type\\": \\"string\\"}}}")
             (prompt "who?"))
           (define-task (dsl-person) (model "dsl") (options (top-p 0.5))
             (schema ((type . "object") (required "name")))
             (prompt "who?"))"""
    )
    assert interp.eval("(get (py-person) 'content 'name)") == "Ada"
    assert seen["options"] == {"temperature": 0.2, "max_tokens": 40}
    assert seen["schema"]["properties"] == {"name": {"type": "string"}}
    assert interp.eval("(get (dsl-person) 'content 'name)") == "Bo"
    assert interp.eval('(equal? got \'(((top_p . 0.5)) "object"))') is True


def test_a_two_argument_model_still_works_with_options() -> None:
    interp = Interpreter()
    interp.eval(
        """(define-model (plain prompt system) (string-append "plain " prompt))
           (define-task (t) (model "plain") (options (temperature 0)) (prompt "x"))"""
    )
    assert interp.eval("(get (t) 'content)") == "plain x"


def test_an_answer_that_does_not_match_the_schema_is_a_task_failure() -> None:
    interp = Interpreter()
    interp.models.register("m", lambda p, s: '{"age": "old"}')
    interp.eval(
        """(define-task (person) (model "m")
             (schema ((type . "object") (properties (age (type . "integer"))) (required "age")))
             (prompt "x"))"""
    )
    with pytest.raises(TaskError) as info:
        interp.eval("(person)")
    assert info.value.record.reason == "schema_mismatch"
    assert "age: 'old' is not of type 'integer'" in info.value.record.message


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ('{"n": ' + "7" * 4301 + "}", "it holds an integer of more than 4,300 digits"),
        ('{"n": ' + "7" * 50_000 + "}", "it holds an integer of more than 4,300 digits"),
        ("[" * 100_000 + "]" * 100_000, "it is nested too deeply"),
    ],
)
def test_an_answer_python_cannot_read_is_the_ordinary_schema_mismatch(answer: str, reason: str) -> None:
    """Not a raw value-error (4,301 digits and more): a TASK_FAILURE schema_mismatch with the reason."""
    interp = Interpreter()
    interp.models.register("m", lambda p, s: answer)
    interp.eval('(define-task (t) (model "m") (schema ((type . "object"))) (prompt "x"))')
    with pytest.raises(TaskError) as info:
        interp.eval("(t)")
    assert info.value.record.reason == "schema_mismatch"
    assert f"model m: the answer cannot be read as JSON ({reason}): " in info.value.record.message
    assert len(info.value.record.message) < 400


def test_an_answer_that_is_not_json_is_a_task_failure_and_is_not_cached(tmp_path: Path) -> None:
    interp = Interpreter(cache=tmp_path / "c.sqlite")
    answers = iter(["not json", '```json\n{"ok": true}\n```'])
    interp.models.register("m", lambda p, s: next(answers))
    interp.eval('(define-task (t) (model "m") (schema "{\\"type\\": \\"object\\"}") (prompt "x"))')
    with pytest.raises(TaskError) as info:
        interp.eval("(t)")
    assert "not JSON" in info.value.record.message
    assert interp.eval("(get (t) 'content 'ok)") is True  # the bad answer was not cached; fences are allowed
    assert interp.eval("(get (t) 'notes 'cached)") is True


def test_a_bad_schema_is_a_syntax_error_at_definition() -> None:
    with pytest.raises(SchemeError) as info:
        Interpreter().eval('(define-task (t) (schema "{\\"type\\": 12}") (prompt "x"))')
    assert "not a valid JSON schema" in str(info.value)


def test_llms_concise_schema_form() -> None:
    interp = Interpreter()
    interp.models.register("m", lambda p, s: '{"name": "Ada", "age": 36}')
    interp.eval('(define-task (t) (model "m") (schema "name, age int") (prompt "x"))')
    assert interp.eval("(get (t) 'content 'age)") == 36
    schema = interp.tasks.describe("t").output_schema
    assert schema is not None and schema["properties"]["age"] == {"type": "integer"}


def test_llm_options_are_validated_by_the_models_options_class() -> None:
    pytest.importorskip("llm_echo")
    interp = Interpreter(allow_models=True)
    interp.eval('(define-task (t) (model "echo") (options (example-bool #t)) (prompt "hi"))')
    data = json.loads(interp.eval("(get (t) 'content)"))
    assert data["prompt"] == "hi" and data["options"] == {"example_bool": True}
    interp.eval('(define-task (bad) (model "echo") (options (exmaple-bool #t)) (prompt "hi"))')
    with pytest.raises(TaskError) as info:
        interp.eval("(bad)")
    assert info.value.error_type == "VALIDATION_ERROR"
    assert "model echo has no option exmaple-bool; did you mean example_bool?" in info.value.record.message
    interp.eval('(define-task (wrong) (model "echo") (options (example-bool "perhaps")) (prompt "hi"))')
    with pytest.raises(TaskError) as info:
        interp.eval("(wrong)")
    assert "option example-bool" in info.value.record.message


def test_schema_with_an_llm_model() -> None:
    pytest.importorskip("llm_echo")
    interp = Interpreter(allow_models=True)
    raw = json.dumps({"raw": '{"name": "Ada"}'})
    interp.define("raw-prompt", raw)
    interp.eval(
        """(define-task (t p) (model "echo")
             (schema ((type . "object") (properties (name (type . "string"))) (required "name")))
             (prompt "{{p}}"))"""
    )
    assert interp.eval("(get (t raw-prompt) 'content 'name)") == "Ada"


# -- llm's log -------------------------------------------------------------------------
def test_log_records_llm_calls_in_llms_logs_database(llm_home: Path, tmp_path: Path) -> None:
    pytest.importorskip("llm_echo")
    from click.testing import CliRunner
    from llm.cli import cli as llm_cli

    program = tmp_path / "p.scm"
    program.write_text('(define-task (t) (model "echo") (prompt "log me")) (t)')
    assert cli_run(["--log", str(program)]) == 0
    assert (llm_home / "logs.db").exists()
    result = CliRunner().invoke(llm_cli, ["logs", "--json", "-n", "5"])
    assert result.exit_code == 0, result.output
    logged = json.loads(result.output)
    assert [row["prompt"] for row in logged] == ["log me"]
    assert logged[0]["model"] == "echo"


def test_without_log_nothing_is_logged(llm_home: Path, tmp_path: Path) -> None:
    pytest.importorskip("llm_echo")
    program = tmp_path / "p.scm"
    program.write_text('(define-task (t) (model "echo") (prompt "quiet")) (t)')
    assert cli_run([str(program)]) == 0
    assert not (llm_home / "logs.db").exists()


# -- attachments -----------------------------------------------------------------------
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000") + bytes(20)


def test_attachments_reach_llm_models(tmp_path: Path) -> None:
    pytest.importorskip("llm_echo")
    image = tmp_path / "dot.png"
    image.write_bytes(PNG)
    interp = Interpreter(allow_files=True, allow_models=True)
    interp.eval('(define-task (look image) (model "echo") (attachments "{{image}}") (prompt "what is it?"))')
    data = json.loads(interp.eval(f'(get (look "{image}") \'content)'))
    assert [a["path"] for a in data["attachments"]] == [str(image)]


def test_attachments_are_in_the_cache_key_by_content(tmp_path: Path) -> None:
    seen: list[list[str]] = []

    def model(prompt: str, system: str | None, attachments: list[str]) -> str:
        seen.append(attachments)
        return f"saw {len(attachments)}"

    interp = Interpreter(allow_files=True, cache=tmp_path / "c.sqlite")
    interp.models.register("m", model)
    notes = tmp_path / "notes.txt"
    notes.write_text("one")
    interp.eval('(define-task (read-it f) (model "m") (attachments "{{f}}") (prompt "summarize"))')
    interp.define("f", str(notes))
    interp.eval("(read-it f) (read-it f)")
    assert seen == [[str(notes.resolve())]]
    notes.write_text("two")  # same path, new content: a miss
    interp.eval("(read-it f)")
    assert len(seen) == 2


def test_attachments_need_the_file_capability(tmp_path: Path) -> None:
    interp = Interpreter()
    interp.models.register("m", lambda prompt, system, attachments=(): "x")
    (tmp_path / "secret.txt").write_text("s")
    interp.eval('(define-task (leak f) (model "m") (attachments "{{f}}") (prompt "p"))')
    with pytest.raises(SchemeError) as info:
        interp.eval(f'(leak "{tmp_path / "secret.txt"}")')
    assert info.value.kind == "permission"


def test_a_model_without_attachments_says_so(tmp_path: Path) -> None:
    interp = Interpreter(allow_files=True)
    interp.eval('(define-model (m prompt system) "x")')
    (tmp_path / "a.txt").write_text("a")
    interp.eval('(define-task (t f) (model "m") (attachments "{{f}}") (prompt "p"))')
    with pytest.raises(TaskError, match="model m takes no attachments"):
        interp.eval(f'(t "{tmp_path / "a.txt"}")')
    with pytest.raises(SchemeError, match="no such file"):
        interp.eval(f'(t "{tmp_path / "missing.txt"}")')


def test_an_unhashable_callable_object_is_a_model() -> None:
    from dataclasses import dataclass

    @dataclass
    class Greeter:  # dataclasses with eq=True are unhashable
        greeting: str

        def __call__(self, prompt: str, system: str | None, options: dict[str, Any]) -> str:
            return f"{self.greeting} {prompt} {sorted(options)}"

    interp = Interpreter()
    interp.models.register("greeter", Greeter("hello"))
    interp.eval('(define-task (t) (model "greeter") (options (temperature 1)) (prompt "you"))')
    assert interp.eval("(get (t) 'content)") == "hello you ['temperature']"


def test_cache_flag_before_the_program_means_the_default_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    program = tmp_path / "p.scm"
    program.write_text('(define-model "m" (lambda (p s) "x")) (define-task (t) (model "m") (prompt "q")) (t) (t)')
    assert cli_run(["--cache", str(program)]) == 0
    assert (tmp_path / "xdg" / "taskscheme" / "responses.sqlite").exists()
    assert cli_run(["--usage", "--cache", "--", str(program)]) == 0
    assert "2 cached" in capsys.readouterr().err
    own = tmp_path / "own.sqlite"
    assert cli_run(["--cache", str(own), str(program)]) == 0 and own.exists()
    shows = tmp_path / "args.scm"
    shows.write_text("(write (cdr (command-line)))")
    capsys.readouterr()
    assert cli_run([str(shows), "--cache"]) == 0  # the program's own argument, untouched
    assert capsys.readouterr().out == '("--cache")'
