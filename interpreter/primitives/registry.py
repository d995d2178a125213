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

from ..datatypes import BUILTINS, Primitive

if TYPE_CHECKING:
    from ..host_protocols import PrimitiveHost

F = TypeVar("F", bound=Callable[..., Any])
#: The host an installer takes: the protocol listing what it uses (the facade satisfies them all).
H = TypeVar("H", bound="PrimitiveHost")

#: ``(apply f lst)`` in one walk of ``lst`` for the built-ins that have such a form (``+``,
#: ``string-append`` …), by the built-in's :class:`Primitive` object: the function takes
#: the list and returns what ``(f x ...)`` returns, with the same errors.
LIST_FORMS: dict[Primitive, Callable[[Any], Any]] = {}

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


#: What :func:`function_facts` found, by what decides it for a plain function: its code, its
#: number of defaults, its docstring and qualified name. Installers make new closures for every
#: interpreter from the same few ``def`` statements; asking ``inspect`` each time cost 1.2 ms
#: of every ``Interpreter()`` (and left an ``__annotations__`` dict on each closure). The values
#: are immutable facts about code, so sharing them between interpreters and threads is safe.
_FACTS: dict[tuple[CodeType, int, str | None, str], tuple[int, int | None, str]] = {}
#: Past this many entries (a host making code objects at run time) the table starts afresh.
MAX_FACTS = 4096


def function_facts(fn: Callable[..., Any]) -> tuple[int, int | None, str]:
    """``fn``'s (min, max) positional arguments and the first line of its docstring: computed
    once per ``def`` for plain functions (not ones that name another signature through
    ``__wrapped__`` or ``__signature__``), every time for other callables."""
    if type(fn) is not FunctionType or hasattr(fn, "__wrapped__") or hasattr(fn, "__signature__"):
        return (*signature_arity(fn), first_doc_line(fn))
    key = (fn.__code__, len(fn.__defaults__ or ()), fn.__doc__, fn.__qualname__)
    facts = _FACTS.get(key)
    if facts is None:
        if len(_FACTS) >= MAX_FACTS:
            _FACTS.clear()
        facts = _FACTS[key] = (*signature_arity(fn), first_doc_line(fn))
    return facts


def first_doc_line(fn: Callable[..., Any]) -> str:
    """The first line of ``fn``'s docstring ("" if none)."""
    return (inspect.getdoc(fn) or "").split("\n")[0]


def make_primitive(name: str, fn: Callable[..., Any], doc: str = "") -> Primitive:
    """Wrap ``fn`` as a :class:`Primitive` named ``name`` with its signature's arity."""
    lo, hi, first_line = function_facts(fn)
    return Primitive(name, fn, lo, hi, doc or first_line)


def primitive(*names: str) -> Callable[[F], F]:
    """Register the decorated function under each Scheme name given."""

    def register(fn: F) -> F:
        for name in names:
            BUILTINS[name] = make_primitive(name, fn)
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
