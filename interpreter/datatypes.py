"""Scheme values: the data the reader makes and the evaluator works on.

Representation (chosen for speed and for a predictable Python boundary):

=================  =============================================
Scheme             Python
=================  =============================================
exact integer      ``int`` (never ``bool``)
exact rational     ``fractions.Fraction``
inexact real       ``float``
boolean            ``True`` / ``False``
string             ``str`` (immutable: literals, symbol names, task-layer text)
                   or :class:`MString` (mutable: what string procedures return)
symbol             :class:`Symbol` (interned: compare with ``is``)
keyword ``#:k``    :class:`Keyword` (interned)
character          :class:`Char`
pair / ``'()``     :class:`Pair` / :data:`NIL`
vector             ``list``
bytevector         ``bytearray``
unspecified        :data:`VOID`
=================  =============================================
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from typing import Any, NamedTuple

from .current import CURRENT
from .polling import POLL_CHUNK, poll_limits


class Upward:
    """What the data types need from the modules built on them, filled in by those modules
    when they are imported (the data types sit below both): ``errors`` gives the error of a
    circular list, ``printer`` the written form a pair's ``repr`` shows."""

    @staticmethod
    def circular_list(who: str) -> Exception:
        return ValueError(f"{who}: expected a proper list, got a circular list")

    @staticmethod
    def write(value: Any) -> str:
        return object.__repr__(value)


UPWARD = Upward()


class Span(NamedTuple):
    """Where a datum starts in its source: file, 1-based line and column."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class Symbol:
    """An interned symbol; ``Symbol.intern('x') is Symbol.intern('x')``."""

    __slots__ = ("name",)
    _table: dict[str, Symbol] = {}
    _lock = threading.Lock()

    def __init__(self, name: str) -> None:
        self.name = name

    @classmethod
    def intern(cls, name: str) -> Symbol:
        sym = cls._table.get(name)
        if sym is None:
            with cls._lock:
                sym = cls._table.setdefault(name, cls(name))
        return sym

    def __repr__(self) -> str:
        return f"Symbol({self.name!r})"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self) -> tuple[Any, ...]:
        return (Symbol.intern, (self.name,))


def sym(name: str) -> Symbol:
    """Shorthand for :meth:`Symbol.intern`."""
    return Symbol.intern(name)


_gensym_counter = iter(range(1, 1 << 62))


def gensym(prefix: str = "g") -> Symbol:
    """A fresh symbol that is not interned, so it never equals a read symbol."""
    return Symbol(f"{prefix}{next(_gensym_counter)}")


class Keyword:
    """An interned keyword, written ``#:name``; used for keyword arguments."""

    __slots__ = ("name",)
    _table: dict[str, Keyword] = {}

    def __init__(self, name: str) -> None:
        self.name = name

    @classmethod
    def intern(cls, name: str) -> Keyword:
        kw = cls._table.get(name)
        if kw is None:
            kw = cls._table.setdefault(name, cls(name))
        return kw

    def __repr__(self) -> str:
        return f"Keyword({self.name!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Keyword.intern, (self.name,))


class Char:
    """A character; equal by code point."""

    __slots__ = ("ch",)

    def __init__(self, ch: str) -> None:
        self.ch = ch

    def __eq__(self, other: object) -> bool:
        return type(other) is Char and other.ch == self.ch

    def __hash__(self) -> int:
        return hash(("char", self.ch))

    def __repr__(self) -> str:
        return f"Char({self.ch!r})"


#: One shared :class:`Char` per Latin-1 character: ``char_of`` (and inline ``string-ref``)
#: hand these out instead of allocating (a Char's ``__init__`` costs more than the lookup).
#: ``eq?`` on characters is ``eqv?``, so sharing is invisible to programs.
CHARS: dict[str, Char] = {chr(code): Char(chr(code)) for code in range(256)}
#: ``LATIN1[n]`` is the shared character of code point ``n`` < 256 (``integer->char``'s, inline too).
LATIN1: list[Char] = [CHARS[chr(code)] for code in range(256)]


def char_of(c: str) -> Char:
    """The character ``c`` (a one-character ``str``), shared when it is Latin-1."""
    return CHARS.get(c) or Char(c)


