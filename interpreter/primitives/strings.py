"""Strings: construction, access, mutation, comparison, case mapping, searching,
splitting and joining.

Every string a procedure here returns is newly allocated and mutable (an
:class:`MString`); literals, and what ``symbol->string`` and ``number->string`` return,
are immutable ``str`` and refuse mutation with an error that names ``string-copy``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..datatypes import PAIR_WRITE_TICKS, STRING_WRITES, VOID, Char, MString, char_of, is_string
from ..errors import SchemeError, type_error
from ..evaluator import caller
from ..limits import SMALL_STRING, check_string_length
from ..polling import POLL_EVERY, POLL_MASK, poll_limits, polled
from ..printer import write_string
from .chars import check_char
from .comparisons import register_comparisons
from .lists import build_list, check_proc, elements, to_pylist
from .numbers import check_index, check_range, check_size
from .registry import primitive


def check_string(who: str, x: Any) -> str:
    """The text of a string argument, or a type error."""
    t = type(x)
    if t is str:
        return x
    if t is MString:
        text = x.text
        return str(x) if text is None else text
    raise type_error(who, "a string", x)


def check_mstring(who: str, x: Any) -> MString:
    """A mutable string argument; literals are refused with a pointer to ``string-copy``."""
    if type(x) is MString:
        return x
    if type(x) is str:
        raise SchemeError(
            f"{who}: the string {_preview(x)} is immutable (a literal, a constant, or "
            f"what symbol->string or number->string returned); "
            f"make a mutable copy with (string-copy s)",
            kind="type-error",
        )
    raise type_error(who, "a string", x)


def _preview(text: str) -> str:
    return write_string(text if len(text) <= 40 else text[:37] + "...")


def _slice(who: str, s: Any, start: Any, end: Any) -> str:
    text = check_string(who, s)
    if start is None and end is None:
        return text
    lo, hi = check_range(who, start, end, len(text), "string")
    return text[lo:hi]


def char_matcher(who: str, x: Any) -> Callable[[str], bool]:
    """A test on one-character strings from a character or a Scheme predicate."""
    if type(x) is Char:
        ch = x.ch
        return lambda c: c == ch
    call = caller(check_proc(who, x), 1)
    calls = 0

    def test(c: str) -> bool:
        nonlocal calls
        calls += 1
        if calls & POLL_MASK == 0:  # a primitive predicate counts no steps
            poll_limits()
        return call(Char(c)) is not False

    return test


# ----------------------------------------------------------------------------------
# construction and access
# ----------------------------------------------------------------------------------
@primitive("string?")
def is_string_p(x: Any) -> bool:
    """True for strings."""
    return type(x) is str or type(x) is MString


@primitive("make-string")
def make_string(k: Any, fill: Any = None) -> MString:
    """A mutable string of ``k`` copies of ``fill`` (default space)."""
    n = check_size("make-string", k)
    ch = " " if fill is None else check_char("make-string", fill).ch
    return MString(ch * n)


@primitive("string")
def string(*chars: Any) -> MString:
    """A string of the given characters."""
    return MString("".join(check_char("string", c).ch for c in chars))


@primitive("string-length")
def string_length(s: Any) -> int:
    """Number of characters."""
    if type(s) is str:
        return len(s)
    if type(s) is MString:
        return len(s)
    raise type_error("string-length", "a string", s)


@primitive("string-ref")
def string_ref(s: Any, k: Any) -> Char:
    """Character ``k`` (from 0); O(1) on mutable strings too."""
    if type(s) is MString:
        return char_of(s.ref(check_index("string-ref", k, len(s), "string")))
    text = check_string("string-ref", s)
    return char_of(text[check_index("string-ref", k, len(text), "string")])


@primitive("string-set!")
def string_set(s: Any, k: Any, c: Any) -> Any:
    """Replace character ``k`` of a mutable string."""
    m = check_mstring("string-set!", s)
    i = check_index("string-set!", k, len(m), "string")
    ch = check_char("string-set!", c).ch
    m.editable()[i] = ch
    STRING_WRITES[0] = next(PAIR_WRITE_TICKS)
    return VOID


@primitive("substring")
def substring(s: Any, start: Any, end: Any = None) -> MString:
    """Characters from ``start`` up to ``end``."""
    return MString(_slice("substring", s, start, end))


@primitive("string-head")
def string_head(s: Any, end: Any) -> MString:
    """The first ``end`` characters."""
    return MString(_slice("string-head", s, 0, end))


@primitive("string-tail")
def string_tail(s: Any, start: Any) -> MString:
    """Characters from ``start`` to the end."""
    return MString(_slice("string-tail", s, start, None))


@primitive("string-append")
def string_append(*strings: Any) -> MString:
    """The strings joined together."""
    parts = []
    n = 0
    # check_string inline: this is the hottest string procedure (polled only for very many strings)
    for s in strings if len(strings) <= POLL_EVERY else polled(strings):
        t = type(s)
        if t is MString:
            s = s.text if s.text is not None else str(s)
        elif t is not str:
            raise type_error("string-append", "a string", s)
        parts.append(s)
        n += len(s)
    if n >= SMALL_STRING:
        check_string_length("string-append", n)
    return MString("".join(parts))


@primitive("string-copy")
def string_copy(s: Any, start: Any = None, end: Any = None) -> MString:
    """A fresh mutable copy (of part) of a string."""
    return MString(_slice("string-copy", s, start, end))


@primitive("string-copy!")
def string_copy_bang(to: Any, at: Any, src: Any, start: Any = None, end: Any = None) -> Any:
    """Copy characters of ``src`` into the mutable string ``to`` at index ``at``."""
    m = check_mstring("string-copy!", to)
    text = _slice("string-copy!", src, start, end)
    if type(at) is not int:
        raise type_error("string-copy!", "an exact integer index", at)
    if not 0 <= at <= len(m) - len(text):
        raise SchemeError(
            f"string-copy!: index {at} out of range for copying {len(text)} characters "
            f"into a string of length {len(m)}",
            kind="index-error",
        )
    m.editable()[at : at + len(text)] = text
    STRING_WRITES[0] = next(PAIR_WRITE_TICKS)
    return VOID


@primitive("string-fill!")
def string_fill(s: Any, c: Any, start: Any = None, end: Any = None) -> Any:
    """Set characters of a mutable string to ``c``."""
    m = check_mstring("string-fill!", s)
    ch = check_char("string-fill!", c).ch
    lo, hi = check_range("string-fill!", start, end, len(m), "string")
    m.editable()[lo:hi] = ch * (hi - lo)
    STRING_WRITES[0] = next(PAIR_WRITE_TICKS)
    return VOID


@primitive("string-null?")
def string_null(s: Any) -> bool:
    """True for the empty string."""
    return check_string("string-null?", s) == ""


# ----------------------------------------------------------------------------------
# comparison and case
# ----------------------------------------------------------------------------------
register_comparisons("string", "strings", check_string, 1)


@primitive("string-upcase")
def string_upcase(s: Any) -> MString:
    """Upper-case copy."""
    return MString(check_string("string-upcase", s).upper())


@primitive("string-downcase")
def string_downcase(s: Any) -> MString:
    """Lower-case copy."""
    return MString(check_string("string-downcase", s).lower())


@primitive("string-foldcase")
def string_foldcase(s: Any) -> MString:
    """Case-folded copy."""
    return MString(check_string("string-foldcase", s).casefold())


# ----------------------------------------------------------------------------------
# conversion
# ----------------------------------------------------------------------------------
@primitive("string->list")
def string_to_list(s: Any, start: Any = None, end: Any = None) -> Any:
    """The characters of (part of) a string as a list."""
    return build_list([Char(c) for c in polled(_slice("string->list", s, start, end))])


@primitive("list->string")
def list_to_string(lst: Any) -> MString:
    """A string of the characters in a list."""
    texts = []
    for c in elements("list->string", lst):
        if type(c) is not Char:
            raise type_error("list->string", "a character", c)
        texts.append(c.ch)
    return MString("".join(texts))


@primitive("string->vector")
def string_to_vector(s: Any, start: Any = None, end: Any = None) -> list[Any]:
    """The characters of (part of) a string as a vector."""
    return [Char(c) for c in polled(_slice("string->vector", s, start, end))]


@primitive("vector->string")
def vector_to_string(v: Any, start: Any = None, end: Any = None) -> MString:
    """A string of the characters in (part of) a vector."""
    if type(v) is not list:
        raise type_error("vector->string", "a vector", v)
    lo, hi = check_range("vector->string", start, end, len(v), "vector")
    return MString("".join([check_char("vector->string", c).ch for c in polled(v[lo:hi])]))


# ----------------------------------------------------------------------------------
# searching
# ----------------------------------------------------------------------------------
@primitive("string-index")
def string_index(s: Any, pred: Any, start: Any = None, end: Any = None) -> Any:
    """Index of the first character matching a character or predicate, or #f."""
    text = check_string("string-index", s)
    lo, hi = check_range("string-index", start, end, len(text), "string")
    test = char_matcher("string-index", pred)
    for i in range(lo, hi):
        if test(text[i]):
            return i
    return False


