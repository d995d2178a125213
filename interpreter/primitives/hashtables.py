"""Hash tables keyed by ``equal?`` (the default) or ``eqv?``; insertion-ordered."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..datatypes import VOID, Pair, cons
from ..errors import SchemeError, type_error
from ..evaluator import apply_procedure
from ..printer import write_string
from ..tables import HashTable, equal_key, eqv_key
from .lists import build_list, check_proc, to_pylist
from .registry import BUILTINS, primitive

__all__ = ["HashTable", "equal_key", "eqv_key"]

def check_table(who: str, x: Any) -> HashTable:
    """Return ``x`` if it is a hash table, else raise a type error."""
    if type(x) is HashTable:
        return x
    raise type_error(who, "a hash table", x)


def _missing(who: str, key: Any) -> SchemeError:
    return SchemeError(f"{who}: key not found: {write_string(key)}", kind="value-error")


# ----------------------------------------------------------------------------------
# construction
# ----------------------------------------------------------------------------------
def _keyfn_for(equiv: Any) -> Callable[[Any], Any]:
    """Pick eqv- or equal-keys from an equivalence procedure argument."""
    if equiv is None:
        return equal_key
    if equiv is BUILTINS.get("eq?") or equiv is BUILTINS.get("eqv?"):
        return eqv_key
    return equal_key


@primitive("make-hash-table")
def make_hash_table(equiv: Any = None, *_rest: Any) -> HashTable:
    """A new table; keys compare with ``equal?`` unless ``eq?``/``eqv?`` is given."""
    return HashTable(_keyfn_for(equiv))


@primitive("make-equal-hash-table", "make-string-hash-table", "make-key-weak-equal-hash-table")
def make_equal_hash_table(_size: Any = None) -> HashTable:
    """A new table with ``equal?`` keys."""
    return HashTable(equal_key)


@primitive(
    "make-strong-eqv-hash-table",
    "make-strong-eq-hash-table",
    "make-eqv-hash-table",
    "make-eq-hash-table",
    "make-key-weak-eqv-hash-table",
    "make-key-weak-eq-hash-table",
)
def make_eqv_hash_table(_size: Any = None) -> HashTable:
    """A new table with ``eqv?`` keys."""
    return HashTable(eqv_key)


@primitive("alist->hash-table")
def alist_to_hash_table(alist: Any, equiv: Any = None, *_rest: Any) -> HashTable:
    """A table from an association list (the first association of a key wins)."""
    table = HashTable(_keyfn_for(equiv))
    for entry in to_pylist("alist->hash-table", alist):
        if type(entry) is not Pair:
            raise type_error("alist->hash-table", "an association list of pairs, found element", entry)
        if not table.contains(entry.car):
            table.set(entry.car, entry.cdr)
    return table


@primitive("hash-table?")
def is_hash_table(x: Any) -> bool:
    """True for hash tables."""
    return type(x) is HashTable


@primitive("hash-table-copy")
def hash_table_copy(table: Any, _mutable: Any = None) -> HashTable:
    """A copy of a table."""
    return check_table("hash-table-copy", table).copy()


# ----------------------------------------------------------------------------------
# access
# ----------------------------------------------------------------------------------
_ABSENT = object()


@primitive("hash-table-ref")
def hash_table_ref(table: Any, key: Any, failure: Any = None, success: Any = None) -> Any:
    """The value for ``key``; else the result of ``failure`` (a thunk), else an error."""
    value = check_table("hash-table-ref", table).get(key, _ABSENT)
    if value is _ABSENT:
        if failure is None:
            raise _missing("hash-table-ref", key)
        return apply_procedure(check_proc("hash-table-ref", failure), [])
    if success is not None:
        return apply_procedure(check_proc("hash-table-ref", success), [value])
    return value


@primitive("hash-table-ref/default", "hash-table/get")
def hash_table_ref_default(table: Any, key: Any, default: Any) -> Any:
    """The value for ``key``, or ``default``."""
    return check_table("hash-table-ref/default", table).get(key, default)


@primitive("hash-table-set!", "hash-table/put!")
def hash_table_set(table: Any, key: Any, value: Any) -> Any:
    """Associate ``key`` with ``value``."""
    check_table("hash-table-set!", table).set(key, value)
    return VOID


@primitive("hash-table-delete!", "hash-table/remove!")
def hash_table_delete(table: Any, key: Any) -> Any:
    """Remove ``key`` if present."""
    check_table("hash-table-delete!", table).delete(key)
    return VOID


@primitive("hash-table-contains?", "hash-table-exists?")
def hash_table_contains(table: Any, key: Any) -> bool:
    """True if ``key`` has a value."""
    return check_table("hash-table-contains?", table).contains(key)


@primitive("hash-table-update!")
def hash_table_update(table: Any, key: Any, proc: Any, failure: Any = None) -> Any:
    """Replace the value for ``key`` by ``(proc value)``; ``failure`` supplies a missing value."""
    t = check_table("hash-table-update!", table)
    check_proc("hash-table-update!", proc)
    ap = apply_procedure
    value = t.get(key, _ABSENT)
    if value is _ABSENT:
        if failure is None:
            raise _missing("hash-table-update!", key)
        value = ap(check_proc("hash-table-update!", failure), [])
    t.set(key, ap(proc, [value]))
    return VOID


@primitive("hash-table-update!/default")
def hash_table_update_default(table: Any, key: Any, proc: Any, default: Any) -> Any:
    """Replace the value for ``key`` by ``(proc value)``, starting from ``default``. A key the
    table held when it was read (one of the table's own dict keys, ``HashTable.direct``) is
    stored in place: the dict does not grow, so no memory is reserved for its growth (the
    inline update, ``compiler/inline_update.py``, does the same)."""
    t = check_table("hash-table-update!/default", table)
    check_proc("hash-table-update!/default", proc)
    if type(key) in t.direct:
        entry = t.entries.get(key)
        value = apply_procedure(proc, [default if entry is None else entry[1]])
        if entry is not None:
            t.entries[key] = (key, value)
            return VOID
    else:
        value = apply_procedure(proc, [t.get(key, default)])
    t.set(key, value)
    return VOID


@primitive("hash-table-clear!")
def hash_table_clear(table: Any) -> Any:
    """Remove every entry."""
    check_table("hash-table-clear!", table).entries.clear()
    return VOID


# ----------------------------------------------------------------------------------
# whole-table views
# ----------------------------------------------------------------------------------
@primitive("hash-table-size", "hash-table/count")
def hash_table_size(table: Any) -> int:
    """Number of entries."""
    return len(check_table("hash-table-size", table))


@primitive("hash-table-count")
def hash_table_count(a: Any, b: Any = None) -> int:
    """Number of entries: ``(hash-table-count table)``, or ``(hash-table-count pred table)``
    for how many entries satisfy ``(pred key value)``."""
    if b is None:
        return len(check_table("hash-table-count", a))
    t = check_table("hash-table-count", b)
    check_proc("hash-table-count", a)
    ap = apply_procedure
    return sum(1 for k, v in list(t.entries.values()) if ap(a, [k, v]) is not False)


@primitive("hash-table-keys", "hash-table/key-list")
def hash_table_keys(table: Any) -> Any:
    """The keys, in insertion order."""
    return build_list([k for k, _ in check_table("hash-table-keys", table).entries.values()])


@primitive("hash-table-values", "hash-table/datum-list")
def hash_table_values(table: Any) -> Any:
    """The values, in insertion order of their keys."""
    return build_list([v for _, v in check_table("hash-table-values", table).entries.values()])


@primitive("hash-table->alist")
def hash_table_to_alist(table: Any) -> Any:
    """The entries as an association list, in insertion order."""
    return build_list([cons(k, v) for k, v in check_table("hash-table->alist", table).entries.values()])


@primitive("hash-table-walk")
def hash_table_walk(table: Any, proc: Any) -> Any:
    """Call ``(proc key value)`` for every entry."""
    t = check_table("hash-table-walk", table)
    check_proc("hash-table-walk", proc)
    ap = apply_procedure
    for k, v in list(t.entries.values()):
        ap(proc, [k, v])
    return VOID


@primitive("hash-table-fold")
def hash_table_fold(table: Any, kons: Any, knil: Any) -> Any:
    """Fold ``(kons key value acc)`` over the entries."""
    if type(kons) is HashTable:  # SRFI-125 order: (hash-table-fold kons knil table)
        table, kons, knil = kons, knil, table
    t = check_table("hash-table-fold", table)
    check_proc("hash-table-fold", kons)
    ap = apply_procedure
    acc = knil
    for k, v in list(t.entries.values()):
        acc = ap(kons, [k, v, acc])
    return acc
