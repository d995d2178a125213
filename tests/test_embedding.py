"""The Python embedding API: eval, call, define, bindings, host primitives and tasks, conversions, aeval."""

from __future__ import annotations

import asyncio
import io
import os
import time
from fractions import Fraction
from pathlib import Path

import pydantic
import pytest

from interpreter import NIL, Char, Interpreter, Pair, SchemeError, Symbol, cons
from interpreter.conversion import SchemeProcedure
from interpreter.tasks.errors import TaskError
from interpreter.tasks.records import TaskResult


@pytest.fixture
def interp() -> Interpreter:
    return Interpreter(stdout=io.StringIO())


# -- Scheme → Python ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("'(1 2 3)", [1, 2, 3]),
        ("'()", []),
        ("#(1 2)", (1, 2)),
        ("'(1 #(2 (3)))", [1, (2, [3])]),
        ('"text"', "text"),
        ("(make-string 2 #\\z)", "zz"),
        ("42", 42),
        ("(expt 2 100)", 2**100),
        ("2/3", Fraction(2, 3)),
        ("1.5", 1.5),
        ("#t", True),
        ("#f", False),
        ("(if #f #f)", None),
        ("#u8(1 2)", b"\x01\x02"),
        ("#\\a", Char("a")),
    ],
)
def test_values_out(interp: Interpreter, source: str, expected: object) -> None:
    got = interp.eval(source)
    assert got == expected
    assert type(got) is type(expected)


def test_symbols_out_are_the_interned_symbol(interp: Interpreter) -> None:
    assert interp.eval("'hello") is Symbol.intern("hello")


def test_hash_tables_out_are_dicts(interp: Interpreter) -> None:
    got = interp.eval("(let ((h (make-equal-hash-table))) (hash-table-set! h 'a 1) (hash-table-set! h \"b\" '(2)) h)")
    assert got == {Symbol.intern("a"): 1, "b": [2]}


def test_a_list_key_stays_a_scheme_value(interp: Interpreter) -> None:
    got = interp.eval("(let ((h (make-equal-hash-table))) (hash-table-set! h '(1 2) 'x) h)")
    [(key, value)] = got.items()
    assert type(key) is Pair and value is Symbol.intern("x")


def test_improper_and_circular_lists_stay_pairs(interp: Interpreter) -> None:
    pair = interp.eval("'(1 . 2)")
    assert type(pair) is Pair and (pair.car, pair.cdr) == (1, 2)
    loop = interp.eval("(let ((l (list 1 2))) (set-cdr! (cdr l) l) l)")
    assert type(loop) is Pair


def test_the_host_makes_an_improper_list_with_cons(interp: Interpreter) -> None:
    interp.define("dotted", cons(1, cons(2, 3)))
    assert interp.eval("(list (car dotted) (cadr dotted) (cddr dotted) (list? dotted))") == [1, 2, 3, False]


def test_a_structure_containing_itself_is_an_error(interp: Interpreter) -> None:
    with pytest.raises(SchemeError, match="contains itself") as info:
        interp.eval("(let ((v (vector 1))) (vector-set! v 0 v) v)")
    assert info.value.kind == "value-error"


def test_records_out_are_pydantic_models(interp: Interpreter) -> None:
    interp.eval("(define-record-type <point> (make-point x y) point? (x point-x) (y point-y set-point-y!))")
    point = interp.eval("(make-point 1 '(2 3))")
    assert isinstance(point, pydantic.BaseModel)
    assert type(point).__name__ == "Point"
    assert (point.x, point.y) == (1, [2, 3])
    assert point.model_dump() == {"x": 1, "y": [2, 3]}
    assert type(interp.eval("(make-point 5 6)")) is type(point)  # one class per record type


def test_record_fields_get_python_names(interp: Interpreter) -> None:
    interp.eval("(define-record-type item (make-item first-name ok?) item? (first-name item-name) (ok? item-ok))")
    assert interp.eval('(make-item "Ada" #t)').model_dump() == {"first_name": "Ada", "ok": True}


def test_task_records_stay_task_records(interp: Interpreter) -> None:
    result = interp.eval('(make-task-result "done")')
    assert isinstance(result, TaskResult) and result.content == "done"


def test_procedures_out_are_callables_running_in_their_interpreter(interp: Interpreter) -> None:
    interp.eval("(define total 0) (define (bump! n) (set! total (+ total n)) (list total))")
    bump = interp["bump!"]
    assert isinstance(bump, SchemeProcedure) and bump.name == "bump!"
    assert bump(5) == [5]
    assert bump(2) == [7]
    assert interp["total"] == 7
    square = interp.eval("(lambda (x) (* x x))")
    assert square(Fraction(1, 2)) == Fraction(1, 4)
    assert interp.eval("car")([1, 2]) == 1


