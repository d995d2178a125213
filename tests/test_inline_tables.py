"""``hash-table-ref/default``, ``hash-table-ref``, ``hash-table-set!``, ``hash-table-contains?``
and the inline ``hash-table-update!/default`` read and write a table's dict in the compiled body
for keys that are their own dict key (``interpreter/compiler/inline_tables.py``): values,
errors (message, ``file:line:col``, backtrace), a rebinding of the built-in and
``parallel-map`` are those of the ordinary call."""

from __future__ import annotations

import subprocess
import sys

import pytest
from test_compiled_equivalence import Ways
from test_fused import Reference

from interpreter import Interpreter, SchemeError
from interpreter.compiler.inline_tables import TABLE_OPS, TABLE_STATEMENTS
from interpreter.primitives import hashtables

NAMES = [*TABLE_OPS, *TABLE_STATEMENTS, "hash-table-update!/default"]

#: The built-ins rebound to procedures that call them: nothing is inline.
WRAPPED = " ".join(f"(define {name} (let ((p {name})) (lambda xs (apply p xs))))" for name in NAMES)

#: Programs over a table ``t`` of each kind, keys from ``a``, values from ``b``.
PROGRAMS = [
    # every key kind: integers, symbols, strings (literal, built, mutable), floats, lists, characters
    "(let ((t (make-equal-hash-table))) (for-each (lambda (k) (hash-table-set! t k (list k b))) a)"
    " (map (lambda (k) (list (hash-table-ref/default t k 'none) (hash-table-contains? t k) (hash-table-ref t k))) a))",
    "(let ((t (make-strong-eqv-hash-table))) (for-each (lambda (k) (hash-table-set! t k b)) a)"
    " (map (lambda (k) (list (hash-table-ref/default t k 'none) (hash-table-exists? t k))) a))",
    # a later store replaces the value and the key kept: the key the table gives back
    "(let ((t (make-equal-hash-table))) (for-each (lambda (k) (hash-table-set! t k b) (hash-table-set! t k (list b k))) a)"
    " (list (hash-table-keys t) (hash-table-values t) (hash-table-count t)))",
    # a missing key: hash-table-ref's error, hash-table-ref/default's default
    "(let ((t (make-equal-hash-table))) (list (hash-table-ref/default t b a) (hash-table/get t a b) (hash-table-ref t b)))",
    # not a table
    "(hash-table-ref/default a b 0)",
    "(begin (hash-table-set! a b 1) a)",
    "(hash-table-contains? b a)",
    # updates over every key kind, the count read back inline
    "(let ((t (make-equal-hash-table))) (for-each (lambda (k) (hash-table-update!/default t k (lambda (c) (+ c 1)) b)) a)"
    " (map (lambda (k) (hash-table-ref/default t k #f)) a))",
    # the default is computed (and may fail) even when the key is there, as the call computes it
    "(let ((t (make-equal-hash-table))) (hash-table-set! t 1 b) (hash-table-update!/default t 1 (lambda (c) (list c)) (car a))"
    " (hash-table-ref t 1))",
]

ARGUMENTS = [
    ("'(1 2 1 x y x \"s\" \"s\")", "0"),
    ("(list (string #\\a) (string-append \"a\" \"\") 'a 1.5 1.5 '(1 2) '(1 2) #\\c)", "2"),
    ("'()", "'k"),
    ("7", "1"),
    ("(list 1 (number->string 1) (symbol->string 'x) 'x)", "#t"),
]


@pytest.mark.parametrize("expr", PROGRAMS)
def test_an_inline_table_operation_agrees_with_the_ordinary_call(expr: str) -> None:
    ways, reference = Ways(), Reference(WRAPPED)
    for a, b in ARGUMENTS:
        results = set(ways.run(expr, a, b))
        assert results == {reference.run(expr, a, b)}, (expr, a, b, results)


