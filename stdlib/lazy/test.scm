;;; A compact SRFI-64-style test harness: test-begin, test-end, test, test-equal,
;;; test-eqv, test-eq, test-assert, test-error, test-expect-fail. (test-results) is
;;; (passed failed); (test-failures) lists the failures as strings, oldest first;
;;; (test-expected-failures) lists the tests that failed as expected, with the reason given.

(define %test-passed 0)
(define %test-failed 0)
(define %test-failures '())
(define %test-groups '())
(define %test-xfails '())
(define %test-expect-fail #f)

(define (test-results) (list %test-passed %test-failed))
(define (test-failures) (reverse %test-failures))
(define (test-expected-failures) (reverse %test-xfails))
(define (test-reset!)
  (set! %test-passed 0) (set! %test-failed 0) (set! %test-failures '()) (set! %test-xfails '()))

;; (test-expect-fail "reason"): the next test is expected to fail, for the reason given.
;; It counts apart when it fails, and as a failure when it passes.
(define (test-expect-fail reason) (set! %test-expect-fail reason))

(define (test-begin . name) (set! %test-groups (cons (if (pair? name) (car name) "tests") %test-groups)))

(define (test-end . name)
  (let ((group (if (pair? %test-groups) (car %test-groups) "tests")))
    (if (pair? %test-groups) (set! %test-groups (cdr %test-groups)))
    (display group) (display ": ") (display %test-passed) (display " passed, ")
    (display %test-failed) (display " failed") (newline)))

(define (%test-approx? a b)
  (cond ((and (number? a) (number? b) (or (inexact? a) (inexact? b)))
         (or (= a b) (and (nan? a) (nan? b))
             (< (magnitude (- a b)) (* 1e-9 (max 1 (magnitude a))))))
        ((and (pair? a) (pair? b)) (and (%test-approx? (car a) (car b)) (%test-approx? (cdr a) (cdr b))))
        ((and (vector? a) (vector? b)) (%test-approx? (vector->list a) (vector->list b)))
        (else (equal? a b))))

(define (%test-record! ok name text)
  (let ((reason %test-expect-fail))
    (set! %test-expect-fail #f)
    (cond ((and reason (not ok))
           (set! %test-xfails (cons (string-append (%test-show name) ": " reason) %test-xfails)))
          (reason (%test-record-outcome! #f name (string-append "passed, but was expected to fail: " reason)))
          (else (%test-record-outcome! ok name text)))))

(define (%test-record-outcome! ok name text)
  (if ok
      (set! %test-passed (+ %test-passed 1))
      (let ((line (string-append "FAIL " (if (pair? %test-groups) (car %test-groups) "")
                                 ": " (call-with-output-string (lambda (p) (write name p))) " " text)))
        (set! %test-failed (+ %test-failed 1))
        (set! %test-failures (cons line %test-failures))
        (display line) (newline))))

(define (%test-show x) (call-with-output-string (lambda (p) (write x p))))

(define (%test-check same? name expected thunk)
  (guard (e (#t (%test-record! #f name (string-append "raised " (%test-show (if (error-object? e) (condition/report-string e) e))))))
    (let ((actual (thunk)))
      (%test-record! (same? expected actual) name
                     (string-append "expected " (%test-show expected) ", got " (%test-show actual))))))

(define (%test-raises name thunk)
  (let ((raised (guard (e (#t #t)) (thunk) #f)))
    (%test-record! raised name "expected an error, none was raised")))

(define-syntax test
  (syntax-rules ()
    ((_ name expected expr) (%test-check %test-approx? name expected (lambda () expr)))
    ((_ expected expr) (%test-check %test-approx? 'expr expected (lambda () expr)))))

(define-syntax %test-define-comparison
  (syntax-rules ()
    ((_ form same?)
     (define-syntax form
       (syntax-rules ()
         ((_ name expected expr) (%test-check same? name expected (lambda () expr)))
         ((_ expected expr) (%test-check same? 'expr expected (lambda () expr))))))))

(%test-define-comparison test-equal %test-approx?)
(%test-define-comparison test-eqv eqv?)
(%test-define-comparison test-eq eq?)

(define-syntax test-assert
  (syntax-rules ()
    ((_ name expr) (%test-check (lambda (x y) (and y #t)) name #t (lambda () expr)))
    ((_ expr) (%test-check (lambda (x y) (and y #t)) 'expr #t (lambda () expr)))))

(define-syntax test-error
  (syntax-rules ()
    ((_ expr) (%test-raises 'expr (lambda () expr)))
    ((_ name expr) (%test-raises name (lambda () expr)))
    ((_ name type expr) (%test-raises name (lambda () expr)))))
