"""``memq``/``memv``/``member``/``assq``/``assv``/``assoc`` on a quoted list: compiled to a
table lookup (``interpreter/compiler/literal_search.py``) that answers exactly as the
primitive does, follows changes to the list, and gives way to a rebound operator."""

from __future__ import annotations

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.primitives.lists import search as lists
from interpreter.printer import write_string


def run(source: str, interp: Interpreter | None = None) -> str:
    interp = interp or Interpreter()
    return write_string(interp.eval_scheme(source))


@pytest.mark.parametrize(
    ("op", "key", "quoted", "expected"),
    [
        ("memv", "#\\e", "(#\\a #\\e #\\i)", "(#\\e #\\i)"),
        ("memv", "#\\z", "(#\\a #\\e #\\i)", "#f"),
        ("memv", "(integer->char 955)", "(#\\a #\\λ)", "(#\\λ)"),  # beyond Latin-1: by code point
        ("memv", "1.0", "(1 2)", "#f"),  # eqv?: exactness counts
        ("memv", "1", "(#t 1)", "(1)"),  # 1 and #t are kept apart
        ("memv", "#t", "(1 #t)", "(#t)"),
        ("memv", "0", "(#f 0)", "(0)"),
        ("memv", "#f", "(0 #f)", "(#f)"),
        ("memv", "(expt 10 40)", "(1 100000000000000000000000000000000000000000)", "#f"),
        ("memv", "(expt 10 40)", "(1 10000000000000000000000000000000000000000)", "(10000000000000000000000000000000000000000)"),
        ("memq", "'b", "(a b c)", "(b c)"),
        ("memq", "'()", "(a () c)", "(() c)"),
        ("memv", "\"a b\"", "(\"a b\")", "#f"),  # a list holding a string keeps the primitive: identity
        ("member", "\"ab\"", "(\"x\" \"ab\" c)", "(\"ab\" c)"),
        ("member", "(string-copy \"ab\")", "(\"x\" \"ab\")", "(\"ab\")"),
        ("member", "(let ((m (string-copy \"xb\"))) (string-set! m 0 #\\a) m)", "(1 \"ab\")", "(\"ab\")"),
        ("member", "'ab", "(\"ab\")", "#f"),
        ("member", "#\\a", "(\"a\" #\\a)", "(#\\a)"),
        ("member", "'(1)", "(1 (1))", "((1))"),  # a structured element keeps the primitive
        ("member", "1.5", "(1 a)", "#f"),
        ("assv", "2", "((1 . one) (2 . two) (2 . again))", "(2 . two)"),  # the first entry wins
        ("assv", "3", "((1 . one) (2 . two))", "#f"),
        ("assq", "'b", "((a 1) (b 2))", "(b 2)"),
        ("assoc", "\"b\"", "((\"a\" . 1) (\"b\" . 2))", "(\"b\" . 2)"),
        ("assoc", "(string-copy \"b\")", "((\"a\" . 1) (\"b\" . 2))", "(\"b\" . 2)"),
        ("assv", "1.5", "((1.5 . x))", "(1.5 . x)"),  # a float key keeps the primitive
        ("memv", "2", "(1 2 . 3)", "(2 . 3)"),  # an improper list keeps the primitive
        ("memv", "5", "#0=(1 2 . #0#)", "circular"),
    ],
)
def test_searches_of_a_quoted_list_answer_as_the_primitive(op: str, key: str, quoted: str, expected: str) -> None:
    """The same search compiled in a procedure body, in an ``if`` test at top level and
    through the primitive itself (the list passed as a variable) all give ``expected``."""
    interp = Interpreter()
    call = f"({op} {key} '{quoted})"
    interp.eval(f"(define (f) {call}) (define lst '{quoted}) (define (g) ({op} {key} lst))")
    if expected == "circular":  # the primitive's error, with or without the table
        with pytest.raises(SchemeError, match="circular"):
            interp.eval("(g)")
        with pytest.raises(SchemeError, match="circular"):
            interp.eval("(f)")
        return
    assert run("(f)", interp) == expected
    assert run(f"(if #t {call} 'no)", interp) == expected
    assert run("(g)", interp) == expected


