"""Frames a compiled body empties as it leaves them, so that reference counting frees them.

A ``letrec``, or a body's internal defines, binding local procedures makes a cycle: the
frame holds the closures and every closure holds the frame. Reference counting cannot
free a cycle, so each round of a loop that makes such a frame leaves it, and all it
reaches (the loop's lists, through the frames around it), to the cyclic collector. In
r7rs-benchmarks' primes the sieve's ``letrec`` left 12,000 pairs a run behind, and the
collections that walked and freed them took 15 ms of its 50.

When the procedures cannot outlive the frame (:func:`procedures_stay_inside`), the body
breaks the cycle itself: it takes the procedures out of the frame when it makes the frame
again (the next round of its loop), goes round its own loop (a self tail call), or returns
a value. Not when it returns a pending tail call, which may be a call of one of them. A
named let that is not in tail position does the same with its frame once the loop is done
(``NamedLet.compile``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..datatypes import Symbol
from .binding import Do, Let, LetValues
from .control import And, Case, Cond, Or
from .core import Call, Const, Define, GlobalRef, If, Lambda, LocalRef, Node, Seq, SetGlobal, SetLocal, subtree

#: Nodes that never make a closure or a promise over the frame they run in, nor bind a
#: name in it: code made of these (and calls) hands a frame on only to the calls it makes.
CAPTURE_FREE = (Const, LocalRef, GlobalRef, If, Seq, Call, And, Or, Cond, Case, Let, LetValues, Do, SetLocal, SetGlobal)


def procedures_stay_inside(names: Sequence[Symbol], inits: Sequence[Node], region: Iterable[Node]) -> bool:
    """Whether the closures that ``inits`` (bound to ``names``) make can be reached only
    through the frame that binds them, for as long as it is in use: every init is a
    ``lambda``; ``region`` (the inits and the code that sees the names) makes no other
    closure, promise or binding of its frames; and each of the names is only ever called,
    never passed, returned or stored (a name shadowed inside counts as the same name).

    A task called from the region with ``(context (inherit full))`` sees the region's
    frames as data passed implicitly, while it runs; a closure the task makes and returns
    finds the procedures gone from them once the body has left the frame."""
    named = set(names)
    if not named or any(type(init) is not Lambda for init in inits):
        return False
    own = {id(init) for init in inits}
    called: set[int] = set()
    seen: list[LocalRef] = []
    for part in region:
        for node in subtree(part):
            if isinstance(node, Lambda):
                if id(node) not in own:
                    return False
            elif isinstance(node, Define):
                if node.name not in named or id(node.value) not in own:
                    return False
            elif type(node) not in CAPTURE_FREE:
                return False
            elif isinstance(node, Call) and isinstance(node.operator, LocalRef):
                called.add(id(node.operator))
            elif isinstance(node, LocalRef) and node.name in named:
                seen.append(node)
            elif isinstance(node, SetLocal) and node.name in named:
                return False
    return all(id(ref) in called for ref in seen)
