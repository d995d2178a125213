"""Vectors (Python lists) and bytevectors (bytearrays)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..datatypes import VOID, MString, is_string
from ..errors import SchemeError, type_error
from ..evaluator import apply_procedure, caller
from ..limits import check_elements
from ..polling import polled
from .lists import build_list, check_proc, to_pylist
from .numbers import check_index, check_range, check_size
from .registry import primitive


def check_vector(who: str, x: Any) -> list[Any]:
    """Return ``x`` if it is a vector, else raise a type error."""
    if type(x) is list:
        return x
    raise type_error(who, "a vector", x)


def _copy_into(who: str, to: Any, at: Any, items: Any, what: str) -> None:
    """Copy ``items`` into the sequence ``to`` starting at ``at`` (bounds checked)."""
    if type(at) is not int:
        raise type_error(who, "an exact integer index", at)
    if not 0 <= at <= len(to) - len(items):
        raise SchemeError(
            f"{who}: index {at} out of range for copying {len(items)} elements into a {what} of length {len(to)}",
            kind="index-error",
        )
    to[at : at + len(items)] = items


# ----------------------------------------------------------------------------------
# vectors
# ----------------------------------------------------------------------------------
@primitive("vector")
def vector(*xs: Any) -> list[Any]:
    """A vector of the arguments."""
    return list(xs)


@primitive("make-vector")
def make_vector(k: Any, fill: Any = 0) -> list[Any]:
    """A vector of ``k`` copies of ``fill`` (default 0)."""
    return [fill] * check_size("make-vector", k)


@primitive("vector?")
def is_vector(x: Any) -> bool:
    """True for vectors."""
    return type(x) is list


@primitive("vector-length")
def vector_length(v: Any) -> int:
    """Number of elements."""
    return len(check_vector("vector-length", v))


@primitive("vector-ref")
def vector_ref(v: Any, k: Any) -> Any:
    """Element ``k`` (from 0)."""
    if type(v) is list and type(k) is int and 0 <= k < len(v):
        return v[k]
    check_vector("vector-ref", v)
    return v[check_index("vector-ref", k, len(v), "vector")]


@primitive("vector-set!")
def vector_set(v: Any, k: Any, x: Any) -> Any:
    """Replace element ``k``."""
    if type(v) is list and type(k) is int and 0 <= k < len(v):
        v[k] = x
        return VOID
    check_vector("vector-set!", v)
    v[check_index("vector-set!", k, len(v), "vector")] = x
    return VOID


def _part(who: str, v: Any, start: Any, end: Any) -> list[Any]:
    check_vector(who, v)
    if start is None and end is None:
        return v
    lo, hi = check_range(who, start, end, len(v), "vector")
    return v[lo:hi]


@primitive("vector->list")
def vector_to_list(v: Any, start: Any = None, end: Any = None) -> Any:
    """The elements of (part of) a vector as a list."""
    return build_list(_part("vector->list", v, start, end))


@primitive("list->vector")
def list_to_vector(lst: Any) -> list[Any]:
    """A vector of the elements of a list."""
    return to_pylist("list->vector", lst)


@primitive("vector-fill!")
def vector_fill(v: Any, x: Any, start: Any = None, end: Any = None) -> Any:
    """Set elements of a vector to ``x``."""
    check_vector("vector-fill!", v)
    lo, hi = check_range("vector-fill!", start, end, len(v), "vector")
    v[lo:hi] = [x] * (hi - lo)
    return VOID


@primitive("vector-copy")
def vector_copy(v: Any, start: Any = None, end: Any = None) -> list[Any]:
    """A fresh copy of (part of) a vector."""
    return list(_part("vector-copy", v, start, end))


@primitive("subvector")
def subvector(v: Any, start: Any, end: Any) -> list[Any]:
    """Elements from ``start`` up to ``end`` as a new vector."""
    return list(_part("subvector", v, start, end))


@primitive("vector-copy!")
def vector_copy_bang(to: Any, at: Any, src: Any, start: Any = None, end: Any = None) -> Any:
    """Copy (part of) ``src`` into ``to`` starting at ``at``."""
    check_vector("vector-copy!", to)
    _copy_into("vector-copy!", to, at, list(_part("vector-copy!", src, start, end)), "vector")
    return VOID


@primitive("vector-append")
def vector_append(*vs: Any) -> list[Any]:
    """A vector of the elements of all the vectors."""
    check_elements("vector-append", sum(len(check_vector("vector-append", v)) for v in vs))
    out: list[Any] = []
    for v in vs:
        out.extend(v)
    return out


@primitive("vector-grow")
def vector_grow(v: Any, k: Any) -> list[Any]:
    """A copy of ``v`` lengthened to ``k`` elements (new ones are unspecified)."""
    check_vector("vector-grow", v)
    n = check_size("vector-grow", k)
    if n < len(v):
        raise SchemeError(f"vector-grow: new size {n} is smaller than the vector's length {len(v)}", kind="value-error")
    return v + [VOID] * (n - len(v))


def _vector_rows(who: str, vs: tuple[Any, ...]) -> Iterable[tuple[Any, ...]]:
    """The rows of corresponding elements (up to the shortest vector), to be iterated
    once: they poll the run's limits as they go (a primitive ``f`` counts no steps)."""
    for v in vs:
        check_vector(who, v)
    return polled(list(zip(*vs)))


