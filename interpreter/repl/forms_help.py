"""What ``,describe`` says about each special form: a paragraph and a runnable example.

Every special form the analyzer knows has an entry (a test checks it), and every example
runs in a fresh interpreter and prints what its entry says it prints (a test runs them).
"""

from __future__ import annotations

from typing import NamedTuple


class FormHelp(NamedTuple):
    text: str
    example: str
    prints: str  # what the example displays


#: A model defined in the DSL, so the task examples run offline.
_ECHO = '(define-model "echo" (lambda (prompt system) prompt))\n'

FORMS: dict[str, FormHelp] = {
    "quote": FormHelp(
        "(quote datum), written 'datum: the datum itself, not evaluated.", "(display '(a b c))", "(a b c)"
    ),
    "quasiquote": FormHelp(
        "(quasiquote template), written `template: a datum built from a template; ,x inserts the value of x "
        "and ,@xs splices the elements of the list xs.",
        "(define x 2)\n(display `(1 ,x ,@(list 3 4)))",
        "(1 2 3 4)",
    ),
    "unquote": FormHelp(
        "(unquote expr), written ,expr: inside a quasiquote, the value of expr. Anywhere else it is an error; a "
        "local variable named unquote makes it an ordinary symbol.",
        "(display `(sum ,(+ 1 2)))",
        "(sum 3)",
    ),
    "unquote-splicing": FormHelp(
        "(unquote-splicing expr), written ,@expr: inside a quasiquote, the elements of the list expr, spliced in.",
        "(display `(0 ,@(list 1 2) 3))",
        "(0 1 2 3)",
    ),
    "lambda": FormHelp(
        "(lambda (param ...) body ...): a procedure. (lambda args body) takes any number of arguments as a "
        "list; (lambda (a . rest) body) at least one.",
        "(display ((lambda (x y) (* x y)) 6 7))",
        "42",
    ),
    "named-lambda": FormHelp(
        "(named-lambda (name param ...) body ...): a lambda that knows its own name (for printing and backtraces).",
        "(define f (named-lambda (double x) (* 2 x)))\n(display (f 21))",
        "42",
    ),
    "case-lambda": FormHelp(
        "(case-lambda (formals body ...) ...): a procedure that picks the first clause whose parameter list "
        "fits the number of arguments.",
        "(define area (case-lambda ((r) (* 3 r r)) ((w h) (* w h))))\n(display (list (area 2) (area 2 5)))",
        "(12 10)",
    ),
    "define": FormHelp(
        "(define name value) or (define (name param ...) body ...): a variable or a procedure, at the top "
        "level or at the start of a body. A definition is not an expression: using one as an argument is "
        "a syntax error.",
        "(define (square x) (* x x))\n(define answer (square 7))\n(display answer)",
        "49",
    ),
    "define-values": FormHelp(
        "(define-values (name ...) expr): define several variables from the values expr returns.",
        "(define-values (q r) (floor/ 17 5))\n(display (list q r))",
        "(3 2)",
    ),
    "define-record-type": FormHelp(
        "(define-record-type name (constructor field ...) predicate (field accessor [modifier]) ...): a new "
        "record type with its constructor, predicate, accessors and modifiers.",
        "(define-record-type point (make-point x y) point? (x point-x) (y point-y set-point-y!))\n"
        "(define p (make-point 1 2))\n(set-point-y! p 5)\n(display (list (point? p) (point-x p) (point-y p)))",
        "(#t 1 5)",
    ),
    "define-syntax": FormHelp(
        "(define-syntax name (syntax-rules (literal ...) (pattern template) ...)): a hygienic macro.",
        "(define-syntax swap!\n  (syntax-rules () ((_ a b) (let ((tmp a)) (set! a b) (set! b tmp)))))\n"
        "(define x 1) (define y 2)\n(swap! x y)\n(display (list x y))",
        "(2 1)",
    ),
    "define-macro": FormHelp(
        "(define-macro (name param ...) body ...): a non-hygienic macro; its body returns the code to run "
        "in place of each use.",
        '(define-macro (twice e) (list \'begin e e))\n(twice (display "hi "))',
        "hi hi ",
    ),
    "syntax-rules": FormHelp(
        "(syntax-rules (literal ...) (pattern template) ...): the transformer of define-syntax, let-syntax "
        "and letrec-syntax; ... repeats the part before it.",
        "(define-syntax my-list (syntax-rules () ((_ x ...) (list x ...))))\n(display (my-list 1 2 3))",
        "(1 2 3)",
    ),
    "syntax-error": FormHelp(
        "(syntax-error message form ...): in a macro template, a syntax error at expansion time.",
        '(define-syntax one-arg\n  (syntax-rules () ((_ x) x) ((_ x ...) (syntax-error "one-arg wants one" x ...))))\n'
        "(display (one-arg 5))",
        "5",
    ),
    "let-syntax": FormHelp(
        "(let-syntax ((name transformer) ...) body ...): macros visible only in the body.",
        "(display (let-syntax ((inc (syntax-rules () ((_ x) (+ x 1))))) (inc 41)))",
        "42",
    ),
    "letrec-syntax": FormHelp(
        "(letrec-syntax ((name transformer) ...) body ...): like let-syntax, and the macros may use each other.",
        "(display (letrec-syntax\n"
        "           ((my-or (syntax-rules () ((_) #f) ((_ e r ...) (let ((t e)) (if t t (my-or r ...)))))))\n"
        "  (my-or #f 7)))",
        "7",
    ),
    "if": FormHelp(
        "(if test then [else]): then when test is true (anything but #f), else otherwise.",
        "(display (if (> 3 2) 'yes 'no))",
        "yes",
    ),
    "cond": FormHelp(
        "(cond (test expr ...) ... (else expr ...)): the first clause whose test is true; (test => proc) "
        "calls proc with the test's value.",
        "(define (sign n) (cond ((< n 0) 'negative) ((= n 0) 'zero) (else 'positive)))\n(display (sign -5))",
        "negative",
    ),
    "case": FormHelp(
        "(case key ((datum ...) expr ...) ... (else expr ...)): the clause listing key (compared with eqv?).",
        "(display (case (* 2 3) ((2 3 5 7) 'prime) ((1 4 6 8 9) 'composite) (else 'other)))",
        "composite",
    ),
    "and": FormHelp(
        "(and expr ...): #f at the first false expression, else the last value.", "(display (and 1 2 3))", "3"
    ),
    "or": FormHelp("(or expr ...): the first true value, else #f.", "(display (or #f 'found))", "found"),
    "when": FormHelp(
        "(when test body ...): the body when test is true.", '(when (> 2 1) (display "bigger"))', "bigger"
    ),
    "unless": FormHelp(
        "(unless test body ...): the body when test is false.", '(unless (> 1 2) (display "smaller"))', "smaller"
    ),
    "begin": FormHelp(
        "(begin expr ...): the expressions in order; the value of the last. At the top level its definitions "
        "are top-level definitions.",
        "(begin (display 1) (display 2))",
        "12",
    ),
    "let": FormHelp(
        "(let ((name value) ...) body ...): local variables. (let loop ((name value) ...) body) is a named "
        "let: loop calls the body again with new values.",
        "(display (let loop ((i 0) (acc '())) (if (= i 3) acc (loop (+ i 1) (cons i acc)))))",
        "(2 1 0)",
    ),
    "let*": FormHelp(
        "(let* ((name value) ...) body ...): like let, each value sees the names before it.",
        "(display (let* ((x 2) (y (* x 10))) (+ x y)))",
        "22",
    ),
    "letrec": FormHelp(
        "(letrec ((name value) ...) body ...): local variables that may refer to each other (mutually "
        "recursive procedures).",
        "(display (letrec ((even? (lambda (n) (if (= n 0) #t (odd? (- n 1)))))\n"
        "                  (odd? (lambda (n) (if (= n 0) #f (even? (- n 1))))))\n  (even? 10)))",
        "#t",
    ),
    "letrec*": FormHelp(
        "(letrec* ((name value) ...) body ...): like letrec, evaluated left to right.",
        "(display (letrec* ((a 1) (b (+ a 1))) (list a b)))",
        "(1 2)",
    ),
    "let-values": FormHelp(
        "(let-values (((name ...) expr) ...) body ...): bind the several values of each expression.",
        "(display (let-values (((q r) (truncate/ 7 2))) (list q r)))",
        "(3 1)",
    ),
    "let*-values": FormHelp(
        "(let*-values (((name ...) expr) ...) body ...): like let-values, each sees the names before it.",
        "(display (let*-values (((a b) (values 1 2)) ((c) (values (+ a b)))) c))",
        "3",
    ),
    "receive": FormHelp(
        "(receive formals expr body ...): bind the values of expr to formals (SRFI 8).",
        "(display (receive (first . rest) (values 1 2 3) (list first rest)))",
        "(1 (2 3))",
    ),
    "do": FormHelp(
        "(do ((var init step) ...) (test result ...) body ...): a loop; each round runs the body and then "
        "the steps, until test is true.",
        "(display (do ((i 0 (+ i 1)) (sum 0 (+ sum i))) ((= i 5) sum)))",
        "10",
    ),
    "set!": FormHelp(
        "(set! name value): change a variable's value.", "(define n 1)\n(set! n (+ n 1))\n(display n)", "2"
    ),
    "delay": FormHelp(
        "(delay expr): a promise; force evaluates expr once and remembers its value.",
        '(define p (delay (begin (display "computing ") 42)))\n(display (force p))\n(display (force p))',
        "computing 4242",
    ),
    "delay-force": FormHelp(
        "(delay-force promise-expr): a promise whose forcing forces another promise (iterative lazy "
        "algorithms run in constant space).",
        "(define (stream-to n) (delay-force (if (= n 0) (delay 'done) (stream-to (- n 1)))))\n"
        "(display (force (stream-to 1000)))",
        "done",
    ),
    "make-promise-lazy": FormHelp(
        "(make-promise-lazy expr): the same as delay-force, under its older name.",
        "(display (force (make-promise-lazy (delay 5))))",
        "5",
    ),
    "cons-stream": FormHelp(
        "(cons-stream a b): a stream pair whose tail b is evaluated only when asked for (stream-cdr).",
        "(define (from n) (cons-stream n (from (+ n 1))))\n(display (stream-car (stream-cdr (from 1))))",
        "2",
    ),
    "guard": FormHelp(
        "(guard (var clause ...) body ...): run the body; if it raises, bind the condition to var and "
        "take the first matching cond-style clause (no match: raise it again).",
        '(display (guard (e ((string? e) (string-append "caught " e))) (raise "oops")))',
        "caught oops",
    ),
    "parameterize": FormHelp(
        "(parameterize ((param value) ...) body ...): give parameters (make-parameter) new values while the body runs.",
        "(define width (make-parameter 80))\n(display (list (parameterize ((width 40)) (width)) (width)))",
        "(40 80)",
    ),
    "assert": FormHelp(
        "(assert expr): an error naming the expression when it is false.",
        '(assert (= (+ 1 1) 2))\n(display "ok")',
        "ok",
    ),
    "import": FormHelp(
        "(import (library name) ...): make a library's exports visible. The R7RS libraries are built in, "
        "so (import (scheme base)) changes nothing.",
        '(import (scheme base) (only (scheme write) display))\n(display "imported")',
        "imported",
    ),
    "define-library": FormHelp(
        "(define-library (name ...) (export name ...) (import ...) (begin body ...)): a library; its body "
        "runs on the first import.",
        "(define-library (greeting) (export hello) (import (scheme base))\n"
        '  (begin (define (hello who) (string-append "hello " who))))\n'
        '(import (greeting))\n(display (hello "world"))',
        "hello world",
    ),
    # -- tasks and composition ----------------------------------------------------------
    "define-model": FormHelp(
        '(define-model "name" procedure) or (define-model (name prompt system) body ...): a model '
        'written in the DSL; tasks name it in their (model "name") clause.',
        _ECHO + '(define-task (ask q) (model "echo") (prompt "Q: {{q}}"))\n(display (get (ask "why") \'content))',
        "Q: why",
    ),
    "define-task": FormHelp(
        '(define-task (name param ...) clause ...): a task. Clauses: (prompt "... {{param}} ...") and '
        '(system ...) for a model call, (script "cmd {{param}}") for a command, or a body of code; '
        "(model ...), (description ...), (context ...), (retries ...) and more. Calling it gives a TaskResult; "
        "read its text with (get result 'content).",
        _ECHO + '(define-task (greet name) (model "echo") (prompt "Hello, {{name}}!"))\n'
        '(display (get (greet "Ada") \'content))',
        "Hello, Ada!",
    ),
    "sequential": FormHelp(
        "(sequential (step name expr) ...): a pipeline. Each step sees previous-outputs (the earlier "
        "results, oldest first); a failing step ends it FAILED with the partial results kept.",
        "(define r (sequential (step a \"draft\") (step b (list 'after (length previous-outputs) 'step))))\n"
        "(display (get r 'content))",
        "(after 1 step)",
    ),
    "sequential/strict": FormHelp(
        "(sequential/strict (step name expr) ...): like sequential, and a step whose value is a FAILED "
        "result raises a TASK_FAILURE error at once.",
        "(display (guard (e (#t (condition/report-string e)))\n"
        '  (sequential/strict (step a 1) (step b (make-task-result "no" "FAILED")) (step c 3))))',
        "TASK_FAILURE: step b failed: TASK_FAILURE: no",
    ),
    "director-evaluator-loop": FormHelp(
        "(director-evaluator-loop (director expr) (evaluator expr) (max-iterations n) ...): generate, "
        "evaluate, feed back, repeat until the evaluator says success (or the termination condition or "
        "max-iterations). The director sees evaluation-feedback from the last round.",
        "(define r (director-evaluator-loop\n"
        '  (director (if (string=? evaluation-feedback "") "draft" "draft v2"))\n'
        '  (evaluator (make-evaluation (string=? evaluation-feedback "too short") "too short"))\n'
        "  (max-iterations 3)))\n"
        "(display (list (get r 'success) (get r 'final-output 'content)))",
        "(#t draft v2)",
    ),
    "parallel": FormHelp(
        "(parallel expr ...): the values of the expressions, run concurrently (model calls overlap), as a "
        "list in order; #:max-concurrency n caps how many run at once. parallel-map does the same over a list.",
        "(display (parallel (+ 1 2) (* 2 3)))",
        "(3 6)",
    ),
    "with-evaluation": FormHelp(
        "(with-evaluation expr): run expr (a task call) and, when it asks for an evaluation "
        "(status CONTINUATION with an evaluation_request), evaluate and call it again with the verdict in "
        "last-evaluator-output.",
        '(display (get (with-evaluation (make-task-result "done" "COMPLETE")) \'content))',
        "done",
    ),
}


def form_help(name: str) -> str | None:
    """The ``,describe`` text for a special form: its paragraph and example, or None."""
    entry = FORMS.get(name)
    if entry is None:
        return None
    example = "\n".join("  " + line for line in entry.example.splitlines())
    return f"{name}: a special form\n{entry.text}\nExample:\n{example}\n; prints: {entry.prints}"
