"""Hash-table reads and writes computed inline by compiled bodies.

A table (``tables.HashTable``) keeps ``entries``: a dict from each key's dict key to the
pair ``(original key, value)``. A key of a type the table's key function returns unchanged
(``table.direct``: exact integers and symbols for every table, strings for ``equal?``
tables) is its own dict key, so a compiled body reads and writes ``entries`` itself, with
no call of the primitive, of ``HashTable.get``/``set`` or of the key function::

    if ok4 and type(l2) is HashTable and type(l7) in l2.direct:
        t9 = (0 if (t8 := l2.entries.get(l7)) is None else t8[1])   # hash-table-ref/default
    else:
        t9 = <the ordinary call>

Any other table, key or operator (a rebound name) takes the ordinary call: the same value,
the same error with the same location and backtrace. A store is inline only while the
table is not at a size where ``HashTable.set`` reserves the memory of the dict's next
doubling (:data:`GROWTH_DUE`); there the primitive runs and reserves it, as before.

These templates join ``fastpath.GUARDED_OPS`` and ``GUARDED_STATEMENTS``; the inline
``hash-table-update!/default`` (``inline_update.py``) uses :data:`DIRECT_KEY` and
:data:`NO_GROWTH_DUE` too.

Under ``parallel-map`` two branches updating one table race exactly as the primitive's two
dict operations did: a read and a store of one Python dict each, atomic under the GIL, with
no lock (the last store of a key wins; an update is a read then a store, not atomic).
"""

from __future__ import annotations

#: ``{b}`` is a key table ``{a}`` keys by itself (``{a}`` is a table).
DIRECT_KEY = "type({b}) in {a}.direct"

#: ``{a}`` is a table and ``{b}`` a key it keys by itself.
TABLE_AND_KEY = "type({a}) is HashTable and " + DIRECT_KEY

#: Table ``{a}``'s next store reserves no memory: the condition of ``HashTable.set``
#: (a size from ``TABLE_GROWTH_FROM`` on that is a power of two), negated; ``{t}`` is bound.
NO_GROWTH_DUE = "(({t} := len({a}.entries)) < TABLE_GROWTH_FROM or {t} & ({t} - 1))"

#: Reads: name to (operand count, guard, value), as ``fastpath.GUARDED_OPS``.
TABLE_OPS: dict[str, tuple[int, str, str]] = {
    **{
        name: (3, TABLE_AND_KEY, "({c} if ({t} := {a}.entries.get({b})) is None else {t}[1])")
        for name in ("hash-table-ref/default", "hash-table/get")
    },
    # a missing key fails the guard: the primitive reports it
    "hash-table-ref": (2, TABLE_AND_KEY + " and ({t} := {a}.entries.get({b})) is not None", "{t}[1]"),
    **{name: (2, TABLE_AND_KEY, "{b} in {a}.entries") for name in ("hash-table-contains?", "hash-table-exists?")},
}

#: Writes: name to (operand count, guard, statement), as ``fastpath.GUARDED_STATEMENTS``.
TABLE_STATEMENTS: dict[str, tuple[int, str, str]] = {
    name: (3, f"{TABLE_AND_KEY} and {NO_GROWTH_DUE}", "{a}.entries[{b}] = ({b}, {c})")
    for name in ("hash-table-set!", "hash-table/put!")
}

#: Reads whose inline value is a Python ``bool`` (``fastpath.BOOLEAN_RESULTS``).
TABLE_TESTS = frozenset({"hash-table-contains?", "hash-table-exists?"})