@primitive("vector-map")
def vector_map(f: Any, v: Any, *more: Any) -> list[Any]:
    """The vector of ``(f x ...)`` over corresponding elements."""
    call = caller(check_proc("vector-map", f), 1 + len(more))
    if not more:
        return [call(x) for x in polled(check_vector("vector-map", v))]
    return [call(*row) for row in _vector_rows("vector-map", (v, *more))]


@primitive("vector-for-each")
def vector_for_each(f: Any, v: Any, *more: Any) -> Any:
    """Call ``f`` on corresponding elements for effect."""
    call = caller(check_proc("vector-for-each", f), 1 + len(more))
    if not more:
        for x in polled(check_vector("vector-for-each", v)):
            call(x)
        return VOID
    for row in _vector_rows("vector-for-each", (v, *more)):
        call(*row)
    return VOID


@primitive("vector-binary-search")
def vector_binary_search(v: Any, key: Any, compare: Any) -> Any:
    """Index of an element for which ``(compare elem key)`` is 0, or #f (``v`` sorted)."""
    check_vector("vector-binary-search", v)
    check_proc("vector-binary-search", compare)
    ap = apply_procedure
    lo, hi = 0, len(v) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        c = ap(compare, [v[mid], key])
        if type(c) not in (int, float):
            raise type_error("vector-binary-search", "a number from the comparison procedure", c)
        if c == 0:
            return mid
        if c < 0:
            lo = mid + 1
        else:
            hi = mid - 1
    return False


# ----------------------------------------------------------------------------------
# bytevectors
# ----------------------------------------------------------------------------------
def check_bytevector(who: str, x: Any) -> bytearray:
    """Return ``x`` if it is a bytevector, else raise a type error."""
    if type(x) is bytearray:
        return x
    raise type_error(who, "a bytevector", x)


def check_byte(who: str, x: Any) -> int:
    """An exact integer from 0 to 255."""
    if type(x) is int and 0 <= x <= 255:
        return x
    raise type_error(who, "a byte (exact integer 0-255)", x)


@primitive("bytevector")
def bytevector(*bs: Any) -> bytearray:
    """A bytevector of the given bytes."""
    return bytearray(check_byte("bytevector", b) for b in bs)


@primitive("bytevector?")
def is_bytevector(x: Any) -> bool:
    """True for bytevectors."""
    return type(x) is bytearray


@primitive("make-bytevector")
def make_bytevector(k: Any, fill: Any = 0) -> bytearray:
    """A bytevector of ``k`` copies of ``fill``."""
    return bytearray([check_byte("make-bytevector", fill)]) * check_size("make-bytevector", k)


@primitive("bytevector-length")
def bytevector_length(bv: Any) -> int:
    """Number of bytes."""
    return len(check_bytevector("bytevector-length", bv))


@primitive("bytevector-u8-ref")
def bytevector_u8_ref(bv: Any, k: Any) -> int:
    """Byte ``k``."""
    check_bytevector("bytevector-u8-ref", bv)
    return bv[check_index("bytevector-u8-ref", k, len(bv), "bytevector")]


@primitive("bytevector-u8-set!")
def bytevector_u8_set(bv: Any, k: Any, b: Any) -> Any:
    """Replace byte ``k``."""
    check_bytevector("bytevector-u8-set!", bv)
    bv[check_index("bytevector-u8-set!", k, len(bv), "bytevector")] = check_byte("bytevector-u8-set!", b)
    return VOID


def _bv_part(who: str, bv: Any, start: Any, end: Any) -> bytearray:
    check_bytevector(who, bv)
    lo, hi = check_range(who, start, end, len(bv), "bytevector")
    return bv[lo:hi]


@primitive("bytevector-copy")
def bytevector_copy(bv: Any, start: Any = None, end: Any = None) -> bytearray:
    """A fresh copy of (part of) a bytevector."""
    return _bv_part("bytevector-copy", bv, start, end)


@primitive("bytevector-copy!")
def bytevector_copy_bang(to: Any, at: Any, src: Any, start: Any = None, end: Any = None) -> Any:
    """Copy (part of) ``src`` into ``to`` starting at ``at``."""
    check_bytevector("bytevector-copy!", to)
    _copy_into("bytevector-copy!", to, at, _bv_part("bytevector-copy!", src, start, end), "bytevector")
    return VOID


@primitive("bytevector-append")
def bytevector_append(*bvs: Any) -> bytearray:
    """A bytevector of the bytes of all the arguments."""
    check_elements("bytevector-append", sum(len(check_bytevector("bytevector-append", bv)) for bv in bvs))
    out = bytearray()
    for bv in bvs:
        out += bv
    return out


@primitive("utf8->string")
def utf8_to_string(bv: Any, start: Any = None, end: Any = None) -> MString:
    """Decode UTF-8 bytes (invalid sequences become U+FFFD)."""
    return MString(_bv_part("utf8->string", bv, start, end).decode("utf-8", errors="replace"))


@primitive("string->utf8")
def string_to_utf8(s: Any, start: Any = None, end: Any = None) -> bytearray:
    """Encode (part of) a string as UTF-8."""
    if not is_string(s):
        raise type_error("string->utf8", "a string", s)
    text = str(s)
    lo, hi = check_range("string->utf8", start, end, len(text), "string")
    return bytearray(text[lo:hi].encode("utf-8", errors="surrogatepass"))
