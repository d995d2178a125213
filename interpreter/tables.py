"""The hash table value (keys by ``equal?`` or ``eqv?``, insertion-ordered), and the
measure of how far a structure unfolds: an ``equal?`` key and a conversion to Python both
refuse a structure that unfolds past a limit, and a table is one of the containers
measured. The primitives over tables are in :mod:`interpreter.primitives.hashtables`.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from .datatypes import NIL, Char, MString, Pair, Record, Symbol
from .errors import SchemeError
from .memory import reserve
from .polling import POLL_MASK, poll_limits

# Markers that open a compound value in a flattened equal-key.
_LIST = object()
_VEC = object()
_REC = object()


def _atom_key(x: Any) -> Any:
    """Key for a non-compound value, kept distinct across types (1 vs 1.0 vs #t)."""
    t = type(x)
    if t is int or t is str or t is Symbol or t is Char or t is Fraction:
        return x
    if t is MString:
        return str(x)
    if t is float:
        return ("f", x)
    if t is bool:
        return ("b", x)
    if t is bytearray:
        return ("bv", bytes(x))
    if getattr(t, "__hash__", None) is None:
        return ("id", id(x))
    return ("o", x)


#: Most tokens an ``equal?`` key may flatten to: a circular key, or shared structure
#: that unfolds exponentially, stops here instead of running for ever.
MAX_KEY_TOKENS = 1_000_000


def key_too_large() -> SchemeError:
    return SchemeError(
        f"hash table key: a circular structure, or one that unfolds past {MAX_KEY_TOKENS} elements,"
        " cannot be an equal? key",
        kind="resource-exhaustion",
        details={"resource": "memory", "limit": MAX_KEY_TOKENS, "used": None},
    )


def equal_key(x: Any) -> Any:
    """A hashable key such that ``equal?`` values (and only those) get equal keys.

    Compound values are flattened into one tuple of tokens, iteratively, so long
    and deep structures neither recurse in Python nor nest tuples deeply.
    """
    t = type(x)
    if t is Symbol or t is int or t is str:  # the common keys, without a second call
        return x
    if t is not Pair and t is not list and t is not Record:
        return _atom_key(x)
    tokens: list[Any] = []
    stack: list[Any] = [x]
    measured = False
    rounds = 0
    while stack:
        if len(tokens) + len(stack) > MAX_KEY_TOKENS:
            raise key_too_large()
        rounds += 1
        if rounds & POLL_MASK == 0:  # a big key: measure it once, poll as it grows
            if not measured:
                measured = True
                if unfolded_size(x, MAX_KEY_TOKENS) > MAX_KEY_TOKENS:
                    raise key_too_large()
            poll_limits()
        v = stack.pop()
        t = type(v)
        if t is Pair:
            items = []
            p = v
            while type(p) is Pair:
                items.append(p.car)
                p = p.cdr
                if len(items) > MAX_KEY_TOKENS:
                    raise key_too_large()
            tokens.append(_LIST)
            tokens.append(len(items))
            stack.append(p)
            stack.extend(reversed(items))
        elif t is list:
            tokens.append(_VEC)
            tokens.append(len(v))
            stack.extend(reversed(v))
        elif t is Record:
            tokens.append(_REC)
            tokens.append(id(v.rtype))
            tokens.append(len(v.values))
            stack.extend(reversed(v.values))
        else:
            tokens.append(_atom_key(v))
    return tuple(tokens)


def eqv_key(x: Any) -> Any:
    """A hashable key such that ``eqv?`` values get equal keys."""
    t = type(x)
    if t is int or t is Symbol or t is Char or t is Fraction:
        return x
    if t is float:
        return ("f", x)
    if t is bool:
        return ("b", x)
    if t is str and x == "":
        return ""
    return ("id", id(x))


#: Tables at least this big reserve the memory of their next doubling (at every power of two).
GROWTH_CHECK_FROM = 4096
#: Bytes reserved per entry for that doubling: the new table's slots and the entries that fill it.
TABLE_GROWTH_BYTES = 96


#: For each key function, the types of the keys it returns unchanged (``keyfn(x) is x``):
#: a key of one of them is its own dict key, with no call of ``keyfn`` (the methods below
#: and compiled code's inline ``hash-table-ref/default``, ``hash-table-set!`` and
#: ``hash-table-update!/default`` test ``type(key) in table.direct``). A tuple, the most
#: common first: ``in`` meets its type by identity in a few instructions (a frozenset's
#: lookup hashes the type and probes: ~280 instructions a test, measured with callgrind).
SELF_KEYED: dict[Callable[[Any], Any], tuple[type, ...]] = {
    equal_key: (Symbol, int, str),
    eqv_key: (Symbol, int, Char, Fraction),
}


class HashTable:
    """A mutable hash table; ``entries`` maps key → (original key, value); ``direct``: the
    key types that are their own dict key (:data:`SELF_KEYED`)."""

    __slots__ = ("entries", "keyfn", "weak", "direct")

    def __init__(self, keyfn: Callable[[Any], Any] = equal_key, weak: bool = False) -> None:
        self.entries: dict[Any, tuple[Any, Any]] = {}
        self.keyfn = keyfn
        self.weak = weak
        self.direct = SELF_KEYED.get(keyfn, ())

    def get(self, key: Any, default: Any = None) -> Any:
        entry = self.entries.get(key if type(key) in self.direct else self.keyfn(key))
        return default if entry is None else entry[1]

    def contains(self, key: Any) -> bool:
        return (key if type(key) in self.direct else self.keyfn(key)) in self.entries

    def set(self, key: Any, value: Any) -> None:
        entries = self.entries
        n = len(entries)
        if n >= GROWTH_CHECK_FROM and not n & (n - 1):
            # Python's dict soon doubles its table in one allocation: reserve it first,
            # as other primitives that build something big in one call do (memory.py).
            # Compiled code's inline stores test the same condition (``growth_due``).
            reserve(n * TABLE_GROWTH_BYTES)
        entries[key if type(key) in self.direct else self.keyfn(key)] = (key, value)

    def delete(self, key: Any) -> None:
        self.entries.pop(self.keyfn(key), None)

    def copy(self) -> HashTable:
        new = HashTable(self.keyfn, self.weak)
        new.entries = dict(self.entries)
        return new

    def __len__(self) -> int:
        return len(self.entries)

    def scheme_repr(self, write: bool) -> str:
        """How the printer shows a table."""
        return f"#<hash-table {len(self.entries)}>"

    def __repr__(self) -> str:
        return self.scheme_repr(True)


def _parts(x: Any) -> list[Any] | None:
    """The elements of a container a conversion walks into (None for anything else)."""
    t = type(x)
    if t is Pair:
        return proper_items(x)
    if t is list or t is tuple:
        return x
    if t is dict:
        return [*x.keys(), *x.values()]
    if t is Record:
        return x.values
    if t is HashTable:
        return [part for entry in x.entries.values() for part in entry]
    return None


def unfolded_size(root: Any, limit: int) -> int:
    """The elements a tree copy of ``root`` holds (shared parts counted at every meeting,
    as JSON must write them), found in time linear in the distinct parts; the count stops
    a little past ``limit``. Parts that contain themselves count once (a conversion refuses them)."""
    parts = _parts(root)
    if parts is None:
        return 0
    sizes: dict[int, int] = {}
    active = {id(root)}
    frames: list[list[Any]] = [[root, parts, 0, len(parts)]]
    visited = 0
    while True:
        frame = frames[-1]
        node, parts, i, total = frame
        if i == len(parts):
            frames.pop()
            active.discard(id(node))
            total = min(total, limit + 1)
            sizes[id(node)] = total
            if not frames:
                return total
            frames[-1][3] += total
            continue
        frame[2] = i + 1
        child = parts[i]
        key = id(child)
        if key in sizes:
            frame[3] += sizes[key]
        elif key not in active:
            inner = _parts(child)
            if inner is not None:
                active.add(key)
                frames.append([child, inner, 0, len(inner)])
                visited += 1
                if visited & 0x3FFF == 0:
                    poll_limits()


def proper_items(x: Any) -> list[Any] | None:
    """The elements of the proper list ``x``, or None if its tail loops or is not ``'()``."""
    items: list[Any] = []
    slow = x
    while type(x) is Pair:
        items.append(x.car)
        x = x.cdr
        if type(x) is not Pair:
            break
        items.append(x.car)
        x = x.cdr
        slow = slow.cdr
        if x is slow:
            return None
    return items if x is NIL else None
