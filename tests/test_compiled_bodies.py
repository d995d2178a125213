"""Procedure bodies compiled to Python: parameters kept in Python locals must behave
exactly like frame variables, whoever reads or assigns them."""

from __future__ import annotations

import warnings

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.compiler import emitter
from interpreter.printer import write_string


def run(source: str) -> str:
    """The value of the last form in ``source``, as ``write`` prints it."""
    return write_string(Interpreter().eval_scheme(source))


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # closures made on successive iterations of a self tail call each keep their own n
        (
            "(define (collect n acc) (if (= n 3) (map (lambda (f) (f)) acc)"
            " (collect (+ n 1) (cons (lambda () n) acc)))) (collect 0 '())",
            "(2 1 0)",
        ),
        # a closure over a parameter sees its value
        ("(define (adder n) (lambda (x) (+ x n))) ((adder 5) 10)", "15"),
        # set! of a parameter, directly and from a nested closure
        ("(define (f n) (set! n (* n 2)) (+ n 1)) (f 5)", "11"),
        ("(define (counter n) (lambda () (set! n (+ n 1)) n)) (define c (counter 0)) (c) (c)", "2"),
        # a nested frame that shadows a parameter
        ("(define (f n) (let ((n 5)) (set! n 6) n)) (f 1)", "6"),
        ("(define (f n) (define (g n) (set! n 0) n) (list (g n) n)) (f 7)", "(0 7)"),
        # parameters read from nested frames: let, do, named let, guard, delay
        ("(define (f n) (let ((m 1)) (+ n m))) (f 4)", "5"),
        ("(define (f n) (do ((i 0 (+ i 1)) (acc '() (cons n acc))) ((= i 2) acc))) (f 'x)", "(x x)"),
        ("(define (f n) (let loop ((i 0)) (if (= i n) i (loop (+ i 1))))) (f 9)", "9"),
        ("(define (f n) (guard (e (#t (list 'caught n))) (raise 'oops))) (f 3)", "(caught 3)"),
        ("(define (f n) (force (delay (* n n)))) (f 6)", "36"),
        # a parameter shadowing a built-in, and a non-integer through the slow path
        ("(define (f car) (car 1)) (f (lambda (x) (+ x 1)))", "2"),
        ("(define (half n) (if (< n 1) n (half (/ n 2)))) (half 3)", "3/4"),
        ("(define (f a b) (if (< a b) 'less 'more)) (f 1.5 2.5)", "less"),
        # a test whose value is an integer constant (generated code must not say `0 is not False`)
        ("(define (f a) (if (begin a 0) 'yes 'no)) (f 1)", "yes"),
        # let inside a body: its variables are locals too, with the same meaning
        ("(define (f a) (let ((a (+ a 1)) (b a)) (list a b))) (f 1)", "(2 1)"),
        ("(define (f a) (let ((b (* a 2))) (let ((c (+ a b))) (list a b c)))) (f 3)", "(3 6 9)"),
        ("(define (f a) (let ((b a)) (lambda () (list a b)))) ((f 4))", "(4 4)"),
        (
            "(define (collect n acc) (if (= n 3) (map (lambda (f) (f)) acc)"
            " (let ((m (* n 10))) (collect (+ n 1) (cons (lambda () (list n m)) acc))))) (collect 0 '())",
            "((2 20) (1 10) (0 0))",
        ),
        ("(define (f a) (let ((b a)) (set! b (+ b 1)) b)) (f 1)", "2"),
        ("(define (f a) (let () (+ a 1))) (f 1)", "2"),
        # internal defines keep their own frame
        ("(define (f n) (define m (* n 3)) (+ m 1)) (f 2)", "7"),
        # frame mode (an internal define): do, let and let-values still run on locals, and
        # see and assign the frame's variables; closures keep each iteration's binding
        (
            "(define (f n) (define v (make-vector n)) (do ((i 0 (+ i 1))) ((= i n) v) (vector-set! v i (* i i))))"
            " (f 4)",
            "#(0 1 4 9)",
        ),
        ("(define (f n) (define s 0) (do ((i 0 (+ i 1))) ((= i n) s) (set! s (+ s i)))) (f 5)", "10"),
        (
            "(define (f n) (define fs '()) (do ((i 0 (+ i 1))) ((= i n) (map (lambda (g) (g)) fs))"
            " (set! fs (cons (lambda () i) fs)))) (f 3)",
            "(2 1 0)",
        ),
        ("(define (f n) (define m 2) (let ((k (* n m))) (let-values (((a b) (values k m))) (list a b)))) (f 3)", "(6 2)"),
        (
            "(define (f n acc) (define m 1) (if (= n 0) acc (do ((i 0 (+ i 1))) ((= i m) (f (- n 1) (cons n acc))))))"
            " (f 3 '())",
            "(1 2 3)",
        ),
        # string ports written inline: fresh-line sees the column, get-output-string the text
        (
            "(define (f n) (let ((p (open-output-string))) (do ((i 0 (+ i 1))) ((= i n))"
            ' (write-string "ab" p) (write-char #\\c p) (fresh-line p) (display (number->string i) p))'
            " (newline p) (fresh-line p) (get-output-string p))) (f 2)",
            '"abc\\n0abc\\n1\\n"',
        ),
        # string-append inline on literals, mutable strings, an edited one, and past SMALL_STRING
        (
            "(define (f s) (let ((m (string-copy s))) (string-set! m 0 #\\z)"
            ' (list (string-append s "-" (string-copy s)) (string-append m s) (string-length (string-append'
            " (make-string 40000 #\\a) (make-string 40000 #\\b)))))) (f \"ab\")",
            '("ab-ab" "zbab" 80000)',
        ),
        # named lets in tail position run as Python loops: closures keep each iteration's
        # bindings; a non-tail or escaping use of the name keeps the procedure
        (
            "(define (f n) (let loop ((i 0) (fs '())) (if (= i n) (map (lambda (g) (g)) fs)"
            " (loop (+ i 1) (cons (lambda () i) fs))))) (f 3)",
            "(2 1 0)",
        ),
        ("(define (f n) (let loop ((i n)) (if (= i 0) '() (cons i (loop (- i 1)))))) (f 3)", "(3 2 1)"),
        ("(define (f n) (let loop ((i n)) (if (= i 0) loop (loop (- i 1))))) (procedure? (f 3))", "#t"),
        (
            "(define (f n) (let outer ((i 0) (acc '())) (let inner ((j 0) (acc acc))"
            " (cond ((= i n) acc) ((= j 2) (outer (+ i 1) acc)) (else (inner (+ j 1) (cons (list i j) acc)))))))"
            " (f 2)",
            "((1 1) (1 0) (0 1) (0 0))",
        ),
        ("(define (f s) (let loop ((i 0) (n 0)) (if (= i (string-length s)) n (loop (+ i 1) (+ n i))))) (f \"abcd\")", "6"),
        # global variables read inline in expressions: defined after the body, rebound, false
        ("(define (f i) (+ (vector-ref tbl i) g)) (define tbl (vector 1 2)) (define g 40) (f 1)", "42"),
        ("(define (f) (if flag (* k 2) 'no)) (define flag #f) (define k 1) (list (f) (begin (set! flag 0) (f)))", "(no 2)"),
        # rest parameters, and a wrong count at a self tail call
        ("(define (f . xs) (if (null? xs) 'done (apply f (cdr xs)))) (f 1 2 3)", "done"),
        ("(define (f a . xs) (if (null? xs) a (f (+ a (car xs))))) (f 1 2)", "3"),
    ],
)
def test_parameters_behave_as_variables(source: str, expected: str) -> None:
    assert run(source) == expected


