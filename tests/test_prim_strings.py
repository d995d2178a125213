"""Characters, symbols and strings."""

from __future__ import annotations

import pytest
from helpers import assert_error, same

from interpreter import Interpreter, SchemeError, Symbol
from interpreter.datatypes import MString
from interpreter.printer import write_string

CASES = [
    # characters
    ("(char? #\\a)", "#t"),
    ('(char? "a")', "#f"),
    ("(char->integer #\\A)", "65"),
    ("(char->integer #\\λ)", "955"),
    ("(integer->char 97)", "#\\a"),
    ("(char-upcase #\\a)", "#\\A"),
    ("(char-upcase #\\1)", "#\\1"),
    ("(char-upcase #\\ß)", "#\\ß"),
    ("(char-downcase #\\A)", "#\\a"),
    ("(char-foldcase #\\A)", "#\\a"),
    ("(char-alphabetic? #\\a)", "#t"),
    ("(char-alphabetic? #\\1)", "#f"),
    ("(char-numeric? #\\7)", "#t"),
    ("(char-numeric? #\\x)", "#f"),
    ("(char-whitespace? #\\space)", "#t"),
    ("(char-whitespace? #\\newline)", "#t"),
    ("(char-whitespace? #\\a)", "#f"),
    ("(char-upper-case? #\\A)", "#t"),
    ("(char-upper-case? #\\a)", "#f"),
    ("(char-lower-case? #\\a)", "#t"),
    ("(digit-value #\\7)", "7"),
    ("(digit-value #\\a)", "#f"),
    ("(char=? #\\a #\\a)", "#t"),
    ("(char=? #\\a #\\a #\\b)", "#f"),
    ("(char<? #\\a #\\b #\\c)", "#t"),
    ("(char<? #\\a #\\c #\\b)", "#f"),
    ("(char>? #\\b #\\a)", "#t"),
    ("(char<=? #\\a #\\a #\\b)", "#t"),
    ("(char>=? #\\b #\\b #\\a)", "#t"),
    ("(char-ci=? #\\a #\\A)", "#t"),
    ("(char-ci<? #\\a #\\B)", "#t"),
    ("(char-ci>? #\\a #\\B)", "#f"),
    # symbols
    ("(symbol? 'a)", "#t"),
    ('(symbol? "a")', "#f"),
    ("(symbol->string 'abc)", '"abc"'),
    ('(string->symbol "hello")', "hello"),
    ('(eq? (string->symbol "x") \'x)', "#t"),
    ("(symbol=? 'a 'a)", "#t"),
    ("(symbol=? 'a 'a 'b)", "#f"),
    ("(symbol<? 'a 'b)", "#t"),
    ("(symbol<? 'b 'a)", "#f"),
    ("(symbol-append 'foo 'bar)", "foobar"),
    ("(symbol? (gensym))", "#t"),
    ("(eq? (gensym) (gensym))", "#f"),
    ('(eq? (string->uninterned-symbol "x") \'x)', "#f"),
    ('(symbol->string (string->uninterned-symbol "x"))', '"x"'),
    # construction and access
    ('(string? "x")', "#t"),
    ("(string? (make-string 2))", "#t"),
    ("(string? #\\x)", "#f"),
    ("(make-string 3 #\\z)", '"zzz"'),
    ("(string-length (make-string 4))", "4"),
    ("(string #\\a #\\b)", '"ab"'),
    ("(string)", '""'),
    ('(string-length "hello")', "5"),
    ('(string-length "")', "0"),
    ('(string-ref "abc" 1)', "#\\b"),
    ("(let ((s (make-string 3 #\\a))) (string-set! s 1 #\\b) s)", '"aba"'),
    ('(let ((s (string-copy "abc"))) (string-set! s 0 #\\x) s)', '"xbc"'),
    ('(substring "hello" 1 3)', '"el"'),
    ('(substring "hello" 2)', '"llo"'),
    ('(substring "hello" 0 0)', '""'),
    ("(string-append)", '""'),
    ('(string-append "a" "bc" "" "d")', '"abcd"'),
    ('(string-append "a" (make-string 2 #\\b))', '"abb"'),
    ('(string-copy "hello" 1)', '"ello"'),
    ('(string-copy "hello" 1 2)', '"e"'),
    ('(let ((s (make-string 5 #\\-))) (string-copy! s 1 "ab") s)', '"-ab--"'),
    ('(let ((s (make-string 5 #\\-))) (string-copy! s 0 "abcd" 2) s)', '"cd---"'),
    ("(let ((s (make-string 3 #\\a))) (string-fill! s #\\z) s)", '"zzz"'),
    ("(let ((s (make-string 4 #\\a))) (string-fill! s #\\z 2) s)", '"aazz"'),
    ('(string-null? "")', "#t"),
    ('(string-null? "a")', "#f"),
    # comparison and case
    ('(string=? "a" "a")', "#t"),
    ('(string=? "a" "a" "b")', "#f"),
    ('(string=? "abc" (string-copy "abc"))', "#t"),
    ('(string<? "apple" "banana")', "#t"),
    ('(string<? "a" "b" "c")', "#t"),
    ('(string>? "b" "a")', "#t"),
    ('(string<=? "a" "a")', "#t"),
    ('(string>=? "a" "b")', "#f"),
    ('(string-ci=? "AbC" "aBc")', "#t"),
    ('(string-ci<? "a" "B")', "#t"),
    ('(string-upcase "hello")', '"HELLO"'),
    ('(string-downcase "HeLLo")', '"hello"'),
    ('(string-foldcase "Straße")', '"strasse"'),
    # conversion
    ('(string->list "abc")', "(#\\a #\\b #\\c)"),
    ('(string->list "abcd" 1)', "(#\\b #\\c #\\d)"),
    ('(string->list "abcd" 1 3)', "(#\\b #\\c)"),
    ("(list->string '(#\\a #\\b))", '"ab"'),
    ("(list->string '())", '""'),
    ('(string->vector "ab")', "#(#\\a #\\b)"),
    ("(vector->string #(#\\x #\\y))", '"xy"'),
    ("(vector->string #(#\\x #\\y #\\z) 1)", '"yz"'),
    # searching
    ('(string-index "hello" #\\l)', "2"),
    ('(string-index "hello" #\\z)', "#f"),
    ('(string-index "ab1c" char-numeric?)', "2"),
    ('(string-rindex "hello" #\\l)', "3"),
    ('(string-search "lo" "hello")', "3"),
    ('(string-search "x" "hello")', "#f"),
    ('(string-search "l" "hello" 3)', "3"),
    ('(string-search-forward "l" "hello" 0)', "2"),
    ('(string-search-all "a" "banana")', "(1 3 5)"),
    ('(string-contains "hello world" "o w")', "4"),
    ('(string-contains "hello" "xyz")', "#f"),
    ('(string-contains "hello" "")', "0"),
    ('(string-prefix? "he" "hello")', "#t"),
    ('(string-prefix? "lo" "hello")', "#f"),
    ('(string-suffix? "lo" "hello")', "#t"),
    ('(string-suffix? "he" "hello")', "#f"),
    ('(string-count "banana" #\\a)', "3"),
    ('(string-count "a1b2" char-numeric?)', "2"),
    # splitting, joining, trimming
    ('(string-split "  a b   c ")', '("a" "b" "c")'),
    ('(string-split "")', "()"),
    ('(string-split "a,b,,c" #\\,)', '("a" "b" "" "c")'),
    ('(string-split "a::b::c" "::")', '("a" "b" "c")'),
    ('(string-join \'("a" "b" "c"))', '"a b c"'),
    ('(string-join \'("a" "b") ", ")', '"a, b"'),
    ("(string-join '())", '""'),
    ('(string-trim "  hi  ")', '"hi"'),
    ('(string-trim-left "  hi  ")', '"hi  "'),
    ('(string-trim-right "  hi  ")', '"  hi"'),
    ('(string-trim "xxhixx" #\\x)', '"hi"'),
    ('(string-trim "   ")', '""'),
    ('(string-pad-left "42" 5)', '"   42"'),
    ('(string-pad-left "12345" 3)', '"345"'),
    ('(string-pad-right "ab" 4 #\\.)', '"ab.."'),
    ('(string-reverse "abc")', '"cba"'),
    # higher order
    ('(string-map char-upcase "abc")', '"ABC"'),
    ('(string-map (lambda (a b) (if (char<? a b) a b)) "adc" "bbbz")', '"abb"'),
    ('(let ((n 0)) (string-for-each (lambda (c) (set! n (+ n 1))) "abcd") n)', "4"),
    (
        '(let ((acc \'())) (string-for-each (lambda (a b) (set! acc (cons (string a b) acc))) "ab" "xyz") acc)',
        '("by" "ax")',
    ),
]


