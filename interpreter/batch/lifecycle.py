"""The life of a batch's worker processes, and how a batch ends on a signal.

- :func:`watch_parent` runs first in every worker process: a daemon thread ends the
  worker as soon as its parent is gone (killed with SIGKILL, say), so no worker and no
  multiprocessing resource tracker (it ends when the last process holding its pipe
  does) is left behind, re-parented to init. Where Linux offers it, ``PR_SET_PDEATHSIG``
  is not used: it fires when the *thread* that started the worker ends, and a host may
  iterate a batch on a thread of its own.
- :func:`stop_workers` kills a pool's workers at once (a stopped batch does not wait
  for the items in flight; their records are lost, and a resumed batch runs them again).
- :class:`Termination` turns SIGTERM into :class:`Terminated` in the command line's main
  thread, but never in the middle of writing a record: a signal that arrives then is
  raised once the record is whole.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from types import FrameType
from typing import Any

#: Seconds between a worker's checks that its parent is still there.
PARENT_CHECK = 0.1
#: Exit status of a process ended by SIGTERM (128 + 15), as a shell reports it.
TERMINATED_STATUS = 128 + signal.SIGTERM


def watch_parent(parent: int) -> None:
    """Pool initializer: end this worker process when the process ``parent`` is gone."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK)
        os._exit(1)  # the parent died: nothing here is worth finishing

    threading.Thread(target=watch, name="taskscheme-parent-watch", daemon=True).start()


def stop_workers(pool: Any) -> None:
    """Kill the worker processes of the ``ProcessPoolExecutor`` ``pool`` now."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        with suppress(OSError, ValueError):  # already gone
            process.kill()
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.join(5)


class Terminated(BaseException):
    """SIGTERM reached the batch (a BaseException, like KeyboardInterrupt, so no
    ``except Exception`` on the way swallows it)."""


class Termination:
    """SIGTERM as :class:`Terminated` in the main thread, held back while a record is written."""

    def __init__(self) -> None:
        self.writing = False
        self.pending = False
        self.previous: Any = None

    def __enter__(self) -> Termination:
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGTERM, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.writing:
            self.pending = True
            return
        raise Terminated

    @contextmanager
    def writing_record(self) -> Iterator[None]:
        """A record is being written: a SIGTERM now waits until it is whole."""
        self.writing = True
        try:
            yield
        finally:
            self.writing = False
        if self.pending:
            raise Terminated
