"""Real providers end to end: an OpenAI-compatible server on loopback reached through
llm's own OpenAI plugin (tests/provider_server.py), as a user's model would be."""

from __future__ import annotations

import email.utils
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import run_cli
from provider_server import ProviderServer, write_models

from interpreter import Interpreter, SchemeError
from interpreter.tasks.errors import TaskError

ASK = '(define-task (ask x) (model "fake") (prompt "say {{x}}"))'


def interp(**kwargs: object) -> Interpreter:
    it = Interpreter(allow_models=True, **kwargs)  # type: ignore[arg-type]
    it.eval(ASK)
    return it


def failure(it: Interpreter, source: str) -> TaskError:
    with pytest.raises(TaskError) as info:
        it.eval(source, filename="prog.scm")
    return info.value


# -- resolution ---------------------------------------------------------------------
def test_parallel_map_resolves_the_model_on_first_use(provider_model: ProviderServer) -> None:
    it = interp()
    got = it.eval("(map (lambda (r) (get r 'content)) (parallel-map ask (map number->string (iota 16))))")
    assert got == [f"echo: say {n}" for n in range(16)]
    assert provider_model.count == 16


def test_first_lookups_from_many_threads_in_a_fresh_process(provider_model: ProviderServer, llm_home: Path) -> None:
    """llm loads its plugins on the first lookup: run it where nothing has looked one up yet."""
    program = (
        "import threading, traceback\n"
        "from interpreter import Interpreter\n"
        "errors = []\n"
        "def one():\n"
        "    try:\n"
        "        it = Interpreter(allow_models=True)\n"
        f"        it.eval({ASK!r})\n"
        "        assert it.eval('(get (ask \"a\") (quote content))') == 'echo: say a'\n"
        "    except BaseException as exc:\n"
        "        errors.append(''.join(traceback.format_exception(exc)))\n"  # where it failed, if it does
        "threads = [threading.Thread(target=one) for _ in range(8)]\n"
        "[t.start() for t in threads]\n"
        "[t.join() for t in threads]\n"
        "print(errors)\n"
    )
    env = {"LLM_USER_PATH": str(llm_home), "PYTHONPATH": str(Path(__file__).parents[1])}
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=60)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
    assert provider_model.count == 8


# -- one retry policy ---------------------------------------------------------------
def test_attempts_equal_the_requests_the_provider_saw(provider_model: ProviderServer) -> None:
    provider_model.fail(10, 503)
    it = interp()
    start = time.monotonic()
    err = failure(it, '(define-task (ask1 x) (model "fake") (retries 1 (backoff 0.01)) (prompt "{{x}}")) (ask1 "a")')
    assert provider_model.count == 2  # the SDK's own two retries are off
    assert time.monotonic() - start < 4  # nor does its backoff wait between them
    assert err.record.reason == "server" and err.record.notes["attempts"] == 2
    assert it.usage.total.attempts == 2 and it.usage.total.retries == 1


def test_two_429s_then_an_answer_is_three_attempts(provider_model: ProviderServer) -> None:
    provider_model.fail(2, 429, {"Retry-After": "0"})
    it = interp(retries=3)
    result = it.eval('(ask "a")')
    assert result.notes["attempts"] == 3 == provider_model.count
    assert it.eval("(get (usage) 'by-model \"fake\" 'attempts)") == 3


def test_retry_after_in_seconds_is_honoured(provider_model: ProviderServer) -> None:
    provider_model.fail(1, 429, {"Retry-After": "1"})
    it = interp(retries={"retries": 2, "backoff": 0.0})
    it.eval('(ask "a")')
    first, second = provider_model.requests
    assert 0.9 <= second.at - first.at < 2.5  # the provider's wait, not our backoff of 0


