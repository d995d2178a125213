"""The threads of parallel forms (issue 33 item 2): the interpreter's ``max_threads`` caps
every form, a higher request is clamped and the trace says so, threads start as work is
taken, and each branch checks the run's limits before it starts."""

from __future__ import annotations

import threading
import time

import pytest

from interpreter import Interpreter, SchemeError


class Overlap:
    """A host procedure that sleeps and records how many calls overlap."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.lock = threading.Lock()
        self.now = self.max = 0

    def __call__(self, x: object) -> object:
        with self.lock:
            self.now += 1
            self.max = max(self.max, self.now)
        time.sleep(self.delay)
        with self.lock:
            self.now -= 1
        return x


def test_max_threads_defaults_to_64_and_clamps_a_higher_request() -> None:
    interp = Interpreter()
    assert interp.max_threads == 64
    overlap = Overlap(0.05)
    interp.define("slow", overlap)
    assert interp.eval("(length (parallel-map slow (iota 200) #:max-concurrency 5000))") == 200
    assert overlap.max == 64


def test_a_clamped_request_is_in_the_trace() -> None:
    interp = Interpreter(max_threads=4)
    overlap = Overlap(0.02)
    interp.define("slow", overlap)
    events: list = []
    interp.on_event(events.append)
    interp.eval("(parallel-map slow (iota 20) #:max-concurrency 40)")
    interp.eval("(parallel #:max-concurrency 3 (slow 1) (slow 2) (slow 3) (slow 4))")
    clamped, kept = [e for e in events if e.kind == "parallel"]
    assert clamped.info["max_concurrency"] == 4 and clamped.info["requested_concurrency"] == 40
    assert kept.info["max_concurrency"] == 3 and "requested_concurrency" not in kept.info
    assert overlap.max == 4


def test_max_threads_must_be_a_positive_integer() -> None:
    with pytest.raises(SchemeError) as info:
        Interpreter(max_threads=0)
    assert "positive integer" in info.value.message


def test_threads_start_as_work_is_taken() -> None:
    """Quick jobs under a cap of 1000: a worker starts only when every started one is
    busy, so far fewer threads run than the cap (all 1000 started at once before)."""
    interp = Interpreter(max_threads=1000)
    names: set[str] = set()
    interp.define("mark", lambda x: names.add(threading.current_thread().name) or x)
    assert interp.eval("(length (parallel-map mark (iota 2000) #:max-concurrency 1000))") == 2000
    # How many start depends on scheduling (a loaded machine deschedules busy workers), but never
    # the whole cap, as starting every thread up front did.
    assert 1 <= len(names) < 1000, len(names)


def test_each_branch_checks_the_deadline_before_it_starts() -> None:
    """The deadline has passed when the form starts; the branches call a primitive (no
    step of their own to check on), so only the check at each branch's start stops them."""
    interp = Interpreter(timeout=0.2)
    calls: list[object] = []
    interp.define_primitive("wait", lambda: time.sleep(0.25))
    interp.define("note", calls.append)
    with pytest.raises(SchemeError) as info:
        interp.eval("(begin (wait) (parallel-map note (list 1 2 3 4 5 6 7 8)))")
    assert info.value.message == "time limit exceeded: timeout = 0.2 s"
    assert calls == []


def test_a_million_trivial_branches_stop_at_the_deadline() -> None:
    """The figure (within timeout + 0.5 s) is measured by bench/parallel_limits.py."""
    interp = Interpreter(timeout=1)
    before = set(threading.enumerate())
    with pytest.raises(SchemeError) as info:
        interp.eval("(length (parallel-map (lambda (i) i) (iota 1000000) #:max-concurrency 1000000))")
    assert info.value.message == "time limit exceeded: timeout = 1 s"
    # Count only the threads this run started: earlier tests in the same process may leave idle
    # model workers behind (they live 30 s), which say nothing about this form.
    started = [t for t in threading.enumerate() if t not in before]
    assert len(started) < 10, started
    again = Interpreter()  # no timeout: a loaded machine must not fail what only has to finish
    assert again.eval("(length (parallel-map (lambda (i) i) (iota 5000) #:max-concurrency 5000))") == 5000