class MString:
    """A mutable string: what every string procedure returns. Literals are plain ``str``.

    It keeps its text as a ``str`` until first mutated, then as a list of characters,
    so ``string-ref`` and ``string-set!`` are O(1); the ``str`` is rebuilt once, lazily,
    when the whole text is next needed (``str(m)``).
    """

    __slots__ = ("text", "chars")

    def __init__(self, text: str = "") -> None:
        self.text: str | None = text
        self.chars: list[str] | None = None

    def __str__(self) -> str:
        text = self.text
        if text is None:
            text = self.text = "".join(self.chars)  # type: ignore[arg-type]
        return text

    def __len__(self) -> int:
        text = self.text
        return len(self.chars) if text is None else len(text)  # type: ignore[arg-type]

    def ref(self, i: int) -> str:
        """Character ``i`` (an index already checked)."""
        text = self.text
        return self.chars[i] if text is None else text[i]  # type: ignore[index]

    def editable(self) -> list[str]:
        """The characters as a list to change in place; the cached text is dropped."""
        chars = self.chars
        if chars is None:
            chars = self.chars = list(self.text)  # type: ignore[arg-type]
        self.text = None
        return chars

    def __repr__(self) -> str:
        return f"MString({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (MString, str)):
            return str(self) == str(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


class Nil:
    """The empty list. Use the singleton :data:`NIL`."""

    __slots__ = ()
    _instance: Nil | None = None

    def __new__(cls) -> Nil:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __iter__(self) -> Iterator[Any]:
        return iter(())

    def __bool__(self) -> bool:  # Python-side convenience only; Scheme truth is `is not False`
        return False

    def __repr__(self) -> str:
        return "NIL"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Nil, ())


NIL = Nil()


class Pair:
    """A cons cell. ``span`` is where it was read: for the first pair of a list
    the opening parenthesis, for a later pair the element in its ``car``.

    Make one with :func:`cons`. The class has no ``__init__`` on purpose: ``Pair()``
    is then allocated by C code alone (a Python ``__init__`` costs a second
    interpreter frame per pair, twice the allocation itself), and the loops that
    build long lists fill the fields inline (see :func:`make_list`). ``Pair()`` leaves
    them unset: always set ``car`` and ``cdr``. ``span`` may stay unset (it reads None):
    a store fewer for each pair the program makes, 4 ns of a 117 ns round of primes'
    ``remove-multiples``."""

    __slots__ = ("car", "cdr", "_span")

    car: Any
    cdr: Any

    @property
    def span(self) -> Span | None:
        """Where the pair was read; None for one made by the program (its ``_span`` left
        unset: the loops that make pairs store two fields, not three)."""
        try:
            return self._span
        except AttributeError:
            return None

    @span.setter
    def span(self, value: Span | None) -> None:
        self._span = value

    def __iter__(self) -> Iterator[Any]:
        """Iterate the elements of a list (stops at the first non-pair tail; a
        ``type-error`` if the list is circular)."""
        for p in spine(self):
            yield p.car

    def __repr__(self) -> str:
        return UPWARD.write(self)


#: A value that changes whenever a primitive changes a pair that already existed
#: (``set-car!``, ``set-cdr!``, ``list-set!``, ``sort!`` on a list): each of them stores
#: ``next(PAIR_WRITE_TICKS)`` here after its change. Tables precomputed from a quoted
#: list (``compiler/literal_search.py``) hold the value they were built at and trust
#: themselves only while it is still there. Fresh values (not ``+= 1``) make a write
#: that races another thread's never bring back an old value.
PAIR_WRITES: list[int] = [0]
PAIR_WRITE_TICKS = itertools.count(1)

#: The same for the text of a mutable string (``string-set!``, ``string-fill!``,
#: ``string-copy!``): the indexes of searched lists (``primitives/lists/search_index.py``)
#: know their string keys by text.
STRING_WRITES: list[int] = [0]


class Void:
    """The unspecified value: what ``set!``, ``display`` … return. Not printed by the REPL."""

    __slots__ = ()
    _instance: Void | None = None

    def __new__(cls) -> Void:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "VOID"


VOID = Void()


class Eof:
    """The end-of-file object."""

    __slots__ = ()
    _instance: Eof | None = None

    def __new__(cls) -> Eof:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "EOF"