def test_retry_after_as_an_http_date_is_honoured(provider_model: ProviderServer) -> None:
    when = int(time.time()) + 4  # an HTTP date has whole seconds
    provider_model.fail(1, 503, {"Retry-After": email.utils.formatdate(when, usegmt=True)})
    interp(retries={"retries": 1, "backoff": 0.0}).eval('(ask "a")')
    first, second = provider_model.requests
    asked = when - (time.time() - (time.monotonic() - first.at))  # the date, seen from the first request
    assert asked > 0.5 and asked - 0.3 <= second.at - first.at < asked + 1.5


def test_retry_after_beyond_the_timeout_fails_at_once(provider_model: ProviderServer) -> None:
    provider_model.fail(1, 429, {"Retry-After": "30"})
    it = interp()
    start = time.monotonic()
    err = failure(it, '(define-task (t1 x) (model "fake") (timeout 2) (retries 3) (prompt "{{x}}")) (t1 "a")')
    assert time.monotonic() - start < 1.5
    assert err.record.reason == "rate_limited" and provider_model.count == 1
    assert "past the timeout of 2 s" in err.record.notes["errors"][-1]


@pytest.mark.parametrize(
    ("status", "code", "reason"),
    [
        (400, "context_length_exceeded", "context_length"),
        (401, "invalid_api_key", "auth"),
        (403, None, "auth"),
        (404, "model_not_found", "not_found"),
        (400, "content_filter", "content_filter"),
        (400, None, "model_error"),
    ],
)
def test_non_transient_errors_are_never_retried(
    provider_model: ProviderServer, status: int, code: str | None, reason: str
) -> None:
    body = {"error": {"message": f"refused ({status})", "type": "invalid_request_error", "code": code}}
    provider_model.fail(1, status, body=body)
    err = failure(interp(retries=5), '(ask "a")')
    assert provider_model.count == 1
    assert err.record.reason == reason
    assert err.record.notes["transient"] is False


# -- errors that say what to do ------------------------------------------------------
def test_a_bad_key_names_the_key_and_the_command(llm_home: Path, provider: ProviderServer) -> None:
    write_models(llm_home, provider.base_url, ["fake"], api_key_name="local")
    (llm_home / "keys.json").write_text('{"local": "wrong"}')
    provider.configure(required_key="right")
    err = failure(interp(), '(ask "a")')
    assert err.record.reason == "auth"
    assert "llm keys set local" in err.record.message and "fake" in err.record.message
    assert "prog.scm:1:1" in str(err)


def test_a_missing_key_is_an_auth_failure_before_any_request(llm_home: Path, provider: ProviderServer) -> None:
    write_models(llm_home, provider.base_url, ["fake"], api_key_name="local")
    err = failure(interp(), '(ask "a")')
    assert err.record.reason == "auth" and "llm keys set local" in err.record.message
    assert provider.count == 0


def test_context_length_says_tokens_sent_and_the_limit(provider_model: ProviderServer) -> None:
    provider_model.configure(context_limit=3)
    err = failure(interp(retries=2), '(ask "one two three four five")')
    assert err.record.reason == "context_length"
    assert "6 tokens were sent" in err.record.message and "limit is 3 tokens" in err.record.message
    assert (err.record.notes["tokens"], err.record.notes["limit"]) == (6, 3)


def test_an_unknown_model_on_the_server_gets_a_did_you_mean(llm_home: Path, provider: ProviderServer) -> None:
    write_models(llm_home, provider.base_url, ["fake", "fake-large"])
    provider.configure(models={"fake"})
    it = Interpreter(allow_models=True)
    err = failure(it, '(define-task (big x) (model "fake-large") (prompt "{{x}}")) (big "a")')
    assert err.record.reason == "not_found"
    assert "did you mean" in err.record.message and "fake" in err.record.message


def test_connection_refused_names_the_api_base(llm_home: Path) -> None:
    server = ProviderServer().start()
    base = server.base_url
    server.stop()  # nothing listens there now
    write_models(llm_home, base, ["fake"])
    err = failure(interp(), '(ask "a")')
    assert err.record.reason == "connection"
    assert base in err.record.message


