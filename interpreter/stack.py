"""The Python stack under deep recursion: how tall it is, and fresh stacks to continue on.

Deep non-tail recursion in the DSL is deep recursion in Python: a level of an
ordinary compiled call is one Python frame. :class:`~interpreter.evaluator.Runtime`
keeps each thread under the host's recursion limit by measuring the stack now and
then (:func:`stack_height`) and, near the limit, carrying on in a thread of its own
(:func:`run_on_fresh_stack`).

Measuring must cost neither memory nor time. Walking ``frame.f_back`` (or
``sys._getframe(n)``) makes a frame object for the frames it reaches (in Python 3.11 each
as big as the frame itself, kept while that frame runs), so the height is read from
CPython's own count, which it tells when it refuses a recursion limit below it.

Threads are pooled: a recursion 1,000 levels deep hops once or twice each time it
runs, and starting a thread costs more than a thousand calls. A hop thread is a bare
``_thread`` thread (no :class:`threading.Thread`, its objects and its bootstrap frames'
page): a recursion 1,000,000 levels deep holds over 1,200 of them at once.
"""

from __future__ import annotations

import _thread
import contextvars
import sys
import threading
from collections.abc import Callable
from types import FunctionType
from typing import Any


def stack_height() -> int:
    """How deep this thread's stack is as the recursion limit counts it, the caller's frame
    included: its Python frames and the calls through C in progress that CPython counts
    too (``sys.getrecursionlimit() - stack_height()`` more frames fit).

    CPython tells the depth in the error it raises when asked for a recursion limit not
    above it (and changes nothing): asked for 1, it always refuses. No frame is walked
    (``frame.f_back`` would make a frame object for every frame it passes, in Python 3.11
    each as big as the frame and kept while that frame runs). Should the message not be
    the one expected, :func:`python_depth` counts the frames instead."""
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(1)
    except RecursionError as exc:
        text = exc.args[0] if exc.args else ""
        number = text.partition(" the recursion depth ")[2].partition(":")[0] if type(text) is str else ""
        if number.isdigit():
            return int(number) - 1  # less this frame
    else:
        sys.setrecursionlimit(limit)  # accepted after all (another CPython): put it back
    return python_depth() - 1


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


# -- room on the frame stack ------------------------------------------------------------
#: CPython (3.11+) keeps the frames of Python functions in 16 KB chunks it maps with ``mmap``
#: when a call needs one and unmaps when the frame at a chunk's start returns, so a recursion
#: 1,000 levels deep maps and unmaps a chunk every ~60 levels each time it goes down and up
#: (a system call pair and fresh pages: it triples the cost of a level in plain Python too).
#: A chunk is bigger only for a frame that does not fit in 16 KB: :func:`with_room` calls its
#: job from a frame whose code declares a large value stack (never used nor touched, so it
#: costs address space, not memory), which gets a chunk of its own with room after it.
FRAME_BYTES = 320  # room asked for per Python frame to come (generated bodies use 200-600 bytes)
MAX_ROOM = (1 << 20) - (16 << 10)  # bytes of frames a roomy chunk kept for a thread's life holds at most (2 MB)
#: Bytes of frames at most in the roomy chunk of one run (``Interpreter.eval`` ...): it is unmapped
#: when the run ends, so it holds no memory afterwards, and a recursion as deep as the recursion
#: limit lets it (100,000 levels of ~200 bytes) stays in it instead of mapping and unmapping a
#: 16 KB chunk every ~80 levels each way past the first megabyte. Address space only (a 128 MB
#: chunk for 32 MB of room): where it cannot be mapped, the run goes on without room.
RUN_ROOM = 64 << 20
CHUNK = 16 << 10  # CPython's DATA_STACK_CHUNK_SIZE
MIN_FRAMES = 64  # below this much room, no roomy frame: it would not pay for its map

_launchers: dict[int, Callable[[Callable[[], Any]], Any]] = {}


def _launch(job: Callable[[], Any]) -> Any:
    return job()


