"""Models: DSL, Python and llm backends; the default model; limits; usage; record and replay."""

from __future__ import annotations

import json
import time

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.printer import write_string
from interpreter.tasks.errors import TaskError
from interpreter.tasks.models.backends import ModelResponse
from interpreter.tasks.observe.usage import Usage


@pytest.fixture(autouse=True)
def llm_home(tmp_path, monkeypatch):
    """Keep llm's configuration (keys, default model, logs) inside a temp folder."""
    home = tmp_path / "llm-home"
    home.mkdir()
    monkeypatch.setenv("LLM_USER_PATH", str(home))
    monkeypatch.delenv("TASKSCHEME_MODEL", raising=False)
    return home


def content(interp: Interpreter, source: str) -> str:
    return interp.eval(f"(get {source} 'content)")


# -- backends ----------------------------------------------------------------------
def test_dsl_model_with_lambda_and_shorthand():
    interp = Interpreter()
    interp.eval('(define-model "upper" (lambda (prompt system) (string-upcase prompt)))')
    interp.eval("(define-model (sys-only prompt system) system)")
    interp.eval("(define-model 'first-word (lambda (prompt) (car (string-split prompt #\\space))))")
    interp.eval('(define-task (a x) (model "upper") (prompt "say {{x}}"))')
    interp.eval('(define-task (b x) (model "sys-only") (system "S:{{x}}") (prompt "p"))')
    interp.eval('(define-task (c x) (model "first-word") (prompt "{{x}} and more"))')
    assert content(interp, '(a "hi")') == "SAY HI"
    assert content(interp, '(b "q")') == "S:q"
    assert content(interp, '(c "one")') == "one"
    assert write_string(interp.eval_scheme("(model-names)")) == '("upper" "sys-only" "first-word")'


def test_dsl_model_without_system_gets_empty_string():
    interp = Interpreter()
    interp.eval('(define-model "m" (lambda (prompt system) (string-append "[" system "]")))')
    interp.eval('(define-task (t) (model "m") (prompt "x"))')
    assert content(interp, "(t)") == "[]"


def test_define_model_needs_a_procedure():
    with pytest.raises(SchemeError, match="define-model m: expected a procedure"):
        Interpreter().eval('(define-model "m" 42)')
    with pytest.raises(SchemeError, match="define-model: expected"):
        Interpreter().eval("(define-model 1 2)")


def test_model_returning_non_text_is_a_task_failure_naming_the_type():
    interp = Interpreter()
    interp.eval('(define-model "num" (lambda (p s) 42))')
    interp.eval('(define-task (t) (model "num") (prompt "x"))')
    with pytest.raises(TaskError) as info:
        interp.eval("(t)")
    assert info.value.error_type == "TASK_FAILURE"
    assert info.value.record.reason == "not_text"
    assert info.value.message == "TASK_FAILURE: model num returned an int, expected text: 42"


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"not": "text"}, "model m returned a dict, expected text: {'not': 'text'}"),
        ({"a", "b"}, "model m returned a set, expected text: "),
        (b"bytes", "model m returned a bytes, expected text: b'bytes'"),
        (7, "model m returned an int, expected text: 7"),
        (None, "model m returned a NoneType, expected text: None"),
        (iter(["ok", 3]), "model m returned a piece of its answer that is an int, expected text: 3"),
    ],
)
def test_a_python_model_answer_that_is_no_text_is_a_task_failure(answer, message):
    """A dict is not streamed as its keys (it was: content 'not', COMPLETE), nor is any other
    answer that is not text or an iterable of text pieces."""
    interp = Interpreter()
    interp.models.register("m", lambda prompt, system: answer)
    interp.eval('(define-task (t) (model "m") (prompt "x"))')
    with pytest.raises(TaskError) as info:
        interp.eval("(t)")
    assert info.value.record.reason == "not_text"
    assert info.value.record.message.startswith(message)


def test_a_python_model_still_streams_text_pieces():
    interp = Interpreter()
    interp.models.register("m", lambda prompt, system: (piece for piece in ["str", "eam"]))
    interp.models.register("l", lambda prompt, system: ["li", "st"])
    interp.eval('(define-task (t) (model "m") (prompt "x")) (define-task (u) (model "l") (prompt "x"))')
    assert interp.eval("(get (t) 'content)") == "stream"
    assert interp.eval("(get (u) 'content)") == "list"


