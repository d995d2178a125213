"""The memory budget: ``Interpreter(max_memory=BYTES)`` / ``--max-memory``.

What a run may add to the process's memory is measured, not counted object by
object, so the hot path (a ``cons`` in a compiled body, a frame) pays nothing:

- a sampler thread reads the process's resident size every few milliseconds while a
  run with a budget is under way; past the budget it asks the runtime to check its
  limits (:meth:`Runtime.attend`), and the next call or step ends the program with a
  ``resource-exhaustion`` error (resource ``memory``);
- the same sample also counts the interpreter's live small objects
  (``sys.getallocatedblocks``, at :data:`BLOCK_BYTES` each, a lower bound) from
  the lowest count seen in the run: memory that an earlier run freed stays resident
  and is reused without the resident size moving, so the resident size alone would
  let a run hold far more than its budget;
- a primitive about to build something big in one call (vectors, strings,
  bytevectors, long lists, bignums, string-port growth) first :func:`reserve`\\ s its
  size, so one call cannot jump past the budget between two samples.

Memory the C allocator keeps after a free is not the run's: glibc raises its mmap threshold
after big frees, so a long-lived process (a host, a test worker) serves later big blocks, a
growing hash table's old slot arrays among them, from its heap, and keeps them resident once
freed; the resident size then grows by about twice what the run holds. Before the budget
counts a run over (a sample, a reservation), the allocator gives its free pages back
(:func:`trim_heap`, glibc's ``malloc_trim``; at most every :data:`TRIM_EVERY` seconds) and
the resident size is read again. A run with a budget starts with a trim too (about 30 µs), so
its baseline holds no free pages that a later trim would take off the run's growth.

Everything a run builds is covered: pairs, vectors, strings, hash-table entries,
frames of deep recursion (on the threads it hops to as well), macro expansion. The
budget belongs to the whole run, every ``parallel-map`` branch included: the
measure is the process's, and the current budget follows the run's context into
the threads it starts. Accounting is approximate (collector timing, allocator
slack); a run is stopped well before it takes the process past twice its budget.
Several interpreters running at once in one process see each other's growth.
"""

from __future__ import annotations

import contextvars
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any, Protocol

from .bignum import DIGITS
from .errors import SchemeError
from .polling import RUNTIME


class AttendedRun(Protocol):
    """What the memory limit needs of a run's runtime (``evaluator.Runtime`` is one)."""

    memory: MemoryBudget | None

    def attend(self) -> None:
        """Ask the run's thread to check its limits at its next call or step."""

    def poll(self) -> None:
        """Check the limits now; raise the limit's error if one is passed."""


#: Seconds between two samples of the resident size.
SAMPLE_EVERY = 0.005
#: A sample this old at a limit check means the sampler thread is starved (a loaded
#: machine): the run's own thread takes the sample then.
LATE = 4 * SAMPLE_EVERY
#: The share of a core that counting live blocks may take. ``sys.getallocatedblocks`` walks
#: every pool of every arena: 1.9 ms a call in a process whose heap once reached 2.5 GB,
#: which at every sample (5 ms) was 40% of a core. The resident size, one small read, is
#: still sampled every time; the block count is taken again only when its last count's
#: time, divided by this share, has passed.
BLOCKS_SHARE = 0.05
#: Reservations at least this big are checked against a fresh sample at once.
CHECK_FROM = 256 * 1024
#: Bytes charged per element of a list or vector built in one call, and per character.
ELEMENT_BYTES = 64
CHAR_BYTES = 4
#: Seconds between two trims of the allocator's free memory (:func:`trim_heap`, 0.1-0.5 ms each
#: for a run of tens of MB), so a run that stays near its budget does not trim at every sample.
TRIM_EVERY = 0.05
#: Bytes charged per live small object the run added: the smallest a pair, an integer
#: or a float takes (a pair is 56), so the count never charges more than was built.
BLOCK_BYTES = 32


def resident_bytes() -> int:
    """The process's resident memory in bytes (Linux ``/proc``; elsewhere the peak)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        import resource  # reason: platform module (POSIX only, no Windows); only systems without /proc get here

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


@cache
def _malloc_trim() -> Any:
    """glibc's ``malloc_trim``, or None where the C library has none (musl, macOS)."""
    import ctypes  # reason: start-up laziness: only a run with a memory budget gets here

    try:
        return getattr(ctypes.CDLL(None), "malloc_trim", None)
    except OSError:  # no C library to load this way (Windows)
        return None


