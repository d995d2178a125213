"""The collector policy of a run (interpreter/collector.py): garbage older than a run is
collected before its deadline starts, and collections during the run do not walk the heap
older than the run. Asserted on what the collector did, never on timings."""

from __future__ import annotations

import gc
import io
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from interpreter import Interpreter
from interpreter.collector import CPYTHON_THRESHOLDS, DUE_FROM, DUE_SHARE, STARTUP_FROZEN, YOUNG_THRESHOLD, settle


@pytest.fixture(autouse=True)
def default_thresholds() -> Iterator[None]:
    """Each test starts from CPython's own thresholds, as a fresh host would: an earlier test
    in the same process may have run the CLI's ``main`` in-process, which tunes them for good."""
    before = gc.get_threshold()
    gc.set_threshold(*CPYTHON_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


class Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def full_passes() -> Iterator[list[tuple[int, bool]]]:
    """Every full collection from here on, as ``(objects freed, a run was under way)``;
    the fixture's ``running`` list names the interpreters to watch."""
    seen: list[tuple[int, bool]] = []
    watched: list[Interpreter] = []

    def record(phase: str, info: dict[str, Any]) -> None:
        if phase == "stop" and info["generation"] == 2:
            seen.append((info["collected"], any(i.runtime.running for i in watched)))

    settle(force=True)
    gc.callbacks.append(record)
    record.watched = watched  # type: ignore[attr-defined]
    try:
        yield seen
    finally:
        gc.callbacks.remove(record)


def test_garbage_earlier_runs_left_is_freed_before_the_next_deadline_starts(full_passes: list[tuple[int, bool]]) -> None:
    interp = Interpreter(stdout=io.StringIO(), timeout=5)
    gc.callbacks[-1].watched.append(interp)  # type: ignore[attr-defined]
    size = max(DUE_FROM, int(sys.getallocatedblocks() * DUE_SHARE)) + 10_000
    old = Interpreter(stdout=io.StringIO())
    old.eval(f"(define big (iota {size}))")
    del old  # cyclic garbage now: the interpreter, its globals and the pairs
    # Runs that allocate (settle counts the heap only after some collections of the
    # youngest generation): one of them frees the old interpreter …
    consing = "(let loop ((i 0) (acc '())) (if (< i 20000) (loop (+ i 1) (cons i acc)) (length acc)))"
    for _ in range(5):
        assert interp.eval(consing) == 20000
    freed = [(n, running) for n, running in full_passes if n >= size]
    assert freed, full_passes
    assert not any(running for _, running in freed)  # … before its run (and deadline) began


def test_a_run_freezes_the_older_heap_and_unfreezes_it_after() -> None:
    interp = Interpreter(stdout=io.StringIO(), timeout=5)
    frozen: list[int] = []
    interp.define("frozen-now", lambda: frozen.append(gc.get_freeze_count()) or True)
    keep = [Cycle() for _ in range(50_000)]  # older than the run
    assert gc.get_freeze_count() <= STARTUP_FROZEN  # what CPython froze itself (3.12: 375 objects)
    interp.eval("(frozen-now)")
    assert frozen[0] >= len(keep)  # collections in the run skip them
    assert gc.get_freeze_count() == 0  # and they are ordinary objects again after it


def thresholds_in_a_run(interp: Interpreter) -> tuple[int, int, int]:
    """The collector's thresholds as a run of ``interp`` sees them."""
    seen: list[tuple[int, int, int]] = []
    interp.define("thresholds-now", lambda: seen.append(gc.get_threshold()) or True)
    interp.eval("(thresholds-now)")
    return seen[0]


def test_a_run_collects_the_young_generation_less_often_and_restores_the_threshold() -> None:
    assert gc.get_threshold() == CPYTHON_THRESHOLDS
    interp = Interpreter(stdout=io.StringIO())
    assert thresholds_in_a_run(interp) == (YOUNG_THRESHOLD, *CPYTHON_THRESHOLDS[1:])
    assert gc.get_threshold() == CPYTHON_THRESHOLDS  # Python code between runs collects as before
    with interp.whole_run():  # a run the host opens: tuned until it ends
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD
        assert interp.eval("(+ 1 2)") == 3
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD
    assert gc.get_threshold() == CPYTHON_THRESHOLDS


def test_a_run_that_fails_restores_the_threshold_too() -> None:
    interp = Interpreter(stdout=io.StringIO())
    with pytest.raises(Exception, match="car"):
        interp.eval("(car 5)")
    assert gc.get_threshold() == CPYTHON_THRESHOLDS


def test_a_host_with_thresholds_of_its_own_keeps_them() -> None:
    interp = Interpreter(stdout=io.StringIO())
    gc.set_threshold(1234, 7, 3)
    try:
        assert thresholds_in_a_run(interp) == (1234, 7, 3)
        assert gc.get_threshold() == (1234, 7, 3)
    finally:
        gc.set_threshold(*CPYTHON_THRESHOLDS)


def test_tune_gc_false_leaves_the_collector_alone() -> None:
    interp = Interpreter(stdout=io.StringIO(), tune_gc=False)
    assert thresholds_in_a_run(interp) == CPYTHON_THRESHOLDS
    assert gc.get_threshold() == CPYTHON_THRESHOLDS


def test_a_host_that_froze_objects_keeps_them_frozen() -> None:
    interp = Interpreter(stdout=io.StringIO(), timeout=5)
    keep = [Cycle() for _ in range(1000)]
    gc.freeze()
    try:
        assert interp.eval("(length (iota 1000))") == 1000
        walked = {id(o) for o in gc.get_objects()}  # every generation but the frozen one
        assert not any(id(c) in walked for c in keep)
    finally:
        gc.unfreeze()
        settle(force=True)  # the count of frozen objects is made again after a full collection


def test_a_host_with_a_frozen_heap_counts_it_once_not_at_every_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """CPython counts frozen objects by walking them: at every run's start that cost 8 ms for
    a host that froze 400,000 objects, and made the suite's runs four times slower under a
    frozen pytest heap. A count that found the host's objects is kept."""
    interp = Interpreter(stdout=io.StringIO(), timeout=5)
    keep = [Cycle() for _ in range(1000)]
    counts: list[int] = []
    count = gc.get_freeze_count
    monkeypatch.setattr(gc, "get_freeze_count", lambda: counts.append(1) or count())
    gc.freeze()
    try:
        for n in range(20):
            assert interp.eval(f"(length (iota {n}))") == n
        assert len(counts) == 1
        assert not any(id(c) in {id(o) for o in gc.get_objects()} for c in keep)  # still the host's
    finally:
        gc.unfreeze()
        settle(force=True)
    assert interp.eval("(+ 1 2)") == 3
    assert len(counts) == 2  # counted again after the full collection: none of the host's now


def test_settle_collects_only_once_enough_has_grown(full_passes: list[tuple[int, bool]]) -> None:
    assert settle() == 0.0  # nothing grew since the fixture's forced settle
    size = max(DUE_FROM, int(sys.getallocatedblocks() * DUE_SHARE)) + 10_000
    garbage = [Cycle() for _ in range(size)]
    gc.collect(1)  # the cycles, still reachable, move to the oldest generation: no young pass can free them
    del garbage
    full_passes.clear()
    assert settle() > 0.0
    assert full_passes and full_passes[-1][0] >= size
