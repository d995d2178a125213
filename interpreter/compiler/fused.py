"""Fused inline expressions: a nest of built-ins computed behind one type guard.

An inline expression (``Emitter.pure``) computes each built-in of a nest on its own: each
tests its operands' types and falls back to the ordinary call when they are not the ones
it computes, so the result of an inner operation is tested again by the one above it.
``(= (modulo (car l) n) 0)`` tests that ``l`` is a pair, that its car and ``n`` are exact
integers and ``n`` not zero, then that the remainder is an exact integer, then compares.
Yet the remainder of two exact integers is one. :func:`fuse` types the nest once: it picks
one typed form for each built-in (exact integers, or floats where an operand is or looks
like one: ``Emitter.likely_float``), tests each variable's type once, in evaluation order,
and computes the whole nest as one Python expression::

    (t2 % n == 0 if type(l) is Pair and type(t2 := l.car) is int and type(n) is int
                  and n != 0 and «ok…» else <the inline expression as before>)

A global variable is read once from its cell (``GlobalBindings.cell``) into a name; an
unbound one (None) fails its test. Anything else (another type, a zero divisor, an index
out of range, a rebound name) runs
the expression as before, which computes the same value or reports the error. Sound
because the guard can neither fail nor have an effect: it tests types, reads attributes
of values it has found to be pairs and compares numbers it has found to be numbers. The
fused arm and the expression agree: each form is the inline arm that the expression
itself would take for operands of those types (``fastpath``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from ..datatypes import Char, Symbol
from ..limits import SMALL_STRING
from ..nodes.core import Call, Const, GlobalRef, LocalRef, Node
from .fastpath import BINARY_OPS, IDENTITY, characters_or, compared_by_identity
from .literal_search import SEARCHES

if TYPE_CHECKING:
    from .body import Emitter

INT, FLOAT, PAIR, VECTOR, CHAR, BOOL, ANY = "int", "float", "Pair", "list", "Char", "bool", "any"
#: A string's characters as a Python ``str``: inside a nest only. A string operand (a
#: literal, or a mutable string whose text is at hand) is read as one, and a result of
#: this type that leaves the nest is made a mutable string (``MString``) again, so
#: ``(string-length (string-append "key-" (number->string i)))`` makes no string object.
TEXT = "text"
#: The text of ``{x}`` when it is a string whose text is at hand, else None.
TEXT_OF = "({x} if type({x}) is str else {x}.text if type({x}) is MString else None)"
#: A string's characters as a sequence of one-character ``str``: its text, or the list of
#: characters of a mutable string being edited (what ``string-ref`` and ``string-length`` need).
SEQUENCE = "sequence"
SEQUENCE_OF = characters_or("None")
#: A character as a one-character ``str`` (``string-ref`` of a text), inside a nest only:
#: a search of a quoted list looks it up as it is, and one that leaves the nest is made a
#: character (``Char``) again.
LETTER = "letter"
#: The types a value of the program is converted to (``Fuser.converted``), not just tested.
CONVERTED = frozenset({TEXT, SEQUENCE, LETTER})

#: Exact integers whose product stays within the ``*`` primitive's size limit.
BELOW_LIMIT = "-0xFFFFFFFFFFFFFFFF < {x} < 0xFFFFFFFFFFFFFFFF"


class Form(NamedTuple):
    """A built-in computed on operands of given types: the Python code over ``{a}``
    ``{b}``, the type it gives, a further test of the operands (or None), and a test
    over ``{x}`` that each operand must pass (or None: a literal passes it or not now)."""

    operands: tuple[str, ...]
    result: str
    code: str
    check: str | None = None
    each: str | None = None


def _numeric(op: str, result: str | None = None, int_each: str | None = None) -> dict[str, Form]:
    """The exact-integer and float forms of a binary operator (``result``: BOOL for comparisons)."""
    return {
        INT: Form((INT, INT), result or INT, f"{{a}} {op} {{b}}", None, int_each),
        FLOAT: Form((FLOAT, FLOAT), result or FLOAT, f"{{a}} {op} {{b}}"),
    }


#: (name, operand count): the forms of a built-in, by the numeric type chosen (INT or
#: FLOAT), or under ANY when it has one form whatever the operands are.
FORMS: dict[tuple[str, int], dict[str, Form]] = {
    ("+", 2): _numeric("+"),
    ("-", 2): _numeric("-"),
    ("*", 2): _numeric("*", int_each=BELOW_LIMIT),
    ("/", 2): {FLOAT: Form((FLOAT, FLOAT), FLOAT, "{a} / {b}", "{b} != 0")},
    **{(name, 2): _numeric(op, BOOL) for name, op in {"<": "<", ">": ">", "=": "==", "<=": "<=", ">=": ">="}.items()},
    ("modulo", 2): {INT: Form((INT, INT), INT, "{a} % {b}", "{b} != 0")},
    ("zero?", 1): {INT: Form((INT,), BOOL, "{a} == 0"), FLOAT: Form((FLOAT,), BOOL, "{a} == 0")},
    ("even?", 1): {INT: Form((INT,), BOOL, "{a} % 2 == 0")},
    ("odd?", 1): {INT: Form((INT,), BOOL, "{a} % 2 == 1")},
    ("car", 1): {ANY: Form((PAIR,), ANY, "{a}.car")},
    ("cdr", 1): {ANY: Form((PAIR,), ANY, "{a}.cdr")},
    ("null?", 1): {ANY: Form((ANY,), BOOL, "{a} is NIL")},
    ("pair?", 1): {ANY: Form((ANY,), BOOL, "type({a}) is Pair")},
    ("not", 1): {ANY: Form((ANY,), BOOL, "{a} is False")},
    ("vector-ref", 2): {ANY: Form((VECTOR, INT), ANY, "{a}[{b}]", "0 <= {b} < len({a})")},
    ("vector-length", 1): {ANY: Form((VECTOR,), INT, "len({a})")},
    **{
        ("list", n): {ANY: Form((ANY,) * n, ANY, f"list_of({', '.join(f'{{{x}}}' for x in 'abcd'[:n])})")}
        for n in (1, 2, 3, 4)
    },
    ("number->string", 1): {ANY: Form((INT,), TEXT, "str({a})", None, BELOW_LIMIT)},
    ("string-length", 1): {ANY: Form((SEQUENCE,), INT, "len({a})")},
    ("string-ref", 2): {ANY: Form((SEQUENCE, INT), LETTER, "{a}[{b}]", "0 <= {b} < len({a})")},
    **{
        ("string-append", n): {
            ANY: Form(
                (TEXT,) * n,
                TEXT,
                " + ".join(f"{{{x}}}" for x in "abcd"[:n]),
                " + ".join(f"len({{{x}}})" for x in "abcd"[:n]) + f" < {SMALL_STRING}",
            )
        }
        for n in (2, 3, 4)
    },
    **{
        (name, 2): {ANY: Form((CHAR, CHAR), BOOL, f"{{a}}.ch {op} {{b}}.ch")}
        for name, op in {"char=?": "==", "char<?": "<", "char>?": ">", "char<=?": "<=", "char>=?": ">="}.items()
    },
    **{
        (name, 2): {
            ANY: Form(
                (ANY, ANY),
                BOOL,
                "({a} is {b} or type({a}) is type({b}) and type({a}) in EQV_BY_VALUE and is_eqv({a}, {b}))",
            )
        }
        for name in ("eq?", "eqv?")
    },
}

#: A field of a pair held in a name, as a form reads it: ``(x.car)``.
FIELD_READ = re.compile(r"\(\w+\.(car|cdr)\)")

#: Exact integer literals that convert to a float exactly (an operand of a float form).
EXACT_IN_FLOAT = 2**53


class Fused(NamedTuple):
    """A fused nest: its value and type, its guard's tests in order, the tests of the
    flags it needs (``Emitter.flag_test``: markers or tests) with the flags themselves
    and the names they watch, the variables the guard tests with their types, and what
    the value tells when it is true and when it is false (``(pair? x)``: x is a pair)."""

    value: str
    result: str
    guards: list[str]
    flags: list[str]
    watched: list[Symbol]
    known: dict[str, str]
    fields: dict[str, tuple[str, str]]
    when_true: dict[str, str]
    when_false: dict[str, str]

    @property
    def guard(self) -> str:
        return " and ".join([*self.guards, *self.flags])


class Fuser:
    """Builds one fused expression: its guard's parts in order, and the flags it needs.
    Variables of known type (``Emitter.facts``) and flags known to be up
    (``Emitter.known_flags``) need no test."""

    def __init__(self, em: Emitter) -> None:
        self.em = em
        self.guards: list[str] = []
        self.flags: list[str] = []
        self.watched: list[Symbol] = []  # the names whose flags the nest needs
        self.known: dict[str, str] = {}  # a variable's Python name: the type the guard found
        self.implied: dict[int, tuple[dict[str, str], dict[str, str]]] = {}  # id of a node: facts when true, false
        self.fields: dict[str, tuple[str, str]] = {}  # a pair's field read, ``(x.car)``: its name and type
        self.operations = 0

    def typed(self, node: Node, want: str) -> tuple[str, str] | None:
        """(expression, type) for ``node`` as a value of type ``want`` (ANY: whatever it
        is), adding the tests that make it so to the guard; None if it cannot be fused."""
        if type(node) is Call and id(node) not in self.em.built:
            return self.operation(node, want)
        if type(node) is GlobalRef:  # its cell's value, once, into a name: None (unbound) fails any test
            cell = self.em.global_cell(node)
            if cell is None:
                return None
            if want in CONVERTED:
                return self.converted(cell, want), want
            temp = self.em.fresh("t")
            test = f"type({temp} := {cell}) is {want}" if want != ANY else f"({temp} := {cell}) is not None"
            self.guards.append(test)
            return temp, want
        if type(node) is LocalRef and node.checked:
            return None  # a read that may fail: only the expression as before reads it
        source = self.em.simple(node)
        if source is None:
            return None
        if type(node) is Const:
            value = node.value
            kind = {int: INT, float: FLOAT, bool: BOOL, str: TEXT, Char: CHAR}.get(type(value), ANY)
            if want == FLOAT and kind == INT and abs(value) < EXACT_IN_FLOAT:
                return source, FLOAT  # Python mixes it with a float as Scheme does
            if want == SEQUENCE and kind == TEXT:
                return source, SEQUENCE  # a literal's text is its characters
            return (source, kind) if want in (ANY, kind) else None
        if want == ANY:
            return source, ANY
        if want in CONVERTED:
            return self.converted(source, want), want
        if not source.isidentifier():  # a frame's variable: read once, into a name
            source = self.bind(source, want)
            return source, want
        known = self.known.get(source) or self.em.facts.get(source)
        if known is None:
            self.guards.append(f"type({source}) is {want}")
            self.known[source] = want
        elif known != want:
            return None
        return source, want

    def converted(self, source: str, want: str) -> str:
        """``source`` (a value of the program) as a value of an inner type (CONVERTED), in a
        fresh name, tested to be one: a string's text or characters, a character's letter."""
        temp = self.em.fresh("t")
        if want == LETTER:
            self.guards.append(f"type({temp} := {source}) is Char")
            return f"{temp}.ch"
        if not source.isidentifier():  # read once: the conversion names it several times
            source = self.bind(source, ANY)
        if want == TEXT:
            self.guards.append(f"type({temp} := {TEXT_OF.format(x=source)}) is str")
        else:
            self.guards.append(f"({temp} := {SEQUENCE_OF.format(a=source)}) is not None")
        return temp

    def bind(self, expr: str, want: str) -> str:
        """A fresh name for ``expr``'s value, tested to be of type ``want`` (if not ANY)."""
        temp = self.em.fresh("t")
        self.guards.append(f"type({temp} := {expr}) is {want}" if want != ANY else f"({temp} := {expr}) is {temp}")
        if FIELD_READ.fullmatch(expr):
            self.fields[expr] = (temp, want)
        return temp

    def operation(self, node: Call, want: str) -> tuple[str, str] | None:
        operator = node.operator
        if type(operator) is not GlobalRef:
            return None
        name = operator.name.name
        forms = FORMS.get((name, len(node.operands))) or self.search_forms(node)
        builtin = self.em.builtins.get(name)
        if forms is None or builtin is None:
            return None
        form = forms.get(ANY) or forms.get(self.numeric_type(node, forms, want))
        if form is None:
            return None
        args: list[str] = []
        for operand, kind in zip(node.operands, form.operands):
            typed = self.typed(operand, kind)
            if typed is None:
                return None
            args.append(typed[0])
        code, check = form.code, form.check
        if name in ("eq?", "eqv?") and compared_by_identity(node.operands):
            code = IDENTITY
        for i, field in enumerate("abcd"[: len(args)]):
            uses = f"{code} {check or ''}".count("{" + field + "}") + (form.each is not None)
            named = args[i].isidentifier()
            literal = not named and not args[i].startswith("(")
            # an expression used twice is computed once; a literal beside `is` would be a SyntaxWarning
            if (uses > 1 and not named and not literal) or (literal and " is " in code):
                args[i] = self.bind(args[i], ANY)
            elif literal and form.each is not None:  # tested now: a literal past it is not fused
                if not eval(form.each.format(x=args[i])):  # our template, a number's repr
                    return None
            elif form.each is not None:
                self.guards.append(form.each.format(x=args[i]))
        fields = dict(zip("abcd", args))
        if check is not None:
            self.guards.append(check.format(**fields))
        test = self.em.flag_test(operator, builtin)
        if test != "True":  # not known to be up already
            self.flags.append(test)
        self.watched.append(operator.name)
        self.operations += 1
        if name == "pair?" and args[0].isidentifier() and type(node.operands[0]) is LocalRef:
            self.implied[id(node)] = ({args[0]: PAIR}, {})
        elif name == "not" and id(node.operands[0]) in self.implied:
            when_true, when_false = self.implied[id(node.operands[0])]
            self.implied[id(node)] = (when_false, when_true)
        expr, result = f"({code.format(**fields)})", form.result
        known = self.em.known_fields.get(expr)  # read by the test that chose this arm
        if known is not None and want in (ANY, known[1]):
            return known
        if result == TEXT and want == SEQUENCE:  # a text is a sequence of its characters
            result = SEQUENCE
        elif result == TEXT and want != TEXT:  # a string leaving the nest
            expr, result = f"MString{expr}", ANY
        elif result == LETTER and want != LETTER:  # a character leaving the nest
            letter = self.bind(expr, ANY)
            expr, result = f"(CHARS.get({letter}) or Char({letter}))", ANY
        if want in (ANY, result):
            return expr, result
        if result != ANY:
            return None
        if want in CONVERTED:
            return self.converted(expr, want), want
        return self.bind(expr, want), want

    def search_forms(self, node: Call) -> dict[str, Form] | None:
        """The form of a search of a quoted list (``(memv c '(#\\a #\\e))``) whose tables
        (``Emitter.literal_search``) hold characters: a letter looked up in the table of
        characters, as it is, while the tables are current."""
        if node.operator.name.name not in SEARCHES or len(node.operands) != 2:  # type: ignore[attr-defined]
            return None
        if self.em.literal_search(node) is None:
            return None
        table, current = self.em.search_tables[id(node)]
        letters = table.tables.get(Char)
        if letters is None:
            return None
        found = self.em.constant(letters, "d")
        return {ANY: Form((LETTER, ANY), ANY, f"{found}.get({{a}}, False)", current)}

    def numeric_type(self, node: Call, forms: dict[str, Form], want: str) -> str:
        """The type of a numeric form: the one wanted of the result if it has that form
        (``(+ (* x x) 1.5)`` multiplies floats), else FLOAT when an operand is or looks
        like a float (``likely_float``) and the built-in has a float form, else INT."""
        if want in forms:
            return want
        if FLOAT in forms and any(self.em.likely_float(o) for o in node.operands):
            return FLOAT
        return INT


