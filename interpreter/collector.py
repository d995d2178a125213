"""Garbage-collector settings for a process that runs taskscheme programs.

Scheme data is made of many small container objects (pairs, frames, closures), so
CPython's cyclic collector runs often and, in its older generations, walks the whole
heap, the interpreter's own start-up objects included. Measured with ``gc.callbacks``
on bench/library.py's programs (share of run time spent collecting, default settings ->
tuned): merge sort 12% -> 2%, primes 14% -> 6%; map/filter/fold stays at 4% (list
building already pauses the collector, see ``primitives.lists.build_list``).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: Allocations (net of frees) between two collections of the youngest generation
#: (CPython's default is 700). Short-lived garbage is freed by reference counting and
#: does not count, so this bounds only what cycles can hold: tens of MB at most.
YOUNG_THRESHOLD = 50_000


def tune_collector() -> None:
    """Freeze the objects made so far (the start-up heap: modules, the stdlib, the
    grammar) so that collections no longer scan them, and collect the youngest generation
    less often.

    Process-wide, so only the command line calls it, after start-up; an embedding host
    keeps its own settings and may call this itself."""
    gc.freeze()
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
