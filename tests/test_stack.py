"""interpreter.stack: measuring the Python stack without walking it, and fresh stacks."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator

import pytest

from interpreter.stack import python_depth, run_on_fresh_stack, stack_height


def walked_depth() -> int:
    """The caller's height, counted the slow way (every frame)."""
    frame = sys._getframe(1)
    n = 0
    while frame is not None:
        frame = frame.f_back
        n += 1
    return n


def down(n: int, probe: object) -> object:
    return probe() if n == 0 else down(n - 1, probe)


@pytest.mark.parametrize("levels", [0, 1, 7, 100, 500])
def test_python_depth_counts_every_frame(levels: int) -> None:
    assert down(levels, lambda: python_depth() == walked_depth())


def deepest_below(extra: int) -> tuple[int, int]:
    """With the recursion limit ``extra`` above the caller's height: how far the deepest
    frame that could still measure the stack is below the limit, and how many frames
    above the first measurement it is."""
    heights: list[int] = []

    def climb() -> None:
        heights.append(stack_height())
        climb()

    old = sys.getrecursionlimit()
    limit = stack_height() + extra
    sys.setrecursionlimit(limit)
    try:
        climb()
    except RecursionError:
        pass
    finally:
        sys.setrecursionlimit(old)
    return limit - heights[-1], heights[-1] - heights[0]


@pytest.mark.parametrize("levels", [0, 3, 200])
def test_stack_height_is_the_depth_the_recursion_limit_counts(levels: int) -> None:
    """One more a frame, and exact: the deepest frame that can call stack_height is one below the limit."""
    assert down(levels, lambda: deepest_below(40)) == (1, 38)
    assert run_on_fresh_stack(lambda: down(levels, lambda: deepest_below(25)), lambda: None) == (1, 23)


def test_stack_height_makes_no_frame_object() -> None:
    """A frame object made for a running frame is as big as the frame and lives as long
    (Python 3.11): measuring makes none (a walk, or python_depth's search, makes several)."""

    def allocated_by(measure: Callable[[], int]) -> int:
        before = sys.getallocatedblocks()
        measure()
        return sys.getallocatedblocks() - before

    assert down(50, lambda: allocated_by(python_depth)) >= 5  # the probe sees frame objects
    assert down(50, lambda: allocated_by(stack_height)) <= 2


