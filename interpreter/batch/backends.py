"""Where batch items run: branches of the interpreter itself (threads, the default),
worker processes, or a Dask cluster. Each yields item records as items complete."""

from __future__ import annotations

import multiprocessing
import os
import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..durable.items import journaled_item
from ..errors import SchemeError
from ..evaluator import Branch
from ..limits import Watchdog
from ..parallel import run_parallel
from .items import ItemRecord, run_item
from .lifecycle import stop_workers, watch_parent
from .spec import ProgramSpec, run_remote

if TYPE_CHECKING:
    from ..facade import Facade

Item = tuple[int, Any]  # (index, the input: arguments by name)
_DONE = object()


def run_batch(
    interp: Facade,
    task: str,
    items: Iterable[Item],
    *,
    factory: Callable[..., Facade],
    workers: int = 8,
    processes: bool = False,
    cluster: str | None = None,
    metric: Any = None,
    journals: str | None = None,
) -> Iterator[ItemRecord]:
    """The record of every item, in the order items complete. ``metric`` scores each item
    (:mod:`.metric`): a procedure on threads, DSL source for processes and clusters;
    ``journals``: a folder for one journal per item (durable/items.py); ``factory``: the
    interpreter class a worker process or a cluster's worker calls to rebuild the program."""
    items = list(items)
    if not items:
        return iter(())
    if cluster is not None:
        return on_cluster(ProgramSpec.of(interp, factory), task, items, cluster, workers, metric, journals)
    if processes:
        return in_processes(ProgramSpec.of(interp, factory), task, items, workers, metric, journals)
    return in_branches(interp, task, items, workers, metric, journals)


# -- threads: branches of this interpreter ----------------------------------------------
def in_branches(
    interp: Facade, task: str, items: list[Item], workers: int, metric: Any = None, journals: str | None = None
) -> Iterator[ItemRecord]:
    """Each item a branch of one parallel form on ``interp`` with limits of its own: the
    interpreter's ``timeout`` and ``max_steps`` apply to each item, not to the batch."""
    rt = interp.runtime
    out: queue.Queue[Any] = queue.Queue()

    def job(index: int, given: Any) -> Any:
        def run(branch: Branch) -> None:
            branch.limit(rt.timeout, rt.max_steps)
            watchdog = Watchdog(branch, rt.timeout) if rt.timeout is not None else None
            try:
                call = lambda proc, args, meter: metered(branch, proc, args, meter)
                call = journaled_item(journals, index, branch, call)
                out.put(run_item(interp, task, index, given, call, metric))
            finally:
                if watchdog is not None:
                    watchdog.stop()

        return run

    def drive() -> None:
        def batch() -> None:
            rt.deadline = rt.step_limit_at = None  # the limits are each item's
            run_parallel(interp, [job(i, given) for i, given in items], cap=workers, who="batch", noun="item")

        try:
            interp.run_scheme(batch)
            out.put(_DONE)
        except BaseException as exc:  # handed to the consumer
            out.put(exc)

    driver = threading.Thread(target=drive, name="taskscheme-batch", daemon=True)
    driver.start()
    return _drain(out, driver, interp)


def metered(branch: Branch, proc: Any, args: list[Any], meter: Any) -> Any:
    branch.meter = meter
    return branch.apply(proc, args)


def _drain(out: queue.Queue[Any], driver: threading.Thread, interp: Facade) -> Iterator[ItemRecord]:
    """Yield records as the driver produces them; closing the generator stops the batch."""
    finished = False
    try:
        while True:
            try:
                got = out.get(timeout=0.1)
            except queue.Empty:
                continue
            if got is _DONE:
                finished = True
                return
            if isinstance(got, BaseException):
                finished = True
                raise got
            yield got
    finally:
        if not finished:  # the consumer stopped early, or Ctrl-C: stop the branches
            interp.runtime.interrupt()
            driver.join()


# -- processes -------------------------------------------------------------------------------
def in_processes(
    spec: ProgramSpec,
    task: str,
    items: list[Item],
    workers: int,
    metric: str | None = None,
    journals: str | None = None,
) -> Iterator[ItemRecord]:
    """Worker processes (started fresh, not forked), each building the program once.
    They end with this process, however it ends (lifecycle.py); a batch stopped early
    (closed, Ctrl-C, SIGTERM) kills them rather than wait for the items in flight."""
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=watch_parent, initargs=(os.getpid(),))
    finished = False
    spec = replace(spec, rate_share=workers)  # each process keeps 1/workers of every rate limit
    try:
        futures = [pool.submit(run_remote, spec, task, i, given, metric, journals) for i, given in items]
        for future in as_completed(futures):
            yield future.result()
        finished = True
    except BrokenProcessPool:
        raise SchemeError(
            "batch: a worker process died (killed, or out of memory); run again with the same --output to resume",
            kind="resource-exhaustion",
            details={"resource": "process", "limit": None, "used": None},
        ) from None
    finally:
        if not finished:
            stop_workers(pool)
        pool.shutdown(wait=True, cancel_futures=True)


# -- a Dask cluster ---------------------------------------------------------------------------
def on_cluster(
    spec: ProgramSpec,
    task: str,
    items: list[Item],
    address: str,
    workers: int,
    metric: str | None = None,
    journals: str | None = None,
) -> Iterator[ItemRecord]:
    """``tcp://host:port``: an existing Dask scheduler; ``local:N``: a LocalCluster of N processes."""
    try:
        from distributed import Client, LocalCluster, as_completed  # optional dependency: taskscheme[cluster]
    except ImportError:
        raise SchemeError(
            "batch --cluster needs Dask's distributed scheduler: pip install 'taskscheme[cluster]'",
            kind="value-error",
        ) from None
    cluster = None
    if address.startswith("local:"):
        cluster = LocalCluster(
            n_workers=local_size(address), threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    else:
        client = Client(address)
    try:
        share = max(1, len(client.scheduler_info().get("workers", {})))  # each worker keeps 1/share of a rate limit
        spec = replace(spec, rate_share=share)
        futures = [client.submit(run_remote, spec, task, i, given, metric, journals, pure=False) for i, given in items]
        for future in as_completed(futures):
            yield future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def local_size(address: str) -> int:
    """N from ``local:N``."""
    try:
        n = int(address.removeprefix("local:"))
    except ValueError:
        n = 0
    if n < 1:
        raise SchemeError(f"batch: --cluster local:N needs a positive N, got {address}", kind="value-error")
    return n
