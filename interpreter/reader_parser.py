"""The reader's LALR loop: Lark's parse table and callbacks, driven with fewer Python steps,
in one function with the lexer.

Lark analyses ``grammar.lark`` and builds the LALR(1) table and the callbacks (the
reader's ``_Builder`` methods, and its own helpers for inlined ``?rules``). Its own loop
(``ParserState.feed_token``) hashes and compares a ``Rule`` object at every reduction,
slices the stacks even for one child and calls a helper for each ``?datum -> X`` step,
behind a lexer that makes a ``Token`` and a generator step per token. :meth:`LalrLoop.read`
matches the lexer's one regular expression and steps the same table in one loop, with no
token object for the common tokens (symbols, small integers, plain strings, brackets).

The table becomes one entry per (state, terminal) and per (state, rule) that holds
everything a step needs. Where the state a step lands in can only reduce one rule,
whatever comes next (a "default reduction"), the entry does that reduction too:
a list element is appended to its list in the step that reads it (the state is unchanged:
``items: items X`` returns to the state ``items`` left), a first element starts the list,
and a closing bracket builds its list at once and lands it in the enclosing one.

Errors are Lark's own ``UnexpectedToken`` with a ``state`` whose ``value_stack`` is the
parse's, so the reader's messages (which look for the open brackets there) are unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lark import Lark
from lark.exceptions import UnexpectedToken
from lark.parse_tree_builder import ExpandSingleChild
from lark.parsers.lalr_analysis import Shift

from .bignum import DIGITS
from .datatypes import Span, Symbol
from .number_syntax import NUMBER_START
from .polling import poll_limits
from .reader_lexer import POLL_CHARS, ReadError, Tok, block_comment_end, fold_case_of

if TYPE_CHECKING:
    from .reader_lexer import SchemeLexer, Source

#: Kinds of an entry of :attr:`LalrLoop.table`. A terminal with a callback (an atom) has
#: ADD, FIRST or PUSH: where its value lands. Other terminals have SHIFT or CLOSE. With a
#: lookahead: REDUCE, PASS, APPEND, WRAP. A rule name's entry is ADD, FIRST or PUSH.
SHIFT, REDUCE, PASS, APPEND, WRAP, ADD, FIRST, PUSH, CLOSE = range(9)

#: Tokens whose text may hold a newline (the lexer counts lines inside them).
MULTILINE = frozenset(["STRING", "BAR_SYMBOL", "CHARACTER"])

_new_span = tuple.__new__  # a Span without the Python-level __new__ a NamedTuple call goes through


class Stacks:
    """What an ``UnexpectedToken`` carries as its ``state``: the parse's stacks when it failed."""

    __slots__ = ("state_stack", "value_stack")

    def __init__(self, state_stack: list[int], value_stack: list[Any]) -> None:
        self.state_stack = state_stack
        self.value_stack = value_stack