def test_multiple_values_out(interp: Interpreter) -> None:
    assert interp.eval("(values 1 '(2))").items == [1, [2]]


# -- Python → Scheme ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "predicate"),
    [
        ([1, 2], "(lambda (x) (and (list? x) (equal? x '(1 2))))"),
        ([], "null?"),
        ((1, "a"), '(lambda (x) (equal? x #(1 "a")))'),
        ({"a": [1]}, '(lambda (h) (equal? (hash-table-ref h "a") \'(1)))'),
        ("text", '(lambda (s) (string=? s "text"))'),
        (7, "exact-integer?"),
        (Fraction(1, 3), "(lambda (x) (and (exact? x) (= x 1/3)))"),
        (2.5, "inexact?"),
        (True, "(lambda (x) (eq? x #t))"),
        (False, "not"),
        (Symbol.intern("s"), "(lambda (x) (eq? x 's))"),
        (b"\x05", "bytevector?"),
        (None, "(lambda (x) (eq? x (if #f #f)))"),
    ],
)
def test_values_in(interp: Interpreter, value: object, predicate: str) -> None:
    interp.define("value", value)
    assert interp.eval(f"({predicate} value)") is True


def test_round_trips(interp: Interpreter) -> None:
    for value in ([1, [2, (3,)], {"k": "v"}], (), {}, "x", Fraction(5, 7), Symbol.intern("q")):
        interp.define("v", value)
        assert interp["v"] == value


def test_pydantic_models_round_trip_to_records(interp: Interpreter) -> None:
    interp.eval("(define-record-type point (make-point x y) point? (x point-x) (y point-y))")
    point = interp.eval("(make-point 1 2)")
    moved = point.model_copy(update={"x": 10})
    interp.define("p", moved)
    assert interp.eval("(and (point? p) (point-x p))") == 10


def test_other_pydantic_models_are_read_with_get(interp: Interpreter) -> None:
    class Ticket(pydantic.BaseModel):
        title: str
        tags: list[str]

    interp.define("t", Ticket(title="bug", tags=["a", "b"]))
    assert interp.eval("(get t 'title)") == "bug"
    assert interp.eval("(get t 'tags)") == ["a", "b"]
    assert isinstance(interp["t"], Ticket)


def test_python_callables_in_are_procedures(interp: Interpreter) -> None:
    def scale(xs: list[int], k: int = 2) -> list[int]:
        return [x * k for x in xs]

    interp.define("scale", scale)
    assert interp.eval("(procedure? scale)") is True
    assert interp.eval("(scale '(1 2))") == [2, 4]
    assert interp.eval("(map (lambda (x) (car (scale (list x) 3))) '(1 2))") == [3, 6]
    assert interp["scale"] is scale  # a host function comes back as itself


def test_procedures_cross_between_interpreters(interp: Interpreter) -> None:
    other = Interpreter()
    other.eval("(define secret 5) (define (add-secret x) (+ x secret))")
    interp.define("add-secret", other["add-secret"])
    assert interp.eval("(add-secret 1)") == 6
    with pytest.raises(SchemeError, match="unbound variable: secret"):
        interp.eval("secret")


def test_a_python_list_containing_itself_is_an_error(interp: Interpreter) -> None:
    loop: list[object] = [1]
    loop.append(loop)
    with pytest.raises(SchemeError, match="contains itself"):
        interp.define("x", loop)


def test_opaque_host_objects_pass_through(interp: Interpreter) -> None:
    handle = object()
    interp.define("handle", handle)
    assert interp["handle"] is handle
    assert interp.eval("(eq? handle handle)") is True
    assert interp.eval("(list handle)") == [handle]


# -- eval, eval_file, call, define, bindings ------------------------------------------------
def test_eval_returns_the_last_value_and_names_the_file(interp: Interpreter) -> None:
    assert interp.eval("(define x 2) (* x 21)") == 42
    with pytest.raises(SchemeError) as info:
        interp.eval("\n(car 1)", filename="prog.scm")
    assert "prog.scm:2" in info.value.format()


def test_eval_scheme_returns_scheme_values(interp: Interpreter) -> None:
    value = interp.eval_scheme("'(1 2)")
    assert type(value) is Pair
    assert interp.eval_scheme("'()") is NIL
    assert interp.eval_scheme("#(1 2)") == [1, 2]


