"""Call sites compiled from small Python templates.

A call is the hottest node there is, so each call site is compiled once into a
specialised Python function (SICP 4.1.7 taken one step further): the operator
and operands are inlined when they are constants or variables of the nearest
frames, the argument count is fixed, and in tail position a closure call becomes
a :class:`TailCall` for the trampoline.

Calls of the built-in arithmetic and comparison operators (:data:`BINARY_OPS`)
check, each time they run, that the global still holds the built-in and that
both operands are exact integers, and then compute inline; anything else (a
redefined ``+``, a float, a wrong type) takes the ordinary path, so meaning and
error messages are unchanged.

A call site ``(f x 1)`` compiles to a function of its frame, from the :data:`CALL` template::

    def call(env):
        f = None
        try:
            f = gvars.get(gname)
            x0 = env.vars[k0]
            ...
            if type(f) is Closure:
                if tail:
                    return TailCall(f, [x0, 1])
                ...
                result = f.run(f.env, bounce(depth + 1), rt, x0, 1)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..datatypes import Char, Primitive, TailCall
from ..equality import EQV_BY_VALUE
from ..evaluator import Closure, apply_procedure, apply_with_caller, bounce
from ..limits import SMALL_STRING
from ..nodes.core import Const, GlobalRef, Node, Run
from .functions import made_function
from .inline_tables import TABLE_OPS, TABLE_STATEMENTS, TABLE_TESTS
from .inline_update import UPDATE_FORMS
from .inline_walks import WALK_FORMS
from .library import LIBRARY
from .literal_search import SEARCHES

if TYPE_CHECKING:
    from ..nodes.core import Call

#: Scheme operator name to the Python operator used on two exact integers.
BINARY_OPS = {"+": "+", "-": "-", "<": "<", ">": ">", "=": "==", "<=": "<=", ">=": ">="}

#: One-operand built-ins computed inline: (expression over {a}, type guard over {a} or None).
UNARY_OPS = {
    "car": ("{a}.car", "type({a}) is Pair"),
    "cdr": ("{a}.cdr", "type({a}) is Pair"),
    "null?": ("{a} is NIL", None),
    "pair?": ("type({a}) is Pair", None),
    "not": ("{a} is False", None),
    "zero?": ("{a} == 0", "type({a}) is int"),
    "cadr": ("{a}.cdr.car", "type({a}) is Pair and type({a}.cdr) is Pair"),
    "cddr": ("{a}.cdr.cdr", "type({a}) is Pair and type({a}.cdr) is Pair"),
    "caddr": ("{a}.cdr.cdr.car", "type({a}) is Pair and type({a}.cdr) is Pair and type({a}.cdr.cdr) is Pair"),
    "even?": ("{a} % 2 == 0", "type({a}) is int"),
    "odd?": ("{a} % 2 == 1", "type({a}) is int"),
}

#: Built-ins whose inline arms give a Python ``bool`` (never another value): a test of
#: one needs no ``is not False`` but on its fallback (``Emitter.truth``).
BOOLEAN_RESULTS = frozenset(
    {"<", ">", "=", "<=", ">=", "null?", "pair?", "not", "zero?", "even?", "odd?", "eq?", "eqv?"}
    | {"char=?", "char<?", "char>?", "char<=?", "char>=?"}
    | TABLE_TESTS
)

#: Those whose inline arm is a Python comparison (``COMPARE_OP``), not an identity test.
COMPARISONS = frozenset(
    {"<", ">", "=", "<=", ">=", "zero?", "even?", "odd?"} | {"char=?", "char<?", "char>?", "char<=?", "char>=?"}
)

#: Two-operand built-ins that build a value inline.
CONSTRUCTORS = {"cons": "cons({a}, {b})"}
#: Constructors as statements into ``{r}``, by (name, operand count), where a call site has
#: room for them: ``Pair()`` and ``Values()`` allocate in C alone, saving the Python call of
#: ``datatypes.cons`` or ``datatypes.values_of``.
CONSTRUCTOR_STATEMENTS: dict[tuple[str, int], tuple[str, ...]] = {
    ("cons", 2): ("{r} = Pair()", "{r}.car = {a}", "{r}.cdr = {b}"),
    **{
        ("values", n): ("{r} = Values()", f"{{r}}.items = [{', '.join('{' + x + '}' for x in 'abcd'[:n])}]")
        for n in (0, 2, 3, 4)
    },
}

#: An exact integer that converts to a float without overflow (``int + float`` raises
#: OverflowError past about 1e308; the primitive reports that as a Scheme error).
FLOATABLE_INT = "type({x}) is int and -0xFFFFFFFFFFFFFFFF < {x} < 0xFFFFFFFFFFFFFFFF"

#: A guard over operands ``{a}`` and ``{b}``: a float with a float or an exact integer
#: (two exact integers are :data:`BINARY_OPS`' case, or for ``*`` and ``/`` the
#: primitive's: bignums and exact rationals). Comparisons take any exact integer (Python
#: compares int and float exactly); arithmetic only one that converts (:data:`FLOATABLE_INT`).
FLOAT_PAIR = (
    "(type({a}) is float and (type({b}) is float or type({b}) is int) or type({b}) is float and type({a}) is int)"
)
FLOAT_ARITH = (
    "(type({a}) is float and (type({b}) is float or " + FLOATABLE_INT.format(x="{b}") + ")"
    " or type({b}) is float and " + FLOATABLE_INT.format(x="{a}") + ")"
)
#: Operators whose inexact result needs the integer operand converted (see FLOAT_ARITH).
ARITHMETIC = frozenset({"+", "-", "*", "/"})
#: Scheme operators computed inline on a float and a float literal, to the Python operator.
FLOAT_OPS = {**BINARY_OPS, "*": "*", "/": "/"}

#: Two exact integers whose product cannot pass the primitive's size limit (as ``*`` checks).
SMALL_INTS = (
    "type({a}) is int and type({b}) is int and -0xFFFFFFFFFFFFFFFF < {a} < 0xFFFFFFFFFFFFFFFF"
    " and -0xFFFFFFFFFFFFFFFF < {b} < 0xFFFFFFFFFFFFFFFF"
)

#: A string's characters as a Python sequence: a literal itself, a mutable string's text
#: or, while it is being edited, its list of characters (``len`` of an :class:`MString`
#: would be a Python-level ``__len__`` call).
CHARACTERS = "({a} if type({a}) is str else {a}.text if {a}.text is not None else {a}.chars)"


def characters_or(otherwise: str) -> str:
    """:data:`CHARACTERS` of any value ``{a}``, tested to be a string once: ``otherwise``
    (a Python expression) when it is not one."""
    sequence = "({a}.text if {a}.text is not None else {a}.chars)"
    return f"({{a}} if type({{a}}) is str else {sequence} if type({{a}}) is MString else {otherwise})"


#: The same for any value ``{a}``: empty when it is not a string.
STRING_CHARACTERS = characters_or("''")

#: Built-ins computed inline when their operands pass a guard: name to (operand count,
#: guard over ``{a}`` ``{b}`` ``{c}``, value). Anything else (a wrong type, an index out of
#: range, a redefined name) makes the ordinary call, so meaning and errors are unchanged.
#: ``{t}`` is a fresh temporary: a guard may bind it for the value to use.
#: Vectors are Python lists; strings are ``str`` (literals) or :class:`MString`.
GUARDED_OPS: dict[str, tuple[int, str, str]] = {
    "vector-ref": (2, "type({a}) is list and type({b}) is int and 0 <= {b} < len({a})", "{a}[{b}]"),
    "vector-length": (1, "type({a}) is list", "len({a})"),
    "string-ref": (
        2,
        f"type({{b}}) is int and 0 <= {{b}} < len({{t}} := {STRING_CHARACTERS})",
        "(CHARS.get({t}[{b}]) or Char({t}[{b}]))",
    ),
    "string-length": (1, "(type({a}) is str or type({a}) is MString)", f"len({CHARACTERS})"),
    **{
        name: (2, "type({a}) is Char and type({b}) is Char", f"{{a}}.ch {op} {{b}}.ch")
        for name, op in {"char=?": "==", "char<?": "<", "char>?": ">", "char<=?": "<=", "char>=?": ">="}.items()
    },
    **{
        name: (2, FLOAT_ARITH if name in ARITHMETIC else FLOAT_PAIR, f"{{a}} {op} {{b}}")
        for name, op in BINARY_OPS.items()
    },
    "*": (2, f"({SMALL_INTS} or {FLOAT_ARITH})", "{a} * {b}"),
    # identity first; only values of a type eqv? compares by value (numbers, characters)
    # pay the call: symbols, pairs, booleans and '() are one `is`
    **{
        name: (2, "True", "({a} is {b} or type({a}) is type({b}) and type({a}) in EQV_BY_VALUE and is_eqv({a}, {b}))")
        for name in ("eq?", "eqv?")
    },
    "modulo": (2, "type({a}) is int and type({b}) is int and {b} != 0", "{a} % {b}"),
    "/": (2, FLOAT_ARITH + " and {b} != 0", "{a} / {b}"),
    **{
        name: (1, "(type({a}) is float or " + FLOATABLE_INT.format(x="{a}") + ")", "float({a})")
        for name in ("exact->inexact", "inexact")
    },
    # a float's root (exact numbers keep exact roots, negative ones complex: the primitive's)
    "sqrt": (1, "type({a}) is float and {a} >= 0.0", "float_sqrt({a})"),
    # the shared Latin-1 characters, as the primitive hands them out
    "integer->char": (1, "type({a}) is int and 0 <= {a} < 256", "LATIN1[{a}]"),
    **TABLE_OPS,
}

#: ``eq?``/``eqv?`` beside a constant of a type compared by identity alone (a symbol, '(),
#: a boolean, a quoted pair): one ``is`` (see :func:`compared_by_identity`).
IDENTITY = "{a} is {b}"


def compared_by_identity(operands: list[Node]) -> bool:
    """Whether ``eq?``/``eqv?`` of ``operands`` is identity: one is a constant whose type
    ``eqv?`` does not compare by value."""
    return any(type(o) is Const and type(o.value) not in EQV_BY_VALUE for o in operands)


#: Exact integers whose decimal text ``str`` gives at once (far from Python's 4,300-digit limit).
SMALL_INT = FLOATABLE_INT.format(x="{a}")

#: A string whose text is at hand (a literal, or a mutable string not being edited), and that text.
TEXT_AT_HAND = "(type({a}) is str or type({a}) is MString and {a}.text is not None)"
TEXT = "({a} if type({a}) is str else {a}.text)"


def string_append_template(count: int) -> tuple[str, str]:
    """(guard, value) of ``string-append`` on ``count`` strings: literals (``str``) and
    mutable strings whose text is at hand, joined when shorter than ``SMALL_STRING``
    (longer ones take the primitive, which reserves memory first)."""
    fields = ["{" + x + "}" for x in "abcd"[:count]]
    guard = " and ".join(TEXT_AT_HAND.format(a=x) for x in fields)
    length = " + ".join(f"len({TEXT.format(a=x)})" for x in fields)
    joined = " + ".join(TEXT.format(a=x) for x in fields)
    return f"{guard} and {length} < {SMALL_STRING}", f"MString({joined})"


#: Built-ins computed inline for one operand count among several: (name, count) to
#: (guard, value), as in :data:`GUARDED_OPS`.
GUARDED_BY_ARITY: dict[tuple[str, int], tuple[str, str]] = {
    ("number->string", 1): (SMALL_INT, "str({a})"),
    **{("string-append", n): string_append_template(n) for n in (2, 3, 4)},
    # several values (one value is the value itself: the primitive's job)
    **{("values", n): ("True", f"values_of([{', '.join('{' + x + '}' for x in 'abcd'[:n])}])") for n in (0, 2, 3, 4)},
    # a short list: the built-in's own function (``list_of`` in the namespace), called
    # directly, with no operator read, dispatch or tail-call test at the call site
    **{("list", n): ("True", f"list_of({', '.join('{' + x + '}' for x in 'abcd'[:n])})") for n in (1, 2, 3, 4)},
}

#: Built-ins done inline as a statement (same guards); their value is the unspecified value.
GUARDED_STATEMENTS: dict[str, tuple[int, str, str]] = {
    "vector-set!": (3, "type({a}) is list and type({b}) is int and 0 <= {b} < len({a})", "{a}[{b}] = {c}"),
    **TABLE_STATEMENTS,
}

#: An open string port: what a compiled port write may append to directly.
STRING_PORT = "type({p}) is StringOutputPort and not {p}.closed"
#: Writes to a string port done inline as a statement (an append to the port's parts, as
#: cheap as ``StringIO.write``), as in :data:`GUARDED_STATEMENTS`. Each interpreter defines
#: its own port procedures (``primitives/io.install_io`` marks them ``inline_statement``);
#: the call site checks that the operator is still the one it was compiled against.
PORT_STATEMENTS: dict[str, tuple[int, str, str]] = {
    "write-char": (2, "type({a}) is Char and " + STRING_PORT.format(p="{b}"), "{b}.parts.append({a}.ch)"),
    "write-string": (2, f"{TEXT_AT_HAND} and {STRING_PORT.format(p='{b}')}", f"{{b}}.parts.append({TEXT})"),
    # text, or a small exact integer's decimal digits (what the primitive writes for it); the
    # operand's type is taken once, into the template's temporary {t}
    "display": (
        2,
        "((({t} := type({a})) is int and -0xFFFFFFFFFFFFFFFF < {a} < 0xFFFFFFFFFFFFFFFF or {t} is str"
        f" or {{t}} is MString and {{a}}.text is not None) and {STRING_PORT.format(p='{b}')})",
        "{b}.parts.append((str({a}) if {t} is int else {a} if {t} is str else {a}.text))",
    ),
    "newline": (1, STRING_PORT.format(p="{a}"), '{a}.parts.append("\\n")'),
}


def constant_port_write(name: str, operand: Node) -> tuple[int, str, str] | None:
    """The template of a port write (:data:`PORT_STATEMENTS`) whose written operand is a
    constant: its text is known when the body is compiled, so only the port is tested
    (``(display "ab" port)`` appends ``"ab"``). None for any other operand."""
    if name not in ("display", "write-string", "write-char") or type(operand) is not Const:
        return None
    value, text = operand.value, None
    if name == "write-char":
        text = value.ch if type(value) is Char else None
    elif type(value) is str:
        text = value
    elif name == "display" and type(value) is int and -0xFFFFFFFFFFFFFFFF < value < 0xFFFFFFFFFFFFFFFF:
        text = str(value)
    if text is None or len(text) > SMALL_STRING:
        return None
    literal = repr(text).replace("{", "{{").replace("}", "}}")  # the template is formatted
    return (2, STRING_PORT.format(p="{b}"), f"{{b}}.parts.append({literal})")

#: Built-ins whose calls with literal lambdas compiled bodies inline (``Emitter.call_with_values``,
#: ``inline_walks.emit_walk``, ``inline_update.emit_update``), and those a walk takes over
#: (``iota`` as its list; ``apply`` of ``+`` or ``string-append``, and ``length``, of a ``map``: ``emit_sink``).
INLINE_FORMS = ("call-with-values", *WALK_FORMS, *UPDATE_FORMS, "iota", "apply", "length")

#: Every global name whose built-in compiled code may compute inline.
INLINE_NAMES = (
    *BINARY_OPS,
    *UNARY_OPS,
    *CONSTRUCTORS,
    *GUARDED_OPS,
    *GUARDED_STATEMENTS,
    *{name for name, _count in GUARDED_BY_ARITY},
    *INLINE_FORMS,
    *SEARCHES,
)

#: Built-ins that a walk given them by name (``(filter even? l)``, ``(fold-left + 0 l)``)
#: calls inline, as if written ``(lambda (x) (even? x))`` (``inline_walks.by_name``): those
#: with an inline arm for one or two operands.
BY_NAME = frozenset(
    {*BINARY_OPS, *UNARY_OPS, *CONSTRUCTORS, *GUARDED_OPS, *{name for name, count in GUARDED_BY_ARITY if count <= 2}}
)

#: Arities up to which a call site gets its own template (more use a list comprehension).
MAX_INLINE_ARGS = 4


class StillBuiltin:
    """``[0]`` is true while a global still holds a given built-in (for frames that do
    not track rebinding themselves)."""

    __slots__ = ("gvars", "name", "builtin")

    def __init__(self, gvars: dict[Any, Any], name: Any, builtin: Any) -> None:
        self.gvars, self.name, self.builtin = gvars, name, builtin

    def __getitem__(self, index: int) -> bool:
        return self.gvars.get(self.name) is self.builtin


def builtins_intact(ref: GlobalRef, builtin: Any) -> Any:
    """An object whose ``[0]`` says the inline computation of ``ref``'s operator is valid."""
    intact = getattr(ref.gvars, "intact", {}).get(ref.name)
    return intact if intact is not None else StillBuiltin(ref.gvars, ref.name, builtin)


