"""Special forms, as DSL source and the value ``write`` prints for it."""

from __future__ import annotations

import pytest

CASES = [
    # quote and quasiquote
    ("(quote a)", "a"),
    ("'(1 . 2)", "(1 . 2)"),
    ("''a", "'a"),
    ("`(1 ,(+ 1 1) ,@(list 3 4))", "(1 2 3 4)"),
    ("`(1 `(2 ,(3 ,(+ 1 3))))", "(1 `(2 ,(3 4)))"),
    ("`#(1 ,(+ 1 1))", "#(1 2)"),
    ("`(a . ,(+ 1 2))", "(a . 3)"),
    ("`(,@'() . x)", "x"),
    ("(let ((x '(b c))) `(a ,@x d))", "(a b c d)"),
    ("`(1 ,@(list 2 3) ,@(list))", "(1 2 3)"),
    ("`,(+ 2 3)", "5"),
    ("`(a `(b ,(c ,(+ 1 2))))", "(a `(b ,(c 3)))"),
    # lambda
    ("((lambda (x y) (+ x y)) 1 2)", "3"),
    ("((lambda args args) 1 2 3)", "(1 2 3)"),
    ("((lambda (a . rest) (list a rest)) 1 2 3)", "(1 (2 3))"),
    ("((lambda (a . rest) rest) 1)", "()"),
    ("((lambda () 7))", "7"),
    ("(procedure? (lambda (x) x))", "#t"),
    ("(((lambda (x) (lambda (y) (+ x y))) 3) 4)", "7"),
    # define
    ("(define x 10) x", "10"),
    ("(define (f a . rest) (list a rest)) (f 1 2 3)", "(1 (2 3))"),
    ("(define (f . all) all) (f)", "()"),
    ("(define ((curry a) b) (* a b)) ((curry 6) 7)", "42"),
    ("(define (f) (define a 1) (define b (+ a 1)) (* a b)) (f)", "2"),
    ("(define (f) (define (even? n) (if (= n 0) #t (odd? (- n 1)))) (define (odd? n) (if (= n 0) #f (even? (- n 1)))) (even? 10)) (f)", "#t"),
    ("(define (f) (begin (define a 5)) a) (f)", "5"),
    ("(define x 1) (define x 2) x", "2"),
    # set!
    ("(define x 1) (set! x 5) x", "5"),
    ("(define (counter) (let ((n 0)) (lambda () (set! n (+ n 1)) n))) (define c (counter)) (c) (c) (c)", "3"),
    ("(let ((x 1)) (let ((y 2)) (set! x (+ x y)) x))", "3"),
    # if
    ("(if #t 1 2)", "1"),
    ("(if #f 1 2)", "2"),
    ("(if '() 'true 'false)", "true"),
    ("(if 0 'true 'false)", "true"),
    ("(if \"\" 'true 'false)", "true"),
    ("(list (if #f #f))", "(#<void>)"),
    # cond
    ("(cond ((> 3 2) 'greater) ((< 3 2) 'less))", "greater"),
    ("(cond ((> 3 3) 'greater) ((< 3 3) 'less) (else 'equal))", "equal"),
    ("(cond ((assv 'b '((a 1) (b 2))) => cadr) (else #f))", "2"),
    ("(cond (#f 1) (2))", "2"),
    ("(cond ((memv 3 '(1 2 3)) => length))", "1"),
    # case
    ("(case (* 2 3) ((2 3 5 7) 'prime) ((1 4 6 8 9) 'composite))", "composite"),
    ("(case (car '(c d)) ((a e i o u) 'vowel) ((w y) 'semivowel) (else => (lambda (x) x)))", "c"),
    ("(case 'x ((x) => (lambda (v) (list v v))))", "(x x)"),
    ("(case 10 ((1) 'one) (else 'other))", "other"),
    ("(case #\\a ((#\\a) 'letter-a) (else 'other))", "letter-a"),
    # and / or / when / unless
    ("(and 1 2 'c '(f g))", "(f g)"),
    ("(and)", "#t"),
    ("(and 1 #f 3)", "#f"),
    ("(or (= 2 2) (> 2 1))", "#t"),
    ("(or #f #f #f)", "#f"),
    ("(or)", "#f"),
    ("(or (memq 'b '(a b c)) (/ 3 0))", "(b c)"),
    ("(when (> 1 0) 'a 'b)", "b"),
    ("(unless (> 1 0) 'a 'b)", "#<void>"),
    ("(unless #f 'yes)", "yes"),
    # let family
    ("(let ((x 2) (y 3)) (* x y))", "6"),
    ("(let ((x 2) (y 3)) (let ((x 7) (z (+ x y))) (* z x)))", "35"),
    ("(let ((x 2) (y 3)) (let* ((x 7) (z (+ x y))) (* z x)))", "70"),
    ("(let* () 5)", "5"),
    ("(letrec ((even? (lambda (n) (if (zero? n) #t (odd? (- n 1))))) (odd? (lambda (n) (if (zero? n) #f (even? (- n 1)))))) (even? 88))", "#t"),
    ("(letrec* ((p (lambda (x) (+ 1 (q (- x 1))))) (q (lambda (y) (if (zero? y) 0 (+ 1 (p (- y 1)))))) (x (p 5)) (y x)) y)", "5"),
    ("(let loop ((i 0) (acc '())) (if (= i 3) (reverse acc) (loop (+ i 1) (cons i acc))))", "(0 1 2)"),
    ("(let () (define x 3) (* x x))", "9"),
    ("(let ((x 1)) (define y 2) (+ x y))", "3"),
    # do
    ("(do ((vec (make-vector 5)) (i 0 (+ i 1))) ((= i 5) vec) (vector-set! vec i i))", "#(0 1 2 3 4)"),
    ("(let ((x '(1 3 5 7 9))) (do ((x x (cdr x)) (sum 0 (+ sum (car x)))) ((null? x) sum)))", "25"),
    ("(do ((i 0 (+ i 1))) ((= i 3)))", "#<void>"),
    ("(let ((fs '())) (do ((i 0 (+ i 1))) ((= i 3)) (set! fs (cons (lambda () i) fs))) (map (lambda (f) (f)) fs))", "(2 1 0)"),
    # begin
    ("(begin 1 2 3)", "3"),
    ("(define x 0) (begin (set! x 5) (+ x 1))", "6"),
    ("(begin (define a 1) (define b 2)) (+ a b)", "3"),
    # delay / force
    ("(force (delay (+ 1 2)))", "3"),
    ("(define n 0) (define p (delay (begin (set! n (+ n 1)) n))) (force p) (force p)", "1"),
    ("(define count 0) (define p (delay (begin (set! count (+ count 1)) (if (> count x) count (force p))))) (define x 5) (force p)", "6"),
    ("(force (make-promise 5))", "5"),
    ("(promise? (make-promise 5))", "#t"),
    ("(force 7)", "7"),
    ("(define (stream-loop n) (delay-force (if (= n 0) (delay 'done) (stream-loop (- n 1))))) (force (stream-loop 100000))", "done"),
    # define-record-type
    ("(define-record-type point (make-point x y) point? (x point-x set-point-x!) (y point-y)) (let ((p (make-point 1 2))) (set-point-x! p 10) (list (point-x p) (point-y p) (point? p) (point? 5)))", "(10 2 #t #f)"),
    ("(define-record-type <node> (make-node val) node? (val node-val) (next node-next set-node-next!)) (node-next (make-node 1))", "#f"),
    ("(define-record-type <pare> (kons x y) pare? (x kar) (y kdr)) (kar (kons 1 2))", "1"),
    ("(define-record-type <pare> (kons x y) pare? (x kar) (y kdr)) (kons 1 2)", "#<pare x: 1 y: 2>"),
    # guard and exceptions
    ("(guard (e (#t (list 'caught (condition/report-string e)))) (error \"boom\" 1 2))", "(caught \"boom 1 2\")"),
    ("(guard (e ((symbol? e) (list 'sym e)) ((string? e) (list 'str e))) (raise 'oops))", "(sym oops)"),
    ("(guard (e ((assq 'a e) => cdr) ((assq 'b e))) (raise (list (cons 'a 42))))", "42"),
    ("(guard (e ((assq 'a e) => cdr) ((assq 'b e))) (raise (list (cons 'b 23))))", "(b . 23)"),
    # a guard body is a body: internal defines, and their use before definition caught
    ("(guard (e (#t 0)) (define y 5) (* y 2))", "10"),
    ("(guard (e (#t (condition/report-string e))) (define x (if 0 x 0)))", '"variable used before its definition: x"'),
    ("(guard (e ((string? e) 'outer)) (guard (e2 ((number? e2) 'inner)) (raise \"x\")))", "outer"),
    ("(guard (e (#t (error-object-message e))) (car 5))", "\"car: expected a pair, got 5\""),
    ("(guard (e (#t (error-object-message e))) (vector-ref (vector 1 2) 5))", None),
    ("(guard (e ((error-object? e) (error-object-irritants e))) (error \"bad\" 'a 2 \"s\"))", "(a 2 \"s\")"),
    # (a name unbound everywhere is found before the program runs: eval makes it a run-time error)
    ("(guard (e (#t (error-object? e))) (eval '(undefined-thing)))", "#t"),
    ("(guard (e (#t (error-object-kind e))) (eval '(undefined-thing)))", "unbound-variable"),
    ("(guard (e (#t (error-object-kind e))) (+ 1 \"a\"))", "type-error"),
    ("(guard (e (#t (error-object-kind e))) ((lambda (x) x)))", "arity-error"),
    ("(guard (e (#t (error-object-kind e))) (/ 1 0))", "division-by-zero"),
    ("(guard (e (else 'fallback)) (raise 1))", "fallback"),
    ("(with-exception-handler (lambda (e) 42) (lambda () (+ (raise-continuable 'oops) 1)))", "43"),
    ("(call/cc (lambda (k) (with-exception-handler (lambda (e) (k (list 'handled e))) (lambda () (raise 'boom)))))", "(handled boom)"),
    ("(call/cc (lambda (k) (with-exception-handler (lambda (e) (k (error-object-message e))) (lambda () (car 1)))))", "\"car: expected a pair, got 1\""),
    ("(guard (e (#t (error-object-message e))) (with-exception-handler (lambda (e) 'ignored) (lambda () (raise 'x))))", None),
    ("(guard (e ((string? e) e)) (with-exception-handler (lambda (e) (raise \"from handler\")) (lambda () (raise 'x))))", "\"from handler\""),
    # case-lambda
    ("(define area (case-lambda ((r) (* 3 r r)) ((w h) (* w h)))) (list (area 2) (area 2 3))", "(12 6)"),
    ("(define f (case-lambda ((a) 'one) ((a . rest) 'many))) (list (f 1) (f 1 2 3))", "(one many)"),
    # parameterize
    ("(define p (make-parameter 10)) (list (p) (parameterize ((p 20)) (p)) (p))", "(10 20 10)"),
    ("(define p (make-parameter 10 (lambda (x) (* x 2)))) (list (p) (parameterize ((p 3)) (p)))", "(20 6)"),
    ("(define p (make-parameter 1)) (guard (e (#t (p))) (parameterize ((p 2)) (raise 'x)))", "1"),
    # multiple values
    ("(call-with-values (lambda () (values 1 2)) cons)", "(1 . 2)"),
    ("(call-with-values * -)", "-1"),
    ("(let-values (((a b) (values 1 2)) ((c . d) (values 3 4 5))) (list a b c d))", "(1 2 3 (4 5))"),
    ("(let ((a 'outer)) (let-values (((a) (values 1)) ((b) (values a))) (list a b)))", "(1 outer)"),
    ("(let*-values (((a b) (values 1 2)) ((c) (values (+ a b)))) c)", "3"),
    ("(define-values (q r) (floor/ 17 5)) (list q r)", "(3 2)"),
    ("(define-values (a . rest) (values 1 2 3)) rest", "(2 3)"),
    ("(define (f) (define-values (x y) (values 1 2)) (+ x y)) (f)", "3"),
    ("(receive (a . rest) (values 1 2 3) (list a rest))", "(1 (2 3))"),
    # assert
    ("(assert (= 1 1))", "#<void>"),
    # named let shadowing and closures
    ("(define (make-adders) (map (lambda (n) (lambda (x) (+ x n))) '(1 2 3))) (map (lambda (f) (f 10)) (make-adders))", "(11 12 13)"),
    ("(let ((if list)) (if 1 2 3))", "(1 2 3)"),
    ("(define (f list) (list 1)) (f (lambda (x) (* x 10)))", "10"),
    # eval
    ("(eval '(+ 1 2) (interaction-environment))", "3"),
    ("(eval '(define zz 5)) zz", "5"),
    ("(eval (list 'quote 'a))", "a"),
    # dynamic-wind
    ("(let ((path '())) (dynamic-wind (lambda () (set! path (cons 'in path))) (lambda () (set! path (cons 'body path))) (lambda () (set! path (cons 'out path)))) (reverse path))", "(in body out)"),
    ("(let ((path '())) (call/cc (lambda (k) (dynamic-wind (lambda () (set! path (cons 'in path))) (lambda () (k 'x)) (lambda () (set! path (cons 'out path)))))) (reverse path))", "(in out)"),
    # call/cc
    ("(call-with-current-continuation (lambda (exit) (for-each (lambda (x) (if (negative? x) (exit x))) '(54 0 37 -3 245 19)) #t))", "-3"),
    ("(+ 1 (call/cc (lambda (k) (+ 10 (k 1)))))", "2"),
    ("(call/cc (lambda (k) 5))", "5"),
    ("(define (find-first pred lst) (call/cc (lambda (return) (for-each (lambda (x) (when (pred x) (return x))) lst) #f))) (find-first even? '(1 3 4 5))", "4"),
    ("(call-with-values (lambda () (call/cc (lambda (k) (k 1 2)))) list)", "(1 2)"),
    ("(define (deep n k) (if (= n 0) (k 'escaped) (+ 1 (deep (- n 1) k)))) (call/cc (lambda (k) (deep 10000 k)))", "escaped"),
    # apply
    ("(apply + 1 2 '(3 4))", "10"),
    ("(apply list '())", "()"),
    ("(let loop ((n 100000)) (if (= n 0) 'done (apply loop (list (- n 1)))))", "done"),
    # strings of special forms as data
    ("(car '(if a b))", "if"),
    ("(let ((quote -)) (quote 5))", "-5"),
]


