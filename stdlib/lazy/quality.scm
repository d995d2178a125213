;;; Quality gates, built on director-evaluator-loop; loaded on the first use of quality-gate.
;;;
;;; (quality-gate generate evaluate [#:threshold 0.7] [#:max-iterations 3])
;;;
;;; generate is called with the previous feedback ("" at first) and returns a draft
;;; (text or a task result). evaluate is called with the draft's text and scores it on
;;; the rubric: completeness, correctness, clarity, actionability, each 0 to 25 (25% of
;;; the total each), plus suggestions; it may answer with anything `get` reads (an
;;; association list, a hash table, a record) or with JSON text. A total of at least
;;; threshold (70%) accepts; otherwise the scores and suggestions are the next
;;; generation's feedback. Out of iterations, the loop result gets status ESCALATE and
;;; keeps every attempt and its scores in its iteration-history.

(define %quality-rubric '(completeness correctness clarity actionability))
(define %quality-keywords (list '#:threshold '#:max-iterations))

(define (%quality-option options key default)
  (cond ((null? options) default)
        ((eq? (car options) key) (cadr options))
        (else (%quality-option (cddr options) key default))))

(define (%quality-check-options options)
  (cond ((null? options) #t)
        ((not (memq (car options) %quality-keywords))
         (error "quality-gate: unknown option (options: #:threshold #:max-iterations)" (car options)))
        ((null? (cdr options)) (error "quality-gate: option without a value" (car options)))
        (else (%quality-check-options (cddr options)))))

(define (%quality-points data criterion)
  (let ((points (get data criterion)))
    (if (and (real? points) (<= 0 points 25))
        points
        (error (string-append "quality-gate: the " (symbol->string criterion)
                              " score must be a number from 0 to 25, got")
               points))))

(define (%quality-suggestions data)
  (let ((found (get/default data 'suggestions '())))
    (cond ((string? found) (if (string=? found "") '() (list found)))
          ((list? found) (map (lambda (s) (if (string? s) s (object->string s))) found))
          (else (list (object->string found))))))

(define (%quality-percent x) (number->string (exact (round x))))

(define (%quality-feedback scores total threshold suggestions)
  (string-append
   (string-join (map (lambda (criterion points)
                       (string-append (symbol->string criterion) " " (%quality-percent points) "/25"))
                     %quality-rubric scores)
                ", ")
   " (total " (%quality-percent total) "%, needs " (%quality-percent (* 100 threshold)) "%)"
   (if (null? suggestions) "" (string-append ". Suggestions: " (string-join suggestions "; ")))))

(define (%quality-score answer threshold)
  (let* ((data (structured-answer answer))
         (scores (map (lambda (criterion) (%quality-points data criterion)) %quality-rubric))
         (total (apply + scores))
         (suggestions (%quality-suggestions data)))
    (make-evaluation (>= (/ total 100) threshold)
                     (%quality-feedback scores total threshold suggestions)
                     (list (cons 'metrics (append (map cons %quality-rubric scores)
                                                  (list (cons 'total total) (cons 'score (inexact (/ total 100))))))
                           (cons 'suggestions suggestions)))))

(define (quality-gate generate evaluate . options)
  (%quality-check-options options)
  (let ((threshold (%quality-option options '#:threshold 0.7))
        (limit (%quality-option options '#:max-iterations 3)))
    (unless (and (real? threshold) (<= 0 threshold 1))
      (error "quality-gate: #:threshold must be a number from 0 to 1, got" threshold))
    (let ((result (director-evaluator-loop
                   (max-iterations limit)
                   (director (generate evaluation-feedback))
                   (evaluator (%quality-score (evaluate solution) threshold)))))
      (if (equal? (get result 'status) "MAX_ITERATIONS")
          (record-with result 'status "ESCALATE")
          result))))
