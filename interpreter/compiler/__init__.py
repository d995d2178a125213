"""Code generation: procedure bodies and call sites compiled to Python source.

The nodes (``interpreter/nodes``) describe a program; this package writes the Python that runs
it. It belongs to the execution layer and imports only from its own layer and below (data,
reading, ``nodes``, ``evaluator``, ``env``, ``mirrors``, ``limits``); what it needs from the
Scheme library arrives through :mod:`.library`. Importing the package provides its compilers
to the nodes (:mod:`interpreter.nodes.compilers`).

* ``fastpath``: a call site's and an ``if``'s own function (the closure compiler's fast path)
  and the tables of inline built-ins every generator uses;
* ``functions``: a generated function made from its code and namespace without a cycle
  through that namespace (what ``fastpath`` and ``body`` exec goes through it);
* ``body``: a procedure body as one function (:func:`.body.compile_procedure`), written by
  :class:`.body.Emitter`: the core (``emitter``) with one family of forms from each of
  ``frames``, ``statements``, ``binding``, ``loops``, ``control``, ``specialize``,
  ``arithmetic`` and ``calls``;
* the passes and forms the body compiler calls: ``fused`` (type tests fused with their
  operation), ``hoist`` (invariant tests out of loops), ``inline_walks`` (``map``, ``filter`` ...
  with a literal lambda as a loop; over ``iota``'s numbers; into ``apply`` and ``length``),
  ``inline_fusion`` (a chain of walks, each over the next one's new list, in one loop), ``lifting`` (internal
  defines made once), ``literal_search`` (``memv`` ... of a quoted list as a table), ``trmc``
  (tail recursion modulo cons).

``body`` is loaded at the first call of a compiled procedure, not at start-up. The package's
documented circles: ``fused``, ``inline_walks`` and ``trmc`` name :class:`.body.Emitter` under
``TYPE_CHECKING`` only (their functions take the emitter that calls them); ``fastpath`` names the
walks ``inline_walks`` does (``INLINE_FORMS``), and ``inline_walks`` reads ``fastpath``'s tables
of inline built-ins inside its functions; ``inline_fusion`` builds on ``inline_walks``, which
calls it inside ``emit_walk``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..nodes import compilers
from ..nodes.core import Lambda
from .fastpath import compile_call, compile_if


class _Compilers:
    """The compilers the nodes call (:class:`interpreter.nodes.compilers.Compilers`)."""

    compile_call = staticmethod(compile_call)
    compile_if = staticmethod(compile_if)

    @staticmethod
    def compile_procedure(proc: Lambda) -> Callable[..., Any]:
        from .body import compile_procedure  # reason: start-up laziness, 23 ms; loaded at a body's first call

        return compile_procedure(proc)


compilers.provide(_Compilers())