def test_a_program_can_test_the_reason(provider_model: ProviderServer) -> None:
    provider_model.fail(1, 401)
    got = interp().eval("(guard (e ((task-error? e) (get (task-error-details e) 'reason))) (ask \"a\"))")
    assert got == "auth"


def test_malformed_json_is_transient_and_retried(provider_model: ProviderServer) -> None:
    provider_model.malform(1)
    result = interp(retries={"retries": 1, "backoff": 0}).eval('(ask "a")')
    assert result.content == "echo: say a" and result.notes["attempts"] == 2 == provider_model.count


# -- rate limits ---------------------------------------------------------------------
def test_rate_limit_in_the_dsl_spaces_requests_across_parallel_branches(provider_model: ProviderServer) -> None:
    it = interp()
    it.eval('(rate-limit "fake" #:requests-per-minute 600)')
    start = time.monotonic()
    it.eval("(parallel-map ask (map number->string (iota 12)))")
    elapsed = time.monotonic() - start
    times = sorted(r.at for r in provider_model.requests)
    assert elapsed >= 1.0  # 11 gaps of 0.1 s
    assert times[-1] - times[0] >= 0.9
    assert max(sum(t <= at < t + 0.5 for at in times) for t in times) <= 7  # ~5 in any half second
    usage = it.usage.by_model["fake"]
    assert usage.rate_wait_s > 0.5


def test_rate_limit_from_python_counts_retries(provider_model: ProviderServer) -> None:
    it = interp(rate_limits={"fake": {"rpm": 120}}, retries={"retries": 2, "backoff": 0})
    it.eval('(ask "warm")')  # the SDK and its client made: requests go out at their turns
    provider_model.reset()
    provider_model.fail(2, 503)
    it.eval('(ask "a")')
    first, second, third = (r.at for r in provider_model.requests)
    assert second - first >= 0.35 and third - second >= 0.35  # retries wait their turn too (0.5 s apart)


def test_tokens_per_minute_limit_waits_for_the_tokens(provider_model: ProviderServer) -> None:
    it = interp(rate_limits={"fake": {"rpm": 6000, "tpm": 600}})  # 10 tokens a second
    it.eval('(ask "w")')  # the SDK and its client made: requests go out at their turns
    it.eval('(ask "one two three four five six seven")')  # 8 words in, 10 out
    it.eval('(ask "a")')
    _, first, second = (r.at for r in provider_model.requests)
    assert second - first >= 1.5  # the first call's 18 tokens at 10 a second


def test_rate_limit_on_the_command_line(provider_model: ProviderServer, llm_home: Path, tmp_path: Path) -> None:
    prog = tmp_path / "p.scm"
    prog.write_text(ASK + '\n(for-each (lambda (x) (ask x)) (list "a" "b" "c" "d"))\n')
    env = {"LLM_USER_PATH": str(llm_home), "PATH": "/usr/bin:/bin"}
    done = run_cli(["--rate-limit", "fake=120", "--usage", str(prog)], env=env)
    assert done.returncode == 0, done.stderr
    times = [r.at for r in provider_model.requests]
    # 2 turns of 0.5 s: 1.0 s between the second request and the fourth (the first call also pays for
    # importing the SDK); arrivals at the server lag their turns by up to ~0.1 s under load, and
    # without the limit the four come ~0.01 s apart
    assert times[3] - times[1] >= 0.8
    assert "waiting on the rate limit" in done.stderr


def test_a_bad_rate_limit_flag_is_a_usage_error(tmp_path: Path) -> None:
    done = run_cli(["--rate-limit", "fake", "-e", "1"], env={"LLM_USER_PATH": str(tmp_path)})
    assert done.returncode == 2 and "MODEL=RPM" in done.stderr