def generic_application(call: Call) -> Callable[..., Any]:
    """``apply(env, *values)``: ``call`` made the ordinary way (operator looked up, any
    procedure, errors with the call's backtrace frame) on operand values already
    computed. The fallback of an inline operator whose guard failed."""
    ref, on_error, count = call.operator.compile(False), call.on_error, len(call.operands)

    def apply(env: Any, *values: Any) -> Any:
        f = None
        try:
            f = ref(env)
            return apply_with_caller(f, list(values), env)
        except BaseException as exc:
            raise on_error(exc, f, count) from None

    return apply


def value_source(node: Node, key: str, namespace: dict[str, Any], emitter: Any) -> str:
    """A Python expression for a node's value: inline when the node is pure (constants,
    variables, built-in operators on pure operands: see ``Emitter.pure``), else a call of
    its compiled closure."""
    inline = emitter.pure(node)
    if inline is not None:
        return inline
    namespace[key] = node.compile(False)
    return f"{key}(env)"


def operand_emitter(namespace: dict[str, Any]) -> Any:
    """The body compiler's expression emitter, writing into a template's namespace."""
    from .body import Emitter  # reason: start-up laziness (23 ms): the body compiler loads at a body's first call

    return Emitter(None, LIBRARY.builtins, namespace, frame_vars="env.vars")