def test_a_qualifying_literal_is_not_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled call answers from its table: the primitive's list walk never runs."""
    interp = Interpreter()
    interp.eval("(define (vowel? c) (memv c '(#\\a #\\e #\\i #\\o #\\u)))")
    interp.eval("(define (entry k) (assq k '((a . 1) (b . 2))))")
    walks: list[str] = []
    # every way into a list walk: the general one, the first passes by kind of key
    for name in ("_find", "_search", "_ASSV_INT", "_ASSOC_TEXT"):
        real = getattr(lists, name)
        monkeypatch.setattr(lists, name, lambda who, *rest, real=real: walks.append(who) or real(who, *rest))
    assert run("(list (vowel? #\\e) (vowel? #\\b) (entry 'b) (entry 'z))", interp) == "((#\\e #\\i #\\o #\\u) #f (b . 2) #f)"
    assert walks == []
    assert run("(memv 1 (list 1))", interp) == "(1)"  # a list that is not quoted at the call: walked
    assert walks == ["memv"]
    # a program's own member leaves the other built-ins inline (one flag per name)
    interp.eval("(define (member x l) 'mine) (define (vowel2? c) (memv c '(#\\a #\\e)))")
    assert run("(list (vowel2? #\\e) (member 1 '(1)))", interp) == "((#\\e) mine)"
    assert walks == ["memv"]


def test_changes_to_the_quoted_list_are_seen() -> None:
    """set-car!, set-cdr!, list-set! and sort! on the literal itself (reached through the
    search's own answer) change what later searches find."""
    interp = Interpreter()
    interp.eval("(define (f x) (memv x '(3 1 2)))")
    interp.eval("(set-car! (f 1) 9)")
    assert run("(list (f 9) (f 1) (f 3))", interp) == "((9 2) #f (3 9 2))"
    interp.eval("(list-set! (f 3) 2 7)")
    assert run("(list (f 2) (f 7))", interp) == "(#f (7))"
    interp.eval("(sort! (f 3) <)")
    assert run("(f 3)", interp) == "(3 7 9)"
    interp.eval("(set-cdr! (f 7) '())")
    assert run("(list (f 9) (f 7))", interp) == "(#f (7))"
    # an element the table cannot hold: the call goes back to the primitive for good
    interp.eval("(set-car! (f 3) 2.5)")
    assert run("(list (f 2.5) (f 3) (f 7))", interp) == "((2.5 7) #f (7))"
    interp.eval("(set-car! (f 2.5) 4)")
    assert run("(list (f 4) (f 2.5))", interp) == "((4 7) #f)"


def test_an_alist_entry_changed_or_made_circular() -> None:
    interp = Interpreter()
    interp.eval("(define (f k) (assv k '((1 . one) (2 . two))))")
    interp.eval("(set-car! (f 2) 3)")
    assert run("(list (f 2) (f 3))", interp) == "(#f (3 . two))"
    interp.eval("(set-cdr! (f 3) 'three)")  # an entry's cdr: the same entry, new contents
    assert run("(f 3)", interp) == "(3 . three)"
    interp.eval("(define (g k) (memv k '(1 2)))")
    interp.eval("(set-cdr! (cdr (g 1)) (g 1))")  # the literal made circular
    assert run("(eq? (g 2) (cdr (g 1)))", interp) == "#t"
    with pytest.raises(SchemeError) as info:
        interp.eval("(g 5)")
    assert info.value.kind == "type-error" and "circular" in info.value.message
    assert "(memv k" in str(info.value)  # the call's own backtrace line


def test_a_rebound_search_is_called() -> None:
    interp = Interpreter()
    interp.eval("(define (f c) (if (memv c '(#\\a #\\e)) 'vowel 'other))")
    assert run("(f #\\a)", interp) == "vowel"
    interp.eval("(define (memv x l) (not (eqv? x #\\a)))")
    assert run("(list (f #\\a) (f #\\b))", interp) == "(other vowel)"


def test_under_parallel_map_and_limits() -> None:
    """Branches share a table; the search itself counts no steps, as the primitive."""
    interp = Interpreter()
    interp.eval("(define (kind c) (cond ((memv c '(#\\a #\\e #\\i #\\o #\\u)) 'vowel) (else 'other)))")
    assert run("(parallel-map kind (string->list \"abe\"))", interp) == "(vowel other vowel)"
    limited = Interpreter(max_steps=50)
    limited.eval("(define (count s) (let loop ((i 0) (n 0)) (if (= i (string-length s)) n"
                 " (loop (+ i 1) (if (memv (string-ref s i) '(#\\a)) (+ n 1) n)))))")
    assert limited.eval('(count "banana")') == 3
    with pytest.raises(SchemeError) as info:
        limited.eval("(count (make-string 1000 #\\a))")
    assert info.value.kind == "resource-exhaustion"
