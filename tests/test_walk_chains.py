"""A chain of walks, each over the next one's new list, runs as one loop in a compiled body
(``interpreter/compiler/inline_fusion.py``): ``(fold-left + 0 (filter even? (map f (iota
n))))`` makes no list, ``(apply + (map g (filter p l)))`` none either. Values, errors (kind,
message, backtrace), the order names are read in, rebindings and limits are those of the
ordinary calls."""

from __future__ import annotations

import pytest
from test_compiled_equivalence import Ways
from test_fused import Reference
from test_walk_sources_and_sinks import ARGUMENTS, ORDINARY, frames

from interpreter import Interpreter, SchemeError

#: Chains of two to four walks: over a list or iota's numbers, into a walk or a sink.
CHAINS = [
    "(fold-left + b (filter even? (map (lambda (x) (* x 3)) (iota a))))",
    "(fold-left + 0 (filter even? (map (lambda (x) (* x 3)) a)))",
    "(map (lambda (x) (+ x b)) (filter odd? (map (lambda (x) (* x x)) a)))",
    "(filter (lambda (x) (< x b)) (map (lambda (x) (- x 1)) (map (lambda (x) (* x 2)) a)))",
    "(fold + b (map (lambda (x) (- x 1)) (filter (lambda (x) (< x 10)) (map (lambda (x) (* x 2)) (filter odd? a)))))",
    "(fold cons '() (filter number? (map (lambda (x) (if (> x b) x 'no)) (map (lambda (x) (* x 2)) a))))",
    "(apply + (map (lambda (x) (* x b)) (filter even? (iota a))))",
    "(apply + (map (lambda (x) (if (> x b) 1.5 x)) (filter odd? (iota a))))",  # the sink refuses 1.5
    "(apply string-append (map number->string (filter (lambda (x) (> x b)) (map (lambda (x) (+ x 1)) a))))",
    "(length (map car (map (lambda (x) (cons x b)) (filter number? a))))",
    # an error in each walk, at one element or another, depending on the list
    "(map (lambda (x) (+ x b)) (map car (filter pair? (map (lambda (x) (if (number? x) (list x) x)) a))))",
    "(fold-left (lambda (s x) (+ s (car x))) b (map (lambda (x) (cons x x)) (filter (lambda (x) (> x b)) a)))",
    "(filter (lambda (x) (< (car x) b)) (map (lambda (x) (list x)) (filter odd? (map (lambda (x) (- x b)) a))))",
]


@pytest.mark.slow
@pytest.mark.parametrize("expr", CHAINS)
def test_a_chain_agrees_with_the_ordinary_calls(expr: str) -> None:
    # every way of running it, a parallel-map branch among them, against the ordinary calls
    ways, reference = Ways(), Reference(ORDINARY)
    for a, b in [*ARGUMENTS, ("'(1 (2) 3)", "0"), ("'(5 6 7 8)", "12")]:
        results = set(ways.run(expr, a, b))
        assert results == {reference.run(expr, a, b)}, (expr, a, b, results)


