"""The code generators the nodes hand their work to, reached without importing them.

The compiler (``interpreter/compiler``) imports the node classes, so the nodes cannot import
it: the two packages would make an import circle. Instead the compiler provides itself here
when it is imported (``interpreter/compiler/__init__.py`` calls :func:`provide`), and the nodes
call these functions: a ``Call``'s and an ``If``'s code at analysis (``compile_call``,
``compile_if``), a ``Lambda``'s body at its first call (``compile_procedure``). The body
compiler itself stays unloaded until then (start-up laziness: most runs call few procedures).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .core import Call, Lambda, Node, Run


class Compilers(Protocol):
    """What the compiler package provides (see ``interpreter/compiler/__init__.py``)."""

    def compile_call(
        self, call: Call, tail: bool, builtins: dict[str, Any], on_error: Callable[..., BaseException]
    ) -> Run: ...

    def compile_if(self, test: Node, then: Run, otherwise: Run) -> Run: ...

    def compile_procedure(self, proc: Lambda) -> Callable[..., Any]: ...


_provided: list[Compilers] = []


def provide(compilers: Compilers) -> None:
    """Install the code generators (the compiler package does, as it is imported)."""
    _provided[:] = [compilers]


def _compilers() -> Compilers:
    if not _provided:
        raise RuntimeError("no code generator: import interpreter.compiler before running nodes")
    return _provided[0]


def compile_call(call: Call, tail: bool, builtins: dict[str, Any], on_error: Callable[..., BaseException]) -> Run:
    """The Python function that runs ``call`` (the compiler's ``fastpath.compile_call``)."""
    return _compilers().compile_call(call, tail, builtins, on_error)


def compile_if(test: Node, then: Run, otherwise: Run) -> Run:
    """An ``if`` whose test is a call, with the test inline (``fastpath.compile_if``)."""
    return _compilers().compile_if(test, then, otherwise)


def compile_procedure(proc: Lambda) -> Callable[..., Any]:
    """The Python function of ``proc``'s body (``compiler.body.compile_procedure``)."""
    return _compilers().compile_procedure(proc)
