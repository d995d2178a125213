"""The per-element loops of the higher-order list procedures (``map``, ``filter``,
``fold-left``, ``for-each``, ``any`` …), each written once and compiled twice.

:func:`~interpreter.evaluator.caller` turns a procedure into a Python function; for a
closure that function is a frame of its own that does the call protocol (hop mark,
step count and check, depth, tail call) around the compiled body. Over a long list
that frame is a large share of the time. So each loop here is a template whose
procedure call is one line, ``r = CALL(x)``, compiled three times:

* for a closure taking that many arguments, with :data:`PROTOCOL` in place of the line:
  the same steps as ``evaluator.CLOSURE_CALLER``, done in the loop, with no frame and no
  argument list between the loop and the body; once counting a step per call (under
  ``max_steps``) and once without (see :data:`COUNT_STEP`);
* for anything else (a primitive, a task, a closure with a rest parameter …), as a call
  of the function :func:`~interpreter.evaluator.caller` gives.

Every loop walks the list in place after the caller has checked it (an improper or
circular list is refused before the procedure is first called), stops with a type
error if the list was shortened meanwhile, and polls the run's limits between chunks
(:func:`~interpreter.polling.ticks`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..datatypes import NIL, VOID, Pair, TailCall
from ..errors import SchemeError
from ..evaluator import Closure, bounce, caller, settle
from ..polling import probing_rounds, ticks


def changed_error(who: str) -> SchemeError:
    """The error for a list that lost pairs while ``who`` walked it."""
    return SchemeError(f"{who}: the list changed while {who} walked it", kind="type-error")


#: A closure called inline: ``f`` is the closure, ``rt``/``env``/``depth``/``depth1`` are
#: bound once before the loop. The body runs at level ``depth1`` (its argument, see
#: compiler.body.TEMPLATE) and may leave any level in ``rt.depth``, which is put back to
#: ``depth`` only where something reads it (``rt.deep``, ``settle``, every
#: ``return`` of the walk): between two calls nothing does (``rt.check`` does not).
#: ``f.run`` is read into a local before the call (it changes once, when the body is
#: compiled on its first call): ``f.run(...)`` would be a ``LOAD_METHOD`` that CPython 3.11
#: cannot specialize for a slot, a generic attribute lookup per call.
PROTOCOL = """\
if depth >= rt.hop_mark:
    rt.depth = depth
    {r} = rt.deep(f, [{args}])
else:
{count}    run = f.run
    {r} = run(env, depth1, rt, {args})
    if type({r}) is TailCall:
        {r} = settle(rt, {r}.proc, {r}.args, depth1)
"""

#: The step a call counts, as ``apply_procedure`` does. Only under ``max_steps``: without
#: a step limit the count is only the clock of the periodic check, and whatever must
#: stop a run at once (a timeout, ``max_memory``, Ctrl-C, cancellation) calls
#: ``Runtime.attend``, which the ``hop_mark`` test above sees at the next call, as the
#: inline calls of compiled bodies do (``Emitter.counts_calls``); the walk still polls
#: the limits between chunks.
COUNT_STEP = """\
    rt.steps += 1
    if rt.steps >= rt.check_at:
        rt.check()
"""

#: ``rt``: the calling thread's context, its branch while parallel forms run (the walk is
#: over before it returns, so it never outlives that context).
PROLOGUE = (
    "    rt, env = f.rt, f.env\n    if rt.shared:\n        rt = rt.current()\n"
    "    depth = rt.depth\n    depth1 = bounce(depth + 1)\n"
)

#: The elements ``x`` for which ``r = (f x)`` passes the test ``keep``, in a new list.
SELECT = """
    head = last = Pair()
    for _ in ticks(n):
        if type(lst) is not Pair:
            raise changed_error(who)
        x = lst.car
        r = CALL(x)
        if {keep}:
            cell = Pair()
            cell.car = x
            last.cdr = cell
            last = cell
        lst = lst.cdr
    last.cdr = NIL
    return head.cdr
"""

#: ``name: (argument count of the procedure, parameters after f, body)``. The body walks
#: ``lst`` for ``n`` elements (one of ``polling.ONE_PASS``: to its end); its call is the line
#: ``r = CALL(args)``.
WALKS: dict[str, tuple[int, str, str]] = {
    "map": (
        1,
        "who, lst, n",
        """
    head = last = Pair()
    for _ in ticks(n):
        if type(lst) is not Pair:
            raise changed_error(who)
        r = CALL(lst.car)
        cell = Pair()
        cell.car = r
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
    for _ in ticks(n):
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
    for _ in ticks(n):
        if type(lst) is not Pair:
            raise changed_error(who)
        acc = CALL(lst.car, acc)
        lst = lst.cdr
    return acc
