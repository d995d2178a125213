"""Vectors, bytevectors and hash tables."""

from __future__ import annotations

import pytest
from helpers import assert_error, same

from interpreter import Interpreter
from interpreter.primitives.hashtables import HashTable, equal_key


def ht(body: str) -> str:
    """Source that runs ``body`` with ``h`` bound to a table holding a→1, b→2, c→3."""
    return (
        "(let ((h (make-hash-table))) (hash-table-set! h 'a 1) (hash-table-set! h 'b 2)"
        f" (hash-table-set! h 'c 3) {body})"
    )


CASES = [
    # vectors
    ("(vector 1 2 3)", "#(1 2 3)"),
    ("(vector)", "#()"),
    ("(make-vector 3 'x)", "#(x x x)"),
    ("(make-vector 2)", "#(0 0)"),
    ("(vector? #(1))", "#t"),
    ("(vector? '(1))", "#f"),
    ('(vector? "ab")', "#f"),
    ("(vector-length #(1 2 3))", "3"),
    ("(vector-ref #(a b c) 2)", "c"),
    ("(let ((v (make-vector 3 0))) (vector-set! v 1 'x) v)", "#(0 x 0)"),
    ("(vector->list #(1 2 3))", "(1 2 3)"),
    ("(vector->list #(1 2 3) 1)", "(2 3)"),
    ("(vector->list #(1 2 3) 1 2)", "(2)"),
    ("(list->vector '(1 2))", "#(1 2)"),
    ("(list->vector '())", "#()"),
    ("(let ((v (vector 1 2 3))) (vector-fill! v 0) v)", "#(0 0 0)"),
    ("(let ((v (vector 1 2 3))) (vector-fill! v 0 1) v)", "#(1 0 0)"),
    ("(let ((v (vector 1 2 3 4))) (vector-fill! v 0 1 3) v)", "#(1 0 0 4)"),
    ("(vector-copy #(1 2 3))", "#(1 2 3)"),
    ("(vector-copy #(1 2 3) 1)", "#(2 3)"),
    ("(let* ((a (vector 1 2)) (b (vector-copy a))) (vector-set! b 0 9) a)", "#(1 2)"),
    ("(subvector #(a b c d) 1 3)", "#(b c)"),
    ("(let ((v (vector 1 2 3 4 5))) (vector-copy! v 0 #(a b)) v)", "#(a b 3 4 5)"),
    ("(let ((v (vector 1 2 3 4 5))) (vector-copy! v 1 v 0 3) v)", "#(1 1 2 3 5)"),
    ("(let ((v (vector 1 2 3 4 5))) (vector-copy! v 0 v 2) v)", "#(3 4 5 4 5)"),
    ("(vector-append #(1) #(2 3) #())", "#(1 2 3)"),
    ("(vector-length (vector-grow #(1 2) 5))", "5"),
    ("(vector-ref (vector-grow #(1 2) 5) 1)", "2"),
    ("(vector-map (lambda (x) (* x x)) #(1 2 3))", "#(1 4 9)"),
    ("(vector-map + #(1 2) #(10 20 30))", "#(11 22)"),
    ("(let ((n 0)) (vector-for-each (lambda (x) (set! n (+ n x))) #(1 2 3)) n)", "6"),
    ("(vector-binary-search #(1 3 5 7) 5 -)", "2"),
    ("(vector-binary-search #(1 3 5 7) 4 -)", "#f"),
    ("(vector-binary-search #() 4 -)", "#f"),
    # bytevectors
    ("(bytevector 1 2 255)", "#u8(1 2 255)"),
    ("(bytevector? (bytevector))", "#t"),
    ("(bytevector? #(1))", "#f"),
    ("(make-bytevector 3 7)", "#u8(7 7 7)"),
    ("(bytevector-length (make-bytevector 4))", "4"),
    ("(bytevector-u8-ref #u8(5 6 7) 1)", "6"),
    ("(let ((b (make-bytevector 2 0))) (bytevector-u8-set! b 1 200) b)", "#u8(0 200)"),
    ("(bytevector-copy #u8(1 2 3) 1)", "#u8(2 3)"),
    ("(let ((b (make-bytevector 4 0))) (bytevector-copy! b 1 #u8(9 8)) b)", "#u8(0 9 8 0)"),
    ("(bytevector-append #u8(1) #u8(2 3))", "#u8(1 2 3)"),
    ("(utf8->string #u8(104 105))", '"hi"'),
    ('(string->utf8 "hé")', "#u8(104 195 169)"),
    ('(utf8->string (string->utf8 "λx"))', '"λx"'),
    ('(string->utf8 "abc" 1)', "#u8(98 99)"),
    # hash tables
    ("(hash-table? (make-hash-table))", "#t"),
    ("(hash-table? '())", "#f"),
    (ht("(hash-table-ref h 'b)"), "2"),
    (ht("(hash-table-ref h 'z (lambda () 'none))"), "none"),
    (ht("(hash-table-ref h 'a (lambda () 'none) (lambda (v) (* v 10)))"), "10"),
    (ht("(hash-table-ref/default h 'z 0)"), "0"),
    (ht("(hash-table-ref/default h 'c 0)"), "3"),
    (ht("(hash-table/get h 'a #f)"), "1"),
    (ht("(hash-table-contains? h 'a)"), "#t"),
    (ht("(hash-table-contains? h 'z)"), "#f"),
    (ht("(hash-table-exists? h 'b)"), "#t"),
    (ht("(hash-table-count h)"), "3"),
    (ht("(hash-table-size h)"), "3"),
    (ht("(hash-table-count (lambda (k v) (odd? v)) h)"), "2"),
    (ht("(hash-table-keys h)"), "(a b c)"),
    (ht("(hash-table-values h)"), "(1 2 3)"),
    (ht("(hash-table->alist h)"), "((a . 1) (b . 2) (c . 3))"),
    (ht("(begin (hash-table-set! h 'a 10) (hash-table->alist h))"), "((a . 10) (b . 2) (c . 3))"),
    (ht("(begin (hash-table-delete! h 'b) (hash-table-keys h))"), "(a c)"),
    (ht("(begin (hash-table-delete! h 'zz) (hash-table-count h))"), "3"),
    (ht("(begin (hash-table-update! h 'a (lambda (v) (+ v 100))) (hash-table-ref h 'a))"), "101"),
    (ht("(begin (hash-table-update! h 'n (lambda (v) (+ v 1)) (lambda () 0)) (hash-table-ref h 'n))"), "1"),
    (ht("(begin (hash-table-update!/default h 'n (lambda (v) (cons 'x v)) '()) (hash-table-ref h 'n))"), "(x)"),
    (ht("(begin (hash-table-update!/default h 'a (lambda (v) (* v 2)) 0) (hash-table-ref h 'a))"), "2"),
    (ht("(let ((sum 0)) (hash-table-walk h (lambda (k v) (set! sum (+ sum v)))) sum)"), "6"),
    (ht("(hash-table-fold h (lambda (k v acc) (+ v acc)) 0)"), "6"),
    (ht("(begin (hash-table-clear! h) (hash-table-count h))"), "0"),
    (ht("(let ((c (hash-table-copy h))) (hash-table-set! c 'a 99) (hash-table-ref h 'a))"), "1"),
    (ht("(begin (hash-table-walk h (lambda (k v) (hash-table-delete! h k))) (hash-table-count h))"), "0"),
    ("(hash-table->alist (alist->hash-table '((a . 1) (b . 2) (a . 3))))", "((a . 1) (b . 2))"),
    # equal?-keys
    ("(let ((h (make-equal-hash-table))) (hash-table-set! h (list 1 2) 'x) (hash-table-ref h (list 1 2)))", "x"),
    ('(let ((h (make-hash-table))) (hash-table-set! h "k" 1) (hash-table-ref h (string-copy "k")))', "1"),
    ('(let ((h (make-hash-table))) (hash-table-set! h (string-copy "k") 1) (hash-table-ref/default h "k" 0))', "1"),
    ("(let ((h (make-hash-table))) (hash-table-set! h #(1 (2)) 'v) (hash-table-ref h (vector 1 (list 2))))", "v"),
    ("(let ((h (make-hash-table))) (hash-table-set! h 1 'int) (hash-table-ref/default h 1.0 'none))", "none"),
    ("(let ((h (make-hash-table))) (hash-table-set! h 1 'int) (hash-table-ref/default h #t 'none))", "none"),
    ("(let ((h (make-hash-table))) (hash-table-set! h #\\a 1) (hash-table-ref h #\\a))", "1"),
    ("(let ((h (make-hash-table))) (hash-table-set! h 1/2 'half) (hash-table-ref h 2/4))", "half"),
    ("(let ((h (make-hash-table))) (hash-table-set! h '(1 . 2) 'a) (hash-table-ref/default h '(1 2) 'none))", "none"),
    ("(let ((h (make-hash-table))) (hash-table-set! h '() 'e) (hash-table-ref h '()))", "e"),
    ('(let ((h (make-string-hash-table))) (hash-table-set! h "a" 1) (hash-table-ref h "a"))', "1"),
    # eqv?-keys
    (
        "(let ((h (make-strong-eqv-hash-table)))"
        " (hash-table-set! h (list 1) 'x) (hash-table-ref/default h (list 1) 'no))",
        "no",
    ),
    ("(let ((h (make-eqv-hash-table)) (k (list 1))) (hash-table-set! h k 'x) (hash-table-ref h k))", "x"),
    ("(let ((h (make-hash-table eq?))) (hash-table-set! h 'a 1) (hash-table-ref h 'a))", "1"),
    ("(let ((h (make-hash-table eqv?))) (hash-table-set! h (list 1) 1) (hash-table-contains? h (list 1)))", "#f"),
]