@pytest.mark.parametrize(("source", "expected"), [c for c in CASES if c[1] is not None])
def test_form(run, source: str, expected: str) -> None:
    assert run(source) == expected


def test_handler_returning_from_raise_is_an_error(error) -> None:
    err = error("(with-exception-handler (lambda (e) 'ignored) (lambda () (raise 'x)))")
    assert "handler returned" in err.message


def test_else_must_be_last(error) -> None:
    err = error("(cond (else 1) (#t 2))")
    assert err.kind == "syntax-error"
    assert "else must be the last clause" in err.message


def test_assert_failure_shows_expression(error) -> None:
    err = error("(define x 1)\n(assert (= x 2))")
    assert err.message == "assertion failed: (= x 2)"
    assert "test.scm:2:1" in err.format()


def test_letrec_variable_used_before_definition(error) -> None:
    err = error("(letrec ((a b) (b 1)) a)")
    assert "used before its definition: b" in err.message


def test_internal_define_used_before_definition(error) -> None:
    err = error("(define (f) (define a b) (define b 1) a) (f)")
    assert "used before its definition: b" in err.message


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("(define (f) (list (if 0 'a 'b) (null? 0) (not 0) (not #f) (pair? 1) (if #t 1 2) (if '() 1 2))) (f)", "(a #f #f #t #f 1 1)"),
        ("(define (f) (and 0 (or #f 5))) (f)", "5"),
        ("(define (f) (cond (0 => (lambda (x) x)) (else 1))) (f)", "0"),
    ],
)
def test_constants_in_compiled_bodies(run, source: str, expected: str) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", SyntaxWarning)
        assert run(source) == expected
