"""The printer: Scheme values to text, as ``write`` and ``display`` show them.

Printing is iterative (an explicit stack), so 50,000-deep nesting and million-element
lists print without recursion. Three flavours of ``write``:

* :func:`write_string` — R7RS ``write``: datum labels (``#0=(a . #0#)``) only where
  the structure is cyclic, so it always terminates;
* :func:`write_shared_string` — R7RS ``write-shared``: labels for every shared part;
* :func:`write_simple_string` — R7RS ``write-simple``: never labels; loops forever
  on a cyclic structure (as R7RS allows).

:func:`display_string` is ``display``: strings and characters appear as themselves.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from .bignum import int_shown, int_to_decimal
from .datatypes import (
    NIL,
    S_QUASIQUOTE,
    S_QUOTE,
    S_UNQUOTE,
    S_UNQUOTE_SPLICING,
    UPWARD,
    Char,
    Eof,
    Keyword,
    MString,
    Nil,
    Pair,
    Parameter,
    Procedure,
    Promise,
    Record,
    RecordType,
    Symbol,
    Values,
    Void,
)
from .number_syntax import complex_text, float_text, parse_number
from .polling import POLL_CHUNK, POLL_MASK, poll_limits, polled
from .ports import Port

__all__ = ["display_string", "write_shared_string", "write_simple_string", "write_string"]

_ABBREVIATIONS = {S_QUOTE: "'", S_QUASIQUOTE: "`", S_UNQUOTE: ",", S_UNQUOTE_SPLICING: ",@"}

# ---------------------------------------------------------------------------------
# Atoms
# ---------------------------------------------------------------------------------


def _control_escape(code: int) -> str:
    return f"\\x{code:x};"


_STRING_ESCAPES: dict[int, str] = {code: _control_escape(code) for code in [*range(0x20), *range(0x7F, 0xA0)]}
_STRING_ESCAPES.update({ord("\n"): "\\n", ord("\t"): "\\t", ord("\r"): "\\r", ord('"'): '\\"', ord("\\"): "\\\\"})

_SYMBOL_ESCAPES = dict(_STRING_ESCAPES)
del _SYMBOL_ESCAPES[ord('"')]
_SYMBOL_ESCAPES[ord("|")] = "\\|"


def _string_text(s: str) -> str:
    """A string literal: quotes, with \\n \\t \\r \\\\ \\" and \\xHH; escapes."""
    return '"' + s.translate(_STRING_ESCAPES) + '"'


_DELIMITED = re.compile(r"[^\s()\[\]\";'`,|#]+")
#: R7RS identifiers (7.1.1): an initial then subsequents, or a peculiar identifier
#: (+, -, ..., ->x, .foo). Characters beyond ASCII count as letters: ``[^\x00-\x7f]``, which
#: compiles in 0.2 ms where the range ``\u0080-\U0010ffff`` took 7 ms per class at start-up.
_INITIAL = r"(?:[A-Za-z!$%&*/:<=>?^_~]|[^\x00-\x7f])"
_SUBSEQUENT = r"(?:[A-Za-z0-9!$%&*/:<=>?^_~+\-.@]|[^\x00-\x7f])"
_SIGN_SUBSEQUENT = r"(?:[A-Za-z!$%&*/:<=>?^_~+\-@]|[^\x00-\x7f])"
_IDENTIFIER = re.compile(
    rf"{_INITIAL}{_SUBSEQUENT}*|[+-]|[+-]{_SIGN_SUBSEQUENT}{_SUBSEQUENT}*"
    rf"|[+-]?\.(?:{_SIGN_SUBSEQUENT}|\.){_SUBSEQUENT}*"
)


_INFNAN_PREFIXES = ("+inf.0", "-inf.0", "+nan.0", "-nan.0")


def _reads_as_number(name: str) -> bool:
    """True for a name the reader (or another Scheme's) could take for a number: ``+i``, ``+nan.0abc``."""
    if name[:6].lower() in _INFNAN_PREFIXES:
        return True
    try:
        return parse_number(name) is not None
    except (ZeroDivisionError, OverflowError, ValueError):
        return True


def _symbol_text(name: str) -> str:
    """A symbol's name, in ``|bars|`` unless it is an identifier that reads back as this symbol
    (so ``|a b|``, ``|1+|``, ``|+i|`` and ``||`` keep their bars)."""
    if _DELIMITED.fullmatch(name) and _IDENTIFIER.fullmatch(name) and name.isprintable() and not _reads_as_number(name):
        return name
    return "|" + name.translate(_SYMBOL_ESCAPES) + "|"


