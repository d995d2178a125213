"""Indexes of lists searched again and again.

A program that keeps a table as an association list (or a set as a list) searches the
same list many times: ``(assoc name table)`` in a loop walks half the table per call.
When walks of one list keep being long, the searches (``memq``/``memv``/``member``,
``assq``/``assv``/``assoc``, through :mod:`.search`'s first passes) answer from dicts
built from it in one walk, the way :mod:`interpreter.compiler.literal_search` answers
for a quoted list at a call site:

* a walk that visited :data:`LONG` pairs or more *notes* the list (:func:`note`);
* the :data:`BUILD_AFTER`-th such walk with no change in between builds the index
  (:func:`build`): per kind of key a dict from the key to the answer the walk would give
  (the entry for an association list, the sublist for a list; the first occurrence wins):
  mutable and literal strings by their text (``equal?``), exact integers by value, symbols,
  booleans and ``'()`` by identity, the kinds :mod:`.search`'s first passes compare. An
  element of another kind can match none of these keys and is left out;
* only a proper list of at most :data:`MAX_ENTRIES` pairs (each a pair, for association
  lists) is indexed: on any other the walk gives the same answer or error every time, and
  the list is marked so that it is not built again until something changes.

An index is trusted while nothing changed since it was built: every primitive that changes
a pair that already existed stores a fresh value in ``datatypes.PAIR_WRITES``, every one that
changes a mutable string's text in ``datatypes.STRING_WRITES``, and an index keeps the two
values it was built at. Host code that assigns a ``Pair``'s or an ``MString``'s fields
directly bypasses this (as it does for the literal tables).

At most :data:`MAX_LISTS` lists per kind of search (elements or entries) are remembered,
the oldest forgotten first; a remembered list is kept alive until it is forgotten.

Threads (``parallel-map`` branches) share the indexes. A memo entry is one tuple, replaced
whole; the write counters are read before the walk that builds an index, so a change made
during the walk leaves the index stale at once. Two threads may build one list's index at
the same time; both are right, and the last one stays.
"""

from __future__ import annotations

from typing import Any

from ...datatypes import NIL, PAIR_WRITES, STRING_WRITES, MString, Nil, Pair, Symbol

#: A walk that visits this many pairs notes its list.
LONG = 16

#: Long walks of one list, with no change in between, before its index is built.
BUILD_AFTER = 4

#: Longest list indexed.
MAX_ENTRIES = 10_000

#: Lists remembered per kind of search.
MAX_LISTS = 8

#: A memo entry: ``(list, PAIR_WRITES value, STRING_WRITES value, tables, long walks)``;
#: ``tables`` is :data:`Tables`, None while not built, False if the list does not qualify.
Memo = tuple[Any, int, int, Any, int]

#: The dicts of an index, in the order of :data:`KINDS`: texts, exact integers, identities.
Tables = tuple[dict[str, Any], dict[int, Any], dict[Any, Any]]

#: Where each kind of key (:mod:`.search`'s first passes) is looked up in :data:`Tables`.
KINDS = {"text": 0, "int": 1, "identity": 2}

#: The memos of element searches (``memq`` …) and of entry searches (``assq`` …), by ``id``.
MEMOS: tuple[dict[int, Memo], dict[int, Memo]] = ({}, {})

_IDENTITY_TYPES = (Symbol, bool, Nil)


def build(lst: Any, entries: bool) -> Tables | None:
    """The index of ``lst`` (first occurrence wins); None if it does not qualify."""
    texts: dict[str, Any] = {}
    ints: dict[int, Any] = {}
    ids: dict[Any, Any] = {}
    p, count = lst, 0
    while type(p) is Pair:
        count += 1
        if count > MAX_ENTRIES:
            return None  # also ends a circular list
        y = p.car
        if entries:
            if type(y) is not Pair:
                return None  # the walk reports the malformed element where it meets it
            answer = y
            y = y.car
        else:
            answer = p
        t = type(y)
        if t is int:
            ints.setdefault(y, answer)
        elif t is MString:
            texts.setdefault(str(y), answer)
        elif t is str:
            texts.setdefault(y, answer)
        elif t in _IDENTITY_TYPES:
            ids.setdefault(y, answer)
        p = p.cdr
    return (texts, ints, ids) if p is NIL else None


def note(lst: Any, entries: bool) -> None:
    """Count a long walk of ``lst``; build its index at the :data:`BUILD_AFTER`-th one."""
    memo = MEMOS[entries]
    pairs, strings = PAIR_WRITES[0], STRING_WRITES[0]  # before the walk: see the module's docstring
    seen = memo.get(id(lst))
    if seen is None or seen[0] is not lst:
        if len(memo) >= MAX_LISTS:
            memo.pop(next(iter(memo), None), None)  # type: ignore[arg-type]
        memo[id(lst)] = (lst, pairs, strings, None, 1)
        return
    current = seen[1] is pairs and seen[2] is strings
    if current and seen[3] is False:
        return  # known not to qualify
    walks = seen[4] + 1 if current else 1
    tables: Any = None
    if walks >= BUILD_AFTER:
        tables = build(lst, entries)
        if tables is None:
            tables = False
    memo[id(lst)] = (lst, pairs, strings, tables, walks)


def forget() -> None:
    """Forget every index (tests, and a host that wants the lists released)."""
    for memo in MEMOS:
        memo.clear()