def operator_source(node: Node, namespace: dict[str, Any], emitter: Any) -> str:
    """Lines that bind ``f`` to the operator's value."""
    if type(node) is GlobalRef:
        namespace["gname"] = node.name
        namespace["gvars"] = node.gvars
        namespace["gref"] = node.compile(False)
        return "f = gvars.get(gname)\n        if f is None:\n            f = gref(env)"
    return f"f = {value_source(node, 'op', namespace, emitter)}"


CALL = """
def call(env):
    f = None
    try:
        {operator}
{operands}
{fast}
        if type(f) is Primitive:
            result = f.fn({args})
            if type(result) is TailCall and not tail:
                return apply_procedure(result.proc, result.args)
            return result
        if type(f) is Closure:
            if tail:
                return TailCall(f, [{args}])
            rt = f.rt
            depth = rt.depth
            if depth < rt.hop_mark and f.nargs == {count}:
                rt.steps += 1
                if rt.steps >= rt.check_at:
                    rt.check()
                result = f.run(f.env, bounce(depth + 1), rt{comma_args})
                rt.depth = depth
                if type(result) is TailCall:
                    return apply_procedure(result.proc, result.args)
                return result
        return apply_with_caller(f, [{args}], env, tail)
    except BaseException as exc:
        raise on_error(exc, f, {count}) from None
"""