EOF = Eof()


class Values:
    """Several values, as returned by ``values`` with other than one argument.

    Make one with :func:`values_of`. No ``__init__``, as :class:`Pair`: compiled code
    makes ``Values()`` and stores ``items`` (74 ns against 135 through a Python
    ``__init__``)."""

    __slots__ = ("items",)

    items: list[Any]

    def __repr__(self) -> str:
        return f"Values({self.items!r})"


def values_of(items: list[Any]) -> Values:
    """Several values: ``items``."""
    values = Values()
    values.items = items
    return values


class Procedure:
    """Base of everything that can be applied. ``name`` is for messages and backtraces."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def arity_text(self) -> str:
        return "any number of arguments"


class Primitive(Procedure):
    """A procedure written in Python.

    ``fn`` takes the Scheme arguments positionally. ``min_args``/``max_args`` (``None``
    for no upper bound) are checked by the evaluator before ``fn`` runs. A primitive
    may return :class:`TailCall` to have the evaluator continue with another call in
    tail position (``apply`` does).
    """

    __slots__ = ("fn", "min_args", "max_args", "doc")

    def __init__(
        self,
        name: str,
        fn: Callable[..., Any],
        min_args: int = 0,
        max_args: int | None = None,
        doc: str = "",
    ) -> None:
        super().__init__(name)
        self.fn = fn
        self.min_args = min_args
        self.max_args = max_args
        self.doc = doc

    def arity_text(self) -> str:
        return arity_text(self.min_args, self.max_args)

    def __repr__(self) -> str:
        return f"#<primitive {self.name}>"


#: Every pure built-in procedure, by its Scheme name: the library's modules register theirs
#: (``primitives.registry.primitive``); compiled code looks known built-ins up here.
BUILTINS: dict[str, Primitive] = {}


def arity_text(min_args: int, max_args: int | None) -> str:
    """Human words for an arity: "2 arguments", "at least 1 argument", "1 to 3 arguments"."""

    def plural(n: int) -> str:
        return f"{n} argument{'s' if n != 1 else ''}"

    if max_args is None:
        return f"at least {plural(min_args)}"
    if min_args == max_args:
        return plural(min_args)
    return f"{min_args} to {plural(max_args)}"


class TailCall:
    """A pending call in tail position; the evaluator's trampoline runs it."""

    __slots__ = ("proc", "args")

    def __init__(self, proc: Any, args: list[Any]) -> None:
        self.proc = proc
        self.args = args


class Promise:
    """A ``delay``/``make-promise`` value. ``thunk`` is ``None`` once forced."""

    __slots__ = ("done", "value", "thunk", "is_stream")

    def __init__(self, value: Any = None, thunk: Callable[[], Any] | None = None, is_stream: bool = False) -> None:
        self.done = thunk is None
        self.value = value
        self.thunk = thunk
        self.is_stream = is_stream


class RecordType:
    """A type made by ``define-record-type``."""

    __slots__ = ("name", "fields")

    def __init__(self, name: str, fields: list[str]) -> None:
        self.name = name
        self.fields = fields

    def __repr__(self) -> str:
        return f"#<record-type {self.name}>"


class Record:
    """An instance of a :class:`RecordType`."""

    __slots__ = ("rtype", "values")

    def __init__(self, rtype: RecordType, values: list[Any]) -> None:
        self.rtype = rtype
        self.values = values


def cons(car: Any, cdr: Any, span: Span | None = None) -> Pair:
    """A new pair (``span``: where it was read, if it was)."""
    p = Pair()
    p.car = car
    p.cdr = cdr
    p._span = span
    return p


def make_list(items: Iterable[Any], tail: Any = NIL) -> Any:
    """Build a Scheme list from a Python iterable (with an optional improper tail)."""
    result = tail
    for item in reversed(list(items)):
        p = Pair()
        p.car = item
        p.cdr = result
        result = p
    return result


def spine(lst: Any, who: str = "list") -> Iterator[Pair]:
    """The pairs of the list ``lst`` in order, up to its first non-pair tail.

    A circular list is a ``type-error`` naming ``who`` (found by a second pointer
    moving at half speed), so no walk over user data loops for ever."""
    slow = p = lst
    while type(p) is Pair:
        for _ in POLL_CHUNK:  # the run's limits are checked between chunks (long lists)
            if type(p) is not Pair:
                return
            yield p
            p = p.cdr
            if type(p) is not Pair:
                return
            yield p
            p = p.cdr
            slow = slow.cdr
            if p is slow:
                raise UPWARD.circular_list(who)
        poll_limits()