def test_python_models():
    interp = Interpreter()
    interp.models.register("py", lambda prompt, system: f"{system}:{prompt}")
    seen = {}

    def with_options(prompt, system, options):
        seen.update(options)
        return ModelResponse(text="ok", input_tokens=7, output_tokens=2)

    interp.models.register("opts", with_options)
    interp.eval('(define-task (t x) (model "py") (system "s") (prompt "{{x}}"))')
    assert content(interp, '(t "v")') == "s:v"
    from interpreter.tasks.records import TaskDefinition

    interp.tasks.register(TaskDefinition(name="o", type="atomic", model="opts", body="p", options={"temperature": 0}))
    result = interp.eval("(o)")
    assert seen == {"temperature": 0}
    usage = result.notes["usage"]
    assert {k: usage[k] for k in ("input_tokens", "output_tokens", "peak_context_tokens")} == {
        "input_tokens": 7,
        "output_tokens": 2,
        "peak_context_tokens": 7,
    }


def test_backend_exception_is_task_failure():
    interp = Interpreter()

    def broken(prompt, system):
        raise ConnectionError("network down")

    interp.models.register("broken", broken)
    interp.eval('(define-task (t) (model "broken") (prompt "x"))')
    with pytest.raises(TaskError) as info:
        interp.eval("(t)")
    assert info.value.record.reason == "model_error"
    assert info.value.message == "TASK_FAILURE: model broken failed: ConnectionError: network down"


def test_llm_echo_adapter():
    interp = Interpreter(allow_models=True)
    interp.eval('(define-task (t x) (model "echo") (system "be brief") (prompt "hello {{x}}"))')
    result = interp.eval('(t "world")')
    data = json.loads(result.content)
    assert data["prompt"] == "hello world" and data["system"] == "be brief"
    assert result.notes["model"] == "echo"
    assert result.notes["usage"]["input_tokens"] == 4  # llm-echo counts words of prompt and system


def test_unknown_model_suggests_similar_names():
    interp = Interpreter(allow_models=True)
    interp.eval('(define-task (t) (model "ecoh") (prompt "x"))')
    with pytest.raises(TaskError) as info:
        interp.eval("(t)")
    assert info.value.record.reason == "unknown_model"
    assert "unknown model ecoh; did you mean: echo" in info.value.message


def test_default_model_order(monkeypatch, llm_home):
    (llm_home / "default_model.txt").write_text("echo")
    interp = Interpreter(allow_models=True)
    interp.models.register("env-model", lambda p, s: "from env")
    interp.models.register("arg-model", lambda p, s: "from arg")
    interp.eval('(define-task (t) (prompt "hello"))')
    assert json.loads(content(interp, "(t)"))["prompt"] == "hello"  # llm's default model
    monkeypatch.setenv("TASKSCHEME_MODEL", "env-model")
    assert content(interp, "(t)") == "from env"
    explicit = Interpreter(model="arg-model")
    explicit.models.register("arg-model", lambda p, s: "from arg")
    explicit.eval('(define-task (t) (prompt "hello"))')
    assert content(explicit, "(t)") == "from arg"


# -- evaluators --------------------------------------------------------------------
def test_evaluator_subtype_parses_json_verdict():
    interp = Interpreter()
    interp.models.register(
        "judge",
        lambda p, s: (
            'Verdict:\n```json\n{"success": false, "feedback": "too long", "details": {"violations": ["length"]}}\n```'
        ),
    )
    interp.eval('(define-task (review code) (subtype "evaluator") (model "judge") (prompt "{{code}}"))')
    interp.eval('(define r (review "x"))')
    assert interp.eval("(evaluation? r)") is True
    assert interp.eval("(get r 'notes 'success)") is False
    assert interp.eval("(get r 'notes 'feedback)") == "too long"
    assert write_string(interp.eval_scheme("(get r 'notes 'details 'violations)")) == '("length")'
    assert interp.eval("(get r 'notes 'model)") == "judge"


@pytest.mark.parametrize(
    ("answer", "violation"),
    [
        ("no json here", "the output is not JSON"),
        ('{"feedback": "x"}', "success is missing"),
        ('{"success": "yes"}', "success must be true or false"),
        ('{"success": true, "feedback": 3}', "feedback must be a string"),
        ("[1, 2]", "expected a JSON object"),
    ],
)
def test_evaluator_with_bad_output_is_invalid_output(answer, violation):
    interp = Interpreter()
    interp.models.register("judge", lambda p, s: answer)
    interp.eval('(define-task (review code) (subtype "evaluator") (model "judge") (prompt "{{code}}"))')
    got = interp.eval_scheme(
        "(guard (e ((task-error? e) (list (task-error-type e) (get (task-error-details e) 'violations))))"
        '  (review "x"))'
    )
    assert write_string(got) == f'(INVALID_OUTPUT ("{violation}"))'