@primitive("string-rindex", "string-index-right")
def string_rindex(s: Any, pred: Any) -> Any:
    """Index of the last character matching a character or predicate, or #f."""
    text = check_string("string-rindex", s)
    test = char_matcher("string-rindex", pred)
    for i in range(len(text) - 1, -1, -1):
        if test(text[i]):
            return i
    return False


@primitive("string-search", "string-search-forward")
def string_search(needle: Any, haystack: Any, start: Any = 0) -> Any:
    """Index of the first occurrence of ``needle`` in ``haystack`` at or after ``start``, or #f."""
    pat = check_string("string-search", needle)
    text = check_string("string-search", haystack)
    lo, _ = check_range("string-search", start, None, len(text), "string")
    i = text.find(pat, lo)
    return i if i >= 0 else False


@primitive("string-search-all")
def string_search_all(needle: Any, haystack: Any) -> Any:
    """Indices of every occurrence of ``needle`` in ``haystack``."""
    pat = check_string("string-search-all", needle)
    text = check_string("string-search-all", haystack)
    if not pat:
        return build_list(list(range(len(text) + 1)))
    found = []
    i = text.find(pat)
    while i >= 0:
        found.append(i)
        i = text.find(pat, i + 1)
    return build_list(found)


@primitive("string-contains")
def string_contains(haystack: Any, needle: Any) -> Any:
    """Index of the first occurrence of ``needle`` in ``haystack``, or #f."""
    i = check_string("string-contains", haystack).find(check_string("string-contains", needle))
    return i if i >= 0 else False


