;;; prelude.scm: small procedures that read best in the DSL itself.
;;; Loaded at start; keep it short (it is parsed on every start-up).

(define (identity x) x)

(define (constantly . results)
  (lambda args (apply values results)))

(define (compose . procs)
  ;; (compose f g h) = (lambda args (f (g (apply h args))))
  (if (null? procs)
      identity
      (let ((rev (reverse procs)))
        (lambda args
          (let loop ((result (apply (car rev) args)) (rest (cdr rev)))
            (if (null? rest) result (loop ((car rest) result) (cdr rest))))))))

(define (list-tabulate n proc)
  (let loop ((i (- n 1)) (acc '()))
    (if (< i 0) acc (loop (- i 1) (cons (proc i) acc)))))

(define (take-while pred lst)
  (let loop ((lst lst) (acc '()))
    (if (and (pair? lst) (pred (car lst)))
        (loop (cdr lst) (cons (car lst) acc))
        (reverse acc))))

(define (drop-while pred lst)
  (if (and (pair? lst) (pred (car lst))) (drop-while pred (cdr lst)) lst))

(define (zip . lists) (apply map list lists))

(define (flatten tree)
  ;; All the non-list leaves of a nested list, left to right.
  (let loop ((stack (list tree)) (acc '()))
    (cond ((null? stack) (reverse acc))
          ((pair? (car stack)) (loop (cons (caar stack) (cons (cdar stack) (cdr stack))) acc))
          ((null? (car stack)) (loop (cdr stack) acc))
          (else (loop (cdr stack) (cons (car stack) acc))))))

(define (sum lst) (fold-left + 0 lst))
(define (product lst) (fold-left * 1 lst))

(define (displayln . items)
  (for-each display items)
  (newline))

;; Streams (SICP style); cons-stream is a special form.
(define the-empty-stream '())
(define stream-null? null?)
(define (stream-car s) (car s))
(define (stream-cdr s) (force (cdr s)))
(define (stream-head s n)
  (let loop ((s s) (n n) (acc '()))
    (if (or (= n 0) (stream-null? s)) (reverse acc) (loop (stream-cdr s) (- n 1) (cons (stream-car s) acc)))))
