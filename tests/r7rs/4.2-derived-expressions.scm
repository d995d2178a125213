;;; R7RS 4.2 Derived expression types — the standard's examples.
(test-begin "4.2 derived expressions")

;; 4.2.1 Conditionals
(test 'greater (cond ((> 3 2) 'greater) ((< 3 2) 'less)))
(test 'equal (cond ((> 3 3) 'greater) ((< 3 3) 'less) (else 'equal)))
(test 2 (cond ((assv 'b '((a 1) (b 2))) => cadr) (else #f)))
(test 'composite (case (* 2 3) ((2 3 5 7) 'prime) ((1 4 6 8 9) 'composite)))
(test 'c (case (car '(c d)) ((a e i o u) 'vowel) ((w y) 'semivowel) (else => (lambda (x) x))))
(test '((other . z) (semivowel . y) (other . x) (semivowel . w) (vowel . u))
      (map (lambda (x) (case x ((a e i o u) => (lambda (w) (cons 'vowel w)))
                               ((w y) (cons 'semivowel x))
                               (else => (lambda (w) (cons 'other w)))))
           '(z y x w u)))
(test #t (and (= 2 2) (> 2 1)))
(test #f (and (= 2 2) (< 2 1)))
(test '(f g) (and 1 2 'c '(f g)))
(test #t (and))
(test #t (or (= 2 2) (> 2 1)))
(test #t (or (= 2 2) (< 2 1)))
(test #f (or #f #f #f))
(test '(b c) (or (memq 'b '(a b c)) (/ 3 0)))
(test 'greater (let ((r '())) (when (> 1 0) (set! r 'greater)) r))
(test "12" (call-with-output-string (lambda (p) (when (= 1 1.0) (display "1" p) (display "2" p)))))
(test "" (call-with-output-string (lambda (p) (unless (= 1 1.0) (display "1" p) (display "2" p)))))
(test 'r7rs (cond-expand (r7rs 'r7rs) (else 'other)))
(test 'yes (cond-expand ((and r7rs (not no-such-feature)) 'yes) (else 'no)))
(test 'base (cond-expand ((library (scheme base)) 'base) (else 'none)))

;; 4.2.2 Binding constructs
(test 6 (let ((x 2) (y 3)) (* x y)))
(test 35 (let ((x 2) (y 3)) (let ((x 7) (z (+ x y))) (* z x))))
(test 70 (let ((x 2) (y 3)) (let* ((x 7) (z (+ x y))) (* z x))))
(test #t (letrec ((even? (lambda (n) (if (zero? n) #t (odd? (- n 1)))))
                  (odd? (lambda (n) (if (zero? n) #f (even? (- n 1))))))
           (even? 88)))
(test 5 (letrec* ((p (lambda (x) (+ 1 (q (- x 1)))))
                  (q (lambda (y) (if (zero? y) 0 (+ 1 (p (- y 1))))))
                  (x (p 5))
                  (y x))
          y))
(test 35 (let-values (((root rem) (exact-integer-sqrt 32))) (* root rem)))
(test '(x y x y) (let ((a 'a) (b 'b) (x 'x) (y 'y))
                   (let*-values (((a b) (values x y)) ((x y) (values a b)))
                     (list a b x y))))
(test '(1 2 (3 4)) (let-values (((a b . c) (values 1 2 3 4))) (list a b c)))

;; 4.2.3 Sequencing
(define x 0)
(test 6 (and (= x 0) (begin (set! x 5) (+ x 1))))
(test "4 plus 1 equals 5"
      (call-with-output-string (lambda (p) (begin (display "4 plus 1 equals " p) (display (+ 4 1) p)))))

;; 4.2.4 Iteration
(test #(0 1 2 3 4) (do ((vec (make-vector 5)) (i 0 (+ i 1))) ((= i 5) vec) (vector-set! vec i i)))
(test 25 (let ((x '(1 3 5 7 9))) (do ((x x (cdr x)) (sum 0 (+ sum (car x)))) ((null? x) sum))))
(test '((6 1 3) (-5 -2))
      (let loop ((numbers '(3 -2 1 6 -5)) (nonneg '()) (neg '()))
        (cond ((null? numbers) (list nonneg neg))
              ((>= (car numbers) 0) (loop (cdr numbers) (cons (car numbers) nonneg) neg))
              ((< (car numbers) 0) (loop (cdr numbers) nonneg (cons (car numbers) neg))))))

;; 4.2.5 Delayed evaluation
(test 3 (force (delay (+ 1 2))))
(test '(3 3) (let ((p (delay (+ 1 2)))) (list (force p) (force p))))
(define integers
  (letrec ((next (lambda (n) (delay (cons n (next (+ n 1)))))))
    (next 0)))
(define (head stream) (car (force stream)))
(define (tail stream) (cdr (force stream)))
(test 2 (head (tail (tail integers))))
(define (stream-filter p? s)
  (delay-force
   (if (null? (force s))
       (delay '())
       (let ((h (car (force s))) (t (cdr (force s))))
         (if (p? h) (delay (cons h (stream-filter p? t))) (stream-filter p? t))))))
(test 5 (head (tail (tail (stream-filter odd? integers)))))
(define count 0)
(define p (delay (begin (set! count (+ count 1)) (if (> count x) count (force p)))))
(define x 5)
(test 6 (force p))
(test 6 (begin (set! x 10) (force p)))
(test #t (promise? (delay 1)))
(test #t (promise? (make-promise 1)))
(test 7 (force (make-promise 7)))
(test 7 (force 7))

;; 4.2.6 Dynamic bindings
(define radix (make-parameter 10 (lambda (x) (if (and (exact-integer? x) (<= 2 x 16)) x (error "invalid radix")))))
(define (f n) (number->string n (radix)))
(test "12" (f 12))
(test "1100" (parameterize ((radix 2)) (f 12)))
(test "12" (f 12))
(test-error (parameterize ((radix 0)) (f 12)))

;; 4.2.7 Exception handling
(test 42 (guard (condition ((assq 'a condition) => cdr) ((assq 'b condition))) (raise (list (cons 'a 42)))))
(test '(b . 23) (guard (condition ((assq 'a condition) => cdr) ((assq 'b condition))) (raise (list (cons 'b 23)))))
(test 'caught (guard (e (#t 'caught)) (error "boom")))
(test "boom" (guard (e ((error-object? e) (error-object-message e))) (error "boom" 1 2)))
(test '(1 2) (guard (e ((error-object? e) (error-object-irritants e))) (error "boom" 1 2)))
(test 'reraised (guard (e ((eq? e 'outer) 'reraised)) (guard (e ((eq? e 'other) 'no)) (raise 'outer))))

;; 4.2.8 Quasiquotation
(test '(list 3 4) `(list ,(+ 1 2) 4))
(test '(list a (quote a)) (let ((name 'a)) `(list ,name ',name)))
(test '(a 3 4 5 6 b) `(a ,(+ 1 2) ,@(map abs '(4 -5 6)) b))
(test '((foo 7) . cons) `((foo ,(- 10 3)) ,@(cdr '(c)) . ,(car '(cons))))
(test #(10 5 2 4 3 8) `#(10 5 ,(sqrt 4) ,@(map sqrt '(16 9)) 8))
(test '(list foo bar baz) (let ((foo '(foo bar)) (@baz 'baz)) `(list ,@foo , @baz)))
(test '(a `(b ,(c) ,(quote 4))) `(a `(b ,(c) ,',(+ 2 2))))
(test '(a `(b ,(+ 1 2) ,(foo 4 d) e) f) `(a `(b ,(+ 1 2) ,(foo ,(+ 1 3) d) e) f))
(test '(a `(b ,x ,'y d) e) (let ((name1 'x) (name2 'y)) `(a `(b ,,name1 ,',name2 d) e)))
(test '(list 3 4) (quasiquote (list (unquote (+ 1 2)) 4)))
(test '`(list ,(+ 1 2) 4) '(quasiquote (list (unquote (+ 1 2)) 4)))

;; 4.2.9 Case-lambda
(define range
  (case-lambda
    ((e) (range 0 e))
    ((b e) (do ((r '() (cons e r)) (e (- e 1) (- e 1))) ((< e b) r)))))
(test '(0 1 2) (range 3))
(test '(3 4) (range 3 5))
(define plus
  (case-lambda
    (() 0)
    ((x) x)
    ((x y) (+ x y))
    ((x y z) (+ (+ x y) z))
    (args (apply + args))))
(test 0 (plus))
(test 1 (plus 1))
(test 6 (plus 1 2 3))
(test 15 (plus 1 2 3 4 5))

(test-end)