@pytest.mark.parametrize(("src", "expected"), CASES)
def test_value(interp: Interpreter, src: str, expected: str) -> None:
    assert same(interp.eval_scheme(src), expected), src


ERRORS = [
    ("(vector-ref #(1 2 3) 5)", "vector-ref: index 5 out of range for vector of length 3", "index-error"),
    ("(vector-ref #(1 2 3) -1)", "vector-ref: index -1 out of range", "index-error"),
    ("(vector-ref #(1 2 3) 1.0)", "vector-ref: expected an exact integer index, got 1.0", "type-error"),
    ("(vector-ref '(1 2) 0)", "vector-ref: expected a vector", "type-error"),
    ("(vector-set! (vector) 0 1)", "vector-set!: index 0 out of range for vector of length 0", "index-error"),
    ('(vector-length "abc")', "vector-length: expected a vector", "type-error"),
    ("(make-vector 1000000000)", "make-vector: size 1000000000 is too large", "resource-exhaustion"),
    ("(make-vector 1e12)", "make-vector: expected a non-negative exact integer", "type-error"),
    ("(make-vector -1)", "make-vector", "type-error"),
    ("(vector->list #(1 2) 3)", "vector->list: start index 3 out of range", "index-error"),
    ("(vector-copy #(1 2) 1 5)", "vector-copy: end index 5 out of range", "index-error"),
    ("(vector-copy! (vector 1) 0 #(1 2))", "vector-copy!: index 0 out of range", "index-error"),
    ("(vector-fill! 5 0)", "vector-fill!: expected a vector", "type-error"),
    ("(vector-map car 5)", "vector-map: expected a vector", "type-error"),
    ("(vector-map 5 #(1))", "vector-map: expected a procedure", "type-error"),
    ("(vector-append #(1) '(2))", "vector-append: expected a vector", "type-error"),
    ("(list->vector '(1 . 2))", "list->vector: expected a proper list", "type-error"),
    ("(vector-grow #(1 2 3) 1)", "vector-grow: new size 1 is smaller", "value-error"),
    ("(bytevector 256)", "bytevector: expected a byte", "type-error"),
    (
        "(bytevector-u8-ref #u8(1) 1)",
        "bytevector-u8-ref: index 1 out of range for bytevector of length 1",
        "index-error",
    ),
    ("(bytevector-u8-set! (make-bytevector 1) 0 -1)", "bytevector-u8-set!: expected a byte", "type-error"),
    ("(make-bytevector 1000000000)", "make-bytevector: size", "resource-exhaustion"),
    ("(bytevector-length #(1))", "bytevector-length: expected a bytevector", "type-error"),
    ('(utf8->string "x")', "utf8->string: expected a bytevector", "type-error"),
    ("(hash-table-ref (make-hash-table) 'missing)", "hash-table-ref: key not found: missing", "value-error"),
    ("(hash-table-set! '() 1 2)", "hash-table-set!: expected a hash table, got '()", "type-error"),
    ("(hash-table-ref/default 5 1 2)", "hash-table-ref/default: expected a hash table", "type-error"),
    ("(hash-table-update! (make-hash-table) 'k (lambda (v) v))", "hash-table-update!: key not found: k", "value-error"),
    ("(hash-table-walk (make-hash-table) 5)", "hash-table-walk: expected a procedure", "type-error"),
    ("(alist->hash-table '(1 2))", "alist->hash-table: expected an association list", "type-error"),
]


