"""Pairs and lists, by concern: the shared helpers (:mod:`.core`), pairs (:mod:`.pairs`),
lists as wholes (:mod:`.construction`), searching (:mod:`.search`), the higher-order
walks (:mod:`.walks`) and sorting (:mod:`.sorting`). Everything walks lists iteratively.

The submodules are imported in this order, which is the order their primitives are
registered in (the REPL's completion, ``,describe`` and the generated reference list them
so); the helpers other primitive modules use are re-exported here.
"""

# isort: off
# registration order: the numbers' primitives first (the lists use them), then the lists'
from .. import numbers  # noqa: F401
from . import pairs  # noqa: F401
from . import construction  # noqa: F401
from . import search  # noqa: F401
from . import walks  # noqa: F401
from . import sorting  # noqa: F401

# isort: on
from .core import build_list, check_proc, copy_onto, ended_error, improper_error, list_length, proper_length, to_pylist
from .sorting import sorted_items
from .walks import elements, iota_numbers, rows

__all__ = [
    "build_list",
    "check_proc",
    "copy_onto",
    "elements",
    "ended_error",
    "improper_error",
    "iota_numbers",
    "list_length",
    "proper_length",
    "rows",
    "sorted_items",
    "to_pylist",
]