_CHAR_NAMES = {
    " ": "space",
    "\n": "newline",
    "\t": "tab",
    "\r": "return",
    "\0": "nul",
    "\a": "alarm",
    "\b": "backspace",
    "\x1b": "escape",
}


def _char_text(c: Char) -> str:
    """``#\\a``, ``#\\space``, ``#\\x7f``."""
    ch = c.ch
    name = _CHAR_NAMES.get(ch)
    if name is not None:
        return "#\\" + name
    if ch.isprintable():
        return "#\\" + ch
    return f"#\\x{ord(ch):x}"


def _bytevector_text(b: bytearray) -> str:
    return "#u8(" + " ".join(map(str, b)) + ")"


def _fraction_text(f: Fraction) -> str:
    if f.denominator == 1:
        return int_to_decimal(f.numerator)
    return f"{int_to_decimal(f.numerator)}/{int_to_decimal(f.denominator)}"


def _bool_text(b: bool) -> str:
    return "#t" if b else "#f"


_COMMON: dict[type, Callable[[Any], str]] = {
    int: int_to_decimal,
    bool: _bool_text,
    float: float_text,
    complex: complex_text,
    Fraction: _fraction_text,
    Keyword: lambda k: "#:" + k.name,
    Nil: lambda _: "()",
    Void: lambda _: "#<void>",
    Eof: lambda _: "#<eof>",
    bytearray: _bytevector_text,
}

#: Atom printers for ``write`` and for ``display`` (they differ on strings, chars, symbols).
_WRITE_ATOMS: dict[type, Callable[[Any], str]] = {
    **_COMMON,
    str: _string_text,
    MString: lambda m: _string_text(str(m)),
    Symbol: lambda s: _symbol_text(s.name),
    Char: _char_text,
}
_DISPLAY_ATOMS: dict[type, Callable[[Any], str]] = {
    **_COMMON,
    str: lambda s: s,
    MString: str,
    Symbol: lambda s: s.name,
    Char: lambda c: c.ch,
}


def _other_text(x: Any, write: bool) -> str:
    """Procedures, records types, promises, ports, host objects: ``#<...>``."""
    scheme_repr = getattr(x, "scheme_repr", None)
    if scheme_repr is not None:
        return str(scheme_repr(write))
    if isinstance(x, Parameter):
        return f"#<parameter {x.name}>"
    if isinstance(x, Procedure):
        return f"#<procedure {x.name}>"
    if isinstance(x, RecordType):
        return f"#<record-type {_bare(x.name)}>"
    if isinstance(x, Promise):
        return "#<promise>"
    if isinstance(x, Port):
        return f"#<port {x.name}>"
    table = _WRITE_ATOMS if write else _DISPLAY_ATOMS
    for kind, fn in table.items():  # subclasses of the common types
        if isinstance(x, kind):
            return fn(x)
    return f"#<python {type(x).__name__}>"


def _bare(name: str) -> str:
    """A record type name without its ``<angle brackets>``."""
    return name[1:-1] if name.startswith("<") and name.endswith(">") and len(name) > 2 else name


def _is_compound(x: Any) -> bool:
    """Values printed through the stack (they contain other values)."""
    t = type(x)
    return t is Pair or t is list or t is Record or t is Values


def _children(x: Any) -> list[Any]:
    """The values inside a compound value."""
    t = type(x)
    if t is Pair:
        return [x.car, x.cdr]
    if t is list:
        return x
    if t is Record:
        return x.values
    return x.items


# ---------------------------------------------------------------------------------
# Sharing analysis
# ---------------------------------------------------------------------------------


class _SharingFound(Exception):
    """The fast path met an object twice: analyse sharing, then print again."""


def _shared_ids(root: Any) -> set[int]:
    """Ids of compound values reachable more than once from ``root``."""
    seen: set[int] = set()
    shared: set[int] = set()
    stack = [root]
    while stack:
        x = stack.pop()
        if not _is_compound(x):
            continue
        if len(seen) & POLL_MASK == 0:
            poll_limits()
        key = id(x)
        if key in seen:
            shared.add(key)
            continue
        seen.add(key)
        stack.extend(_children(x))
    return shared