def gains_alone(node: Call) -> bool:
    """Whether one built-in alone gains from its typed form: a guarded one (not a plain
    comparison or ``+``/``-``, whose inline arms are as good) with a numeric literal
    operand, which its inline expression would put in a name and test at run time."""
    name = node.operator.name.name  # type: ignore[attr-defined]
    literal = any(type(o) is Const and type(o.value) in (int, float) for o in node.operands)
    return literal and name not in BINARY_OPS


def fuse(em: Emitter, node: Node, alone: bool = False) -> Fused | None:
    """The nest of built-ins ``node`` computed in one expression behind one guard (see
    the module docstring), or None when it is not a nest of built-ins that all have typed
    forms, or one built-in alone that gains nothing (``alone``: take it anyway)."""
    if type(node) is not Call:
        return None
    fuser = Fuser(em)
    typed = fuser.typed(node, ANY)
    if typed is None or (fuser.operations < 2 and not (alone or gains_alone(node))):
        return None
    when_true, when_false = fuser.implied.get(id(node), ({}, {}))
    return Fused(
        typed[0], typed[1], fuser.guards, fuser.flags, fuser.watched, fuser.known, fuser.fields, when_true, when_false
    )


def refuted(em: Emitter, test: Node, known: dict[str, str]) -> bool:
    """Whether ``test`` is false wherever a fused guard found the types ``known`` (a
    variable's Python name: its type): ``(null? x)`` of a variable found of any type (none
    is the empty list), ``(pair? x)`` of one found not a pair, ``(not (pair? x))`` of a
    pair. Each built-in named must be a watched one (``GlobalBindings.intact``): the caller
    covers its flag, since the test is then not computed."""
    negated = False
    if _watched_call(test, "not") and type(test.operands[0]) is Call:  # type: ignore[attr-defined]
        negated, test = True, test.operands[0]  # type: ignore[attr-defined]
    if not (_watched_call(test, "null?") or _watched_call(test, "pair?")):
        return False
    operand = test.operands[0]  # type: ignore[attr-defined]
    if type(operand) is not LocalRef or operand.checked:
        return False
    kind = known.get(em.simple(operand) or "")
    if kind is None:
        return False
    holds = test.operator.name.name == "pair?" and kind == PAIR  # type: ignore[attr-defined]
    return holds == negated


def _watched_call(node: Node, name: str) -> bool:
    """Whether ``node`` calls the global ``name`` with one operand, a name whose flag says it holds its built-in."""
    if type(node) is not Call or len(node.operands) != 1 or type(node.operator) is not GlobalRef:
        return False
    operator = node.operator
    return operator.name.name == name and operator.name in getattr(operator.gvars, "intact", {})