def test_reads_and_writes_are_inline_in_the_body(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval(
        "(define (fill t n) (do ((i 0 (+ i 1))) ((= i n) t) (hash-table-set! t i (* i 2))))"
        " (define (total t n) (do ((i 0 (+ i 1)) (s 0 (+ s (hash-table-ref/default t i 0)))) ((= i n) s)))"
    )
    assert interp.eval("(total (fill (make-equal-hash-table) 10000) 10001)") == sum(range(0, 20000, 2))
    fill = next(source for source in sources if "TABLE_GROWTH_FROM" in source)
    assert ".entries[" in fill and "(i * 2" not in fill  # stored in the dict itself
    total = next(source for source in sources if ".entries.get(" in source)
    assert "type(" in total and ".direct" in total


def ordinary(interp: Interpreter) -> Interpreter:
    """``interp`` with each table built-in bound to a new procedure of the same Python function:
    no longer the watched built-in, so every call is the ordinary one."""
    for name in NAMES:
        fn = hashtables.BUILTINS[name].fn
        interp.define_primitive(name, fn)
    return interp


ERRORS = [
    ("(define (get t) (+ 1 (hash-table-ref/default t 'k 0)))", "(get 5)"),
    ("(define (get t) (hash-table-ref t 'k))", "(get (make-equal-hash-table))"),
    ("(define (put t) (hash-table-set! t 1 2) t)", "(put (vector 1))"),
    ("(define (has t) (if (hash-table-contains? t \"k\") 1 2))", "(has '(1))"),
    ("(define (bump t) (hash-table-update!/default t 1 (lambda (c) (+ c 1)) 'x) t)", "(bump (make-equal-hash-table))"),
]


@pytest.mark.parametrize(("definition", "call"), ERRORS)
def test_an_error_is_the_ordinary_calls_with_its_location_and_backtrace(definition: str, call: str) -> None:
    texts = []
    for interp in (Interpreter(), ordinary(Interpreter())):
        interp.eval(definition, filename="tables.scm")
        with pytest.raises(SchemeError) as caught:
            interp.eval(f"\n  {call}", filename="caller.scm")
        texts.append(caught.value.format())
    assert texts[0] == texts[1]
    assert "tables.scm:1:" in texts[0] and "caller.scm:2:3" in texts[0]


def test_a_rebinding_of_the_builtin_is_seen() -> None:
    interp = Interpreter()
    interp.eval(
        "(define real-set! hash-table-set!) (define real-ref hash-table-ref/default)"
        " (define (put-get t) (hash-table-set! t 'k 1) (hash-table-ref/default t 'k #f))"
    )
    assert interp.eval("(put-get (make-equal-hash-table))") == 1
    interp.eval("(set! hash-table-set! (lambda (t k v) (real-set! t k (list \"mine\" v))))")
    assert interp.eval("(put-get (make-equal-hash-table))") == ["mine", 1]
    interp.eval("(set! hash-table-ref/default (lambda (t k d) \"theirs\")) (set! hash-table-set! real-set!)")
    assert interp.eval("(put-get (make-equal-hash-table))") == "theirs"
    interp.eval("(set! hash-table-ref/default real-ref)")
    assert interp.eval("(put-get (make-equal-hash-table))") == 1


def test_a_growing_table_still_reserves_its_memory() -> None:
    """At each power of two from 4,096 entries the store is the primitive's, which reserves the
    dict's next doubling: a memory limit refuses a table that would pass it.

    A table of 2**18 entries holds about 38 MB (the stdlib's included) and asks for 25 MB more:
    the limit (48 MB) sits between. The run has a process of its own, as a user's does: in a
    test worker's long-lived heap the allocator keeps the memory of earlier, freed tables (glibc
    raises its mmap threshold after big frees), and samples of the resident size read 40-51 MB
    before the reservation."""
    fill = "(define (fill t n) (do ((i 0 (+ i 1))) ((= i n) (hash-table-count t)) (hash-table-set! t i i)))"
    program = f"{fill} (display (fill (make-equal-hash-table) 5000)) (fill (make-equal-hash-table) 10000000)"
    done = subprocess.run(
        [sys.executable, "-m", "interpreter", "--max-memory", "48000000", "-e", program],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (1, "5000")
    # refused by the reservation, before the dict grew
    assert "memory limit exceeded: max_memory = 48000000 bytes (refused 25165824 more bytes" in done.stderr


def test_branches_updating_one_table() -> None:
    """Two ``parallel-map`` branches store into one table: each store is one dict write, the
    table holds every key afterwards (updates of one key race as the primitive's do)."""
    interp = Interpreter()
    interp.eval(
        "(define t (make-equal-hash-table))"
        " (define (fill from) (do ((i from (+ i 2))) ((>= i 20000) #t) (hash-table-set! t i (* i 2))))"
    )
    assert interp.eval("(parallel-map fill (list 0 1))") == [True, True]
    assert interp.eval("(hash-table-count t)") == 20000
    assert interp.eval("(let loop ((i 0) (s 0)) (if (= i 20000) s (loop (+ i 1) (+ s (hash-table-ref/default t i 0)))))") == sum(
        range(0, 40000, 2)
    )


def test_the_fallback_of_an_inline_walk_shows_its_call_once() -> None:
    """The inline arms' shared fallback (``Calls.fallback_arm``) closes the arm's call site
    before the ordinary call, which adds the call's frame itself: once, as a plain call shows it."""
    texts = []
    for interp in (Interpreter(), Interpreter()):
        if texts:
            interp.define_primitive("map", hashtables.BUILTINS["map"].fn)
        interp.eval("(define (firsts l) (map (lambda (x) (car x)) l) l)", filename="walk.scm")
        with pytest.raises(SchemeError) as caught:
            interp.eval("(firsts '(1))")
        texts.append(caught.value.format())
    assert texts[0] == texts[1] and texts[0].count("(map (lambda (x) (car x)) l)") == 1