@pytest.mark.parametrize(("src", "expected"), CASES)
def test_value(interp: Interpreter, src: str, expected: str) -> None:
    assert same(interp.eval_scheme(src), expected), src


ERRORS = [
    ('(char->integer "a")', "char->integer: expected a character", "type-error"),
    ("(integer->char -1)", "integer->char: -1 is not a Unicode scalar value", "value-error"),
    ("(integer->char 55296)", "integer->char", "value-error"),
    ("(integer->char 1.0)", "integer->char: expected an exact integer", "type-error"),
    ("(char<? #\\a 1)", "char<?: expected a character, got 1", "type-error"),
    ("(char-upcase 'a)", "char-upcase: expected a character", "type-error"),
    ('(symbol->string "a")', "symbol->string: expected a symbol", "type-error"),
    ("(string->symbol 'a)", "string->symbol: expected a string", "type-error"),
    ('(symbol=? \'a "a")', "symbol=?: expected a symbol", "type-error"),
    ("(string-length 'abc)", "string-length: expected a string, got 'abc", "type-error"),
    ('(string-ref "abc" 3)', "string-ref: index 3 out of range for string of length 3", "index-error"),
    ('(string-ref "abc" -1)', "string-ref: index -1 out of range", "index-error"),
    ('(string-ref "abc" \'x)', "string-ref: expected an exact integer index", "type-error"),
    ('(string-set! "abc" 0 #\\x)', 'string-set!: the string "abc" is immutable', "type-error"),
    ('(string-set! "abc" 0 #\\x)', "make a mutable copy with (string-copy s)", "type-error"),
    ("(string-set! (symbol->string 'abc) 0 #\\x)", "is immutable", "type-error"),
    ("(string-set! (make-string 2) 5 #\\x)", "string-set!: index 5 out of range", "index-error"),
    ('(string-set! (make-string 2) 0 "x")', "string-set!: expected a character", "type-error"),
    ('(substring "hello" 2 1)', "substring: end index 1 out of range", "index-error"),
    ('(substring "hello" 0 10)', "substring: end index 10 out of range", "index-error"),
    ('(substring "hello" 7)', "substring: start index 7 out of range", "index-error"),
    ('(string-append "a" 5)', "string-append: expected a string, got 5", "type-error"),
    ('(string-copy! (make-string 2) 1 "abc")', "string-copy!: index 1 out of range", "index-error"),
    ('(string-fill! "abc" #\\x)', 'string-fill!: the string "abc" is immutable', "type-error"),
    ('(string-copy! "abc" 0 "x")', "string-copy!: the string", "type-error"),
    ("(make-string 1000000000)", "make-string: size 1000000000 is too large", "resource-exhaustion"),
    ("(make-string -1)", "make-string: expected a non-negative exact integer", "type-error"),
    ('(make-string 2 "a")', "make-string: expected a character", "type-error"),
    ('(string #\\a "b")', "string: expected a character", "type-error"),
    ("(list->string '(#\\a 1))", "list->string: expected a character, got 1", "type-error"),
    ("(list->string 5)", "list->string: expected a proper list", "type-error"),
    ('(string=? "a" \'a)', "string=?: expected a string", "type-error"),
    ("(string-upcase 5)", "string-upcase: expected a string", "type-error"),
    ('(string-index "abc" 5)', "string-index: expected a procedure", "type-error"),
    ('(string-split "abc" "")', "string-split: expected a character or non-empty string", "type-error"),
    ('(string-join \'("a" 1))', "string-join: expected a string, got 1", "type-error"),
    ('(string-map (lambda (c) 1) "ab")', "string-map: expected a character, got 1", "type-error"),
    ('(string-prefix? 1 "a")', "string-prefix?: expected a string", "type-error"),
]