def test_stack_height_counts_the_frames_where_python_does_not_report_the_depth(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A CPython whose refusal says no depth, or that takes a limit of 1: frames are counted
    (and the limit put back)."""
    limit = sys.getrecursionlimit()
    set_limit = sys.setrecursionlimit

    def refuses(n: int) -> None:
        if n == 1:
            raise RecursionError("the limit is too low")
        set_limit(n)

    monkeypatch.setattr(sys, "setrecursionlimit", refuses)
    assert down(30, lambda: stack_height() == walked_depth())
    monkeypatch.setattr(sys, "setrecursionlimit", lambda n: None)
    assert down(30, lambda: stack_height() == walked_depth())
    assert sys.getrecursionlimit() == limit


def test_run_on_fresh_stack_returns_and_raises_from_another_thread() -> None:
    assert run_on_fresh_stack(threading.get_ident, lambda: None) != threading.get_ident()
    with pytest.raises(KeyError):
        run_on_fresh_stack(lambda: {}["missing"], lambda: None)


def test_with_room_returns_and_raises_and_leaves_room_after_its_frame() -> None:
    from interpreter import stack

    assert stack.with_room(lambda: down(500, lambda: 42), 1000) == 42
    with pytest.raises(KeyError) as info:
        stack.with_room(lambda: {}["missing"], 1000)
    assert "_launch" not in {entry.name for entry in info.traceback}  # no exception passed the roomy frame
    for room in (64 * stack.FRAME_BYTES, 1000 * stack.FRAME_BYTES, stack.MAX_ROOM):
        frame_words = stack._launcher(room).__code__.co_stacksize + 64  # locals and header: a few words
        chunk = stack.CHUNK
        while chunk < 8 * (frame_words + 1000):
            chunk *= 2  # how CPython sizes the chunk for a frame that fits in no 16 KB one
        assert chunk - 8 * frame_words >= room


def test_with_room_runs_the_job_as_usual_where_the_room_cannot_be_mapped(monkeypatch: pytest.MonkeyPatch) -> None:
    from interpreter import stack

    def unmappable(room: int) -> object:
        def launch(job: object) -> object:
            raise MemoryError

        return launch

    monkeypatch.setattr(stack, "_launcher", unmappable)
    assert stack.with_room(lambda: "ran", 1000) == "ran"
    assert stack.with_room(lambda: "small", 10) == "small"


def test_deep_recursion_runs_in_a_roomy_frame_and_reports_errors_from_it() -> None:
    from interpreter import Interpreter, SchemeError

    interp = Interpreter()
    interp.eval("(define (count n) (if (= n 0) 0 (+ (count (- n 1)) 1)))")
    assert interp.eval("(count 5000)") == 5000
    interp.eval("(define (bad n) (if (= n 0) (car '()) (+ (bad (- n 1)) 1)))")
    with pytest.raises(SchemeError) as info:
        interp.eval("(bad 3000)")
    assert info.value.kind == "type-error" and "car" in str(info.value)


def test_a_run_gets_room_for_as_many_frames_as_the_recursion_limit_allows(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run's roomy chunk is unmapped when the run ends, so it may be bigger than a hop
    thread's (kept for the thread's life): with the limit at 100,000 the whole recursion's
    frames fit in it, and no 16 KB chunk is mapped and unmapped past the first megabyte."""
    from interpreter import Interpreter, stack

    rooms: list[int] = []
    real = stack._launcher
    monkeypatch.setattr(stack, "_launcher", lambda room: rooms.append(room) or real(room))
    interp = Interpreter()
    interp.eval("(define (count n) (if (= n 0) 0 (+ (count (- n 1)) 1)))")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(100_000)
    try:
        assert interp.eval("(count 20000)") == 20000
    finally:
        sys.setrecursionlimit(limit)
    assert rooms and rooms[-1] > 90_000 * stack.FRAME_BYTES > stack.MAX_ROOM


def test_hops_run_on_a_roomy_frame_kept_for_the_threads_life() -> None:
    def launcher_below() -> bool:
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_name == "_launch":
                return frame.f_code.co_stacksize > 1000
            frame = frame.f_back
        return False

    assert run_on_fresh_stack(launcher_below, lambda: None)
    assert run_on_fresh_stack(launcher_below, lambda: None)  # again, on a pooled thread


def test_a_light_recursion_that_goes_on_into_a_heavier_one_gets_its_room() -> None:
    """`f` takes one Python frame a level; `g` (through `apply`) and `h` (through `map`)
    take more: the marks set while `f` ran must not let `h` overrun the stack (a stretch
    between marks runs at most twice as many levels as the one before). Not yet covered:
    `h` starting in a hop thread under a mark that was planned for `f` and put back when
    `g` returned (`(f 2000 3000)`), see docs/performance.md."""
    from interpreter import Interpreter

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        interp = Interpreter()
        interp.eval(
            """
            (define (g n) (if (= n 0) 0 (+ 1 (apply g (list (- n 1))))))
            (define (h n) (if (= n 0) 0 (+ 1 (car (map h (list (- n 1)))))))
            (define (f n k) (if (= n 0) (+ (g k) (h k)) (+ 1 (f (- n 1) k))))
            """
        )
        for n in (10, 50, 200, 600, 850):
            assert interp.eval(f"(f {n} 3000)") == n + 6000
    finally:
        sys.setrecursionlimit(limit)


def test_parallel_map_branches_recurse_on_a_roomy_frame() -> None:
    from interpreter import Interpreter

    interp = Interpreter()
    interp.define("launcher-below?", lambda: any(f.f_code.co_name == "_launch" for f in _frames()))
    interp.eval("(define (count n) (if (= n 0) (if (launcher-below?) 0 -1000000) (+ (count (- n 1)) 1)))")
    assert interp.eval("(parallel-map count (list 100 200 300))") == [100, 200, 300]


def _frames() -> list[object]:
    frames, frame = [], sys._getframe(1)
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    return frames


def test_a_depth_mark_keeps_one_small_frame_under_the_call_and_counts_its_steps() -> None:
    """At a mark the call is made from ``Runtime.deep`` itself (not through ``apply`` and
    ``apply_procedure``: two frames more per mark, ten or so marks per hop thread), a call
    that returns a tail call included; the steps counted are the same as between marks."""
    from interpreter import Interpreter

    seen: list[list[str]] = []
    interp = Interpreter(max_steps=10**9)
    interp.define("look", lambda: seen.append([f.f_code.co_name for f in _frames()]) or 0)
    interp.eval("(define (count n) (if (= n 0) (look) (+ 1 (step n))))")
    interp.eval("(define (step n) (count (- n 1)))")  # a tail call: step returns it to its caller
    rt = interp.runtime
    for n in (3000, 20000):
        before = rt.steps
        assert interp.eval(f"(count {n})") == n
        assert rt.steps - before == 2 * n + 1
    names = seen[-1]  # the last hop thread's frames, innermost first
    called_from_deep = [names[i - 1] for i, name in enumerate(names) if name == "deep"]
    assert len(called_from_deep) >= 2 and "apply" not in called_from_deep
    deep = interp.runtime.deep.__code__
    assert deep.co_nlocals <= 8 and not deep.co_cellvars


@pytest.mark.parametrize("limit", [7, 250, 251, 502, 1000, 12345])
def test_max_depth_is_exact_across_depth_marks_and_hops(limit: int) -> None:
    """Each depth mark begins a stretch of its own (``Runtime.depth_base``): the levels still
    count from the bottom of the run, whatever stretch and thread the limit falls in."""
    from interpreter import Interpreter, SchemeError

    interp = Interpreter(max_depth=limit)
    interp.eval("(define (count n) (if (= n 0) 0 (+ (count (- n 1)) 1)))")
    assert interp.eval(f"(count {limit - 1})") == limit - 1
    with pytest.raises(SchemeError) as info:
        interp.eval(f"(count {limit})")
    assert info.value.details == {"resource": "depth", "used": limit, "limit": limit}
    assert interp.eval("(count 3)") == 3  # the runtime starts afresh


def test_the_depth_a_level_saves_stays_a_small_integer() -> None:
    """Every level holds the depth it saved; past a mark it counts from the mark, so it is
    one of CPython's shared small integers, not an object of its own per level."""
    from interpreter import Interpreter

    interp = Interpreter()
    rt = interp.runtime
    seen: list[tuple[int, int]] = []
    interp.define("look", lambda: seen.append((rt.depth, rt.levels)) or 0)
    interp.eval("(define (count n) (if (= n 0) (look) (+ (count (- n 1)) 1)))")
    assert interp.eval("(count 30000)") == 30000
    depth, levels = seen[-1]
    assert 0 < depth <= rt.MAX_STRETCH + 1 and levels == 30001
    assert (rt.depth, rt.depth_base) == (0, 0)


@pytest.fixture
def high_limit() -> Iterator[None]:
    """The recursion limit at 100,000 (as ``bench/guile.py`` sets it) while the test runs."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(100_000)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def _roomy_thread_of(interp: object, n: int) -> list[object]:
    """The roomy threads idle after ``(count n)``."""
    from interpreter import stack

    assert interp.eval(f"(count {n})") == n  # type: ignore[attr-defined]
    return list(stack._roomy_idle)


def test_a_deep_serial_recursion_goes_on_on_a_roomy_thread_kept_for_the_next_run(high_limit: None) -> None:
    """Past ``Runtime.EARLY_HOP`` levels a serial run goes on on a roomy thread, which waits
    for the next run with its frame pages touched: the same thread serves the next one.
    (With the default recursion limit a run hops to the pooled threads well before.)"""
    from interpreter import Interpreter
    from interpreter.evaluator.runtime import Runtime

    interp = Interpreter()
    interp.eval("(define (count n) (if (= n 0) 0 (+ (count (- n 1)) 1)))")
    first = _roomy_thread_of(interp, Runtime.EARLY_HOP * 3)
    assert len(first) == 1
    assert _roomy_thread_of(interp, Runtime.EARLY_HOP * 3) == first
    assert _roomy_thread_of(interp, 100) == first  # a shallow run does not hop


def test_a_run_with_a_memory_budget_does_not_hop_early(monkeypatch: pytest.MonkeyPatch, high_limit: None) -> None:
    """The budget measures the resident size, which pages kept touched would hide."""
    from interpreter import Interpreter
    from interpreter.evaluator import runtime

    hops: list[bool] = []
    real = runtime.run_on_fresh_stack

    def recorded(job: Callable[[], object], abandoned: Callable[[], None], roomy: bool = False) -> object:
        hops.append(roomy)
        return real(job, abandoned, roomy)

    monkeypatch.setattr(runtime, "run_on_fresh_stack", recorded)
    n = runtime.Runtime.EARLY_HOP * 2
    for interp, roomy in ((Interpreter(max_memory=1 << 30), False), (Interpreter(), True)):
        hops.clear()
        interp.eval("(define (count n) (if (= n 0) 0 (+ (count (- n 1)) 1)))")
        assert interp.eval(f"(count {n})") == n
        assert (True in hops) is roomy


def test_an_idle_roomy_thread_ends_after_its_time(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from interpreter import stack

    monkeypatch.setattr(stack, "ROOMY_IDLE_SECONDS", 0.1)
    assert run_on_fresh_stack(lambda: "done", lambda: None, roomy=True) == "done"
    deadline = time.monotonic() + 10
    while stack._roomy_idle and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not stack._roomy_idle
    assert run_on_fresh_stack(lambda: "again", lambda: None, roomy=True) == "again"  # a new one
