"""Durable runs: what resuming a killed run saves, and what replaying a journaled call costs.

    .venv/bin/python bench/resume.py                  # 20 iterations, a 200 ms model, killed at 15
    .venv/bin/python bench/resume.py --iterations 10 --kill-at 6 --latency 0.1

1. A 20-iteration director-evaluator loop whose director is a real HTTP model (the tests'
   loopback OpenAI-compatible server, through llm's OpenAI plugin) answering in 200 ms,
   run by the ``taskscheme`` command line three ways: a fresh run with no journal; a run
   with ``--resume`` killed with SIGKILL while iteration 15's call is under way; and its
   resume. Printed: wall time, requests and tokens the provider served, for the fresh
   run beside the resume.
2. The cost of one model call answered from the journal (the task call, the gateway and
   the journal together), beside the same call to an instant Python model with no journal
   and beside plain Python doing a journal's work by hand (a dict lookup and ``json.loads``).

Wall-clock figures on a shared machine move between runs: compare within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from provider_server import ProviderServer, write_models  # noqa: E402
from timing import best  # noqa: E402

from interpreter import Interpreter  # noqa: E402
from interpreter.durable import BranchJournal, JournalFile  # noqa: E402
from interpreter.tasks.models.cache import ModelRequest  # noqa: E402
from interpreter.tasks.models.journaled import MODEL_CALLS, model_request  # noqa: E402

LOOP = """
(define-task (draft topic feedback) (prompt "Draft {{topic}}. Feedback: {{feedback}}"))
(define result
  (director-evaluator-loop
    (max-iterations {iterations})
    (director (draft "release notes" evaluation-feedback))
    (evaluator (make-evaluation #f (string-append "iteration " (number->string current-iteration) ": tighter")))))
(display (get result 'iterations-completed)) (newline)
"""


def tokens(server: ProviderServer, since: int = 0) -> int:
    """Tokens the provider served (prompt words in, answer words out) for requests from ``since`` on."""
    total = 0
    for request in server.requests[since:]:
        words_in = sum(len(str(m.get("content", "")).split()) for m in request.body.get("messages", []))
        total += words_in + len(("echo: " + request.prompt).split())
    return total


def run(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, str(ROOT / "repl.py"), *args], env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def resume_figures(iterations: int, kill_at: int, latency: float) -> None:
    with tempfile.TemporaryDirectory() as folder, ProviderServer().start() as server:
        home = Path(folder)
        write_models(home, server.base_url, ["fake"])
        env = {**os.environ, "LLM_USER_PATH": str(home), "TASKSCHEME_PROGRESS": "0", "PYTHONPATH": str(ROOT)}
        program = home / "loop.scm"
        program.write_text(LOOP.format(iterations=iterations))
        server.configure(delay=latency)
        base = ["--model", "fake"]

        fresh_s = run([*base, str(program)], env)
        fresh_requests, fresh_tokens = server.count, tokens(server)

        journal = home / "run.journal"
        mark = server.count
        killed_start = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, str(ROOT / "repl.py"), *base, "--resume", str(journal), str(program)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        while server.count - mark < kill_at:  # the kill_at-th call has reached the provider
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        killed_s = time.perf_counter() - killed_start
        killed_requests = server.count - mark

        mark = server.count
        resumed_s = run([*base, "--resume", str(journal), str(program)], env)
        resumed_requests, resumed_tokens = server.count - mark, tokens(server, mark)

        server.configure(delay=0.0)  # what every row pays besides its calls: start-up, llm and its plugin
        single = home / "one.scm"
        single.write_text('(define-task (t) (prompt "hi")) (t)')
        startup_s = run([*base, str(single)], env)

    print(f"{iterations}-iteration loop, {latency * 1000:.0f} ms model, killed during iteration {kill_at}:")
    print(f"  {'':34} {'wall (s)':>9} {'requests':>9} {'tokens':>8}")
    print(f"  {'fresh run (no journal)':34} {fresh_s:9.2f} {fresh_requests:9d} {fresh_tokens:8d}")
    print(f"  {'run with --resume, killed':34} {killed_s:9.2f} {killed_requests:9d} {'':>8}")
    print(f"  {'its resume':34} {resumed_s:9.2f} {resumed_requests:9d} {resumed_tokens:8d}")
    print(f"  {'start-up and one instant call':34} {startup_s:9.2f} {1:9d}")
    saved_s = 1 - resumed_s / fresh_s
    saved_tokens = 1 - resumed_tokens / fresh_tokens
    print(f"  the resume takes {resumed_s / fresh_s:.0%} of a fresh run's time ({saved_s:.0%} saved) and spends")
    print(f"  {resumed_tokens / fresh_tokens:.0%} of its tokens ({saved_tokens:.0%} saved)")


def instant(prompt: str, system: str | None) -> str:
    return "echo: " + prompt


def replay_figures(calls: int, repeat: int) -> None:
    program = '(define-task (ask q) (model "m") (prompt "say {{q}}"))'
    loop = f'(do ((i 0 (+ i 1))) ((= i {calls})) (ask (number->string i)))'
    with tempfile.TemporaryDirectory() as folder:
        journal = Path(folder) / "run.journal"
        writer = Interpreter(journal=journal)
        writer.models.register("m", instant)
        writer.eval(program)
        writer.eval(loop)
        assert writer.journal is not None
        writer.journal.close()

        whole = []
        for _ in range(repeat):  # a fresh reader each time (untimed); only the calls are timed
            reader = Interpreter(journal=journal)
            reader.models.register("m", lambda prompt, system: "never called")
            reader.eval(program)
            start = time.perf_counter()
            reader.eval(loop)
            whole.append(time.perf_counter() - start)
            assert reader.journal is not None and reader.journal.used == calls, "every call answered from the journal"
            reader.journal.close()

        file = JournalFile(journal)
        requests = [model_request(ModelRequest("m", f"say {i}")) for i in range(calls)]

        def journal_alone() -> None:  # the journal's own part: find the line, compare the request, decode
            branch = BranchJournal(file)
            for request in requests:
                branch.answer(MODEL_CALLS, request, never)

        alone_s = best(journal_alone, repeat)
        file.close()

        live = Interpreter()
        live.models.register("m", instant)
        live.eval(program)
        live_s = best(lambda: live.eval(loop), repeat)

        lines = [line for line in journal.read_text().splitlines() if '"started":false' in line]
        by_key = {(e["branch"], e["n"]): line for line in lines for e in [json.loads(line)]}

        def by_hand() -> None:
            for n in range(1, calls + 1):
                json.loads(by_key[("", n)])["result"]["text"]

        hand_s = best(by_hand, repeat)

    per = 1e6 / calls
    print(f"\none model call answered from the journal ({calls} calls, best of {repeat}):")
    print(f"  the journal's own part (find, compare the request, decode)  {alone_s * per:6.1f} µs")
    print(f"  plain Python doing that by hand: dict lookup, json.loads     {hand_s * per:6.1f} µs")
    print(f"  the whole task call answered from the journal                {min(whole) * per:6.1f} µs")
    print(f"  the same task call to an instant Python model, no journal    {live_s * per:6.1f} µs")


def never() -> Any:
    raise AssertionError("answered from the journal, never run")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--kill-at", type=int, default=15)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()
    resume_figures(opts.iterations, opts.kill_at, opts.latency)
    replay_figures(opts.calls, opts.repeat)


if __name__ == "__main__":
    main()