def test_an_unbound_global_in_an_inline_expression_is_the_usual_error() -> None:
    interp = Interpreter()
    interp.eval_scheme("(define (f i) (+ (vector-ref missing i) 1))")
    with pytest.raises(SchemeError) as info:
        interp.eval_scheme("(f 0)")
    assert info.value.kind == "unbound-variable"
    assert "missing" in info.value.message


def test_a_named_let_loop_keeps_its_limits_and_backtrace() -> None:
    runaway = "(define (f) (let loop ((i 0)) (loop (+ i 1)))) (f)"
    with pytest.raises(SchemeError) as info:
        Interpreter(max_steps=10_000).eval_scheme(runaway)
    assert info.value.kind == "resource-exhaustion"
    with pytest.raises(SchemeError) as info:
        Interpreter(timeout=0.2).eval_scheme(runaway)
    assert info.value.kind == "resource-exhaustion"
    with pytest.raises(SchemeError) as info:
        Interpreter().eval_scheme(
            "(define (f n) (let loop ((i 0) (acc '())) (if (= i n) acc (loop (+ i 1) (cons (vector-ref (vector 1) i) acc)))))"
            " (f 3)"
        )
    frames = [frame.expr for frame in info.value.frames]
    assert frames[:2] == ["(vector-ref (vector 1) i)", "(cons (vector-ref (vector 1) i) acc)"]
    assert frames[2].startswith("(loop (+ i 1)")