CALL_MANY = """
def call(env):
    f = None
    args = ()
    try:
        {operator}
        args = [a(env) for a in operands]
        if tail and type(f) is Closure:
            return TailCall(f, args)
        return apply_with_caller(f, args, env, tail)
    except BaseException as exc:
        raise on_error(exc, f, len(args)) from None
"""

FAST = """
        if type(x0) is int and type(x1) is int and f is builtin:
            return x0 {op} x1"""


def compile_call(call: Call, tail: bool, builtins: dict[str, Any], on_error: Callable[..., BaseException]) -> Run:
    """The Python function that runs ``call``."""
    namespace: dict[str, Any] = {
        "Primitive": Primitive,
        "Closure": Closure,
        "TailCall": TailCall,
        "apply_procedure": apply_procedure,
        "bounce": bounce,
        "apply_with_caller": apply_with_caller,
        "on_error": on_error,
        "tail": tail,
    }
    emitter = operand_emitter(namespace)
    operator = operator_source(call.operator, namespace, emitter)
    n = len(call.operands)
    if n > MAX_INLINE_ARGS:
        namespace["operands"] = [a.compile(False) for a in call.operands]
        source = CALL_MANY.format(operator=operator)
    else:
        lines = [f"        x{i} = {value_source(a, f'a{i}', namespace, emitter)}" for i, a in enumerate(call.operands)]
        fast = ""
        if n == 2 and type(call.operator) is GlobalRef:
            op = BINARY_OPS.get(call.operator.name.name)
            builtin = builtins.get(call.operator.name.name)
            if op is not None and builtin is not None:
                namespace["builtin"] = builtin
                fast = FAST.format(op=op)
        args = ", ".join(f"x{i}" for i in range(n))
        source = CALL.format(
            operator=operator,
            operands="\n".join(lines),
            fast=fast,
            args=args,
            comma_args="".join(f", x{i}" for i in range(n)),
            count=n,
        )
    return made_function(source, namespace, "call")


IF = """
def if_(env):
    if {test} is not False:
        return then(env)
    return otherwise(env)
"""


def compile_if(test: Node, then: Run, otherwise: Run) -> Run:
    """An ``if`` whose test is inlined when it is a constant, a variable or built-in arithmetic."""
    namespace: dict[str, Any] = {"then": then, "otherwise": otherwise}
    test_source = value_source(test, "t", namespace, operand_emitter(namespace))
    return made_function(IF.format(test=test_source), namespace, "if_")