def datum_leaves(x: Any) -> Iterator[Any]:
    """The atoms inside ``x`` (``x`` itself if it is one), through pairs and vectors,
    left to right. Each pair or vector is entered once, so shared and circular data
    give a finite walk."""
    stack = [x]
    entered: set[int] = set()
    while stack:
        item = stack.pop()
        t = type(item)
        if t is not Pair and t is not list:
            yield item
        elif id(item) not in entered:
            entered.add(id(item))
            if t is Pair:
                stack.append(item.cdr)
                stack.append(item.car)
            else:
                stack.extend(reversed(item))


def list_end(lst: Any, who: str = "list") -> Any:
    """The first non-pair cdr of ``lst`` (``'()`` for a proper list); a ``type-error``
    naming ``who`` if the list is circular."""
    end = lst
    for p in spine(lst, who):
        end = p.cdr
    return end


def walk_to_python(lst: Any, who: str = "list") -> tuple[list[Any], Any]:
    """The elements of ``lst`` up to its first non-pair tail, and that tail (``NIL`` for a
    proper list); a ``type-error`` naming ``who`` if it is circular.

    :func:`spine`'s walk written out: two pairs a round, a second pointer at half speed,
    the run's limits polled between chunks, and no generator to resume for each pair
    (``(apply + numbers)``: 130 -> 30 ns a number)."""
    out: list[Any] = []
    append = out.append
    slow = p = lst
    while type(p) is Pair:
        for _ in POLL_CHUNK:
            append(p.car)
            p = p.cdr
            if type(p) is not Pair:
                break
            append(p.car)
            p = p.cdr
            slow = slow.cdr
            if p is slow:
                raise UPWARD.circular_list(who)
            if type(p) is not Pair:
                break
        else:
            poll_limits()
    return out, p


def list_to_python(lst: Any) -> list[Any]:
    """Elements of a proper list as a Python list; raises ValueError if improper
    (a ``type-error`` if circular)."""
    out, tail = walk_to_python(lst)
    if tail is not NIL:
        raise ValueError("improper list")
    return out


def is_number(x: Any) -> bool:
    """True for Scheme numbers (Python int, Fraction, float; never bool)."""
    t = type(x)
    return t is int or t is float or t is Fraction


def is_string(x: Any) -> bool:
    return type(x) is str or type(x) is MString


def is_true(x: Any) -> bool:
    """Scheme truth: everything but ``#f`` is true."""
    return x is not False


S_QUOTE = sym("quote")
S_QUASIQUOTE = sym("quasiquote")
S_UNQUOTE = sym("unquote")
S_UNQUOTE_SPLICING = sym("unquote-splicing")
S_DOT = sym(".")
S_ELSE = sym("else")
S_ARROW = sym("=>")
S_DEFINE = sym("define")
S_BEGIN = sym("begin")
S_LAMBDA = sym("lambda")


class Parameter(Procedure):
    """A parameter object (``make-parameter``): call it with no arguments for its value.

    ``parameterize`` rebinds ``value`` for a dynamic extent; ``converter`` (a Scheme
    procedure or None) is applied to new values.
    """

    __slots__ = ("_value", "converter")

    def __init__(self, value: Any, converter: Any = None, name: str = "parameter") -> None:
        super().__init__(name)
        self._value = value
        self.converter = converter

    @property
    def value(self) -> Any:
        """The value in the calling branch (its own ``parameterize``), else the global one."""
        ctx = CURRENT.get()
        if ctx is not None and ctx.parameters is not None:
            return ctx.parameters.get(self, self._value)
        return self._value

    @value.setter
    def value(self, value: Any) -> None:
        ctx = CURRENT.get()
        if ctx is None:
            self._value = value
        elif ctx.parameters is None:
            ctx.parameters = {self: value}
        else:
            ctx.parameters[self] = value

    def __repr__(self) -> str:
        return f"#<parameter {self.name}>"