class LalrLoop:
    """Lark's LALR(1) table for the grammar's start rule, as one dict per state:
    terminal or rule name -> ``(SHIFT, state)``, ``(CLOSE, size, callback, name)`` (shift,
    then reduce a rule of ``size`` symbols ending in the terminal), ``(REDUCE, size,
    callback, name)``, ``(PASS, name)`` (a one-child inlined rule: its value is its child's)
    or a landing: ``(ADD,)``, ``(FIRST, state)``, ``(PUSH, state)``.

    ``lists`` names left-recursive list rules (``items: items? element``) whose callback
    is known to make a list of its one child and to append its second child to its first:
    their steps are done in the loop, with no call. A value that arrives in a state lands:
    ADD appends it to the list on top of the stack (the state stays), FIRST starts a list
    with it (``items: element``), PUSH pushes it and the state the table goes to."""

    def __init__(self, lark: Lark, lists: frozenset[str] = frozenset()) -> None:
        parser = lark.parser.parser.parser  # ParsingFrontend -> LALR_Parser -> _Parser
        table, callbacks = parser.parse_table, parser.callbacks
        self.start = table.start_states["start"]
        self.end = table.end_states["start"]
        self.callbacks: dict[str, Callable[[Tok], Any]] = {
            name: callback for name, callback in callbacks.items() if isinstance(name, str) and name.isupper()
        }
        steps: dict[int, dict[str, tuple[Any, ...]]] = {}
        gotos: dict[int, dict[str, int]] = {}
        for state, actions in table.states.items():
            row = steps[state] = {}
            goto = gotos[state] = {}
            for name, (action, arg) in actions.items():
                if action is Shift:
                    goto[name] = arg
                    continue
                callback, size, origin = callbacks[arg], len(arg.expansion), arg.origin.name
                if type(callback) is ExpandSingleChild and size == 1:
                    row[name] = (PASS, origin)
                elif origin in lists and arg.alias is None and size == 2 and arg.expansion[0].name == origin:
                    row[name] = (APPEND, origin)
                elif origin in lists and arg.alias is None and size == 1 and arg.expansion[0].name != origin:
                    row[name] = (WRAP, origin)
                else:
                    row[name] = (REDUCE, size, callback, origin)

        def default(state: int) -> tuple[Any, ...] | None:
            """The one reduction ``state`` makes whatever the lookahead, if it makes one."""
            entries = set(steps[state].values())
            return entries.pop() if len(entries) == 1 and not gotos[state] else None

        def landing(state: int, name: str) -> tuple[Any, ...]:
            """Where a value of ``name`` arriving in ``state`` goes."""
            to = gotos[state][name]
            then = default(to)
            if then is not None and then[0] is APPEND:
                return (ADD,)
            if then is not None and then[0] is WRAP:
                return (FIRST, gotos[state][then[1]])
            if then is not None and then[0] is PASS:
                return landing(state, then[1])
            return (PUSH, to)

        self.table: dict[int, dict[str, tuple[Any, ...]]] = {}
        for state, row in steps.items():
            out = self.table[state] = dict(row)
            for name, to in gotos[state].items():
                then = default(to) if name.isupper() and name not in self.callbacks else None
                if not name.isupper() or name in self.callbacks:
                    out[name] = landing(state, name)
                elif then is not None and then[0] is REDUCE and then[1] >= 2:
                    out[name] = (CLOSE, *then[1:])
                else:
                    out[name] = (SHIFT, to)

    def read(self, lexer: SchemeLexer, source: Source, file: str) -> Any:
        """The value of the start rule over ``source``: lex and parse in one loop."""
        text, pos, end, line, line_start = source
        table, callbacks = self.table, self.callbacks
        match, kinds, literals, special = lexer.pattern.match, lexer.kinds, lexer.literals, lexer.special
        fold = lexer.fold_case
        symbols, intern, max_digits = Symbol._table, Symbol.intern, DIGITS.get()
        states: list[int] = [self.start]
        values: list[Any] = []
        push_state, push_value = states.append, values.append
        poll_at = pos + POLL_CHARS
        last: tuple[int, int, int, int] | None = None  # start, line, column and end of the last token
        while True:
            m = match(text, pos, end)
            if m is None:
                raise lexer._no_token(text, pos, end, line, line_start)
            index = m.lastindex
            if index is None:  # only whitespace and comments were left
                break
            kind = kinds[index]
            start, stop = m.span(index)
            if start > pos:  # newlines in the whitespace before the token
                before = text.count("\n", pos, start)
                if before:
                    line += before
                    line_start = text.rindex("\n", pos, start) + 1
            col = start - line_start + 1
            pos = stop
            if pos > poll_at:  # a long text: check the run's limits (time, memory) as it goes
                poll_limits()
                poll_at = pos + POLL_CHARS
            if kind in special:  # acted-on comments and directives, literals a pattern matches
                if kind == "BLOCK_COMMENT_OPEN":
                    pos = block_comment_end(text, stop, end)
                    if pos < 0:
                        span = Span(file, line, col)
                        raise ReadError("unterminated block comment (#| opened here)", span, incomplete=True)
                    inside = text.count("\n", start, pos)
                    if inside:
                        line += inside
                        line_start = text.rindex("\n", start, pos) + 1
                    continue
                if kind == "DIRECTIVE":
                    fold = lexer.fold_case = text[start:stop] == "#!fold-case"
                    continue
                kind = literals.get(text[start:stop], kind)
            last = start, line, col, stop
            entry = table[states[-1]].get(kind)
            while True:
                if entry is None:
                    raise self.unexpected(Tok(kind, text[start:stop], start, line, col, stop), states, values)
                step = entry[0]
                if ADD <= step <= PUSH:  # an atom: its value, then where it lands
                    name = text[start:stop]
                    if kind == "SYMBOL" and not fold and (len(name) == 1 or name[0] not in NUMBER_START):
                        value = (symbols.get(name) or intern(name), _new_span(Span, (file, line, col)))
                    elif kind == "NUMBER" and len(name) < 16 and name.isdigit() and name.isascii() and len(name) <= max_digits:
                        value = (int(name), _new_span(Span, (file, line, col)))
                    else:
                        if fold and (kind == "SYMBOL" or kind == "CHARACTER"):
                            name = fold_case_of(kind, name)
                        value = callbacks[kind](Tok(kind, name, start, line, col, stop))
                    if step == ADD:
                        values[-1].append(value)
                    else:
                        push_value([value] if step == FIRST else value)
                        push_state(entry[1])
                    break
                if step == SHIFT:
                    push_value(Tok(kind, text[start:stop], start, line, col, stop))
                    push_state(entry[1])
                    break
                if step == CLOSE:  # shift the closing bracket and reduce at once
                    size = entry[1] - 1
                    children = values[-size:]
                    children.append(None)  # the closing bracket: no callback looks at it
                    del states[-size:]
                    del values[-size:]
                    value = entry[2](children)
                    landing = table[states[-1]][entry[3]]
                else:  # a reduction the lookahead asks for; then look again
                    value, name = self.reduce(entry, states, values)
                    landing = table[states[-1]][name]
                if landing[0] == ADD:
                    values[-1].append(value)
                else:
                    push_value([value] if landing[0] == FIRST else value)
                    push_state(landing[1])
                if step == CLOSE:
                    break
                entry = table[states[-1]].get(kind)
            if kind in MULTILINE:  # count the lines inside the token
                inside = text.count("\n", start, stop)
                if inside:
                    line += inside
                    line_start = text.rindex("\n", start, stop) + 1
        end_token = Tok("$END", "", 0, 1, 1, 0) if last is None else Tok("$END", "", *last)
        return self.finish(end_token, states, values)

    def reduce(self, entry: tuple[Any, ...], states: list[int], values: list[Any]) -> tuple[Any, str]:
        """Make the reduction ``entry`` (REDUCE, PASS, APPEND or WRAP): pop what it covers;
        the value it makes and the rule's name (where that value lands is the caller's)."""
        step = entry[0]
        if step == PASS:
            del states[-1]
            return values.pop(), entry[1]
        if step == APPEND:  # items: items element
            element = values.pop()
            values[-1].append(element)
            del states[-2:]
            return values.pop(), entry[1]
        if step == WRAP:  # items: element
            del states[-1]
            return [values.pop()], entry[1]
        size = entry[1]
        children = values[-size:] if size else []
        if size:
            del states[-size:]
            del values[-size:]
        return entry[2](children), entry[3]

    def finish(self, tok: Tok, states: list[int], values: list[Any]) -> Any:
        """Feed the ``$END`` token: reduce until the start rule is complete."""
        table, end = self.table, self.end
        while True:
            entry = table[states[-1]].get("$END")
            if entry is None or entry[0] not in (REDUCE, PASS, APPEND, WRAP):
                raise self.unexpected(tok, states, values)
            value, name = self.reduce(entry, states, values)
            landing = table[states[-1]][name]
            if landing[0] == ADD:
                values[-1].append(value)
            elif landing[0] == FIRST:
                values.append([value])
                states.append(landing[1])
            else:
                values.append(value)
                states.append(landing[1])
            if states[-1] == end:
                return values[-1]

    def unexpected(self, tok: Any, states: list[int], values: list[Any]) -> UnexpectedToken:
        """Lark's error for ``tok`` where the parse stands."""
        expected = {name for name in self.table[states[-1]] if name.isupper()}
        return UnexpectedToken(tok, expected, state=Stacks(states, values))