# -- cancellation reaches the socket -------------------------------------------------
def test_a_timeout_closes_the_connection(provider_model: ProviderServer) -> None:
    provider_model.configure(delay=5)
    it = interp()
    start = time.monotonic()
    with pytest.raises(SchemeError) as info:
        it.eval('(define-task (quick x) (model "fake") (timeout 0.5) (prompt "{{x}}")) (quick "a")')
    assert info.value.kind == "resource-exhaustion"
    assert time.monotonic() - start < 3.5  # a first call also loads llm's plugins and the SDK
    assert provider_model.wait_for(lambda: provider_model.hangups == 1, timeout=2)


def test_a_cancelled_branch_closes_its_connection(provider_model: ProviderServer) -> None:
    it = interp()
    it.eval('(ask "warm")')  # llm's plugins and the SDK loaded: the branches' requests go out at once
    provider_model.configure(delay=5)
    it.define("pause", lambda: time.sleep(0.3))
    start = time.monotonic()
    with pytest.raises(SchemeError):
        it.eval('(parallel-map (lambda (x) (if (equal? x "bad") (begin (pause) (raise (quote boom))) (ask x)))'
                ' (list "a" "b" "bad"))')
    assert time.monotonic() - start < 4.5  # the branches' answers would take 5 s
    assert provider_model.wait_for(lambda: provider_model.hangups == 2, timeout=3), (provider_model.count, provider_model.hangups)


def test_the_interpreters_timeout_abandons_a_call(provider_model: ProviderServer) -> None:
    provider_model.configure(delay=5)
    it = Interpreter(allow_models=True, timeout=0.5)
    it.eval(ASK)
    start = time.monotonic()
    with pytest.raises(SchemeError):
        it.eval('(ask "a")')
    assert time.monotonic() - start < 4  # the answer would take 5 s
    assert provider_model.wait_for(lambda: provider_model.hangups == 1, timeout=2)


def test_max_steps_in_another_branch_abandons_a_call(provider_model: ProviderServer) -> None:
    provider_model.configure(delay=5)
    it = Interpreter(allow_models=True, max_steps=200_000)
    it.eval(ASK + "(define (spin n) (if (> n 0) (spin (- n 1)) 'done))")
    start = time.monotonic()
    with pytest.raises(SchemeError) as info:
        it.eval('(parallel-map (lambda (x) (if (equal? x "spin") (spin 10000000) (ask x))) (list "a" "spin"))')
    assert "step" in str(info.value)
    assert time.monotonic() - start < 4.5  # the answer would take 5 s
    assert provider_model.wait_for(lambda: provider_model.hangups == 1, timeout=3)


def test_a_sync_only_model_has_its_connection_closed_too(provider_model: ProviderServer) -> None:
    provider_model.configure(delay=5)
    it = interp()
    it.models.get("fake").async_model = None  # as a plugin without an async form: the worker-thread path
    with pytest.raises(SchemeError):
        it.eval('(define-task (quick x) (model "fake") (timeout 0.5) (prompt "{{x}}")) (quick "a")')
    assert provider_model.wait_for(lambda: provider_model.hangups == 1, timeout=2)


# -- streaming -----------------------------------------------------------------------
def test_stream_clause_streams_through_server_sent_events(provider_model: ProviderServer) -> None:
    pieces: list[str] = []
    it = interp(on_text=pieces.append, stream=False)
    result = it.eval('(define-task (s x) (model "fake") (stream #t) (prompt "{{x}}")) (s "one two")')
    assert pieces == ["echo: ", "one ", "two"]
    assert result.content == "echo: one two"
    usage = result.notes["usage"]
    assert (usage["input_tokens"], usage["output_tokens"]) == (2, 3)
    assert provider_model.requests[-1].stream
    it.eval('(ask "x")')  # no (stream …) and the interpreter does not stream: a plain call
    assert not provider_model.requests[-1].stream


def test_on_text_streams_every_call_with_the_same_answer_and_usage(provider_model: ProviderServer) -> None:
    pieces: list[str] = []
    streamed = interp(on_text=pieces.append).eval('(ask "a b c")')
    plain = interp().eval('(ask "a b c")')
    assert "".join(pieces) == streamed.content == plain.content
    tokens = ("input_tokens", "output_tokens")
    assert [streamed.notes["usage"][k] for k in tokens] == [plain.notes["usage"][k] for k in tokens]
    assert [r.stream for r in provider_model.requests] == [True, False]


