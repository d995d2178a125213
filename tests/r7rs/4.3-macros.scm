;;; R7RS 4.3 Macros — the standard's examples, plus hygiene and ellipsis checks.
(test-begin "4.3 macros")

;; 4.3.1 Binding constructs for syntactic keywords
(test 'now (let-syntax ((given-that (syntax-rules () ((_ test stmt1 stmt2 ...) (if test (begin stmt1 stmt2 ...))))))
             (let ((if #t))
               (given-that if (set! if 'now))
               if)))
(test 'outer (let ((x 'outer))
               (let-syntax ((m (syntax-rules () ((m) x))))
                 (let ((x 'inner))
                   (m)))))
(test 7 (letrec-syntax
            ((my-or (syntax-rules ()
                      ((my-or) #f)
                      ((my-or e) e)
                      ((my-or e1 e2 ...)
                       (let ((temp e1))
                         (if temp temp (my-or e2 ...)))))))
          (let ((x #f) (y 7) (temp 8) (let odd?) (if even?))
            (my-or x (let temp) (if y) y))))

;; 4.3.2 Pattern language
(define-syntax be-like-begin
  (syntax-rules ()
    ((be-like-begin name)
     (define-syntax name
       (syntax-rules ()
         ((name expr (... ...)) (begin expr (... ...))))))))
(be-like-begin sequence)
(test 4 (sequence 1 2 3 4))

(define-syntax simple-let
  (syntax-rules ()
    ((_ (head ... ((x . y) val) . tail) body1 body2 ...)
     (syntax-error "expected an identifier but got" (x . y)))
    ((_ ((name val) ...) body1 body2 ...)
     ((lambda (name ...) body1 body2 ...) val ...))))
(test 3 (simple-let ((a 1) (b 2)) (+ a b)))
(test-error (eval '(simple-let ((a 1) ((b c) 2)) a)))

;; Hygiene: introduced bindings do not capture, free identifiers keep their meaning.
(define-syntax swap!
  (syntax-rules () ((_ a b) (let ((tmp a)) (set! a b) (set! b tmp)))))
(test '(2 1) (let ((tmp 1) (other 2)) (swap! tmp other) (list tmp other)))
(test '(2 1) (let ((x 1) (y 2)) (swap! x y) (list x y)))
(define-syntax my-or2
  (syntax-rules () ((_ a b) (let ((t a)) (if t t b)))))
(test 5 (let ((t 5)) (my-or2 #f t)))
(test 5 (let ((if list) (t 5)) (my-or2 #f t)))
(define-syntax make-pair-list (syntax-rules () ((_ a b) (list a b))))
(test '(1 2) (let ((list vector)) (make-pair-list 1 2)))
(define counter 0)
(define-syntax bump! (syntax-rules () ((_) (set! counter (+ counter 1)))))
(test 10 (let ((counter 10)) (bump!) counter))
(test 1 counter)

;; Literals, _, nested and dotted ellipses, vectors, custom ellipsis
(define-syntax my-if
  (syntax-rules (then else)
    ((_ c then t else e) (cond (c t) (else e)))))
(test 2 (my-if #f then 1 else 2))
(define-syntax second-of (syntax-rules () ((_ _ x . _) 'x)))
(test 'b (second-of a b c d))
(define-syntax flip-all (syntax-rules () ((_ (a b ...) ...) '((b ... a) ...))))
(test '((2 3 1) (5 4) (6)) (flip-all (1 2 3) (4 5) (6)))
(define-syntax tail-of (syntax-rules () ((_ a ... . r) '(r a ...))))
(test '(3 1 2) (tail-of 1 2 . 3))
(test '(() 1 2) (tail-of 1 2))
(define-syntax last-two (syntax-rules () ((_ a ... b c) '(b c))))
(test '(3 4) (last-two 1 2 3 4))
(define-syntax vec-items (syntax-rules () ((_ #(a ...)) (list 'a ...))))
(test '(x y z) (vec-items #(x y z)))
(define-syntax vec-build (syntax-rules () ((_ a ...) #(a ... end))))
(test #(1 2 end) (vec-build 1 2))
(define-syntax my-list (syntax-rules ::: () ((_ a :::) (list a ::: '...))))
(test '(1 2 ...) (my-list 1 2))
(define-syntax flatten (syntax-rules () ((_ (a ...) ...) '(a ... ...))))
(test '(1 2 3 4) (flatten (1 2) (3) (4)))
(define-syntax while
  (syntax-rules () ((_ c body ...) (let lp () (when c body ... (lp))))))
(test 5 (let ((i 0)) (while (< i 5) (set! i (+ i 1))) i))
(define-syntax my-cond
  (syntax-rules (else)
    ((_ (else e)) e)
    ((_ (c e) rest ...) (if c e (my-cond rest ...)))))
(test 'c (my-cond (#f 'a) (#f 'b) (else 'c)))
(define-syntax def-both
  (syntax-rules () ((_ a b v) (begin (define a v) (define b v)))))
(def-both aa bb 9)
(test '(9 9) (list aa bb))
(test 18 (let () (def-both p q 9) (+ p q)))
(define-syntax kw-case (syntax-rules () ((_ x) (case x ((a) 'is-a) (else 'other)))))
(test '(is-a other) (list (kw-case 'a) (kw-case 'b)))
(define-syntax quoted (syntax-rules () ((_ x) '(x y))))
(test '(1 y) (quoted 1))
(test #t (eq? 'y (cadr (quoted 1))))
(test 20 (let () (define-syntax twice (syntax-rules () ((_ x) (* 2 x)))) (twice 10)))
(test-error (eval '(let-syntax ((m (syntax-rules () ((_ a) a)))) (m 1 2))))

;; define-macro (non-hygienic)
(define-macro (my-unless c . body) `(if ,c #f (begin ,@body)))
(test 3 (my-unless #f 1 2 3))
(test #f (my-unless #t 1))

(test-end)