def _launcher(room: int) -> Callable[[Callable[[], Any]], Any]:
    """:func:`_launch` with a frame whose chunk leaves at least ``room`` bytes after it.

    CPython gives a frame that does not fit in 16 KB a chunk of its own, the smallest
    16 KB × 2^k that holds the frame and 1,000 more words; a frame just over half of
    such a chunk leaves the other half, less 16 KB, for the frames called from it."""
    chunk = CHUNK
    while chunk < 2 * (room + CHUNK):
        chunk *= 2
    launcher = _launchers.get(chunk)
    if launcher is None:
        words = (chunk // 2 + CHUNK) // 8 - 1100  # 8 × (words + 1000) is over chunk / 2, within chunk
        code = _launch.__code__.replace(co_stacksize=words)
        launcher = _launchers[chunk] = FunctionType(code, _launch.__globals__, "_launch")
    return launcher


def with_room(job: Callable[[], Any], frames: int, max_room: int = MAX_ROOM) -> Any:
    """``job()``, with room for about ``frames`` Python frames on top of it that are
    neither mapped nor unmapped while it runs (see :data:`FRAME_BYTES`), ``max_room``
    bytes at most.

    Where the room cannot be mapped (an address-space limit), ``job()`` runs as usual.
    No exception passes through the roomy frame: that would give it a frame object as
    big as the frame (for the traceback)."""
    if frames < MIN_FRAMES:
        return job()
    started = False

    def entered() -> tuple[bool, Any]:
        nonlocal started
        started = True
        try:
            return True, job()
        except BaseException as exc:  # raised again below, outside the roomy frame
            return False, exc

    try:
        ok, value = _launcher(min(frames * FRAME_BYTES, max_room))(entered)
    except MemoryError:
        if started:
            raise
        return job()
    if ok:
        return value
    raise value


# -- fresh stacks -----------------------------------------------------------------------
#: Idle threads kept for the next hop; more are started as hops nest, and end when idle past this.
MAX_IDLE = 32

_idle: list[_StackThread] = []
_idle_lock = threading.Lock()

#: Roomy threads (``run_on_fresh_stack(roomy=True)``): each keeps a chunk of :data:`RUN_ROOM`
#: for its life, so a deep recursion that runs on one again finds its frames' pages already
#: touched (the run's own roomy chunk is unmapped when the run ends: every run of a recursion
#: 100,000 levels deep paid ~4,500 page faults). At most :data:`MAX_ROOMY_IDLE` wait idle, each
#: for :data:`ROOMY_IDLE_SECONDS`; then it ends and its pages go back to the system.
MAX_ROOMY_IDLE = 1
ROOMY_IDLE_SECONDS = 30.0
_roomy_idle: list[_StackThread] = []


class _StackThread:
    """A thread that runs one job at a time, then waits in the idle pool.

    Started with :mod:`_thread`: ``threading`` would add a ``Thread`` with its locks and
    event, and frames of its own under the roomy one (a page of frame stack), ~10 KB a
    thread. It is not in ``threading.enumerate()``; ``threading.current_thread()`` on it
    gives a dummy ``Thread``. It ends when idle past :data:`MAX_IDLE`, as daemon threads do
    at exit."""

    def __init__(self, roomy: bool = False) -> None:
        self.jobs: list[tuple[contextvars.Context, Callable[[], None], threading.Lock]] = []
        self.ready = _thread.allocate_lock()
        self.ready.acquire()
        self.roomy = roomy
        room = RUN_ROOM if roomy else MAX_ROOM
        _thread.start_new_thread(with_room, (self.serve, sys.getrecursionlimit(), room))

    def give(self, context: contextvars.Context, job: Callable[[], None], done: threading.Lock) -> None:
        self.jobs.append((context, job, done))
        self.ready.release()

    def serve(self) -> None:
        pool, most = (_roomy_idle, MAX_ROOMY_IDLE) if self.roomy else (_idle, MAX_IDLE)
        while True:
            if not self.ready.acquire(timeout=ROOMY_IDLE_SECONDS if self.roomy else -1):
                with _idle_lock:
                    if self in pool:  # idle past its time, and nobody took it meanwhile: end
                        pool.remove(self)
                        return
                self.ready.acquire()  # taken meanwhile: its job is on its way
            context, job, done = self.jobs.pop()
            context.run(job)
            with _idle_lock:
                keep = len(pool) < most
                if keep:
                    pool.append(self)
            done.release()
            if not keep:
                return


def run_on_fresh_stack(job: Callable[[], Any], abandoned: Callable[[], None], roomy: bool = False) -> Any:
    """Call ``job`` on another thread (a fresh Python stack) in a copy of this thread's
    context (its branch, its memory budget) and return its value or raise its exception;
    ``roomy``: on a roomy thread (see :data:`MAX_ROOMY_IDLE`).

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
    pool = _roomy_idle if roomy else _idle
    with _idle_lock:
        thread = pool.pop() if pool else None
    if thread is None:
        thread = _StackThread(roomy)
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
