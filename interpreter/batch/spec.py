"""What travels to a worker process or a cluster: the program text and the settings
(capabilities and limits) the host granted. A worker builds its own interpreter from
them, once per program (:func:`run_remote`); nothing else is assumed to exist there."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..durable.items import journaled_item
from ..evaluator import apply_procedure
from .items import ItemRecord, run_item
from .metric import metric_procedure

if TYPE_CHECKING:
    from ..facade import Facade


@dataclass(frozen=True)
class ProgramSpec:
    """Sources (text, file name) evaluated in order, and ``Interpreter`` keyword arguments."""

    sources: tuple[tuple[str, str], ...]
    settings: dict[str, Any] = field(default_factory=dict)
    #: How many worker processes share each model's rate limit: each gets 1/N of it.
    rate_share: int = 1
    #: The interpreter class, handed in by the facade (which this package does not import):
    #: it travels to a worker by reference, as pickle sends a class.
    factory: Callable[..., Facade] = field(kw_only=True)

    @classmethod
    def of(cls, interp: Facade, factory: Callable[..., Facade]) -> ProgramSpec:
        """The program ``interp`` was given by its host, with its settings."""
        return cls(tuple(interp.program_sources), dict(interp.settings), factory=factory)

    def key(self) -> str:
        """A hash naming this program and its settings."""
        text = json.dumps([self.sources, self.settings, self.rate_share], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()

    def build(self) -> Facade:
        """A new interpreter with these settings that has run the program."""
        interp = self.factory(**self.settings)
        interp.tasks.gateway.rate_limits.split(self.rate_share)  # the program's own (rate-limit …) too
        for text, filename in self.sources:
            interp.eval_scheme(text, filename=filename, check=False)  # checked where the host ran it
        return interp


_built: dict[str, Facade] = {}
_metrics: dict[tuple[str, str], Any] = {}
_building = threading.Lock()


def run_remote(
    spec: ProgramSpec, task: str, index: int, given: Any, metric: str | None = None, journals: str | None = None
) -> ItemRecord:
    """Run one item in a worker process, on the interpreter this process keeps for ``spec``
    (``metric``: the batch's metric as DSL source, made into a procedure there once; ``journals``:
    the folder holding the item's own journal, if given)."""
    key = spec.key()
    with _building:
        interp = _built.get(key)
        if interp is None:
            interp = _built[key] = spec.build()
        proc = None
        if metric is not None:
            proc = _metrics.get((key, metric))
            if proc is None:
                proc = _metrics[(key, metric)] = metric_procedure(interp, metric)
    at_top = lambda proc, args, meter: call_at_top(interp, proc, args, meter)
    call = journaled_item(journals, index, interp.runtime, at_top)
    return run_item(interp, task, index, given, call, proc)


def call_at_top(interp: Facade, proc: Any, args: list[Any], meter: Any) -> Any:
    """Apply ``proc`` as a top-level run of ``interp`` (its limits apply to the item), charging ``meter``."""
    rt = interp.runtime
    rt.meter = meter
    try:
        return interp.run_scheme(lambda: apply_procedure(proc, args))
    finally:
        rt.meter = None
