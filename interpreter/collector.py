"""Garbage-collector settings for a process that runs taskscheme programs.

Scheme data is made of many small container objects (pairs, frames, closures), so
CPython's cyclic collector runs often and, in its older generations, walks the whole
heap, the interpreter's own start-up objects included. Measured with ``gc.callbacks``
on bench/library.py's programs (share of run time spent collecting, default settings ->
tuned): merge sort 12% -> 2%, primes 14% -> 6%; map/filter/fold stays at 4% (list
building already pauses the collector, see ``primitives.lists.build_list``).

A run must also not pay for what is older than it. In a long-lived process (a host, the
fuzzer) earlier runs and dropped interpreters leave millions of objects, alive or cyclic
garbage; a full collection that falls due inside a later run walks and frees them all
at once, in one C call no deadline check can interrupt (seed 1 of the fuzzer, programs
0-49,999, loaded machine: all 18 programs that ended 0.5-2.0 s past a 0.5 s deadline
were inside one such pass, 0.7-2.4 s long, 17 of them freeing 1-2 million objects). So
each top-level run goes through :func:`run_heap`: the garbage earlier runs left is
collected first, if a full collection is due, before the run's deadline starts
(:func:`settle`; a host can call it itself between runs); then the heap older than the
run is frozen, so collections during the run walk only the run's own objects, and
unfrozen when it ends.
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

#: Objects CPython keeps frozen (in the permanent generation) from its own start-up, counted
#: when this module is imported: 375 on 3.12.1, none on 3.11 and 3.13. More frozen than
#: these means the host froze objects of its own.
STARTUP_FROZEN = gc.get_freeze_count()

#: Allocations (net of frees) between two collections of the youngest generation
#: (CPython's default is 700). Short-lived garbage is freed by reference counting and
#: does not count, so this bounds only what cycles can hold: tens of MB at most.
YOUNG_THRESHOLD = 50_000

#: A full collection is due at the start of a run once the process's allocated blocks have
#: grown by this share since the last one :func:`settle` made or saw (CPython's own rule
#: for full collections: 25% more long-lived objects) …
DUE_SHARE = 0.25
#: … and by at least this many blocks (about 6 MB): a small heap costs little to keep.
DUE_FROM = 200_000
#: Counting the blocks walks the allocator's pools (80 µs at 2 million objects, most of an
#: ``eval`` of a constant), so :func:`settle` counts them only once collections of the
#: youngest generation have seen about this many new container objects (cyclic garbage
#: is made of them), or while one is pending: evaluations that allocate little pay nothing.
COUNT_AFTER = 5_000


class RunHeap:
    """Process-wide: the blocks at the last settled point, and the runs under way (the
    first to begin freezes the older heap, the last to end unfreezes it)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.settled_blocks = sys.getallocatedblocks()
        self.young_seen = 0  # young-generation collections when the blocks were last counted
        self.runs = 0
        self.froze = False
        self.tuned = False  # what is frozen now, tune_collector froze: ours to unfreeze


HEAP = RunHeap()


def settle(force: bool = False) -> float:
    """Collect the garbage earlier runs left, all generations, if a full collection is due
    (or ``force``); the seconds it took (0.0 if none was due or the collector is off).

    Every top-level run calls it before its deadline starts; a long-lived host may call it
    between runs to pay the collection at a time of its choosing. Runs under way in other
    threads wait meanwhile (the collector holds the interpreter lock) and walk the whole
    heap until the last of them ends."""
    young, threshold = gc.get_stats()[0]["collections"], gc.get_threshold()[0]
    if not force and (young - HEAP.young_seen) * threshold < COUNT_AFTER and gc.get_count()[0] < threshold:
        return 0.0
    blocks = sys.getallocatedblocks()
    with HEAP.lock:
        HEAP.young_seen = young
        if blocks < HEAP.settled_blocks:  # freed since: count growth from the lowest point
            HEAP.settled_blocks = blocks
        due = blocks - HEAP.settled_blocks >= max(DUE_FROM, HEAP.settled_blocks * DUE_SHARE)
    if not gc.isenabled() or not (due or force):
        return 0.0
    began = time.perf_counter()
    with HEAP.lock:
        if HEAP.froze:  # runs under way (or abandoned) since the freeze: free its garbage too
            gc.unfreeze()
            HEAP.froze = HEAP.tuned = False
    gc.collect()
    with HEAP.lock:
        HEAP.settled_blocks = sys.getallocatedblocks()
    return time.perf_counter() - began


@contextmanager
def run_heap() -> Iterator[None]:
    """One top-level run: :func:`settle`, then the heap older than the run frozen (not
    walked by collections) until the last run under way in the process ends.

    Not if the host froze objects of its own (``gc.freeze``): unfreezing them is the
    host's call, so its runs collect as before."""
    settle()
    with HEAP.lock:
        HEAP.runs += 1
        if HEAP.runs == 1 and (HEAP.tuned or gc.get_freeze_count() <= STARTUP_FROZEN):
            gc.freeze()
            HEAP.froze = True
    try:
        yield
    finally:
        with HEAP.lock:
            HEAP.runs -= 1
            if HEAP.runs == 0 and HEAP.froze:
                gc.unfreeze()
                HEAP.froze = HEAP.tuned = False  # what tune_collector froze is unfrozen too


def tune_collector() -> None:
    """Freeze the objects made so far (the start-up heap: modules, the stdlib, the
    grammar) so that collections no longer scan them, and collect the youngest generation
    less often.

    Process-wide, so only the command line calls it, after start-up; an embedding host
    keeps its own settings and may call this itself."""
    gc.freeze()
    HEAP.tuned = True
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(max(_young, YOUNG_THRESHOLD), middle, old)


@contextmanager
def paused() -> Iterator[None]:
    """Run the body with the cyclic collector off (if it was on), then turn it back on.

    For code that builds a large structure of new objects none of which can become
    cyclic garbage before it finishes (the reader, list builders): every collection in
    between would only walk live objects. Process-wide, like the collector itself."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
