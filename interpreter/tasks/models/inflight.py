"""How one model attempt runs while its caller keeps its limits: on the calling thread,
on the shared event loop, or on a worker thread.

- **Calling thread** (:func:`run_inline`): a DSL or Python model with no deadline and no
  cancellation to honour (not in a ``parallel-map`` branch) runs where it is called: no
  hand-off, no wait. Ctrl-C reaches it as it reaches any Python code.
- **Event loop** (:func:`run_coroutine`): an ``llm`` model with an async form runs as a
  task on one event-loop thread shared by the process, so calls overlap with no thread
  per call. Abandoning it (timeout, ``max-steps``, Ctrl-C, a cancelled branch) cancels the
  task, and the HTTP client closes the connection at once: the provider stops generating.
- **Worker thread** (:func:`run_in_thread`): a sync-only backend runs on a reused worker
  (:mod:`.workers`); when it is abandoned, the HTTP clients it opened are closed (see
  :func:`.providers.quiet_clients`), which cuts its connection too.

While waiting, the caller polls its runtime every ``POLL_EVERY`` seconds; ``check`` is
called too and raises to abandon the call (the deadline).
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from .providers import OPEN_CLIENTS, close_clients
from .workers import MODEL_WORKERS

if TYPE_CHECKING:
    import asyncio

T = TypeVar("T")
#: Seconds between limit checks while a model call is under way.
POLL_EVERY = 0.05


class _Loop:
    """One asyncio event loop on a daemon thread, started on first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> asyncio.AbstractEventLoop:
        import asyncio  # start-up: asyncio (ssl, subprocess, futures) is ~15 ms; async llm models only

        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="taskscheme-model-loop", daemon=True).start()
                self._loop = loop
            return self._loop


LOOP = _Loop()


def run_inline(call: Callable[[], T]) -> T:
    """Run ``call`` here and now."""
    return call()


def run_coroutine(make: Callable[[], Coroutine[Any, Any, T]], poll: Callable[[], None]) -> T:
    """Run the coroutine ``make()`` on the shared loop and wait for it, calling ``poll``
    (which raises to abandon it) as it runs; an abandoned call is cancelled on the loop."""
    # start-up: asyncio ~15 ms (see _Loop.get), concurrent.futures with it
    import asyncio
    import concurrent.futures

    future = asyncio.run_coroutine_threadsafe(make(), LOOP.get())  # runs in a copy of this context
    try:
        while True:
            try:
                return future.result(POLL_EVERY)
            except concurrent.futures.TimeoutError:
                poll()
    except BaseException:
        future.cancel()  # the task is cancelled on the loop: httpx closes its connection
        raise


def run_in_thread(call: Callable[[], T], poll: Callable[[], None]) -> T:
    """Run ``call`` on a worker thread and wait for it, calling ``poll`` as it runs; an
    abandoned call's HTTP clients are closed (the thread ends when ``call`` returns)."""
    done = threading.Event()
    box: list[tuple[bool, Any]] = []
    clients: list[Any] = []

    def work() -> None:
        OPEN_CLIENTS.set(clients)
        try:
            box.append((True, call()))
        except BaseException as exc:
            box.append((False, exc))
        done.set()

    context = contextvars.copy_context()  # the backend's spans and streamed text stay the caller's
    MODEL_WORKERS.submit(lambda: context.run(work))
    try:
        while not done.wait(POLL_EVERY):
            poll()
    except BaseException:
        close_clients(clients)
        raise
    ok, value = box[0]
    if ok:
        return value
    raise value
