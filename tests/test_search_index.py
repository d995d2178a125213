"""Lists searched again and again answer from an index (``primitives/lists/search_index.py``):
the same answer (the same pair) as the walk, for every kind of key and element, after every
kind of change to the list or to a string key, and the same errors."""

from __future__ import annotations

import pytest

from interpreter import Interpreter, SchemeError
from interpreter.primitives.lists import search_index

#: A 40-entry association list and a 40-element list: string keys made at run time (mutable
#: strings), literal strings, exact integers, symbols, and elements no fast key matches.
DEFINITIONS = """
(define (key i) (string-append "k" (number->string i)))
(define alist
  (append (map (lambda (i) (cons (key i) i)) (iota 30))
          (list (cons "lit" 'a) (cons 7 'b) (cons 'sym 'c) (cons 2.5 'd) (cons #\\x 'e)
                (cons (key 3) 'dup) (cons 7 'dup) (cons '() 'f) (cons #t 'g) (cons (list 1) 'h))))
(define lst (map car alist))
(define probes
  (list (key 0) (key 3) (key 29) "k30" "lit" (string-copy "lit") 7 8 'sym 'other 2.5 #\\x '() #t #f
        (list 1) 'k3))
(define (agree? search reference l)
  ;; every probe finds the same pair through the index as through the general walk
  (let loop ((ps probes))
    (cond ((null? ps) #t)
          ((eq? (search (car ps) l) (reference (car ps) l)) (loop (cdr ps)))
          (else (car ps)))))
(define (check search reference l)
  (let loop ((round 0))
    (if (= round 8) (agree? search reference l)
        (let ((r (agree? search reference l))) (if (eq? r #t) (loop (+ round 1)) r)))))
"""

SEARCHES = [
    ("assoc", "(lambda (k l) (assoc k l equal?))", "alist"),
    ("assv", "(lambda (k l) (assoc k l eqv?))", "alist"),
    ("assq", "(lambda (k l) (assoc k l eq?))", "alist"),
    ("member", "(lambda (k l) (member k l equal?))", "lst"),
    ("memv", "(lambda (k l) (member k l eqv?))", "lst"),
    ("memq", "(lambda (k l) (member k l eq?))", "lst"),
]


def fresh() -> Interpreter:
    search_index.forget()
    interp = Interpreter()
    interp.eval(DEFINITIONS)
    return interp


def built(interp: Interpreter, name: str, entries: bool) -> object:
    lst = interp.eval_scheme(name)
    memo = search_index.MEMOS[entries].get(id(lst))
    return memo is not None and memo[0] is lst and memo[3]


@pytest.mark.parametrize(("op", "reference", "name"), SEARCHES)
def test_an_index_answers_as_the_walk(op: str, reference: str, name: str) -> None:
    interp = fresh()
    assert interp.eval(f"(check {op} {reference} {name})") is True
    assert built(interp, name, name == "alist"), "the searches were long enough to build an index"


#: Changes after the index was built, each followed by the searches again.
CHANGES = [
    "(set-cdr! (list-tail alist 5) '())",  # the list is cut
    "(set-car! (list-tail alist 2) (cons (key 29) 'moved))",  # an entry replaced
    "(set-car! (list-ref alist 4) 'sym)",  # an entry's key replaced
    '(set-cdr! (list-tail alist 39) (list (cons "late" 1) (cons 99 2)))',  # the list grows
    "(string-set! (car (list-ref alist 0)) 1 #\\3)",  # a key's text: "k0" becomes "k3"
    "(string-fill! (car (list-ref alist 3)) #\\z)",  # "k3" becomes "zz"
    '(string-copy! (car (list-ref alist 1)) 0 "k29" 0 2)',  # "k1" becomes "k2"
    "(list-set! alist 6 (cons 8 'eight))",
    "(sort! alist (lambda (a b) (and (pair? a) (pair? b) (eqv? (cdr a) 'b))))",
]


@pytest.mark.parametrize("change", CHANGES)
@pytest.mark.parametrize(("op", "reference"), [(op, ref) for op, ref, name in SEARCHES if name == "alist"])
def test_an_index_follows_changes_to_the_list_and_its_keys(change: str, op: str, reference: str) -> None:
    interp = fresh()
    assert interp.eval(f"(check {op} {reference} alist)") is True
    assert built(interp, "alist", True)
    interp.eval(change)
    assert interp.eval(f"(check {op} {reference} alist)") is True


def test_changed_elements_of_a_list_are_seen() -> None:
    interp = fresh()
    assert interp.eval("(check member (lambda (k l) (member k l equal?)) lst)") is True
    interp.eval('(string-set! (list-ref lst 0) 1 #\\9) (set-car! (list-tail lst 1) "k29")')
    assert interp.eval("(check member (lambda (k l) (member k l equal?)) lst)") is True
    assert interp.eval('(list (car (member "k9" lst)) (length (member "k29" lst)))') == ["k9", 39]


def test_a_list_that_does_not_qualify_keeps_the_walks_errors() -> None:
    """A malformed association list past the first 16 entries: a key before the bad element is
    found, one after it (or missing) is the walk's error, however often it is searched."""
    interp = fresh()
    interp.eval("(define bad (append (list-head alist 20) (list 'oops) (list-tail alist 20)))")
    for _ in range(8):
        assert interp.eval("(cdr (assoc (key 19) bad))") == 19
        with pytest.raises(SchemeError, match="association list of pairs, found element"):
            interp.eval("(assoc (key 25) bad)")
    assert not built(interp, "bad", True)
    interp.eval("(define improper (append (list-head lst 30) 'end))")
    for _ in range(8):
        with pytest.raises(SchemeError, match="proper list"):
            interp.eval("(member 'nowhere improper)")


def test_a_circular_list_is_still_refused() -> None:
    interp = fresh()
    interp.eval("(define ring (list-copy lst)) (set-cdr! (last-pair ring) ring)")
    for _ in range(6):
        with pytest.raises(SchemeError, match="circular"):
            interp.eval("(memv 12345 ring)")


def test_searches_in_parallel_branches_agree() -> None:
    interp = fresh()
    value = interp.eval("(parallel-map (lambda (i) (check assoc (lambda (k l) (assoc k l equal?)) alist)) (iota 4))")
    assert value == [True, True, True, True]


def test_only_a_few_lists_are_remembered() -> None:
    interp = fresh()
    interp.eval("(define tables (map (lambda (i) (list-copy alist)) (iota 20)))")
    interp.eval('(for-each (lambda (t) (assoc "k29" t) (assoc "k29" t)) tables)')
    assert len(search_index.MEMOS[True]) <= search_index.MAX_LISTS


def test_a_searched_previous_outputs_list_seen_growing() -> None:
    """``previous-outputs`` is one list grown in place at its last pair: an index of it
    built by one step (five long searches) is stale in the next, which finds the step added
    since."""
    steps = " ".join(f'(step s{i} "s{i}")' for i in range(20))
    interp = fresh()
    value = interp.eval(
        f"""(define held #f)
            (define seen #f)
            (sequential (context (accumulate #t) (format full-output))
              {steps}
              (step look (begin (set! held previous-outputs)
                                (member "none" held) (member "none" held) (member "none" held)
                                (member "none" held) (member "none" held)
                                "looked"))
              (step again (set! seen (and (member "looked" held) #t))))
            (list seen (length held))"""
    )
    assert value == [True, 21]