""",
    ),
    # one pass: the list is checked as it goes (polling.ONE_PASS)
    "for-each": (
        1,
        "who, lst",
        """
    start = mark = lst
    for probe in probing_rounds():
        if type(lst) is not Pair:
            if lst is NIL:
                break
            raise ended_error(who, start)
        if probe:
            mark = lst
        elif lst is mark:
            raise ended_error(who, start)
        r = CALL(lst.car)
        lst = lst.cdr
    return VOID
""",
    ),
    "any": (
        1,
        "who, lst, n",
        """
    for _ in ticks(n):
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
    for _ in ticks(n):
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
_RETURN_LINE = re.compile(r"^( *)return", re.MULTILINE)


def _source(name: str, params: str, body: str, mode: str) -> str:
    """The Python source of one variant of a walk: ``mode`` is ``"counted"`` or
    ``"uncounted"`` (a closure called inline, with or without the step count) or
    ``"generic"`` (a call of ``f``)."""

    def expand(m: re.Match[str]) -> str:
        indent, target, args = m.groups()
        if mode == "generic":
            return f"{indent}{target} = f({args})"
        code = PROTOCOL.format(r=target, args=args, count=COUNT_STEP if mode == "counted" else "")
        return "\n".join(indent + line for line in code.splitlines())

    if mode == "generic":
        return f"def {name}(f, {params}):\n{_CALL_LINE.sub(expand, body)}"
    code = _RETURN_LINE.sub(r"\1rt.depth = depth\n\1return", _CALL_LINE.sub(expand, body))
    return f"def {name}(f, {params}):\n{PROLOGUE}{code}"


def _ended_error(who: str, start: Any) -> SchemeError:
    """``lists.core.ended_error`` (that module imports this one for :func:`changed_error`)."""
    from .lists.core import ended_error  # reason: documented in-package circle (lists.core imports loops)

    return ended_error(who, start)


def _compile(name: str, params: str, body: str, mode: str) -> Callable[..., Any]:
    namespace: dict[str, Any] = {
        "NIL": NIL,
        "VOID": VOID,
        "Pair": Pair,
        "TailCall": TailCall,
        "settle": settle,
        "bounce": bounce,
        "changed_error": changed_error,
        "ticks": ticks,
        "probing_rounds": probing_rounds,
        "ended_error": _ended_error,
    }
    exec(_source("walk", params, body, mode), namespace)  # fixed templates, no user text
    return namespace["walk"]


#: The dispatch of a walk, as its own function with the walk's parameters (no ``*args``
#: between the caller and the loop: a quarter of a short ``map``'s cost).
ENTRY = """
def walk(f, {params}):
    if type(f) is Closure and f.nargs == {count}:
        if f.rt.max_steps is None:
            return uncounted(f, {params})
        return counted(f, {params})
    return generic(caller(f, {count}), {params})
"""


def _entry(
    count: int, params: str, counted: Callable[..., Any], uncounted: Callable[..., Any], generic: Callable[..., Any]
) -> Callable[..., Any]:
    """The walk's dispatch (:data:`ENTRY`) over its three compiled variants."""
    namespace: dict[str, Any] = {
        "Closure": Closure,
        "caller": caller,
        "counted": counted,
        "uncounted": uncounted,
        "generic": generic,
    }
    exec(ENTRY.format(params=params, count=count), namespace)  # fixed template, no user text
    return namespace["walk"]


class _Walks(dict[str, Callable[..., Any]]):
    """The compiled walks by name, each compiled at its first use: compiling all of them
    at import was ~5-12 ms of every start, and most programs use two or three."""

    def __missing__(self, name: str) -> Callable[..., Any]:
        count, params, body = WALKS[name]
        variants = (_compile(name, params, body, mode) for mode in ("counted", "uncounted", "generic"))
        walk = self[name] = _entry(count, params, *variants)  # two threads may both compile: the same code
        return walk


#: ``name: walk(f, *parameters)``: run the walk ``name`` of :data:`WALKS` with procedure
#: ``f`` (already checked to be applicable) and the walk's other arguments.
WALK: dict[str, Callable[..., Any]] = _Walks()