@primitive("string-prefix?")
def string_prefix(prefix: Any, s: Any) -> bool:
    """True if ``s`` starts with ``prefix``."""
    return check_string("string-prefix?", s).startswith(check_string("string-prefix?", prefix))


@primitive("string-suffix?")
def string_suffix(suffix: Any, s: Any) -> bool:
    """True if ``s`` ends with ``suffix``."""
    return check_string("string-suffix?", s).endswith(check_string("string-suffix?", suffix))


@primitive("string-count")
def string_count(s: Any, pred: Any, start: Any = None, end: Any = None) -> int:
    """How many characters match a character or predicate."""
    text = _slice("string-count", s, start, end)
    test = char_matcher("string-count", pred)
    return sum(1 for c in text if test(c))


# ----------------------------------------------------------------------------------
# splitting, joining, trimming
# ----------------------------------------------------------------------------------
@primitive("string-split")
def string_split(s: Any, sep: Any = None) -> Any:
    """Split at a separator character or string; by default at runs of whitespace."""
    text = check_string("string-split", s)
    if sep is None:
        return build_list([MString(part) for part in text.split()])
    if type(sep) is Char:
        return build_list([MString(part) for part in text.split(sep.ch)])
    if is_string(sep) and str(sep):
        return build_list([MString(part) for part in text.split(str(sep))])
    raise type_error("string-split", "a character or non-empty string separator", sep)