@pytest.mark.parametrize(("src", "message", "kind"), ERRORS)
def test_error(interp: Interpreter, src: str, message: str, kind: str) -> None:
    assert_error(interp, src, message, kind)


def test_mutable_strings(interp: Interpreter) -> None:
    assert type(interp.eval_scheme("(make-string 2 #\\a)")) is MString
    assert type(interp.eval_scheme('(string-copy "ab")')) is MString
    assert type(interp.eval_scheme('"ab"')) is str


#: Every string a string procedure returns is newly allocated and mutable (R7RS 6.7;
#: ``number->string`` and ``symbol->string`` are not among them: see below).
FRESH_STRINGS = [
    '(string #\\a #\\b)',
    '(string-append "ab")',
    '(string-append "a" "b")',
    '(substring "xaby" 1 3)',
    '(string-copy "ab")',
    "(list->string (list #\\a #\\b))",
    "(vector->string #(#\\a #\\b))",
    '(string-append (number->string 171 16))',
    '(string-copy (number->string 171 16))',
    '(string-map char-downcase "AB")',
    '(string-upcase "xb")',
    '(string-downcase "AB")',
    '(string-foldcase "AB")',
    '(read-line (open-input-string "ab\\ncd"))',
    '(read-string 2 (open-input-string "abc"))',
    '(let ((p (open-output-string))) (write-string "ab" p) (get-output-string p))',
    '(call-with-output-string (lambda (p) (display "ab" p)))',
    '(with-output-to-string (lambda () (display "ab")))',
    '(utf8->string (bytevector 97 98))',
    '(string-join (list "a" "b") "")',
    '(car (string-split "ab cd"))',
    '(string-trim "  ab ")',
    '(string-pad-left "ab" 2)',
    '(string-reverse "ba")',
    '(string-head "abc" 2)',
    '(string-tail "xab" 1)',
]