def test_a_chain_of_three_walks_over_iota_makes_no_list(sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval("(define (hof n) (fold-left + 0 (filter even? (map (lambda (x) (* x 3)) (iota n)))))")
    assert interp.eval("(hof 1000)") == sum(y for y in (x * 3 for x in range(1000)) if y % 2 == 0)
    body = next(source for source in sources if "iota_numbers(" in source)
    fast = body.split("else:")[0]
    assert fast.count(" in polled(") == 1 and "Pair()" not in fast and "probing_rounds" not in fast


@pytest.mark.parametrize(
    "program",
    [
        "(define (f l) (apply + (map (lambda (x) (* x x)) (filter odd? (map (lambda (x) (+ x 1)) l)))))",
        "(define (f l) (length (map car (map list (filter pair? l)))))",
        "(define (f l) (map (lambda (x) (* x 2)) (filter odd? (map (lambda (x) (+ x 1)) (filter even? l)))))",
    ],
)
def test_a_chain_over_a_list_is_one_loop(program: str, sources: list[str]) -> None:
    interp = Interpreter()
    interp.eval(program)
    interp.eval("(f '(1 2 3 4))")
    body = next(source for source in sources if "probing_rounds(" in source)
    assert body.count("in probing_rounds(") == 1 and body.count("in polled(") == 0  # one loop in all
    assert body.count("Pair()") == (2 if "(map (lambda (x) (* x 2))" in program else 0)  # the result's head, its pairs


#: A chain of four walks, and calls whose error comes from each walk in turn, from the list
#: and from iota.
CHAIN_PROGRAM = """
(define (chain l) (fold-left (lambda (s x) (+ s x)) 0 (filter (lambda (x) (< (car x) 9)) (map list (map (lambda (x) (* x 2)) l)))))
(define (numbers n) (apply + (map (lambda (x) (car x)) (filter number? (map (lambda (x) (- x 1)) (iota n))))))"""

CHAIN = "(fold-left (lambda (s x) (+ s x)) 0 (..."
MAPPED = "(map list (map (lambda (x) (* x 2)) l))"
FILTERED = "(filter (lambda (x) (< (car x) 9)) (m..."
NUMBERS = "(apply + (map (lambda (x) (car x)) (f..."
SHOWN = {
    "(chain '(1 x))": ["(* x 2)", "(map (lambda (x) (* x 2)) l)", MAPPED, FILTERED, CHAIN, "(chain '(1 x))"],
    "(chain '(1 2 5))": ["(+ s x)", CHAIN, "(chain '(1 2 5))"],
    "(chain '(1 2 . 3))": ["(map (lambda (x) (* x 2)) l)", MAPPED, FILTERED, CHAIN, "(chain '(1 2 . 3))"],
    "(chain 7)": ["(map (lambda (x) (* x 2)) l)", MAPPED, FILTERED, CHAIN, "(chain 7)"],
    "(numbers 3)": ["(car x)", "(map (lambda (x) (car x)) (filter num...", NUMBERS, "(numbers 3)"],
    "(numbers 'x)": ["(iota n)", "(map (lambda (x) (- x 1)) (iota n))", "(filter number? (map (lambda (x) (- x..."],
}


def test_an_error_in_any_walk_has_the_ordinary_calls_backtrace() -> None:
    fast, ordinary = Interpreter(), Interpreter()
    fast.eval(CHAIN_PROGRAM)
    ordinary.eval(ORDINARY)  # the same program, every built-in it names taken the ordinary way
    ordinary.eval(CHAIN_PROGRAM)
    for call, shown in SHOWN.items():
        message, fast_frames = frames(fast, call)
        ordinary_message, ordinary_frames = frames(ordinary, call)
        assert message == ordinary_message, call
        assert fast_frames[: len(shown)] == shown, (call, fast_frames)
        # the wrappers' own calls aside (a frame of ORDINARY's walks and apply), the ordinary calls show the same
        assert [frame for frame in ordinary_frames if frame not in ("(apply p xs)", "(p f l)")] == fast_frames, call


#: Each name of ``hof`` rebound to a procedure that gives another answer, and that answer.
REBOUND = {
    "fold-left": ("(lambda (f init l) (length l))", 5),
    "filter": ("(lambda (p l) (list 1))", 1),
    "map": ("(lambda (f l) (list 2 4))", 6),
    "iota": ("(lambda (n) (list 2))", 6),
    "+": ("(lambda (a b) (- a b))", -60),
    "even?": ("(lambda (x) (> x 20))", 21 + 24 + 27),
    "*": ("(lambda (a b) (+ a b))", 4 + 6 + 8 + 10 + 12),
}


@pytest.mark.parametrize("name", list(REBOUND))
def test_each_rebound_name_of_a_chain_is_the_one_called(name: str) -> None:
    interp = Interpreter()
    interp.eval("(define (hof n) (fold-left + 0 (filter even? (map (lambda (x) (* x 3)) (iota n)))))")
    assert interp.eval("(hof 10)") == 60
    source, answer = REBOUND[name]
    interp.eval(f"(define real {name}) (set! {name} {source})")
    assert interp.eval("(hof 10)") == answer
    interp.eval(f"(set! {name} real)")
    assert interp.eval("(hof 10)") == 60


@pytest.mark.parametrize(
    "expr",
    [
        "(fold-left + 0 (filter even? (map car (list (list a) (begin (set! even? odd?) (list b))))))",
        "(fold-left + 0 (filter even? (map (lambda (x) (* x 3)) (begin (set! even? odd?) (list a b)))))",
        "(fold-left + (begin (set! even? odd?) 0) (filter even? (map (lambda (x) (* x 3)) (list a b))))",
        "(apply + (map car (filter pair? (map list (list a (begin (set! + -) b))))))",
        "(fold-left + 0 (filter even? (map (lambda (x) (* x 3)) (iota (begin (set! + -) a)))))",
    ],
)
def test_the_names_of_a_chain_are_read_in_the_ordinary_order(expr: str) -> None:
    """A name given by name is read before the operands after it: an operand that rebinds
    one leaves the calls with the procedure they were written with."""
    ways, reference = Ways(), Reference(ORDINARY)
    for a, b in [("0", "1"), ("2", "4"), ("'(1)", "'(2)")]:
        results = set(ways.run(expr, a, b))
        assert results == {reference.run(expr, a, b)}, (expr, a, b, results)


def test_each_walk_of_a_chain_counts_its_steps() -> None:
    """One step per element for each walk the element reaches, as the walks count theirs:
    1,000 numbers through map, filter and fold-left (half of them) are 2,500 steps."""
    program = "(define (hof n) (fold-left + 0 (filter even? (map (lambda (x) (* x 3)) (iota n)))))"
    short, enough = Interpreter(max_steps=2_200), Interpreter(max_steps=3_000)
    for interp in (short, enough):
        interp.eval(program)
    with pytest.raises(SchemeError, match="step limit"):
        short.eval("(hof 1000)")
    assert enough.eval("(hof 1000)") == 3 * sum(range(0, 1000, 2))


@pytest.mark.slow
def test_a_chain_into_a_sink_needs_no_memory_for_lists_and_what_it_builds_is_charged() -> None:
    budget = 32 * 2**20
    interp = Interpreter(max_memory=budget)
    interp.eval("(define (evens n) (map (lambda (x) (+ x 1)) (filter even? (map (lambda (x) (* x 3)) (iota n)))))")
    interp.eval(
        "(define (count n) (length (map (lambda (x) (+ x 1)) (filter even? (map (lambda (x) (* x 3)) (iota n))))))"
    )
    assert interp.eval("(count 2000000)") == 1_000_000  # no list of 1,000,000 pairs: 56 MB
    with pytest.raises(SchemeError) as caught:
        interp.eval("(length (evens 2000000))")  # the chain's own list of 1,000,000 pairs
    assert caught.value.details["resource"] == "memory"
