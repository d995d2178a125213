"""``parallel-map``: ``(f x)`` for every element, concurrently, results in input order."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..datatypes import Procedure, list_to_python, make_list
from ..errors import type_error
from ..keywords import check_keywords, split_keywords
from ..parallel import Job, max_concurrency, on_error_mode, run_parallel
from .registry import installer

if TYPE_CHECKING:
    from ..host_protocols import LibraryHost


class Applications(Sequence[Job]):
    """The jobs ``(f x)`` for each ``x`` of ``items``, each made when a worker takes it
    (a million branches hold no million closures while they wait)."""

    def __init__(self, f: Procedure, items: list[Any]) -> None:
        self.f = f
        self.items = items

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: Any) -> Any:
        f, x = self.f, self.items[index]
        return lambda branch: branch.apply(f, [x])


@installer
def install_parallel(interp: LibraryHost) -> None:
    def parallel_map(f: Any, lst: Any, *options: Any) -> Any:
        """(parallel-map f list [#:max-concurrency n] [#:on-error 'raise|'collect]):
        ``(f x)`` for every element, at most n at a time, results in input order."""
        positional, keywords = split_keywords("parallel-map", list(options))
        if positional:
            raise type_error("parallel-map", "#:name value options after the list", positional[0])
        opts = check_keywords("parallel-map", keywords, ["max-concurrency", "on-error"])
        if not isinstance(f, Procedure):
            raise type_error("parallel-map", "a procedure or a task", f)
        try:
            items = list_to_python(lst)
        except ValueError:
            raise type_error("parallel-map", "a proper list", lst) from None
        cap = max_concurrency("parallel-map", opts.get("max_concurrency", interp.max_concurrency))
        mode = on_error_mode("parallel-map", opts.get("on_error", "raise"))

        return make_list(run_parallel(interp, Applications(f, items), cap=cap, on_error=mode))

    interp.define_primitive("parallel-map", parallel_map)
