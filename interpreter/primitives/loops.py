"""The per-element loops of the higher-order list procedures (``map``, ``filter``,
``fold-left``, ``for-each``, ``any`` …), each written once and compiled twice.

:func:`~interpreter.evaluator.caller` turns a procedure into a Python function; for a
closure that function is a frame of its own that does the call protocol (hop mark,
step count and check, depth, tail call) around the compiled body. Over a long list
that frame is a large share of the time. So each loop here is a template whose
procedure call is one line, ``r = CALL(x)``, compiled:

* for a closure taking that many arguments, with :data:`PROTOCOL` in place of the line:
  the same steps as ``evaluator.CLOSURE_CALLER``, done in the loop, with no frame and no
  argument list between the loop and the body;
* for anything else (a primitive, a task, a closure with a rest parameter …), as a call
  of the function :func:`~interpreter.evaluator.caller` gives.

Every loop walks the list in place after the caller has checked it (an improper or
circular list is refused before the procedure is first called), stops with a type
error if the list was shortened meanwhile, and polls the run's limits between chunks
(:func:`~interpreter.polling.polled`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..datatypes import NIL, VOID, Pair, TailCall
from ..errors import SchemeError
from ..evaluator import Closure, apply_procedure, caller
from ..polling import polled


def changed_error(who: str) -> SchemeError:
    """The error for a list that lost pairs while ``who`` walked it."""
    return SchemeError(f"{who}: the list changed while {who} walked it", kind="type-error")


#: A closure called inline: ``f`` is the closure, ``rt``/``env``/``depth``/``depth1`` are
#: bound once before the loop (the body puts ``rt.depth`` back before it returns).
PROTOCOL = """\
if depth >= rt.hop_mark:
    {r} = rt.deep(f, [{args}])
else:
    rt.steps += 1
    if rt.steps >= rt.check_at:
        rt.check()
    rt.depth = depth1
    {r} = f.run(env, {args})
    rt.depth = depth
    if type({r}) is TailCall:
        {r} = apply_procedure({r}.proc, {r}.args)
"""

PROLOGUE = "    rt, env = f.rt, f.env\n    depth = rt.depth\n    depth1 = depth + 1\n"

#: The elements ``x`` for which ``r = (f x)`` passes the test ``keep``, in a new list.
SELECT = """
    head = last = Pair()
    for _ in polled(range(n)):
        if type(lst) is not Pair:
            raise changed_error(who)
        x = lst.car
        r = CALL(x)
        if {keep}:
            cell = Pair()
            cell.car = x
            cell.span = None
            last.cdr = cell
            last = cell
        lst = lst.cdr
    last.cdr = NIL
    return head.cdr
"""

#: ``name: (argument count of the procedure, parameters after f, body)``. The body walks
#: ``lst`` for ``n`` elements; its call is the line ``r = CALL(args)``.
WALKS: dict[str, tuple[int, str, str]] = {
    "map": (
        1,
        "who, lst, n",
        """
    head = last = Pair()
    for _ in polled(range(n)):
        if type(lst) is not Pair:
            raise changed_error(who)
        r = CALL(lst.car)
        cell = Pair()
        cell.car = r
        cell.span = None
        last.cdr = cell
        last = cell
        lst = lst.cdr
    last.cdr = NIL
    return head.cdr
""",
    ),
    "filter": (1, "who, lst, n", SELECT.format(keep="r is not False")),
    "remove": (1, "who, lst, n", SELECT.format(keep="r is False")),
    "fold-left": (
        2,
        "who, acc, lst, n",
        """
    for _ in polled(range(n)):
        if type(lst) is not Pair:
            raise changed_error(who)
        acc = CALL(acc, lst.car)
        lst = lst.cdr
    return acc
""",
    ),
    "fold": (
        2,
        "who, acc, lst, n",
        """
    for _ in polled(range(n)):
        if type(lst) is not Pair:
            raise changed_error(who)
        acc = CALL(lst.car, acc)
        lst = lst.cdr
    return acc
""",
    ),
    "for-each": (
        1,
        "who, lst, n",
        """
    for _ in polled(range(n)):
        if type(lst) is not Pair:
            raise changed_error(who)
        r = CALL(lst.car)
        lst = lst.cdr
    return VOID
""",
    ),
    "any": (
        1,
        "who, lst, n",
        """
    for _ in polled(range(n)):
        if type(lst) is not Pair:
            raise changed_error(who)
        r = CALL(lst.car)
        if r is not False:
            return r
        lst = lst.cdr
    return False
""",
    ),
    "every": (
        1,
        "who, lst, n",
        """
    r = True
    for _ in polled(range(n)):
        if type(lst) is not Pair:
            raise changed_error(who)
        r = CALL(lst.car)
        if r is False:
            return False
        lst = lst.cdr
    return r
""",
    ),
}

_CALL_LINE = re.compile(r"^( *)(\w+) = CALL\((.*)\)$", re.MULTILINE)


def _source(name: str, params: str, body: str, inline: bool) -> str:
    """The Python source of one variant of a walk."""

    def expand(m: re.Match[str]) -> str:
        indent, target, args = m.groups()
        if not inline:
            return f"{indent}{target} = f({args})"
        code = PROTOCOL.format(r=target, args=args)
        return "\n".join(indent + line for line in code.splitlines())

    prologue = PROLOGUE if inline else ""
    return f"def {name}(f, {params}):\n{prologue}{_CALL_LINE.sub(expand, body)}"


def _compile(name: str, params: str, body: str, inline: bool) -> Callable[..., Any]:
    namespace: dict[str, Any] = {
        "NIL": NIL,
        "VOID": VOID,
        "Pair": Pair,
        "TailCall": TailCall,
        "apply_procedure": apply_procedure,
        "changed_error": changed_error,
        "polled": polled,
    }
    exec(_source("walk", params, body, inline), namespace)  # fixed templates, no user text
    return namespace["walk"]


_COMPILED = {
    name: (count, _compile(name, params, body, True), _compile(name, params, body, False))
    for name, (count, params, body) in WALKS.items()
}


def walk(name: str, f: Any, *args: Any) -> Any:
    """Run the walk ``name`` of :data:`WALKS` with procedure ``f`` (already checked to be
    applicable) and the walk's other arguments."""
    count, inline, generic = _COMPILED[name]
    if type(f) is Closure and f.nargs == count:
        return inline(f, *args)
    return generic(caller(f, count), *args)