def test_eval_file(tmp_path: Path, interp: Interpreter) -> None:
    (tmp_path / "lib.scm").write_text("(define (twice x) (* 2 x))")
    (tmp_path / "main.scm").write_text('(load "lib.scm") (list (twice 4))')
    files = Interpreter(allow_files=[str(tmp_path)])
    assert files.eval_file(tmp_path / "main.scm") == [8]
    with pytest.raises(SchemeError, match="cannot read") as info:
        interp.eval_file(tmp_path / "missing.scm")
    assert info.value.kind == "file-error"


def test_call_procedures_and_tasks_with_keywords(interp: Interpreter) -> None:
    interp.eval('(define (greet name) (string-append "hi " name))')
    assert interp.call("greet", "ada") == "hi ada"
    interp.eval('(define-task (tag text (label "x")) (string-append label ":" text))')
    assert interp.call("tag", "t", label="L") == "L:t"
    with pytest.raises(SchemeError, match="unbound variable: nothing"):
        interp.call("nothing")
    with pytest.raises(SchemeError) as info:
        interp.call("greet", "a", "b")
    assert info.value.kind == "arity-error"


def test_define_and_getitem(interp: Interpreter) -> None:
    interp.define("limit", 3)
    assert interp.eval("(+ limit 1)") == 4
    interp.eval("(define names '(a b))")
    assert interp["names"] == [Symbol.intern("a"), Symbol.intern("b")]
    with pytest.raises(KeyError):
        interp["undefined-name"]


# -- @interp.primitive -------------------------------------------------------------------
def test_primitive_decorator_names_and_arity(interp: Interpreter) -> None:
    @interp.primitive
    def word_count(text: str) -> int:
        """Count the words in a text."""
        return len(text.split())

    @interp.primitive("shout!")
    def shout(text: str, *, times: int = 1) -> str:
        return text.upper() * times

    assert word_count("a b") == 2  # the decorator returns the function
    assert interp.eval('(word-count "a b c")') == 3
    assert interp.eval('(shout! "hi")') == "HI"
    assert interp.eval('(shout! "hi" #:times 2)') == "HIHI"
    with pytest.raises(SchemeError, match=r"word-count: expected 1 argument, given 2") as info:
        interp.eval('(word-count "a" "b")')
    assert info.value.kind == "arity-error"
    assert interp.eval_scheme("word-count").doc == "Count the words in a text."


def test_primitive_exceptions_are_catchable_errors(interp: Interpreter) -> None:
    @interp.primitive
    def fetch(key: str) -> str:
        raise LookupError(f"no such key {key}")

    with pytest.raises(SchemeError, match="fetch: internal error: LookupError: no such key k") as info:
        interp.eval('(fetch "k")')
    assert isinstance(info.value.details["exception"], LookupError)
    assert interp.eval('(guard (e (#t (condition/report-string e))) (fetch "k"))').startswith("fetch:")


def test_primitive_receives_procedures_as_callables(interp: Interpreter) -> None:
    @interp.primitive
    def apply_twice(f: object, x: int) -> object:
        assert callable(f)
        return f(f(x))

    assert interp.eval("(apply-twice (lambda (n) (* n 3)) 2)") == 18


# -- @interp.task ------------------------------------------------------------------------
class Address(pydantic.BaseModel):
    city: str


def test_task_decorator_validates_arguments(interp: Interpreter) -> None:
    @interp.task
    def add(a: int, b_value: int = 10) -> int:
        """Add two numbers."""
        return a + b_value

    assert interp.eval("(add 1 #:b-value 2)") == 3
    assert interp.eval('(add "5")') == 15  # pydantic coerces what it can
    assert interp.call("add", 1, b_value=1) == 2
    assert interp.tasks.describe("add").description == "Add two numbers."
    with pytest.raises(TaskError) as info:
        interp.eval('(add "five")')
    assert info.value.error_type == "VALIDATION_ERROR"
    assert info.value.record.path == "a"
    assert "task add: a:" in info.value.message
    with pytest.raises(TaskError, match="b_value"):
        interp.eval("(add 1 #:b-value 'x)")


def test_task_decorator_with_models_and_names(interp: Interpreter) -> None:
    @interp.task("ship-to")
    def ship(address: Address, items: list[str]) -> str:
        return f"{len(items)} to {address.city}"

    interp.eval('(define a (make-equal-hash-table)) (hash-table-set! a "city" "Oslo")')
    assert interp.eval('(ship-to a \'("x" "y"))') == "2 to Oslo"
    assert interp.eval("(guard (e ((task-error? e) (task-error-type e))) (ship-to 5 (list)))") is Symbol.intern(
        "VALIDATION_ERROR"
    )


# -- aeval and cancellation --------------------------------------------------------------
def test_aeval_returns_python_values() -> None:
    interp = Interpreter()

    async def main() -> object:
        return await interp.aeval("(map (lambda (x) (* x x)) '(1 2 3))")

    assert asyncio.run(main()) == [1, 4, 9]


