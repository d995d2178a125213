"""Resource limits for untrusted programs: size caps, the output budget and cancellation.

The runtime enforces ``max_steps``, ``timeout`` and ``max_depth`` itself (see
:meth:`interpreter.evaluator.Runtime.check`); this module holds the rest:

- :data:`MAX_ELEMENTS` and :data:`MAX_STRING`: the largest list, vector or string a
  single primitive call may build, so one call cannot exhaust the host's memory;
- :class:`OutputBudget`: ``max_output``, the characters a run may write to the
  interpreter's standard output and error ports;
- :class:`Watchdog`: wakes the runtime's check when the timeout passes, so slow
  steps cannot outrun it;
- :class:`CancelToken`: stops a running program at its next check (``aeval``).

Every limit ends the program with a ``resource-exhaustion`` :class:`SchemeError`
whose message names the limit and its figure and whose ``details`` hold
``{"resource", "limit", "used"}``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from .errors import SchemeError
from .evaluator import Interrupted
from .memory import CHAR_BYTES, CHECK_FROM, ELEMENT_BYTES, reserve

if TYPE_CHECKING:
    from .evaluator import Runtime

#: Most elements one allocation may make (lists, vectors, mutable strings, bytevectors).
MAX_ELEMENTS = 4_000_000
#: Most characters one string result may have (``string-append``, ``string-join`` …).
MAX_STRING = 100_000_000
#: Strings shorter than this are built without :func:`check_string_length`: a reservation
#: checks nothing below ``memory.CHECK_FROM`` bytes (the sampler and the runtime's limit
#: checks still see the run's growth), so hot string procedures skip the call.
SMALL_STRING = CHECK_FROM // CHAR_BYTES


def limit_exceeded(resource: str, setting: str, limit: float, used: float | None = None, unit: str = "") -> SchemeError:
    """``<resource> limit exceeded: <setting> = <limit>``, kind ``resource-exhaustion``."""
    figure = f"{limit} {unit}".rstrip()
    return SchemeError(
        f"{resource} limit exceeded: {setting} = {figure}",
        kind="resource-exhaustion",
        details={"resource": resource, "limit": limit, "used": used},
    )


def too_large(who: str, size: int, limit: int, what: str = "size") -> SchemeError:
    """A refused allocation: ``who: size N is too large (limit L)``."""
    return SchemeError(
        f"{who}: {what} {size} is too large (limit {limit})",
        kind="resource-exhaustion",
        details={"resource": "memory", "limit": limit, "used": size},
    )


def check_elements(who: str, n: int, element_bytes: int = ELEMENT_BYTES) -> int:
    """``n`` if a structure of ``n`` elements may be built (the cap, and the run's memory
    budget), else a resource-exhaustion error."""
    if n > MAX_ELEMENTS:
        raise too_large(who, n, MAX_ELEMENTS)
    reserve(n * element_bytes)
    return n


def check_string_length(who: str, n: int) -> int:
    """``n`` if a string of ``n`` characters may be built, else a resource-exhaustion error."""
    if n > MAX_STRING:
        raise too_large(who, n, MAX_STRING, "string length")
    reserve(n * CHAR_BYTES)
    return n


class OutputBudget:
    """Counts the characters a run writes; past ``limit`` the write is cut and refused.

    The count lives on the runtime (``output_used``), which resets it at the start of
    every top-level evaluation, as it does the step count and the deadline.
    """

    def __init__(self, runtime: Runtime, limit: int) -> None:
        self.runtime = runtime
        self.limit = limit

    def guard(self, sink: Callable[[str], object]) -> Callable[[str], object]:
        """``sink`` wrapped so that it never receives more than the budget allows."""

        def write(text: str) -> object:
            rt = self.runtime
            used = rt.output_used + len(text)
            if used > self.limit:
                room = max(0, self.limit - rt.output_used)
                if room:
                    sink(text[:room])
                rt.output_used = self.limit
                raise limit_exceeded("output", "max_output", self.limit, used, "characters")
            rt.output_used = used
            return sink(text)

        return write


class Watchdog:
    """Makes the runtime check its limits at its very next step once ``seconds`` have passed.

    The runtime checks the clock every few thousand steps; a program whose steps are
    slow (big primitives in a loop) would otherwise overrun its timeout by that much.
    """

    def __init__(self, runtime: Runtime, seconds: float) -> None:
        self.runtime = runtime
        self.timer = threading.Timer(seconds, self.wake)
        self.timer.daemon = True
        self.timer.start()

    def wake(self) -> None:
        self.runtime.attend()

    def stop(self) -> None:
        self.timer.cancel()


class Cancelled(Interrupted):
    """The host cancelled the program (``aeval`` was cancelled)."""


class CancelToken:
    """Set by the host to stop a program; the runtime's periodic check raises :class:`Cancelled`."""

    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True

    def check(self) -> None:
        if self.cancelled:
            raise Cancelled("cancelled by the host", kind="resource-exhaustion", details={"resource": "cancelled"})