# -- limits ------------------------------------------------------------------------
def make_interp(**kwargs) -> Interpreter:
    interp = Interpreter(**kwargs)
    interp.models.register("m", lambda prompt, system: "answer")
    interp.eval('(define-task (ask x) (model "m") (prompt "{{x}}"))')
    return interp


def test_max_turns_of_a_procedure_task():
    interp = make_interp()
    interp.eval('(define-task (three) (max-turns 2) (ask "a") (ask "b") (ask "c"))')
    with pytest.raises(TaskError) as info:
        interp.eval("(three)")
    record = info.value.record
    assert (record.resource, record.metrics.used, record.metrics.limit) == ("turns", 3, 2)
    assert info.value.message == (
        "RESOURCE_EXHAUSTION: max-turns of task three exceeded by model call 3 (used 3, limit 2)"
    )
    interp.eval('(define-task (two) (max-turns 2) (ask "a") (ask "b"))')
    assert interp.eval("(get (two) 'content)") == "answer"  # each call of the task starts afresh


def test_max_turns_of_the_interpreter():
    interp = make_interp(task_limits={"max_turns": 1})
    interp.eval('(ask "a")')
    with pytest.raises(TaskError, match=r"max-turns of the program exceeded by model call 2 \(used 2, limit 1\)"):
        interp.eval('(ask "b")')


def test_max_context_uses_estimate_then_reported_tokens():
    interp = make_interp()
    interp.eval('(define-task (small x) (max-context 5) (model "m") (prompt "{{x}}"))')
    assert interp.eval('(get (small "12345678") \'content)') == "answer"  # 8 chars: 2 tokens
    with pytest.raises(TaskError) as info:
        interp.eval(f'(small "{"x" * 40}")')
    assert (info.value.record.resource, info.value.record.metrics.used, info.value.record.metrics.limit) == (
        "context",
        10,
        5,
    )
    assert "prompt of 10 tokens exceeds the max-context of task small" in info.value.message
    interp.models.register("counts", lambda p, s: ModelResponse(text="x", input_tokens=50, output_tokens=1))
    interp.eval('(define-task (counted) (max-context 20) (model "counts") (prompt "short"))')
    with pytest.raises(TaskError, match=r"\(used 50, limit 20\)"):
        interp.eval("(counted)")


def test_timeout_of_a_python_model():
    interp = Interpreter()
    interp.models.register("slow", lambda p, s: time.sleep(3) or "late")
    interp.eval('(define-task (t) (model "slow") (timeout 0.1) (prompt "x"))')
    start = time.monotonic()
    with pytest.raises(TaskError) as info:
        interp.eval("(t)")
    assert time.monotonic() - start < 2  # not waited for: the model answers after 3 s
    assert info.value.record.resource == "time"
    assert info.value.record.metrics.limit == 0.1
    assert "model slow did not answer within the timeout of 0.1 s" in info.value.message


@pytest.mark.parametrize(
    "spin",
    [
        "(define-model (spin prompt system) (let loop ((i 0)) (loop (+ i 1))))",
        "(define (tree n) (if (= n 0) 0 (+ (tree (- n 1)) (tree (- n 1)))))"
        " (define-model (spin prompt system) (tree 30))",
    ],
)
def test_timeout_of_a_dsl_model(spin: str):
    interp = Interpreter()
    interp.eval(spin)
    interp.eval('(define-task (t) (model "spin") (timeout 0.2) (prompt "x"))')
    with pytest.raises(TaskError) as info:
        interp.eval("(t)")
    assert info.value.record.resource == "time"
    assert interp.eval("(+ 1 2)") == 3  # the runtime still works afterwards


def test_interpreter_timeout_limit_applies_to_every_call():
    interp = Interpreter(task_limits={"timeout": 0.1})
    interp.models.register("slow", lambda p, s: time.sleep(0.4) or "late")
    interp.eval('(define-task (t) (model "slow") (prompt "x"))')
    with pytest.raises(TaskError, match=r"timeout of 0\.1 s"):
        interp.eval("(t)")


