"""Searches of a quoted list compiled to a table lookup.

``(memv c '(#\\a #\\e #\\i #\\o #\\u))`` walks five pairs per call in the primitive. When
the list is a literal at the call site, its atoms are known when the call is compiled:
:class:`LiteralTable` turns it into one dict per element type, from a key faithful to
``eqv?`` (or ``equal?``) to the answer (the tail for ``memq``/``memv``/``member``, the
entry for ``assq``/``assv``/``assoc``), and the compiled call is a dict lookup.

Keys, per type (``eqv?`` compares within one type only, so separate dicts keep ``1``
apart from ``#t`` and from ``1.0``): exact integers by value, characters by code point,
symbols, booleans and ``'()`` by identity, and under ``member``/``assoc`` literal strings
by content (a mutable string is looked up by its text). Lists holding anything else
(floats, vectors, non-literal strings, …), improper, circular or longer than
:data:`MAX_ENTRIES` lists, and association lists with a non-pair element keep the
ordinary call, as do calls whose operator was rebound.

A quoted list is mutable here. Every primitive that changes an existing pair stores a
fresh value in ``datatypes.PAIR_WRITES``; a table built at another value rebuilds itself
(in place, so the dicts the compiled code names stay valid) before answering, and a list
changed so that it no longer fits its compiled code goes back to the ordinary call for
good. Host code that assigns ``Pair.car``/``cdr`` of a quoted list directly bypasses this.

``(memv c '(#\\a #\\e #\\i))`` as a value (``d4`` the characters' dict, ``s2`` the table)::

    ((d4.get(arg0.ch, False) if (t1 := type(arg0)) is ty5 else False)
     if (s2.epoch is w3[0] or s2.current()) and ok7 else <the primitive's call>)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..datatypes import NIL, PAIR_WRITES, Char, MString, Nil, Pair, Symbol

#: Searches done by table: name to (compares with ``equal?``, searches entries' cars).
SEARCHES: dict[str, tuple[bool, bool]] = {
    "memq": (False, False),
    "memv": (False, False),
    "member": (True, False),
    "assq": (False, True),
    "assv": (False, True),
    "assoc": (True, True),
}

#: Longest literal list made into a table (longer ones keep the primitive's walk).
MAX_ENTRIES = 10_000

#: Element types compared by identity (``eqv?`` and ``equal?`` are ``eq?`` on them).
IDENTITY_TYPES = (Symbol, bool, Nil)


def key_of(value: Any, equal: bool) -> tuple[type, Any] | None:
    """(table type, key) of a literal element; None if it cannot be a table key."""
    t = type(value)
    if t is int or t in IDENTITY_TYPES:
        return t, value
    if t is Char:
        return Char, value.ch
    if t is str and equal:  # literal strings are immutable; equal? compares their text
        return str, value
    return None


def build_tables(lst: Any, equal: bool, entries: bool) -> dict[type, dict[Any, Pair]] | None:
    """The tables of ``lst`` (first occurrence wins), or None if it does not qualify."""
    tables: dict[type, dict[Any, Pair]] = {}
    p, count = lst, 0
    while type(p) is Pair:
        count += 1
        if count > MAX_ENTRIES:
            return None  # also ends a circular list
        item = p.car
        if entries:
            if type(item) is not Pair:
                return None  # the primitive reports the malformed alist where it meets it
            keyed = key_of(item.car, equal)
            answer = item
        else:
            keyed = key_of(item, equal)
            answer = p
        if keyed is None:
            return None
        tables.setdefault(keyed[0], {}).setdefault(keyed[1], answer)
        p = p.cdr
    return tables if p is NIL and tables else None


class LiteralTable:
    """The tables of one call site's literal list. Compiled code answers from them while
    ``epoch`` is still ``PAIR_WRITES[0]`` or :meth:`current` brings them up to date, and
    makes the ordinary call otherwise (see the module's docstring)."""

    __slots__ = ("lst", "equal", "entries", "tables", "epoch", "valid", "primitive")

    def __init__(
        self, lst: Any, equal: bool, entries: bool, tables: dict[type, dict[Any, Pair]], epoch: int, primitive: Any
    ) -> None:
        self.lst, self.equal, self.entries, self.tables = lst, equal, entries, tables
        self.epoch = epoch
        self.valid = True
        self.primitive = primitive  # the built-in's function: (x, lst)

    @classmethod
    def of(cls, name: str, lst: Any, primitive: Callable[[Any, Any], Any]) -> LiteralTable | None:
        """The table of the built-in ``name`` searching ``lst``; None if ``lst`` does not qualify."""
        equal, entries = SEARCHES[name]
        epoch = PAIR_WRITES[0]  # read before the walk: a write during it makes the table stale
        tables = build_tables(lst, equal, entries)
        return None if tables is None else cls(lst, equal, entries, tables, epoch, primitive)

    def lookup_source(self, x: str, temp: str, me: str, constant: Callable[[Any, str], str]) -> str:
        """A Python expression for the answer when ``x`` (a name) is searched and the
        tables are current: one dict lookup, chosen by ``type(x)`` (held in ``temp``).
        ``me`` names this table, ``constant(value, prefix)`` names a value in the
        generated code's namespace."""
        arms = []
        for t, table in self.tables.items():
            name = constant(table, "d")
            key = f"{x}.ch" if t is Char else x
            arms.append((constant(t, "ty"), f"{name}.get({key}, False)"))
            if t is str:
                arms.append((constant(MString, "ty"), f"{name}.get(str({x}), False)"))
        source = " else ".join(
            f"{value} if {f'({temp} := type({x}))' if i == 0 else temp} is {t}" for i, (t, value) in enumerate(arms)
        )
        # equal? may also hold for an object that compares itself (``scheme_equal``)
        otherwise = "False"
        if self.equal:
            otherwise = f'{me}.primitive({x}, {me}.lst) if hasattr({x}, "scheme_equal") else False'
        return f"({source} else {otherwise})"

    def current(self) -> bool:
        """Bring the tables up to date with the list after a pair was changed; False (for
        good) if the list no longer fits the compiled code (an element of another kind,
        or of a type the code does not look up)."""
        if not self.valid:
            return False
        epoch = PAIR_WRITES[0]
        tables = build_tables(self.lst, self.equal, self.entries)
        if tables is None or tables.keys() - self.tables.keys():
            self.valid = False
            return False
        for t, table in self.tables.items():
            # new answers first, then drop the keys that left: a key present before and
            # after is never missing for a reader in another thread
            new = tables.get(t, {})
            table.update(new)
            for gone in table.keys() - new.keys():
                del table[gone]
        self.epoch = epoch
        return True
