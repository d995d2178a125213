"""The registry of built-in procedures.

A primitive is a plain Python function decorated with :func:`primitive`; its arity
comes from its signature (``def car(x)`` takes one argument, ``def add(*xs)`` any
number). Primitives that need the interpreter (ports, ``eval``, ``load``) are made
by an *installer*: a function decorated with :func:`installer` that receives the
interpreter and defines them with ``interp.define_primitive``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from types import CodeType, FunctionType
from typing import TYPE_CHECKING, Any, TypeVar

from ..datatypes import BUILTINS, Primitive, Symbol, sym

if TYPE_CHECKING:
    from ..host_protocols import PrimitiveHost

F = TypeVar("F", bound=Callable[..., Any])
#: The host an installer takes: the protocol listing what it uses (the facade satisfies them all).
H = TypeVar("H", bound="PrimitiveHost")

#: ``(apply f lst)`` in one walk of ``lst`` for the built-ins that have such a form (``+``,
#: ``string-append`` …), by the built-in's :class:`Primitive` object: the function takes
#: the list and returns what ``(f x ...)`` returns, with the same errors.
LIST_FORMS: dict[Primitive, Callable[[Any], Any]] = {}

#: :data:`BUILTINS` by symbol, kept beside it by :func:`primitive` (its only writer): what a new
#: interpreter's global frame starts with, copied without interning 530 names each time.
BUILTIN_BINDINGS: dict[Symbol, Primitive] = {}

#: Functions that add interpreter-bound primitives to a new interpreter.
INSTALLERS: list[Callable[[Any], None]] = []


def signature_arity(fn: Callable[..., Any]) -> tuple[int, int | None]:
    """(min, max) positional arguments a Python function accepts; max None = unbounded."""
    min_args = 0
    max_args: int | None = 0
    for p in inspect.signature(fn).parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            assert max_args is not None
            max_args += 1
            if p.default is p.empty:
                min_args += 1
        elif p.kind is p.VAR_POSITIONAL:
            max_args = None
    return min_args, max_args


#: What :func:`function_arity` and :func:`doc_line` found for plain functions, by what decides
#: it: the code and the number of defaults; the code, docstring and qualified name. Installers
#: make new closures for every interpreter from the same few ``def`` statements; asking
#: ``inspect`` each time cost 1.2 ms of every ``Interpreter()`` (and left an ``__annotations__``
#: dict on each closure). The values are immutable facts about code, so interpreters and
#: threads share them safely (a race computes one twice).
_ARITIES: dict[tuple[CodeType, int], tuple[int, int | None]] = {}
_DOC_LINES: dict[tuple[CodeType, str | None, str], str] = {}
#: Past this many entries (a host making code objects at run time) a table starts afresh.
MAX_FACTS = 4096


def function_arity(fn: Callable[..., Any]) -> tuple[int, int | None]:
    """:func:`signature_arity`, found once per ``def`` for a plain function (or a wrapper of
    one, through ``__wrapped__`` as ``inspect.signature`` goes); other callables every time."""
    if type(fn) is not FunctionType or hasattr(fn, "__signature__"):
        return signature_arity(fn)
    if hasattr(fn, "__wrapped__"):
        try:
            target = inspect.unwrap(fn, stop=lambda f: hasattr(f, "__signature__"))
        except ValueError:  # a cycle of wrappers: inspect says so
            return signature_arity(fn)
        if type(target) is not FunctionType or hasattr(target, "__signature__"):
            return signature_arity(fn)
        fn = target
    return _fact(_ARITIES, (fn.__code__, len(fn.__defaults__ or ())), signature_arity, fn)


def doc_line(fn: Callable[..., Any]) -> str:
    """The first line of ``fn``'s docstring ("" if none), found once per ``def`` for a plain function."""
    if type(fn) is not FunctionType:
        return first_doc_line(fn)
    return _fact(_DOC_LINES, (fn.__code__, fn.__doc__, fn.__qualname__), first_doc_line, fn)


def _fact(table: dict[Any, Any], key: Any, find: Callable[[Any], Any], fn: Callable[..., Any]) -> Any:
    """``table[key]``, found by ``find(fn)`` the first time (the table starts afresh when full)."""
    value = table.get(key)
    if value is None:
        if len(table) >= MAX_FACTS:
            table.clear()
        value = table[key] = find(fn)
    return value


def first_doc_line(fn: Callable[..., Any]) -> str:
    """The first line of ``fn``'s docstring ("" if none)."""
    return (inspect.getdoc(fn) or "").split("\n")[0]


def make_primitive(name: str, fn: Callable[..., Any], doc: str = "") -> Primitive:
    """Wrap ``fn`` as a :class:`Primitive` named ``name`` with its signature's arity."""
    lo, hi = function_arity(fn)
    return Primitive(name, fn, lo, hi, doc or doc_line(fn))


def primitive(*names: str) -> Callable[[F], F]:
    """Register the decorated function under each Scheme name given."""

    def register(fn: F) -> F:
        for name in names:
            BUILTINS[name] = BUILTIN_BINDINGS[sym(name)] = make_primitive(name, fn)
        return fn

    return register


def over_list(name: str) -> Callable[[F], F]:
    """Register the decorated function as the one-walk form of ``(apply name lst)``
    (:data:`LIST_FORMS`); the built-in ``name`` must be registered already."""

    def register(fn: F) -> F:
        LIST_FORMS[BUILTINS[name]] = fn
        return fn

    return register


def installer(fn: Callable[[H], None]) -> Callable[[H], None]:
    """Register a function that installs interpreter-bound primitives."""
    INSTALLERS.append(fn)
    return fn
