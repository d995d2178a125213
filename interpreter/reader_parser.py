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
from .datatypes import NIL, Pair, Span, Symbol
from .number_syntax import NUMBER_START
from .polling import poll_limits
from .reader_lexer import POLL_CHARS, ReadError, Tok, block_comment_end, fold_case_of

if TYPE_CHECKING:
    from .reader_lexer import SchemeLexer, Source

#: Kinds of an entry of :attr:`LalrLoop.rows`. A terminal with a callback (an atom) has
#: ADD, FIRST, PUSH or SETTLE: where its value lands. Other terminals have SHIFT or CLOSE, the
#: ignored ones the lexer acts on IGNORED. With a lookahead: REDUCE, PASS, APPEND, WRAP.
#: A rule name's entry is a landing too.
ADD, FIRST, PUSH, SETTLE, SHIFT, CLOSE, REDUCE, PASS, APPEND, WRAP, IGNORED, CHAIN = range(12)

#: ``_new(Span, (file, line, column))`` makes a Span (or a Tok) without the Python-level
#: ``__new__`` a NamedTuple call goes through.
_new = tuple.__new__


def _next_newline(text: str, pos: int) -> int:
    """Where the first newline at or after ``pos`` is; past the text if there is none."""
    at = text.find("\n", pos)
    return at if at >= 0 else len(text)


class Stacks:
    """What an ``UnexpectedToken`` carries as its ``state``: the parse's stacks when it failed."""

    __slots__ = ("state_stack", "value_stack")

    def __init__(self, state_stack: list[int], value_stack: list[Any]) -> None:
        self.state_stack = state_stack
        self.value_stack = value_stack