def test_a_port_procedure_rebound_after_compiling_is_called() -> None:
    interp = Interpreter()
    interp.eval_scheme("(define (put p) (write-char #\\a p) (write-string \"b\" p) p)")
    port = interp.eval_scheme("(put (open-output-string))")
    interp.eval_scheme("(define seen '()) (define (write-char c p) (set! seen (cons c seen)))")
    interp.eval_scheme("(define (write-string s p) (set! seen (cons s seen)))")
    interp.eval_scheme("(put (open-output-string))")
    assert write_string(interp.eval_scheme("seen")) == '("b" #\\a)'
    assert port.getvalue() == "ab"


def test_rebinding_a_builtin_takes_the_slow_path_with_the_parameters_intact() -> None:
    interp = Interpreter()
    interp.eval_scheme("(define (f n) (if (< n 2) n (+ (f (- n 1)) (f (- n 2)))))")
    assert interp.eval("(f 10)") == 55
    interp.eval_scheme("(define saved -) (set! - (lambda (a b) (saved a b)))")
    assert interp.eval("(f 10)") == 55


def test_a_task_with_full_context_assigns_the_callers_parameter() -> None:
    interp = Interpreter()
    interp.eval("(define-task (bump!) (set! counter (+ counter 1)) counter)")
    assert interp.eval("(define (twice counter) (bump!) (bump!) counter) (twice 10)") == 12


def test_a_closure_made_by_a_task_assigns_the_callers_parameter_later() -> None:
    interp = Interpreter()
    interp.eval("""
      (define-task (make-bumper) (lambda () (set! counter (+ counter 1))))
      (define stored #f)
      (define (store! b) (set! stored b))
      (define (call-stored) (stored))
      (define (use counter) (store! (make-bumper)) (call-stored) (call-stored) counter)
    """)
    assert interp.eval("(use 10)") == 12


def test_arity_errors_name_the_procedure_and_counts() -> None:
    interp = Interpreter()
    interp.eval("(define (two a b) (list a b)) (define (call-it) (two 1))")
    for source in ["(two 1)", "(call-it)", "(apply two '(1 2 3))", "(map two '(1 2))"]:
        with pytest.raises(SchemeError) as info:
            interp.eval(source)
        assert info.value.kind == "arity-error", source
        assert "two" in info.value.message and "2 arguments" in info.value.message, info.value.message


def test_a_slow_path_that_assigns_a_parameter_is_seen_at_once() -> None:
    """``<`` rebound to a task with full context: the inline comparison falls back to
    an ordinary call, which hands the task the frame, and the task assigns ``n``."""
    interp = Interpreter()
    interp.eval("(define-task (sneaky a b) (set! n 100) #f)")
    interp.eval("(define (f n) (if (< n 2) 'small n))")
    assert interp.eval("(f 5)") == 5
    interp.eval("(define < (task-ref 'sneaky))")
    assert interp.eval("(f 5)") == 100