def _cycle_ids(root: Any) -> set[int]:
    """Ids of compound values that are their own descendants (targets of back edges)."""
    on_path, done, targets = set(), set(), set()
    stack: list[tuple[Any, Any]] = [(root, iter(_children(root)))]
    on_path.add(id(root))
    while stack:
        if len(done) & POLL_MASK == POLL_MASK:
            poll_limits()
        node, children = stack[-1]
        for child in children:
            if not _is_compound(child):
                continue
            key = id(child)
            if key in on_path:
                targets.add(key)
            elif key not in done:
                on_path.add(key)
                stack.append((child, iter(_children(child))))
                break
        else:
            stack.pop()
            on_path.discard(id(node))
            done.add(id(node))
    return targets


#: Most compound values ``write``/``display`` unfold from shared structure before they
#: label the sharing instead (``write-shared`` style): a value built by doubling,
#: ``(cons x x)`` sixty times, would otherwise print 2^60 pairs.
MAX_UNFOLDED = 1_000_000


def _unfolds_past(root: Any, cycles: set[int], limit: int) -> bool:
    """Whether printing ``root`` with labels only on ``cycles`` would expand more than
    ``limit`` compound values (shared substructure is expanded at every meeting)."""
    size: dict[int, int] = {}  # id -> unfolded size; 0 while the value is in progress
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        x, finished = stack.pop()
        if not finished:
            if id(x) in size:
                continue
            size[id(x)] = 0
            stack.append((x, True))
            stack.extend((c, False) for c in _children(x) if _is_compound(c) and id(c) not in size)
            continue
        total = 1 + sum(
            1 if id(c) in cycles else size[id(c)] for c in _children(x) if _is_compound(c)
        )
        if total > limit:
            return True
        size[id(x)] = total
        if len(size) & POLL_MASK == 0:
            poll_limits()
    return False


# ---------------------------------------------------------------------------------
# The printer
# ---------------------------------------------------------------------------------


class _Printer:
    """One printing job. The stack holds output text (``str``) and compound values to expand.

    ``labels`` maps ids of values that get datum labels to their number (-1 until
    printed); ``seen`` (fast path only) makes a second visit raise _SharingFound.
    """

    def __init__(
        self, write: bool, labels: dict[int, int] | None = None, track: bool = False, width: int | None = None
    ) -> None:
        self.atoms = _WRITE_ATOMS if write else _DISPLAY_ATOMS
        self.write = write
        self.labels = labels
        self.seen: set[int] | None = set() if track else None
        self.counter = 0
        self.width = width  # stop once the text is this long (write_abbreviated)
        if width is not None:
            self.atoms = {**self.atoms, **_abbreviated_atoms(width)}

    def run(self, root: Any) -> str:
        parts: list[str] = []
        stack: list[Any] = [root]
        width = self.width
        size = 0
        while stack:
            for _ in POLL_CHUNK:  # a long value: the run's time limit is checked between chunks
                if not stack:
                    break
                item = stack.pop()
                if type(item) is str:
                    parts.append(item)
                    if width is not None:
                        size += len(item)
                        if size > width:
                            return "".join(parts)
                elif self._label_prefix(item, parts):
                    self._expand(item, stack)
            else:
                poll_limits()
        return "".join(parts)

    def atom(self, x: Any) -> str:
        fn = self.atoms.get(type(x))
        return fn(x) if fn is not None else _other_text(x, self.write)

    def _visit(self, x: Any) -> None:
        """Fast path bookkeeping: a second visit means shared (maybe cyclic) structure."""
        if self.seen is not None:
            key = id(x)
            if key in self.seen:
                raise _SharingFound
            self.seen.add(key)

    def _label_prefix(self, x: Any, parts: list[str]) -> bool:
        """Emit ``#n=`` or ``#n#`` for labelled values; False when the value is done."""
        labels = self.labels
        if labels is None or id(x) not in labels:
            self._visit(x)
            return True
        number = labels[id(x)]
        if number >= 0:
            parts.append(f"#{number}#")
            return False
        labels[id(x)] = self.counter
        parts.append(f"#{self.counter}=")
        self.counter += 1
        return True

    def _labelled(self, x: Any) -> bool:
        return self.labels is not None and id(x) in self.labels

    def _expand(self, x: Any, stack: list[Any]) -> None:
        t = type(x)
        if t is Pair:
            self._expand_pair(x, stack)
        elif t is list:
            self._push_sequence(stack, "#(", x, NIL, ")")
        elif t is Record:
            self._expand_record(x, stack)
        else:
            self._push_sequence(stack, "", x.items, NIL, "")

    def _expand_pair(self, p: Pair, stack: list[Any]) -> None:
        rest = p.cdr
        prefix = _ABBREVIATIONS.get(p.car) if type(p.car) is Symbol else None
        if prefix is not None and type(rest) is Pair and rest.cdr is NIL and not self._labelled(rest):
            self._visit(rest)
            self._push_sequence(stack, prefix, [rest.car], NIL, "")
            return
        elements = [p.car]
        most = self.width if self.width is not None else -1  # -1: no cut (len is never -1)
        while type(rest) is Pair and not self._labelled(rest):
            self._visit(rest)
            elements.append(rest.car)
            rest = rest.cdr
            if len(elements) & POLL_MASK == 0:
                poll_limits()
            if len(elements) == most:  # the text is cut there anyway (a circular list ends too)
                break
        self._push_sequence(stack, "(", elements, rest, ")")

    def _expand_record(self, r: Record, stack: list[Any]) -> None:
        pieces: list[Any] = ["#<" + _bare(r.rtype.name)]
        for name, value in zip(r.rtype.fields, r.values, strict=False):
            pieces.append(f" {name}: ")
            pieces.append(value if _is_compound(value) else self.atom(value))
        pieces.append(">")
        stack.extend(reversed(pieces))

    def _push_sequence(self, stack: list[Any], opening: str, elements: list[Any], tail: Any, closing: str) -> None:
        """Push ``opening e1 e2 ... [. tail] closing``; runs of atoms become one string."""
        pieces: list[Any] = []
        buf = [opening]
        atoms = self.atoms
        sep = ""
        if self.width is not None and len(elements) > self.width:
            elements = elements[: self.width]  # each element takes at least a character
        for e in polled(elements):
            buf.append(sep)
            sep = " "
            fn = atoms.get(type(e))
            if fn is not None:
                buf.append(fn(e))
            elif _is_compound(e):
                pieces.append("".join(buf))
                pieces.append(e)
                buf = []
            else:
                buf.append(_other_text(e, self.write))
        if tail is not NIL:
            buf.append(" . ")
            if _is_compound(tail):
                pieces.append("".join(buf))
                pieces.append(tail)
                buf = []
            else:
                buf.append(self.atom(tail))
        buf.append(closing)
        pieces.append("".join(buf))
        stack.extend(reversed(pieces))


