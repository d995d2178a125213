"""The reader's LALR loop: Lark's parse table and callbacks, driven with fewer Python steps.

Lark analyses ``grammar.lark`` and builds the LALR(1) table and the callbacks (the
reader's ``_Builder`` methods, and its own helpers for inlined ``?rules``). Its own loop
(``ParserState.feed_token``) then hashes and compares a ``Rule`` object at every reduction,
slices the stacks even for one child and calls a helper for each ``?datum -> X`` step;
that loop was half of ``read_all``. :class:`LalrLoop` turns the same table into one entry
per (state, terminal) that holds everything a step needs (the callback itself, the rule's
size, the goto name), and takes a one-child inlined rule as a change of state alone.

Errors are Lark's own ``UnexpectedToken`` with a ``state`` whose ``value_stack`` is the
parse's, so the reader's messages (which look for the open brackets there) are unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lark import Lark
from lark.exceptions import UnexpectedToken
from lark.parse_tree_builder import ExpandSingleChild
from lark.parsers.lalr_analysis import Shift

#: Kinds of an entry of :attr:`LalrLoop.table`.
SHIFT, REDUCE, PASS, APPEND, WRAP = 0, 1, 2, 3, 4


class Stacks:
    """What an ``UnexpectedToken`` carries as its ``state``: the parse's stacks when it failed."""

    __slots__ = ("state_stack", "value_stack")

    def __init__(self, state_stack: list[int], value_stack: list[Any]) -> None:
        self.state_stack = state_stack
        self.value_stack = value_stack


class LalrLoop:
    """Lark's LALR(1) table for the grammar's start rule, as one dict per state:
    terminal or rule name -> ``(SHIFT, state, callback)``, ``(REDUCE, size, callback, name)``
    or ``(PASS, name)`` (a one-child inlined rule: its value is its child's).

    ``lists`` names left-recursive list rules (``items: items? element``) whose callback
    is known to make a list of its one child and to append its second child to its first:
    their steps are done in the loop, ``(WRAP, name)`` and ``(APPEND, name)``, with no call."""

    def __init__(self, lark: Lark, lists: frozenset[str] = frozenset()) -> None:
        parser = lark.parser.parser.parser  # ParsingFrontend -> LALR_Parser -> _Parser
        table, callbacks = parser.parse_table, parser.callbacks
        self.start = table.start_states["start"]
        self.end = table.end_states["start"]
        self.table: dict[int, dict[str, tuple[Any, ...]]] = {}
        for state, actions in table.states.items():
            row = self.table[state] = {}
            for name, (action, arg) in actions.items():
                if action is Shift:
                    row[name] = (SHIFT, arg, callbacks.get(name) if name.isupper() else None)
                    continue
                callback, size, origin = callbacks[arg], len(arg.expansion), arg.origin.name
                if type(callback) is ExpandSingleChild and size == 1:
                    row[name] = (PASS, origin)
                elif origin in lists and arg.alias is None and size == 2 and arg.expansion[0].name == origin:
                    row[name] = (APPEND, origin)
                elif origin in lists and arg.alias is None and size == 1 and arg.expansion[0].name != origin:
                    row[name] = (WRAP, origin)
                else:
                    row[name] = (REDUCE, size, callback, arg.origin.name)

    def parse(self, tokens: Iterable[Any], end_token: Any) -> Any:
        """The value of the start rule over ``tokens``; ``end_token(last)`` makes the ``$END``
        token from the last one (None when there was none)."""
        table = self.table
        states: list[int] = [self.start]
        values: list[Any] = []
        push_state, push_value = states.append, values.append
        tok = None
        for tok in tokens:
            kind = tok.type
            while True:
                entry = table[states[-1]].get(kind)
                if entry is None:
                    raise self.unexpected(tok, states, values)
                step = entry[0]
                if step is SHIFT:
                    push_state(entry[1])
                    callback = entry[2]
                    push_value(tok if callback is None else callback(tok))
                    break
                if step is APPEND:  # items: items element
                    element = values.pop()
                    values[-1].append(element)
                    del states[-2:]
                    push_state(table[states[-1]][entry[1]][1])
                    continue
                if step is PASS:
                    del states[-1]
                    push_state(table[states[-1]][entry[1]][1])
                    continue
                if step is WRAP:  # items: element
                    values[-1] = [values[-1]]
                    del states[-1]
                    push_state(table[states[-1]][entry[1]][1])
                    continue
                size = entry[1]
                if size:
                    children = values[-size:]
                    del states[-size:]
                    del values[-size:]
                else:
                    children = []
                push_state(table[states[-1]][entry[3]][1])
                push_value(entry[2](children))
        return self.finish(end_token(tok), states, values)

    def finish(self, tok: Any, states: list[int], values: list[Any]) -> Any:
        """Feed the ``$END`` token: reduce until the start rule is complete."""
        table, end = self.table, self.end
        while True:
            entry = table[states[-1]].get("$END")
            if entry is None or entry[0] is SHIFT:
                raise self.unexpected(tok, states, values)
            if entry[0] is PASS:
                del states[-1]
                states.append(table[states[-1]][entry[1]][1])
            elif entry[0] is APPEND:
                element = values.pop()
                values[-1].append(element)
                del states[-2:]
                states.append(table[states[-1]][entry[1]][1])
            elif entry[0] is WRAP:
                values[-1] = [values[-1]]
                del states[-1]
                states.append(table[states[-1]][entry[1]][1])
            else:
                size = entry[1]
                children = values[-size:] if size else []
                if size:
                    del states[-size:]
                    del values[-size:]
                states.append(table[states[-1]][entry[3]][1])
                values.append(entry[2](children))
            if states[-1] == end:
                return values[-1]

    def unexpected(self, tok: Any, states: list[int], values: list[Any]) -> UnexpectedToken:
        """Lark's error for ``tok`` where the parse stands."""
        expected = {name for name in self.table[states[-1]] if name.isupper()}
        return UnexpectedToken(tok, expected, state=Stacks(states, values))