def test_aeval_does_not_block_the_event_loop() -> None:
    """The program runs until the event loop has ticked five times: if ``aeval`` blocked
    the loop, no tick would come and the run would end on its timeout. No timing asserted."""
    interp = Interpreter(timeout=60)
    ticks = 0
    interp.define_primitive("ticks", lambda: ticks)

    async def main() -> object:
        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.005)

        tick = asyncio.create_task(ticker())
        value = await interp.aeval("(let loop ((i 0)) (if (< (ticks) 5) (loop (+ i 1)) 'ticked))")
        tick.cancel()
        return value

    assert asyncio.run(main()) == interp.eval("'ticked")


@pytest.mark.parametrize(
    "program",
    ["(let loop () (loop))", "(define (tree n) (if (= n 0) 0 (+ (tree (- n 1)) (tree (- n 1))))) (tree 30)"],
)
def test_cancelling_aeval_stops_a_long_computation_and_keeps_definitions(program: str) -> None:
    interp = Interpreter()
    interp.eval("(define kept 'yes)")

    async def main() -> float:
        task = asyncio.create_task(interp.aeval(program))
        await asyncio.sleep(0.2)
        task.cancel()
        start = time.monotonic()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.monotonic() - start

    assert asyncio.run(main()) < 1.0
    assert interp.eval("kept") is Symbol.intern("yes")
    assert interp.eval("(+ 1 2)") == 3


def test_cancelling_aeval_kills_the_running_script(tmp_path: Path) -> None:
    interp = Interpreter(allow_scripts=True)
    pid_file = tmp_path / "pid"

    async def main() -> None:
        task = asyncio.create_task(interp.aeval(f"(run-script \"sh -c 'echo $$ > {pid_file}; exec sleep 30'\")"))
        for _ in range(200):
            await asyncio.sleep(0.02)
            if pid_file.exists() and pid_file.read_text().strip():
                break
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    start = time.monotonic()
    asyncio.run(main())
    assert time.monotonic() - start < 5
    pid = int(pid_file.read_text())
    time.sleep(0.1)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert interp.eval('(get (run-script "echo ok") \'stdout)') == "ok\n"


def test_aeval_errors_are_scheme_errors() -> None:
    interp = Interpreter()
    with pytest.raises(SchemeError, match="car"):
        asyncio.run(interp.aeval("(car '())"))


# -- usage and events --------------------------------------------------------------------
def test_usage_and_events_are_exposed() -> None:
    interp = Interpreter()
    interp.models.register("echo", lambda prompt, system: prompt.upper())
    events: list[object] = []
    interp.on_event(events.append)
    interp.eval('(define-task (shout text) (model "echo") (prompt "{{text}}"))')
    assert interp.eval('(get (shout "hi") \'content)') == "HI"
    assert interp.usage.total.calls == 1
    assert "shout" in interp.usage.by_task
    assert any(getattr(e, "name", None) == "shout" for e in events)


def test_the_embedding_example_runs_a_program_safely(tmp_path: Path) -> None:
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "examples" / "embed_tool.py"
    spec = importlib.util.spec_from_file_location("embed_tool", path)
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    report = asyncio.run(tool.run(tool.SAMPLE))
    assert report["ok"] and report["value"] == [3, 2, "escalated #7 (customer waiting)"]
    assert report["model_calls"] == 2
    refused = asyncio.run(tool.run('(run-script "ls")'))
    assert refused["error"]["kind"] == "permission"
    runaway = asyncio.run(tool.run("(let loop () (loop))"))
    assert "max_steps" in runaway["error"]["message"]


def test_a_top_level_call_runs_without_compiling_a_function(monkeypatch: pytest.MonkeyPatch) -> None:
    """A top-level form runs once: its call is made as it stands (``Call.evaluate``), not
    written and compiled into a Python function first. Same values, errors and backtrace."""
    from interpreter.nodes import compilers

    interp = Interpreter()
    interp.eval("(define (f x) (* x 2))")

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a top-level call was compiled")

    monkeypatch.setattr(compilers, "compile_call", refuse)
    assert interp.eval("(f 21)") == 42
    assert interp.eval("(apply + '(1 2 3))") == 6
    interp.eval("(define y (f (f 2)))")
    assert interp.eval("y") == 8
    with pytest.raises(SchemeError) as info:
        interp.eval("(f (car 5))", filename="top.scm")
    text = info.value.format()
    assert "car: expected a pair, got 5" in text
    assert text.splitlines()[1:] == ["  at (car 5)      top.scm:1:4", "  at (f (car 5))  top.scm:1:1"]