def test_operands_are_evaluated_left_to_right() -> None:
    """An inline operand runs before a later operand that needs statements (a global)."""
    interp = Interpreter()
    interp.eval("(define log '()) (define (note x) (set! log (cons x log)) x)")
    interp.eval("(define (f a) (list (note 'first) (+ a 1) (note 'second) (* a 2)))")
    assert write_string(interp.eval_scheme("(f 1)")) == "(first 2 second 2)"
    assert write_string(interp.eval_scheme("log")) == "(second first)"
    interp.eval("(define (g a) (+ (+ a #t) not-defined-anywhere))")
    with pytest.raises(SchemeError) as info:
        interp.eval("(g 0)")
    assert info.value.message == "+: expected a number, got #t"


def test_a_task_with_full_context_assigns_a_let_variable_of_the_caller() -> None:
    interp = Interpreter()
    interp.eval("(define-task (bump!) (set! counter (+ counter 1)) counter)")
    assert interp.eval("(define (twice start) (let ((counter start)) (bump!) (bump!) counter)) (twice 10)") == 12


def test_a_recursive_body_keeps_no_copies_in_its_frame() -> None:
    """Every local of a generated body is in every frame of a deep recursion: variables
    already in Python locals are not copied for the arithmetic guards, a literal operand
    is not put in a temporary, and the error handler binds no name."""
    interp = Interpreter()
    interp.eval("(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))")
    assert interp.eval("(count 300)") == 300
    names = interp.eval_scheme("count").run.__code__.co_varnames
    assert "exc" not in names
    assert len([n for n in names if n.startswith("t")]) == 1, names  # the value of (count (- n 1))


@pytest.mark.parametrize(
    ("body", "frames"),
    [
        ("(vector-set! v 5 0) 'done", ["(vector-set! v 5 0)", "(f (vector 1))"]),
        ("(list (vector-set! v 5 0))", ["(vector-set! v 5 0)", "(list (vector-set! v 5 0))", "(f (vector 1))"]),
        # (frames show an expression's first 37 characters)
        ("(vector-set! (vector-copy v) (car (list 5)) 0) 'done", ["(vector-set! (vector-copy v) (car (li...", "(f (vector 1))"]),
        ("(list (vector-ref v (length (list 1 2))))", ["(vector-ref v (length (list 1 2)))", "(list (vector-ref v (length (list 1 2...", "(f (vector 1))"]),
        ("(cons (car (cdr (vector->list v))) 1)", ["(car (cdr (vector->list v)))", "(cons (car (cdr (vector->list v))) 1)", "(f (vector 1))"]),
    ],
)
def test_an_inline_call_that_fails_has_each_call_in_progress_once_in_its_backtrace(body: str, frames: list[str]) -> None:
    """A built-in computed inline falls back to the ordinary call when its guard fails:
    the backtrace names that call and each call around it once, operands' calls or not."""
    interp = Interpreter()
    interp.eval_scheme(f"(define (f v) {body})")
    with pytest.raises(SchemeError) as info:
        interp.eval_scheme("(f (vector 1))")
    assert [frame.expr for frame in info.value.frames] == frames


def test_a_rebound_comparison_in_a_test_follows_scheme_truth() -> None:
    """A comparison or predicate tested inline (no ``is not False`` on its bool arms) still
    tests its fallback's value the Scheme way when the name is rebound: 0 and '() are true.
    (The step limit ends the do loop if its 0 were taken for false.)"""
    interp = Interpreter(max_steps=100_000)
    interp.eval_scheme(
        "(define (f x) (list (if (< x 1) 'yes 'no) (cond ((null? x) 'a) (else 'b))"
        " (do ((i 0 (+ i 1))) ((= i 2) i)) (if (eq? x 'z) 'same 'other)))"
    )
    assert write_string(interp.eval_scheme("(f 5)")) == "(no b 2 other)"
    interp.eval_scheme(
        "(define < (lambda (a b) 0)) (define null? (lambda (x) '()))"
        " (define = (lambda (a b) (if (> a 1) 0 #f))) (define eq? (lambda (a b) #f))"
    )
    assert write_string(interp.eval_scheme("(f 5)")) == "(yes a 2 other)"


