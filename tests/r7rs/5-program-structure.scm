;;; R7RS 5 Program structure — definitions, syntax definitions, records, libraries.
(test-begin "5 program structure")

;; 5.3.1 Top-level definitions
(define add3 (lambda (x) (+ x 3)))
(test 6 (add3 3))
(define first car)
(test 1 (first '(1 2)))

;; 5.3.2 Internal definitions
(test 45 (let ((x 5))
           (define foo (lambda (y) (bar x y)))
           (define bar (lambda (a b) (+ (* a b) a)))
           (foo (+ x 3))))
(test 45 (let ((x 5))
           (letrec* ((foo (lambda (y) (bar x y)))
                     (bar (lambda (a b) (+ (* a b) a))))
             (foo (+ x 3)))))

;; 5.3.3 Multiple-value definitions
(define-values (x y) (exact-integer-sqrt 17))
(test '(4 1) (list x y))
(test 3 (let () (define-values (x y) (values 1 2)) (+ x y)))
(define-values (h . t) (values 1 2 3))
(test '(1 (2 3)) (list h t))

;; 5.4 Syntax definitions
(test '(2 1) (let ((x 1) (y 2))
               (define-syntax swap!
                 (syntax-rules () ((swap! a b) (let ((tmp a)) (set! a b) (set! b tmp)))))
               (swap! x y)
               (list x y)))

;; 5.5 Record-type definitions
(define-record-type <pare>
  (kons x y)
  pare?
  (x kar set-kar!)
  (y kdr))
(test #t (pare? (kons 1 2)))
(test #f (pare? (cons 1 2)))
(test 1 (kar (kons 1 2)))
(test 2 (kdr (kons 1 2)))
(test 3 (let ((k (kons 1 2))) (set-kar! k 3) (kar k)))

;; 5.6 Libraries
(define-library (example grid)
  (export make rows cols ref each (rename put! set!))
  (import (scheme base))
  (begin
    (define (make n m)
      (let ((grid (make-vector n)))
        (do ((i 0 (+ i 1))) ((= i n) grid)
          (let ((v (make-vector m #f)))
            (vector-set! grid i v)))))
    (define (rows grid) (vector-length grid))
    (define (cols grid) (vector-length (vector-ref grid 0)))
    (define (ref grid n m)
      (and (< -1 n (rows grid)) (< -1 m (cols grid)) (vector-ref (vector-ref grid n) m)))
    (define (put! grid n m v) (vector-set! (vector-ref grid n) m v))
    (define (each grid proc)
      (do ((j 0 (+ j 1))) ((= j (rows grid)))
        (do ((k 0 (+ k 1))) ((= k (cols grid)))
          (proc j k (ref grid j k)))))))
(import (prefix (example grid) grid-))
(define g (grid-make 3 4))
(grid-set! g 1 2 'x)
(test 'x (grid-ref g 1 2))
(test #f (grid-ref g 0 0))
(test #f (grid-ref g 5 0))
(test '(3 4) (list (grid-rows g) (grid-cols g)))
(define-library (example private)
  (export visible counter-macro)
  (import (scheme base))
  (begin
    (define hidden 41)
    (define (visible) (+ hidden 1))
    (define-syntax counter-macro (syntax-rules () ((_ x) (+ hidden x))))))
(import (example private))
(test 42 (visible))
(test 43 (counter-macro 2))
(test-error (eval 'hidden))
(import (rename (only (example private) visible) (visible shown)))
(test 42 (shown))
(import (scheme base) (scheme write) (scheme char) (scheme cxr) (scheme lazy) (scheme case-lambda))
(test 'ok 'ok)

(test-end)