@primitive("string-join")
def string_join(strings: Any, sep: Any = " ") -> MString:
    """Join a list of strings with a separator (default a space)."""
    glue = check_string("string-join", sep)
    parts = [check_string("string-join", x) for x in polled(to_pylist("string-join", strings))]
    check_string_length("string-join", sum(map(len, parts)) + len(glue) * max(0, len(parts) - 1))
    return MString(glue.join(parts))


def _trimmer(who: str, s: Any, what: Any) -> tuple[str, Callable[[str], bool]]:
    text = check_string(who, s)
    if what is None:
        return text, str.isspace
    return text, char_matcher(who, what)


@primitive("string-trim")
def string_trim(s: Any, what: Any = None) -> MString:
    """Remove leading and trailing whitespace (or characters matching ``what``)."""
    text, test = _trimmer("string-trim", s, what)
    lo, hi = 0, len(text)
    while lo < hi and test(text[lo]):
        lo += 1
    while hi > lo and test(text[hi - 1]):
        hi -= 1
    return MString(text[lo:hi])


@primitive("string-trim-left")
def string_trim_left(s: Any, what: Any = None) -> MString:
    """Remove leading whitespace (or characters matching ``what``)."""
    text, test = _trimmer("string-trim-left", s, what)
    lo = 0
    while lo < len(text) and test(text[lo]):
        lo += 1
    return MString(text[lo:])


@primitive("string-trim-right")
def string_trim_right(s: Any, what: Any = None) -> MString:
    """Remove trailing whitespace (or characters matching ``what``)."""
    text, test = _trimmer("string-trim-right", s, what)
    hi = len(text)
    while hi > 0 and test(text[hi - 1]):
        hi -= 1
    return MString(text[:hi])


def _pad_args(who: str, s: Any, n: Any, c: Any) -> tuple[str, int, str]:
    text = check_string(who, s)
    width = check_size(who, n)
    ch = " " if c is None else check_char(who, c).ch
    return text, width, ch


@primitive("string-pad-left")
def string_pad_left(s: Any, n: Any, c: Any = None) -> MString:
    """Right-align in ``n`` characters (keeping the rightmost characters if longer)."""
    text, width, ch = _pad_args("string-pad-left", s, n, c)
    return MString(text[len(text) - width :] if len(text) >= width else ch * (width - len(text)) + text)


@primitive("string-pad-right")
def string_pad_right(s: Any, n: Any, c: Any = None) -> MString:
    """Left-align in ``n`` characters (keeping the leftmost characters if longer)."""
    text, width, ch = _pad_args("string-pad-right", s, n, c)
    return MString(text[:width] if len(text) >= width else text + ch * (width - len(text)))


@primitive("string-reverse")
def string_reverse(s: Any) -> MString:
    """The characters in reverse order."""
    return MString(check_string("string-reverse", s)[::-1])


# ----------------------------------------------------------------------------------
# higher-order
# ----------------------------------------------------------------------------------
def _char_rows(who: str, strings: tuple[Any, ...]) -> list[list[Char]]:
    texts = [check_string(who, s) for s in strings]
    n = min(len(t) for t in texts)
    return [[Char(t[i]) for t in texts] for i in polled(range(n))]


@primitive("string-map")
def string_map(f: Any, s: Any, *more: Any) -> MString:
    """The string of ``(f c ...)`` over corresponding characters."""
    call = caller(check_proc("string-map", f), 1 + len(more))
    out = []
    for row in polled(_char_rows("string-map", (s, *more))):
        out.append(check_char("string-map", call(*row)).ch)
    return MString("".join(out))


@primitive("string-for-each")
def string_for_each(f: Any, s: Any, *more: Any) -> Any:
    """Call ``f`` on corresponding characters for effect."""
    call = caller(check_proc("string-for-each", f), 1 + len(more))
    for row in polled(_char_rows("string-for-each", (s, *more))):
        call(*row)
    return VOID
