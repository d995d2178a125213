"""Internal defines of procedures made once, not at every call (lambda lifting's first step).

``(define (merge-sort lst) (define (merge a b) …) (define (split l) …) …)`` made a closure
for ``merge`` and one for ``split`` at every call of ``merge-sort``, and a frame for them
to close over, which then had to be read again after every call the body made. When a
procedure an internal define binds uses no variable of the defining body's frame but the
names of such procedures (itself, its siblings), every call would make the same closures:
they see the same variables, and no code can tell one call's closure from another's.
So the body takes them from :class:`LiftedClosures`, made once per frame the body's
procedure closes over (for a procedure defined at top level: once), in a frame of their
own that binds their names.

A define is lifted when (:func:`lifted_defines`):

* its value is a ``lambda`` whose code uses, of the body's frame, only the names of lifted
  defines (``Lambda.captured``, recorded by the analyzer: a parameter shadowing a name of the
  body is the parameter), and looks up no name at run time (a task with ``(context (inherit full))``);
* nothing assigns any of the names but its define (``body.register_defines``), and each is
  only ever called, never passed, returned or stored (``release.procedures_stay_inside``: an
  escaped closure could be compared with another call's with ``eq?``);
* every form of the body before the last lifted define is the define of a ``lambda``: no code
  runs before all of them are bound (a call made earlier would find a later one bound too
  early, where the ordinary body reports it used before its definition).

Under ``parallel-map`` branches calling the same procedure share its lifted closures, as
they share a top-level procedure's; each branch's calls have their own frames.

The body takes the lifted closures from the frame its procedure closes over::

    l1 = L4.closures_in(outer)[0]
    l2 = L4.closures_in(outer)[1]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..datatypes import Symbol
from ..env import Env
from ..evaluator import Closure
from ..nodes.core import Define, DynamicRef, Lambda, Node, SetDynamic, subtree
from ..nodes.release import procedures_stay_inside


def lifted_defines(top: Sequence[Node], defines: Sequence[Define]) -> list[Define]:
    """Which of a body's register ``defines`` (its top-level forms ``top``) are made once."""
    lifted = [d for d in defines if type(d.value) is Lambda and d.value.captured is not None]
    while True:  # the largest set whose members capture only each other
        names = {d.name for d in lifted}
        keep = [d for d in lifted if d.value.captured <= names]  # type: ignore[attr-defined, operator]
        if len(keep) == len(lifted):
            break
        lifted = keep
    lifted = [d for d in lifted if not any(type(n) in (DynamicRef, SetDynamic) for n in subtree(d.value))]
    if not lifted:
        return []
    last = max(top.index(d) for d in lifted)
    if any(type(part) is not Define or type(part.value) is not Lambda for part in top[:last]):
        return []
    names = [d.name for d in lifted]
    if not procedures_stay_inside(names, [d.value for d in lifted], top):
        return []
    return lifted


class LiftedClosures:
    """The closures of a body's lifted defines, made in a frame of their own inside the
    frame the body's procedure closes over, and kept for the next call with that frame."""

    __slots__ = ("kept", "makers", "names")

    def __init__(self, names: Sequence[Symbol], makers: Sequence[Callable[[Env], Closure]]) -> None:
        self.names, self.makers = tuple(names), tuple(makers)
        #: (outer frame, its closures): one tuple, so a thread never reads one's closures with another's frame
        self.kept: tuple[Any, tuple[Closure, ...]] = (None, ())

    def closures_in(self, outer: Env) -> tuple[Closure, ...]:
        kept = self.kept
        if kept[0] is outer:
            return kept[1]
        frame = Env({}, outer)
        closures = tuple(make(frame) for make in self.makers)
        frame.vars.update(zip(self.names, closures))
        self.kept = (outer, closures)
        return closures
