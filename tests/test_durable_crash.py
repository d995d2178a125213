"""Durable runs killed with SIGKILL and resumed, against the loopback OpenAI-compatible
provider (reached through llm's own OpenAI plugin): every request reaches the provider
once, except the one under way at the kill, which is asked again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from provider_server import ProviderServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")

ROOT = Path(__file__).resolve().parent.parent
LOOP = """
(define-task (step n) (prompt "step {{n}}"))
(let loop ((i 1))
  (when (<= i 6)
    (display (get (step i) 'content)) (newline)
    (loop (+ i 1))))
"""
FULL_OUTPUT = "".join(f"echo: step {i}\n" for i in range(1, 7))


def command(*args: str) -> list[str]:
    return [sys.executable, str(ROOT / "repl.py"), "--model", "fake", *args]


def environment() -> dict[str, str]:
    return {**os.environ, "NO_COLOR": "1", "TASKSCHEME_PROGRESS": "0", "PYTHONPATH": str(ROOT)}


def start(args: list[str], out: Path, stdin: int | None = None) -> subprocess.Popen[bytes]:
    with out.open("wb") as sink:
        return subprocess.Popen(command(*args), stdout=sink, stderr=subprocess.PIPE, stdin=stdin, env=environment())


def resume(args: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command(*args), input=stdin, capture_output=True, text=True, timeout=60, env=environment(), cwd=ROOT
    )


def wait_until(predicate: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.01)
    raise AssertionError("timed out waiting")


def kill(proc: subprocess.Popen[bytes]) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    assert proc.returncode == -signal.SIGKILL
    if proc.stderr is not None:
        proc.stderr.close()


def asked(provider: ProviderServer) -> Counter[str]:
    return Counter(request.prompt for request in provider.requests)


def journal_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def answered_prompts(path: Path) -> set[str]:
    """The prompts of the model calls whose answers a journal holds."""
    return {e["request"]["prompt"] for e in journal_lines(path) if e["kind"] == "model" and not e["started"]}


def test_killed_between_calls_every_call_reaches_the_provider_once(provider_model: ProviderServer, tmp_path: Path):
    program, journal = tmp_path / "loop.scm", tmp_path / "run.journal"
    program.write_text(LOOP.replace("(loop (+ i 1))", "(when (= i 3) (read-line)) (loop (+ i 1))"))
    out = tmp_path / "crashed.out"
    proc = start(["--resume", str(journal), str(program)], out, stdin=subprocess.PIPE)
    # killed while it waits for a line of input after its third call
    wait_until(lambda: journal.exists() and journal_lines(journal)[-1:] and journal_lines(journal)[-1]["kind"] == "stdin")
    kill(proc)
    assert asked(provider_model) == Counter({f"step {i}": 1 for i in range(1, 4)})

    done = resume(["--resume", str(journal), "--resume-quiet", str(program)], stdin="go on\n")
    assert done.returncode == 0, done.stderr
    assert "resuming from" in done.stderr and "3 model calls" in done.stderr
    assert asked(provider_model) == Counter({f"step {i}": 1 for i in range(1, 7)})  # each call exactly once
    assert out.read_text() + done.stdout == FULL_OUTPUT  # nothing printed twice, nothing lost


def test_killed_during_a_call_only_that_call_is_asked_again(provider_model: ProviderServer, tmp_path: Path):
    program, journal = tmp_path / "loop.scm", tmp_path / "run.journal"
    program.write_text(LOOP)
    provider_model.configure(delay=0.8)
    out = tmp_path / "crashed.out"
    proc = start(["--resume", str(journal), str(program)], out)
    wait_until(lambda: provider_model.count >= 4)  # the fourth call is under way
    kill(proc)
    provider_model.configure(delay=0.0)

    done = resume(["--resume", str(journal), str(program)])
    assert done.returncode == 0, done.stderr
    assert "the model call under way when it stopped" in done.stderr
    counts = asked(provider_model)
    assert counts == Counter({**{f"step {i}": 1 for i in range(1, 7)}, "step 4": 2})
    assert done.stdout == FULL_OUTPUT  # printed again in full without --resume-quiet
    assert out.read_text() == FULL_OUTPUT[: len("echo: step 1\n") * 3]


def test_parallel_branches_killed_part_way_resume_without_asking_twice(
    provider_model: ProviderServer, tmp_path: Path
):
    program, journal = tmp_path / "fan.scm", tmp_path / "run.journal"
    program.write_text(
        """(define-task (step n) (prompt "step {{n}}"))
           (for-each (lambda (answer) (display answer) (newline))
                     (parallel-map (lambda (n) (get (step n) 'content)) (iota 9 1) #:max-concurrency 3))"""
    )
    provider_model.configure(delay=0.3)
    proc = start(["--resume", str(journal), str(program)], tmp_path / "crashed.out")
    wait_until(lambda: provider_model.count >= 5)
    kill(proc)
    answered = answered_prompts(journal)
    assert 0 < len(answered) < 9
    before = asked(provider_model)
    provider_model.configure(delay=0.01)

    done = resume(["--resume", str(journal), str(program)])
    assert done.returncode == 0, done.stderr
    assert done.stdout == "".join(f"echo: step {i}\n" for i in range(1, 10))
    after = asked(provider_model)
    for i in range(1, 10):
        prompt = f"step {i}"
        again = after[prompt] - before[prompt]
        assert again == (0 if prompt in answered else 1), prompt  # answered ones never asked again


def test_retries_journal_the_final_answer_and_a_resume_asks_nothing(provider_model: ProviderServer, tmp_path: Path):
    program, journal = tmp_path / "retry.scm", tmp_path / "run.journal"
    program.write_text(
        """(define-task (ask) (retries 3 (backoff 0.01)) (prompt "hello"))
           (define r (ask))
           (display (list (get r 'content) (get r 'notes 'attempts)))"""
    )
    provider_model.fail(2, 503)
    first = resume(["--resume", str(journal), str(program)])
    assert first.returncode == 0, first.stderr
    assert provider_model.count == 3  # two failures, then the answer (retried here or by the provider's SDK)
    [answer] = [e for e in journal_lines(journal) if not e["started"]]  # one line: the final answer
    assert answer["result"]["text"] == "echo: hello"
    assert first.stdout == f"(echo: hello {answer['result']['attempts']})"

    again = resume(["--resume", str(journal), str(program)])
    assert (again.returncode, again.stdout) == (0, first.stdout)  # the same answer and attempt count
    assert provider_model.count == 3


def test_a_second_process_on_the_same_journal_gets_a_clear_error(provider_model: ProviderServer, tmp_path: Path):
    program, journal = tmp_path / "loop.scm", tmp_path / "run.journal"
    program.write_text(LOOP)
    provider_model.configure(delay=5)  # the first is still writing when the second has started (0.5 s: under load it had ended)
    proc = start(["--resume", str(journal), str(program)], tmp_path / "first.out")
    wait_until(lambda: provider_model.count >= 1)
    second = resume(["--resume", str(journal), str(program)])
    kill(proc)
    assert second.returncode == 1
    assert f"the journal {journal} is locked: process {proc.pid} is writing it" in second.stderr
    assert "Traceback" not in second.stderr


def test_batch_items_killed_mid_loop_resume_from_their_own_journals(provider_model: ProviderServer, tmp_path: Path):
    program, inputs, output = tmp_path / "items.scm", tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    folder = tmp_path / "journals"
    program.write_text(
        """(define-task (step word n) (prompt "{{word}} {{n}}"))
           (define (three word) (map (lambda (n) (get (step word n) 'content)) '(1 2 3)))"""
    )
    inputs.write_text('{"word": "a"}\n{"word": "b"}\n')
    args = ["batch", str(program), "--task", "three", "--inputs", str(inputs), "--output", str(output)]
    args += ["--workers", "2", "--model", "fake", "--resume", str(folder), "--quiet"]
    batch = [sys.executable, "-m", "interpreter", *args]
    provider_model.configure(delay=0.3)
    proc = subprocess.Popen(batch, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environment(), cwd=ROOT)
    wait_until(lambda: provider_model.count >= 3)  # each item is part way through its three calls
    kill(proc)
    answered = answered_prompts(folder / "item-0.jsonl") | answered_prompts(folder / "item-1.jsonl")
    assert answered  # some calls journaled before the kill
    before = asked(provider_model)
    provider_model.configure(delay=0.0)

    done = subprocess.run(batch, capture_output=True, text=True, timeout=60, env=environment(), cwd=ROOT)
    assert done.returncode == 0, done.stderr
    results = {r["input"]["word"]: r["result"] for r in map(json.loads, output.read_text().splitlines())}
    assert results == {w: [f"echo: {w} {n}" for n in (1, 2, 3)] for w in "ab"}
    after = asked(provider_model)
    for prompt in [f"{w} {n}" for w in "ab" for n in (1, 2, 3)]:
        assert after[prompt] - before[prompt] == (0 if prompt in answered else 1), prompt