def test_on_text_reaches_the_host_from_an_isolated_interpreter(provider_model: ProviderServer) -> None:
    """isolate=True: the child's call of the host's llm model streams, and the text reaches the
    host's on_text (it was dropped: the child had no on_text and asked for no stream)."""
    pieces: list[str] = []
    it = interp(on_text=pieces.append, isolate=True)
    result = it.eval('(ask "a b c")')
    assert result.content == "echo: say a b c"
    assert "".join(pieces) == result.content and len(pieces) > 1
    assert provider_model.requests[-1].stream


def test_a_dropped_stream_is_retried_from_the_start(provider_model: ProviderServer) -> None:
    provider_model.drop(1)
    pieces: list[str] = []
    it = interp(on_text=pieces.append, retries={"retries": 1, "backoff": 0})
    result = it.eval('(ask "a b")')
    assert result.content == "echo: say a b" and result.notes["attempts"] == 2 == provider_model.count


def test_a_dropped_stream_without_retries_is_a_connection_failure(provider_model: ProviderServer) -> None:
    provider_model.drop(1)
    err = failure(interp(on_text=lambda _: None), '(ask "a b")')
    assert err.record.reason == "connection" and err.record.notes["transient"] is True


# -- usage from the provider ---------------------------------------------------------
def test_usage_is_the_providers_summed_exactly_under_parallel_map(provider_model: ProviderServer) -> None:
    provider_model.configure(reply=lambda p: "x " * (len(p) % 5 + 1))
    it = interp()
    it.eval("(parallel-map ask (map number->string (iota 40)) #:max-concurrency 8)")
    want_in = sum(len(f"say {n}".split()) for n in range(40))
    want_out = sum(len(f"say {n}") % 5 + 1 for n in range(40))
    total = it.usage.by_model["fake"]
    assert (total.calls, total.input_tokens, total.output_tokens) == (40, want_in, want_out)
    assert it.eval("(get (usage) 'total 'input-tokens)") == want_in


def test_batch_threads_share_one_limiter(provider_model: ProviderServer) -> None:
    it = interp(rate_limits={"fake": {"rpm": 300}})
    it.eval('(ask "warm")')  # the SDK loaded: the turns below are when requests go out
    provider_model.reset()
    records = list(it.batch("ask", [{"x": str(n)} for n in range(5)], workers=5))
    assert all(r["status"] == "COMPLETE" for r in records), records
    times = sorted(r.at for r in provider_model.requests)
    assert times[-1] - times[0] >= 0.7  # 4 gaps of 0.2 s


def test_worker_processes_each_keep_a_share_of_the_limit(llm_home: Path) -> None:
    from interpreter.batch.spec import ProgramSpec

    it = Interpreter(allow_models=True, rate_limits={"fake": {"rpm": 600, "tpm": 9000}})
    it.eval('(rate-limit "other" #:requests-per-minute 60)')
    worker = ProgramSpec(tuple(it.program_sources), dict(it.settings), rate_share=3, factory=Interpreter).build()
    limits = worker.tasks.gateway.rate_limits
    assert (limits.get("fake").limit.rpm, limits.get("fake").limit.tpm) == (200, 3000)
    assert limits.get("other").limit.rpm == 20


def test_ctrl_c_closes_the_connection(provider_model: ProviderServer) -> None:
    """In a process that lives on (an embedding host, the REPL), not only at exit."""
    import _thread

    it = interp()
    it.eval('(ask "warm")')
    provider_model.configure(delay=10)
    timer = threading.Timer(0.5, _thread.interrupt_main)  # Ctrl-C while the call is under way
    timer.start()
    start = time.monotonic()
    with pytest.raises((KeyboardInterrupt, SchemeError)):
        it.eval('(ask "a")')
    assert time.monotonic() - start < 6  # the answer would take 10 s
    assert provider_model.wait_for(lambda: provider_model.hangups == 1, timeout=3)