def test_a_comparison_a_test_jumps_on_keeps_its_jump_short(sources: list[str]) -> None:
    """On CPython 3.11 a test's comparison is written ``(True if a < b else False)``
    (``emitter.SHORT_JUMPS``), so that it stays one specialized instruction with its
    jump; a comparison whose value is the result is left as it is."""
    interp = Interpreter()
    interp.eval("(define (f a b) (if (< a b) (list a b) (< b a)))")
    assert interp.eval("(f 1 2)") == [1, 2]
    assert interp.eval("(f 2 1)") is True
    assert interp.eval("(f 1.5 1)") is True
    source = "\n".join(sources)
    assert ("(True if arg0 < arg1 else False)" in source) is emitter.SHORT_JUMPS, source
    assert "return (arg1 < arg0" in source and "True if arg1 < arg0" not in source, source


def test_a_statement_reuses_the_temporaries_an_earlier_one_left_dead() -> None:
    """A body takes again the temporaries of statements that are done (``Emitter.effect``),
    so its frame holds fewer locals; a value put aside before such a statement (an earlier
    operand of the same call) keeps a name of its own."""
    interp = Interpreter()
    interp.eval(
        """(define v (vector 0 0))
           (define (f a b) (list a b))
           (define (g l x) (f (car l) (begin (vector-set! v (car x) (+ (cadr x) 1)) (vector-ref v 0))))
           (define (h l)
             (vector-set! v 0 (+ (car l) 1))
             (vector-set! v 1 (+ (cadr l) 1))
             (vector-set! v 0 (+ (vector-ref v 0) (vector-ref v 1)))
             (vector->list v))"""
    )
    assert interp.eval("(g '(7 8) '(0 41))") == [7, 42]
    assert interp.eval("(h '(1 2))") == [5, 3]
    run = interp.eval_scheme("h").run
    assert run.__code__.co_nlocals < 25, run.__code__.co_varnames  # 34 when each statement had its own


@pytest.mark.parametrize("call", ["(vector-ref 0 (length l))", "(vector-set! 7 (length l) 'x)"])
def test_an_integer_literal_where_a_vector_goes_is_the_usual_error(call: str) -> None:
    """``(vector-ref 0 i)`` compiled as a statement: the literal goes in a name, since the
    code that subscripts it (which the guard never lets run) would be a SyntaxWarning."""
    interp = Interpreter()
    interp.eval(f"(define (f l) {call})")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(SchemeError) as info:
            interp.eval("(f '(1))")
    assert info.value.kind == "type-error" and "expected a vector, got" in info.value.message


def test_an_integer_literal_operand_of_a_guarded_builtin_is_not_tested() -> None:
    """``(modulo i 26)``: the literal stands in the code as it is; its type and its being
    non-zero are known, so only ``i`` is tested. A zero divisor still takes the primitive."""
    from helpers import compiled_sources

    interp = Interpreter()
    with compiled_sources() as seen:
        interp.eval_scheme("(define (f i) (list (modulo i 26) (remainder i -7) (quotient i 3)))")
        assert write_string(interp.eval_scheme("(f 100)")) == "(22 2 33)"
    source = "".join(seen)
    assert "i % (26)" not in source and "% (26) if type(arg0) is int and" in source
    assert "type((26)) is int" not in source and "(26) != 0" not in source
    assert write_string(interp.eval_scheme("(f -100)")) == "(4 -2 -33)"
    with pytest.raises(SchemeError, match="modulo"):
        interp.eval_scheme("(f 2.5)")
    interp.eval_scheme("(define (g i) (modulo i 0))")
    with pytest.raises(SchemeError) as info:
        interp.eval_scheme("(g 5)")
    assert info.value.frames and info.value.frames[0].expr == "(modulo i 0)"