# -- usage -------------------------------------------------------------------------
def test_usage_sums_per_task_model_and_total():
    interp = Interpreter()
    interp.models.register("a", lambda p, s: ModelResponse(text="x", input_tokens=10, output_tokens=3))
    interp.models.register("b", lambda p, s: "12345678")  # no counts: estimated as len/4
    interp.eval('(define-task (one) (model "a") (prompt "p"))')
    interp.eval('(define-task (two) (model "b") (prompt "abcdefgh"))')
    interp.eval("(one) (one) (two)")
    usage = interp.usage
    assert isinstance(usage, Usage)
    assert (usage.total.calls, usage.total.input_tokens, usage.total.output_tokens) == (3, 22, 8)
    assert (usage.by_task["one"].calls, usage.by_task["one"].input_tokens) == (2, 20)
    assert (usage.by_task["two"].input_tokens, usage.by_task["two"].output_tokens) == (2, 2)
    assert usage.by_model["b"].calls == 1
    assert interp.eval("(get (usage) 'total 'calls)") == 3
    assert interp.eval("(get (usage) 'by-task 'one 'input-tokens)") == 20
    text = str(usage)
    assert text.splitlines()[0].startswith("usage: 3 calls, 22 input tokens, 8 output tokens")
    assert "task  one" in text and "model b" in text


# -- record and replay -------------------------------------------------------------
PROGRAM = """
(define-task (summarize text (style "brief")) (model "writer") (system "sys")
  (prompt "Summarize {{text}} in a {{style}} style"))
(define-task (both) (list (get (summarize "a") 'content) (get (summarize "b" "long") 'content)))
(both)
"""


def test_record_then_replay_gives_the_same_output(tmp_path):
    calls = tmp_path / "calls.jsonl"
    counter = iter(range(100))
    recording = Interpreter(record=calls)
    recording.models.register("writer", lambda p, s: f"answer {next(counter)} to {p}")
    first = write_string(recording.eval_scheme(PROGRAM))
    lines = [json.loads(line) for line in calls.read_text().splitlines()]
    assert len(lines) == 2
    assert set(lines[0]) == {"model", "system", "prompt", "options", "response", "usage"}
    assert lines[0]["model"] == "writer" and lines[0]["system"] == "sys"
    assert lines[1]["prompt"] == "Summarize b in a long style"
    replaying = Interpreter(replay=calls)  # no "writer" model exists here
    assert write_string(replaying.eval_scheme(PROGRAM)) == first
    assert replaying.usage.total.calls == 2


def test_replay_of_unknown_call_shows_prompt(tmp_path):
    calls = tmp_path / "calls.jsonl"
    calls.write_text("")
    interp = Interpreter(replay=calls)
    interp.eval('(define-task (t x) (model "any") (prompt "Tell me about {{x}}"))')
    with pytest.raises(TaskError) as info:
        interp.eval('(t "owls")')
    assert info.value.record.reason == "not_in_replay"
    assert "model call not found in the replay file" in info.value.message
    assert "Tell me about owls" in info.value.message


def test_replay_answers_identical_calls_in_order(tmp_path):
    calls = tmp_path / "calls.jsonl"
    rows = [{"model": "m", "prompt": "p", "response": r} for r in ("one", "two")]
    calls.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    interp = Interpreter(replay=calls)
    interp.eval('(define-task (t) (model "m") (prompt "p"))')
    assert [content(interp, "(t)") for _ in range(3)] == ["one", "two", "two"]


def test_replay_file_problems(tmp_path):
    with pytest.raises(SchemeError, match="cannot read the replay file"):
        Interpreter(replay=tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prompt": "x"}\n')
    with pytest.raises(SchemeError, match=r"bad\.jsonl:1: not a recorded model call"):
        Interpreter(replay=bad)


def test_python_model_calls_reuse_their_worker_threads() -> None:
    import threading

    served: set[int] = set()
    interp = Interpreter()
    interp.models.register("upper", lambda prompt, system: served.add(threading.get_ident()) or prompt.upper())
    interp.eval('(define-task (shout w) (model "upper") (timeout 5) (prompt "{{w}}"))')  # a deadline: a worker
    for i in range(50):
        assert interp.eval(f'(get (shout "w{i}") \'content)') == f"W{i}"
    # the threads that served these 50 calls (not every thread of the process, which other tests share)
    assert threading.get_ident() not in served
    assert 1 <= len(served) <= 2  # one thread serves call after call; none is started per call


def test_a_python_model_with_nothing_to_honour_runs_on_the_calling_thread() -> None:
    import threading

    seen: list[str] = []
    interp = Interpreter()
    interp.models.register("where", lambda prompt, system: seen.append(threading.current_thread().name) or "ok")
    interp.eval('(define-task (plain w) (model "where") (prompt "{{w}}"))')
    interp.eval('(define-task (timed w) (model "where") (timeout 5) (prompt "{{w}}"))')
    interp.eval('(plain "a") (timed "b") (parallel-map plain (list "c"))')
    here = threading.current_thread().name
    assert seen[0] == here  # no deadline, not in a branch: no hand-off
    assert seen[1] != here  # a deadline to honour: on a worker, so the caller can give up on it
    assert len(seen) == 3