@pytest.mark.parametrize(("src", "message", "kind"), ERRORS)
def test_error(interp: Interpreter, src: str, message: str, kind: str) -> None:
    assert_error(interp, src, message, kind)


def test_hash_table_repr(interp: Interpreter) -> None:
    table = interp.eval_scheme(ht("h"))
    assert type(table) is HashTable
    assert table.scheme_repr(True) == "#<hash-table 3>"


def test_equal_key_handles_long_and_deep_data(interp: Interpreter) -> None:
    long_list = interp.eval_scheme("(iota 200000)")
    assert equal_key(long_list) == equal_key(interp.eval_scheme("(iota 200000)"))
    deep = interp.eval_scheme("(let loop ((i 0) (x '())) (if (= i 100000) x (loop (+ i 1) (list x))))")
    assert hash(equal_key(deep)) == hash(equal_key(deep))


def test_equal_key_distinguishes_structure() -> None:
    from interpreter.datatypes import NIL, cons

    a = cons(cons(1, NIL), cons(2, NIL))  # ((1) 2)
    b = cons(1, cons(cons(2, NIL), NIL))  # (1 (2))
    assert equal_key(a) != equal_key(b)
    assert equal_key([1, [2]]) != equal_key([[1], 2])
    assert equal_key(cons(1, 2)) != equal_key(cons(1, cons(2, NIL)))


def test_many_keys(interp: Interpreter) -> None:
    src = """(let ((h (make-hash-table)))
               (do ((i 0 (+ i 1))) ((= i 10000)) (hash-table-set! h (list i (number->string i)) i))
               (list (hash-table-count h) (hash-table-ref h (list 9999 "9999"))))"""
    assert same(interp.eval_scheme(src), "(10000 9999)")
