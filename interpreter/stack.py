"""The Python stack under deep recursion: how tall it is, and fresh stacks to continue on.

Deep non-tail recursion in the DSL is deep recursion in Python: a level of an
ordinary compiled call is one Python frame. :class:`~interpreter.evaluator.Runtime`
keeps each thread under the host's recursion limit by measuring the stack now and
then (:func:`stack_height`) and, near the limit, carrying on in a thread of its own
(:func:`run_on_fresh_stack`).

Measuring must cost neither memory nor time. Walking ``frame.f_back`` makes a frame
object for every frame it passes (in Python 3.11 each as big as the frame itself,
kept while that frame runs: about 300 bytes a level), so it is done only over the few
frames next to an :class:`Anchor`, a frame whose height is known; ``sys._getframe(n)``
skips the rest in C and makes a frame object only for the one it returns.

Threads are pooled: a recursion 1,000 levels deep hops once or twice each time it
runs, and starting a thread costs more than a thousand calls.
"""

from __future__ import annotations

import contextvars
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any, NamedTuple

#: How many frames under the one that takes an anchor are remembered with it: the
#: taker may return while evaluation goes on from a frame further down (a context
#: manager's ``__enter__`` begins the run, its caller runs it).
ANCHOR_FRAMES = 8


class Anchor(NamedTuple):
    """Frames that may be on this thread's stack under the DSL's, with their heights,
    and the DSL depth when they were taken (each deeper level adds at least a frame)."""

    depth: int
    heights: dict[FrameType, int]

    def only(self, frame: FrameType) -> Anchor:
        """This anchor reduced to ``frame``, the one found on the stack."""
        return Anchor(self.depth, {frame: self.heights[frame]})


def python_depth() -> int:
    """How many Python frames are on this thread's stack (the caller's included).

    A binary search on ``sys._getframe(n)``, which fails past the bottom of the stack;
    no frame objects are made but the few it returns."""
    get = sys._getframe
    low, high = 1, 2  # the frame at ``low`` exists (our caller's); at ``high``: to be seen
    while True:
        try:
            get(high)
        except ValueError:
            break
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        try:
            get(middle)
            low = middle
        except ValueError:
            high = middle
    return low  # indices 0 (this frame) … low (the bottom): our caller is the low-th from the bottom


def anchor_here(depth: int, height: int) -> Anchor:
    """An anchor of the caller's frame, at ``height``, and of the frames under it (the
    caller may return: a frame further down goes on running the evaluation)."""
    heights: dict[FrameType, int] = {}
    frame = sys._getframe(1)
    for i in range(ANCHOR_FRAMES):
        if frame is None:
            break
        heights[frame] = height - i
        frame = frame.f_back
    return Anchor(depth, heights)


def stack_height(anchor: Anchor | None, depth: int) -> tuple[int, Anchor | None]:
    """How many Python frames are on this thread's stack (the caller's included), the
    caller running at DSL ``depth``; and the anchor to count from next time (``anchor``
    reduced to the frame found, or None).

    Counted from ``anchor``: the ``depth - anchor.depth`` levels above it are at least
    as many frames, skipped in C; the walk covers only the frames past one per level.
    Without an anchor on the stack, :func:`python_depth`."""
    if anchor is not None:
        heights = anchor.heights
        i = max(depth - anchor.depth, 0) + 1  # this frame is index 0, the caller 1
        try:
            frame: FrameType | None = sys._getframe(i)
        except ValueError:
            frame = None
        if len(heights) == 1:
            [(target, height)] = heights.items()
            while frame is not None:
                if frame is target:
                    return height + i - 1, anchor
                frame = frame.f_back
                i += 1
        else:
            while frame is not None:
                height = heights.get(frame)
                if height is not None:
                    return height + i - 1, anchor.only(frame)
                frame = frame.f_back
                i += 1
    return python_depth() - 1, None


# -- fresh stacks -----------------------------------------------------------------------
#: Idle threads kept for the next hop; more are started as hops nest, and end when idle past this.
MAX_IDLE = 16

_idle: list[_StackThread] = []
_idle_lock = threading.Lock()


class _StackThread:
    """A daemon thread that runs one job at a time, then waits in the idle pool."""

    def __init__(self) -> None:
        self.jobs: list[tuple[contextvars.Context, Callable[[], None], threading.Lock]] = []
        self.ready = threading.Semaphore(0)
        threading.Thread(target=self.serve, name="taskscheme-deep", daemon=True).start()

    def give(self, context: contextvars.Context, job: Callable[[], None], done: threading.Lock) -> None:
        self.jobs.append((context, job, done))
        self.ready.release()

    def serve(self) -> None:
        while True:
            self.ready.acquire()
            context, job, done = self.jobs.pop()
            context.run(job)
            with _idle_lock:
                keep = len(_idle) < MAX_IDLE
                if keep:
                    _idle.append(self)
            done.release()
            if not keep:
                return


def run_on_fresh_stack(job: Callable[[], Any], abandoned: Callable[[], None]) -> Any:
    """Call ``job`` on another thread (a fresh Python stack) in a copy of this thread's
    context (its branch, its memory budget) and return its value or raise its exception.

    The wait is a lock, which Ctrl-C in the main thread interrupts: then ``abandoned()``
    is called (to stop the job, which goes on until it sees that) and the exception raised."""
    box: list[tuple[bool, Any]] = []

    def work() -> None:
        try:
            box.append((True, job()))
        except BaseException as exc:  # handed to the waiting thread
            box.append((False, exc))

    done = threading.Lock()
    done.acquire()
    with _idle_lock:
        thread = _idle.pop() if _idle else None
    if thread is None:
        thread = _StackThread()
    thread.give(contextvars.copy_context(), work, done)
    try:
        done.acquire()
    except BaseException:
        abandoned()
        raise
    ok, value = box[0]
    if ok:
        return value
    raise value