class LalrLoop:
    """Lark's LALR(1) table for the grammar's start rule, as one dict (a row) per state:
    terminal or rule name -> ``(SHIFT, row)``, ``(CLOSE, size, callback, name)`` (shift,
    then reduce a rule of ``size`` symbols ending in the terminal), ``(REDUCE, size,
    callback, name)``, ``(PASS, name)`` (a one-child inlined rule: its value is its child's),
    ``(IGNORED,)`` or a landing: ``(ADD,)``, ``(FIRST, row)``, ``(PUSH, row)``, ``(SETTLE, row,
    reduction)``. The parse's
    state stack holds rows, not state numbers, so a step looks up no state.

    ``chains`` names rules ``OPEN items? CLOSE`` whose callback makes the items a chain of
    pairs, each spanned by its datum, the first by the opening token (``(a b)``): the
    loop builds them with no call.

    ``lists`` names left-recursive list rules (``items: items? element``) whose callback
    is known to make a list of its one child and to append its second child to its first:
    their steps are done in the loop, with no call. A value that arrives in a state lands:
    ADD appends it to the list on top of the stack (the state stays), FIRST starts a list
    with it (``items: element``), PUSH pushes it and the state the table goes to, SETTLE does too
    and then makes the one reduction that state makes whatever comes next (``'x`` is a quotation
    as soon as ``x`` is read), and lands its value in turn."""

    def __init__(
        self,
        lark: Lark,
        lists: frozenset[str] = frozenset(),
        ignored: frozenset[str] = frozenset(),
        chains: frozenset[str] = frozenset(),
    ) -> None:
        parser = lark.parser.parser.parser  # ParsingFrontend -> LALR_Parser -> _Parser
        table, callbacks = parser.parse_table, parser.callbacks
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

        defaults: dict[int, tuple[Any, ...] | None] = {}
        for state, row in steps.items():
            entries = set(row.values())  # (the callbacks hash by identity)
            defaults[state] = entries.pop() if len(entries) == 1 and not gotos[state] else None
        default = defaults.__getitem__  # the one reduction a state makes whatever the lookahead, or None

        #: The rows, by state number (filled below: entries refer to rows).
        self.rows: dict[int, dict[str, tuple[Any, ...]]] = {state: dict(row) for state, row in steps.items()}
        rows = self.rows

        def landing(state: int, name: str) -> tuple[Any, ...]:
            """Where a value of ``name`` arriving in ``state`` goes."""
            to = gotos[state][name]
            then = default(to)
            if then is not None and then[0] == APPEND:
                return (ADD,)
            if then is not None and then[0] == WRAP:
                return (FIRST, rows[gotos[state][then[1]]])
            if then is not None and then[0] == PASS:
                return landing(state, then[1])
            if then is not None and then[0] == REDUCE:  # pushed, then reduced at once
                return (SETTLE, rows[to], then)
            return (PUSH, rows[to])

        for state, row in rows.items():
            for name, to in gotos[state].items():
                then = default(to)
                if not name.isupper() or name in self.callbacks:
                    row[name] = landing(state, name)
                elif then is not None and then[0] == REDUCE and then[1] >= 2:
                    row[name] = (CHAIN if then[3] in chains and then[1] <= 3 else CLOSE, *then[1:])
                else:
                    row[name] = (SHIFT, rows[to])
            for name in ignored:
                row[name] = (IGNORED,)
        self.start = rows[table.start_states["start"]]
        self.end = rows[table.end_states["start"]]
        self.numbers = {id(row): state for state, row in rows.items()}

    def read(self, lexer: SchemeLexer, source: Source, file: str) -> Any:
        """The value of the start rule over ``source``: lex and parse in one loop."""
        text, pos, end, line, line_start = source
        callbacks, literals, literal_kinds = self.callbacks, lexer.literals, lexer.literal_kinds
        match, kinds = lexer.pattern.match, lexer.kinds
        fold = lexer.fold_case
        symbols, intern = Symbol._table, Symbol.intern
        short = min(16, DIGITS.get() + 1)  # integers shorter than this are read here, as ``int``
        new = _new
        slow_start = NUMBER_START | {literal[0] for literal in literals}  # symbols the callback reads
        row = self.start
        states: list[dict[str, Any]] = [row]
        values: list[Any] = []
        push_state, push_value = states.append, values.append
        poll_at = pos + POLL_CHARS
        last = -1  # where the last token starts
        newline = _next_newline(text, pos)  # the first newline not yet counted (counted at the next token)
        while True:
            m = match(text, pos, end)
            if m is None:  # (the lines inside the last token are not counted yet)
                if pos > newline:
                    line += text.count("\n", newline, pos)
                    line_start = text.rindex("\n", newline, pos) + 1
                raise lexer._no_token(text, pos, end, line, line_start)
            index = m.lastindex
            if index is None:  # only whitespace and comments were left
                break
            kind = kinds[index]
            start, pos = m.span(index)
            if start > newline:  # newlines in the whitespace before the token
                line += text.count("\n", newline, start)
                line_start = text.rindex("\n", newline, start) + 1
                newline = _next_newline(text, start)
            col = start - line_start + 1
            if pos > poll_at:  # a long text: check the run's limits (time, memory) as it goes
                poll_limits()
                poll_at = pos + POLL_CHARS
            entry = row.get(kind)
            while True:
                if entry is None:
                    alias = literals.get(text[start:pos], kind) if kind in literal_kinds else kind
                    if alias != kind:  # a literal a pattern matches too: "." is a DOT
                        kind = alias
                        entry = row.get(kind)
                        continue
                    raise self.unexpected(new(Tok, (kind, text[start:pos], start, line, col, pos)), states, values)
                step = entry[0]
                if step <= SETTLE:  # an atom: its value, then where it lands
                    name = text[start:pos]
                    if kind == "SYMBOL" and not fold and (
                        name[0] not in slow_start or (len(name) == 1 and name not in literals)
                    ):
                        value = (symbols.get(name) or intern(name), new(Span, (file, line, col)))
                    elif kind == "NUMBER" and len(name) < short and name.isdigit() and name.isascii():
                        value = (int(name), new(Span, (file, line, col)))
                    else:
                        if fold and (kind == "SYMBOL" or kind == "CHARACTER"):
                            name = fold_case_of(kind, name)
                        if name in literals and kind in literal_kinds:
                            kind = literals[name]
                            entry = row.get(kind)
                            continue
                        value = callbacks[kind](new(Tok, (kind, name, start, line, col, pos)))
                    if step == ADD:
                        values[-1].append(value)
                    else:
                        push_value([value] if step == FIRST else value)
                        push_state(row := entry[1])
                        if step == SETTLE:
                            row = self.settle(entry, states, values)
                    break
                if step == SHIFT:
                    push_value(new(Tok, (kind, text[start:pos], start, line, col, pos)))
                    push_state(row := entry[1])
                    break
                if step == CHAIN:  # "(" items ")": the items as pairs, each spanned by its datum
                    if entry[1] == 3:
                        items = values.pop()
                        del states[-2:]
                    else:
                        items = ()
                        del states[-1]
                    opener = values.pop()
                    span = new(Span, (file, opener[3], opener[4]))
                    result = NIL
                    for datum, datum_span in reversed(items):
                        cell = Pair()
                        cell.car = datum
                        cell.cdr = result
                        cell._span = datum_span  # the slot: the ``span`` property's setter is a Python call
                        result = cell
                    if result is not NIL:
                        result._span = span  # a list's first pair: where it opens
                    value = (result, span)
                    name = entry[3]
                elif step == CLOSE:  # shift the closing bracket and reduce at once
                    size = entry[1] - 1
                    children = values[-size:]
                    children.append(None)  # the closing bracket: no callback looks at it
                    del states[-size:]
                    del values[-size:]
                    value = entry[2](children)
                    name = entry[3]
                elif step == IGNORED:  # a block comment or a directive
                    if kind == "BLOCK_COMMENT_OPEN":
                        pos = block_comment_end(text, pos, end)
                        if pos < 0:
                            span = Span(file, line, col)
                            raise ReadError("unterminated block comment (#| opened here)", span, incomplete=True)
                    else:
                        fold = lexer.fold_case = text[start:pos] == "#!fold-case"
                    start = last  # no token: the last one stays the last
                    break
                else:  # a reduction the lookahead asks for; then look again
                    value, name = self.reduce(entry, states, values)
                row = states[-1]
                landing = row[name]
                if landing[0] == ADD:
                    values[-1].append(value)
                else:
                    push_value([value] if landing[0] == FIRST else value)
                    push_state(row := landing[1])
                    if landing[0] == SETTLE:
                        row = self.settle(landing, states, values)
                if step in (CLOSE, CHAIN):
                    break
                entry = row.get(kind)
            last = start
        return self.finish(states, values, lambda: self._end_token(source, last))

    @staticmethod
    def _end_token(source: Source, last: int) -> Tok:
        """The ``$END`` token, where the last token starts (as Lark's ``Token.new_borrow_pos``)."""
        if last < 0:
            return Tok("$END", "", 0, 1, 1, 0)
        text = source.text
        line = source.line + text.count("\n", source.start, last)
        line_start = max(text.rfind("\n", 0, last) + 1, source.line_start)
        return Tok("$END", "", last, line, last - line_start + 1, last)

    def settle(self, landing: tuple[Any, ...], states: list[Any], values: list[Any]) -> dict[str, Any]:
        """After a SETTLE landing pushed its value: make the reduction its state makes whatever
        comes next, land that value, and so on while the landings settle; the row on top."""
        while landing[0] == SETTLE:
            value, name = self.reduce(landing[2], states, values)
            landing = states[-1][name]
            if landing[0] == ADD:
                values[-1].append(value)
                break
            values.append([value] if landing[0] == FIRST else value)
            states.append(landing[1])
        return states[-1]

    def reduce(self, entry: tuple[Any, ...], states: list[Any], values: list[Any]) -> tuple[Any, str]:
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

    def finish(self, states: list[Any], values: list[Any], end_token: Callable[[], Tok]) -> Any:
        """Feed the ``$END`` token: reduce until the start rule is complete."""
        while True:
            entry = states[-1].get("$END")
            if entry is None or entry[0] not in (REDUCE, PASS, APPEND, WRAP):
                raise self.unexpected(end_token(), states, values)
            value, name = self.reduce(entry, states, values)
            landing = states[-1][name]
            if landing[0] == ADD:
                values[-1].append(value)
            else:
                values.append([value] if landing[0] == FIRST else value)
                states.append(landing[1])
                if landing[0] == SETTLE:
                    self.settle(landing, states, values)
            if states[-1] is self.end:
                return values[-1]

    def unexpected(self, tok: Any, states: list[Any], values: list[Any]) -> UnexpectedToken:
        """Lark's error for ``tok`` where the parse stands."""
        expected = {name for name, entry in states[-1].items() if name.isupper() and entry[0] != IGNORED}
        numbers = [self.numbers[id(row)] for row in states]
        return UnexpectedToken(tok, expected, state=Stacks(numbers, values))