def _print(x: Any, write: bool) -> str:
    """R7RS ``write``/``display``: labels only for cycles (tried first without any), or
    for all sharing when unfolding it would print more than :data:`MAX_UNFOLDED` values."""
    if not _is_compound(x):
        return _Printer(write).atom(x)
    try:
        return _Printer(write, track=True).run(x)
    except _SharingFound:
        pass
    cycles = _cycle_ids(x)
    if _unfolds_past(x, cycles, MAX_UNFOLDED):
        cycles = _shared_ids(x)
    return _Printer(write, {key: -1 for key in cycles} if cycles else None).run(x)


def _abbreviated_atoms(width: int) -> dict[type, Callable[[Any], str]]:
    """Atom printers whose work is bounded by ``width``: strings are cut first, big
    numbers are shown by their leading digits and size."""
    return {
        int: int_shown,
        Fraction: int_shown,
        str: lambda s: _string_text(s[: width + 1]),
        MString: lambda m: _string_text(str(m)[: width + 1]),
    }


def write_abbreviated(x: Any, width: int) -> str:
    """What ``write`` prints, cut to ``width`` characters (ending in ``...`` when cut), in
    time that grows with ``width``, not with ``x``: for messages and backtraces. Long
    lists, vectors and strings stop early, big numbers show their leading digits and
    size, and shared or circular structure is unfolded only as far as the cut."""
    printer = _Printer(True, width=width)
    text = printer.run(x) if _is_compound(x) else printer.atom(x)
    return text if len(text) <= width else text[: width - 3] + "..."


def write_string(x: Any) -> str:
    """What ``write`` prints: machine-readable; datum labels only on cycles."""
    return _print(x, True)


def display_string(x: Any) -> str:
    """What ``display`` prints: strings and characters as themselves."""
    if type(x) is str:  # the commonest case (a prompt's text): no printer
        return x
    return _print(x, False)


def write_shared_string(x: Any) -> str:
    """What ``write-shared`` prints: datum labels for every shared pair, vector or record."""
    if not _is_compound(x):
        return _Printer(True).atom(x)
    shared = _shared_ids(x)
    return _Printer(True, {key: -1 for key in shared} if shared else None).run(x)


def write_simple_string(x: Any) -> str:
    """What ``write-simple`` prints: never datum labels (does not terminate on cycles)."""
    return _Printer(True).run(x) if _is_compound(x) else _Printer(True).atom(x)


UPWARD.write = write_string  # type: ignore[method-assign]