def trim_heap() -> bool:
    """Give the C allocator's free pages back to the system (glibc's ``malloc_trim(0)``), so that
    the resident size counts memory in use; whether this C library can."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


class MemoryBudget:
    """``limit`` bytes that one run may add to the process's resident size."""

    def __init__(self, limit: int) -> None:
        if limit <= 0:
            raise ValueError("max_memory must be a positive number of bytes")
        self.limit = limit
        self.baseline = 0
        self.baseline_blocks = 0
        self.over: int | None = None  # the usage the sampler found past the limit
        self.sampled_at = 0.0  # time.monotonic() of the last sample
        self.blocks_used = 0  # what the last count of live blocks charged the run
        self.blocks_due = 0.0  # time.monotonic() from which a sample counts them again
        self.trimmed_at = -TRIM_EVERY  # time.monotonic() of the last trim_heap()
        self.runtime: AttendedRun | None = None
        self._stop = threading.Event()
        self._sampler: threading.Thread | None = None

    # -- a run ---------------------------------------------------------------------
    def begin(self, runtime: AttendedRun) -> None:
        """Start measuring from here, sampling on a daemon thread until :meth:`end`."""
        self.runtime = runtime
        trim_heap()  # free pages older than the run go first: a later trim gives back only the run's
        self.baseline = resident_bytes()
        self.baseline_blocks = sys.getallocatedblocks()
        self.blocks_used, self.blocks_due = 0, 0.0
        self.over = None
        self.sampled_at = time.monotonic()
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._sample, args=(self._stop,), name="taskscheme-memory", daemon=True)
        self._sampler.start()

    def end(self) -> None:
        self._stop.set()
        self._sampler = None

    def _sample(self, stop: threading.Event) -> None:
        while not stop.wait(SAMPLE_EVERY):
            if self.sample():
                if self.runtime is not None:
                    self.runtime.attend()
                return

    def sample(self) -> bool:
        """Measure now; whether the run is past its budget (then ``over`` holds the use).
        The live blocks are counted again only when due (:data:`BLOCKS_SHARE`)."""
        used = self.slack_trimmed(self.used(blocks=time.monotonic() >= self.blocks_due))
        self.sampled_at = time.monotonic()
        if used > self.limit:
            self.over = used
        return self.over is not None

    # -- measuring -------------------------------------------------------------------
    def used(self, blocks: bool = True) -> int:
        """What the run added: the larger of the resident size's growth and its live
        small objects' (which sees memory reused after an earlier run freed it; counted
        now if ``blocks``, else as last counted)."""
        grown = resident_bytes() - self.baseline
        if blocks:
            began = time.monotonic()
            count = sys.getallocatedblocks()
            if count < self.baseline_blocks:  # garbage older than the run was freed: count from here
                self.baseline_blocks = count
            self.blocks_used = (count - self.baseline_blocks) * BLOCK_BYTES
            now = time.monotonic()
            self.blocks_due = now + (now - began) / BLOCKS_SHARE
        return max(0, grown, self.blocks_used)

    def slack_trimmed(self, used: int, needed: int = 0) -> int:
        """``used``, or, if the resident size's growth is what takes it (and ``needed`` more) past
        the budget, the use measured again once the allocator has given its free pages back."""
        if used + needed <= self.limit or self.blocks_used + needed > self.limit:
            return used
        now = time.monotonic()
        if now - self.trimmed_at < TRIM_EVERY or not trim_heap():
            return used
        self.trimmed_at = now
        return self.used(blocks=False)

    def check(self) -> None:
        """Raise the memory error if the sampler found the run past its budget (every
        branch of the run that checks from then on raises it too). Called at the run's
        limit checks (every few thousand steps), which sample themselves when the
        sampler thread is late, so a loaded machine does not let the run run on."""
        if self.over is not None or (time.monotonic() - self.sampled_at > LATE and self.sample()):
            raise self.error(self.over or 0)

    def reserve(self, nbytes: int) -> None:
        """Refuse to grow by ``nbytes`` now if that would pass the budget."""
        if self.over is not None:
            self.check()
        if nbytes >= CHECK_FROM:
            used = self.slack_trimmed(self.used(), nbytes)
            if used + nbytes > self.limit:
                raise self.error(used, requested=nbytes)

    def error(self, used: int, requested: int | None = None) -> SchemeError:
        """The memory error; ``used`` is what the run holds now, ``requested`` what a
        refused allocation asked for on top of it (never allocated)."""
        details: dict[str, int | str] = {"resource": "memory", "limit": self.limit, "used": used}
        message = f"memory limit exceeded: max_memory = {self.limit} bytes"
        if requested is not None:
            details["requested"] = requested
            message += f" (refused {requested} more bytes with {used} in use)"
        return SchemeError(message, kind="resource-exhaustion", details=details)


#: The budget of the run under way in this context (None: no budget). Threads the run
#: starts copy the context, so parallel branches and deep-recursion hops share it.
CURRENT: contextvars.ContextVar[MemoryBudget | None] = contextvars.ContextVar("taskscheme_memory", default=None)


def reserve(nbytes: int) -> None:
    """Called by a primitive before it builds about ``nbytes`` in one go."""
    budget = CURRENT.get()
    if budget is not None:
        budget.reserve(nbytes)


@contextmanager
def run_limits(runtime: AttendedRun, max_digits: int | None) -> Iterator[None]:
    """The limits a run keeps in its context, for primitives and the threads it starts:
    its memory budget (sampled from here to the end) and its ``max_digits``."""
    budget = runtime.memory
    token = CURRENT.set(budget)
    running = RUNTIME.set(runtime)
    digits = DIGITS.set(max_digits) if max_digits is not None else None
    if budget is not None:
        budget.begin(runtime)
    try:
        yield
    finally:
        if budget is not None:
            budget.end()
        if digits is not None:
            DIGITS.reset(digits)
        RUNTIME.reset(running)
        CURRENT.reset(token)