def test_stream_flag_on_the_command_line(provider_model: ProviderServer, llm_home: Path, tmp_path: Path) -> None:
    prog = tmp_path / "p.scm"
    prog.write_text(ASK + "\n(display (get (ask \"a b\") 'content))\n")
    env = {"LLM_USER_PATH": str(llm_home), "PATH": "/usr/bin:/bin"}
    for flags, streamed in ([], False), (["--stream"], True):
        done = run_cli([*flags, str(prog)], env=env)
        assert done.returncode == 0, done.stderr
        assert done.stdout == "echo: say a b"
        assert provider_model.requests[-1].stream is streamed


def test_bad_stream_and_rate_limit_forms_are_errors() -> None:
    it = Interpreter()
    with pytest.raises(SchemeError) as info:
        it.eval('(define-task (t x) (model "m") (stream 1) (prompt "{{x}}"))')
    assert "(stream …) takes #t or #f" in str(info.value)
    with pytest.raises(SchemeError) as info:
        it.eval('(rate-limit "m" #:requests-per-minute -3)')
    assert "positive number per minute" in str(info.value)
    with pytest.raises(SchemeError) as info:
        it.eval('(rate-limit "m" #:rpm 3)')
    assert "unknown keyword #:rpm" in str(info.value)


def test_the_trace_shows_each_request_and_its_wait_for_the_limit(provider_model: ProviderServer) -> None:
    events: list = []
    # 0.5 s apart: the second attempt's wait is that less the first's round trip, which took
    # 0.16 s on a loaded machine (with 240 rpm, 0.25 s apart, the wait came to 0.089 s)
    it = interp(rate_limits={"fake": {"rpm": 120}}, retries={"retries": 1, "backoff": 0})
    it.eval('(ask "warm")')
    time.sleep(0.55)  # the next turn is free
    provider_model.reset()
    provider_model.fail(1, 503)
    it.on_event(events.append)
    it.eval('(ask "a")')
    attempts = [e for e in events if e.kind == "attempt"]
    assert [e.status for e in attempts] == ["error", "ok"] and provider_model.count == 2
    assert attempts[0].info["rate_wait_s"] == 0 and attempts[1].info["rate_wait_s"] > 0.1
    model = next(e for e in events if e.kind == "model")
    assert model.info["attempts"] == 2


def test_batch_command_reaches_llm_models_under_a_rate_limit(
    provider_model: ProviderServer, llm_home: Path, tmp_path: Path
) -> None:
    (tmp_path / "prog.scm").write_text(ASK + "\n")
    (tmp_path / "in.jsonl").write_text("".join(f'{{"x": "{n}"}}\n' for n in range(4)))
    env = {"LLM_USER_PATH": str(llm_home), "PATH": "/usr/bin:/bin"}
    args = ["batch", "prog.scm", "--task", "ask", "--inputs", "in.jsonl", "--output", "out.jsonl", "--quiet"]
    done = run_cli([*args, "--rate-limit", "fake=120"], env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.jsonl").read_text().count("echo: say") == 4
    times = sorted(r.at for r in provider_model.requests)
    # turns 0.5 s apart: the last is 1.5 s after the first's turn, 1.0 s after the second's (the first
    # request may reach the server late, as it loads the SDK: under load it came 0.38 s late)
    assert times[-1] - times[0] >= 1.0


def test_calls_through_the_event_loop_are_logged_in_llms_database(
    provider_model: ProviderServer, llm_home: Path
) -> None:
    import sqlite3

    interp(log=True).eval('(ask "a")')
    texts = {str(v) for row in sqlite3.connect(llm_home / "logs.db").execute("select * from parts") for v in row}
    assert {"say a", "echo: say a"} <= texts