@pytest.mark.parametrize("expr", FRESH_STRINGS)
def test_string_procedures_return_fresh_mutable_strings(interp: Interpreter, expr: str) -> None:
    src = f"(let ((s {expr})) (string-set! s 0 #\\Z) s)"
    assert str(interp.eval_scheme(src)).lower() == "zb"


@pytest.mark.parametrize("expr", ["(number->string 171 16)", "(number->string 42)", "(symbol->string 'ab)"])
def test_number_and_symbol_names_are_immutable_strings(interp: Interpreter, expr: str) -> None:
    """R7RS asks no newly allocated string of ``number->string`` (6.2.7) or ``symbol->string``
    (6.5): they return an immutable string, as a literal is, and a mutation says to copy it."""
    assert_error(interp, f"(let ((s {expr})) (string-set! s 0 #\\Z) s)", "is immutable", "type-error")
    with pytest.raises(SchemeError, match=r"number->string returned\); make a mutable copy with \(string-copy s\)"):
        interp.eval_scheme(f"(string-fill! {expr} #\\Z)")


def test_a_result_never_shares_its_argument(interp: Interpreter) -> None:
    src = """(define lit "ab")
             (define s (string-append lit))
             (define t (substring s 0 2))
             (string-set! s 0 #\\x)
             (list lit s t (eq? s lit))"""
    assert same(interp.eval_scheme(src), '("ab" "xb" "ab" #f)')


def test_mutation_then_whole_string_use(interp: Interpreter) -> None:
    """The text is rebuilt after mutation wherever the whole string is needed."""
    src = """(define s (make-string 5 #\\a))
             (do ((i 0 (+ i 2))) ((>= i 5)) (string-set! s i #\\b))
             (list s (string-ref s 1) (string-ref s 2) (string-append s "!") (string-length s)
                   (string=? s "babab") (equal? s "babab") (string->symbol s))"""
    assert same(interp.eval_scheme(src), '("babab" #\\a #\\b "babab!" 5 #t #t babab)')


def test_interleaved_ref_and_set_on_a_long_string(interp: Interpreter) -> None:
    src = """(define s (make-string 40000 #\\-))
             (do ((i 0 (+ i 1))) ((= i 40000))
               (string-set! s i (if (char=? (string-ref s (quotient i 2)) #\\-) #\\x #\\y)))
             (list (string-ref s 0) (string-ref s 1) (string-ref s 39999) (string-length s))"""
    assert same(interp.eval_scheme(src), "(#\\x #\\y #\\y 40000)")


def test_string_copy_bang_and_fill_on_a_mutated_string(interp: Interpreter) -> None:
    src = """(define s (string-copy "abcdef"))
             (string-set! s 0 #\\A)
             (string-copy! s 1 "XY")
             (string-fill! s #\\z 4)
             s"""
    assert same(interp.eval_scheme(src), '"AXYdzz"')


def test_read_line_drops_crlf(interp: Interpreter) -> None:
    src = '(let ((p (open-input-string "one\\r\\ntwo\\n"))) (list (read-line p) (read-line p) (read-line p)))'
    assert write_string(interp.eval_scheme(src)) == '("one" "two" #<eof>)'


def test_gensym_prefix(interp: Interpreter) -> None:
    s = interp.eval_scheme('(gensym "tmp")')
    assert type(s) is Symbol and s.name.startswith("tmp")
    assert s is not Symbol.intern(s.name)


def test_string_set_does_not_leak_into_copies(interp: Interpreter) -> None:
    src = "(let* ((a (make-string 2 #\\a)) (b (string-copy a))) (string-set! a 0 #\\z) (list a b))"
    assert same(interp.eval_scheme(src), '("za" "aa")')
