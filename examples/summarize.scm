;; A task program that runs offline: the "model" is defined in the DSL.
;;
;;   taskscheme examples/summarize.scm
;;   taskscheme --usage examples/summarize.scm
;;
;; Swap the model for a real one with --model (any llm model id) and drop
;; define-model; --record calls.jsonl / --replay calls.jsonl keep runs repeatable.

;; A toy model: keeps the first sentence of the text after the blank line,
;; or, asked to review, judges by length.
(define (first-sentence text)
  (let loop ((chars (string->list text)) (acc '()))
    (cond ((null? chars) (list->string (reverse acc)))
          ((char=? (car chars) #\.) (list->string (reverse (cons #\. acc))))
          (else (loop (cdr chars) (cons (car chars) acc))))))

(define (after-blank-line prompt)
  (let ((parts (string-split prompt #\newline)))
    (if (null? (cdr parts)) prompt (car (reverse parts)))))

(define-model "toy"
  (lambda (prompt system)
    (if (string-prefix? "Review" prompt)
        (if (< (string-length prompt) 120)
            "{\"success\": true, \"feedback\": \"short enough\"}"
            "{\"success\": false, \"feedback\": \"too long\"}")
        (first-sentence (after-blank-line prompt)))))

(define-task (summarize text (style "brief"))
  (description "Summarize a text")
  (system "You are a concise editor.")
  (model "toy")
  (prompt "Summarize in a {{style}} style:\n{{text}}"))

(define-task (review summary)
  (subtype "evaluator")
  (model "toy")
  (prompt "Review this summary and answer in JSON {\"success\": bool, \"feedback\": str}:\n{{summary}}"))

(define-task (summarize-checked text)
  (description "Summarize, then have the summary reviewed")
  (max-turns 2)
  (let* ((summary (get (summarize text #:style "one-line") 'content))
         (verdict (review summary)))
    (list summary (get verdict 'notes 'success) (get verdict 'notes 'feedback))))

(define doc "Taskscheme runs task programs. Tasks call models, run scripts or run Scheme code.")

(for-each (lambda (x) (display x) (newline))
          (summarize-checked doc))

(guard (e ((task-error? e)
           (display (list 'caught (task-error-type e) (get (task-error-details e) 'metrics 'used)))
           (newline)))
  (define-task (chatty) (max-turns 1) (summarize "One.") (summarize "Two."))
  (chatty))

(display (get (usage) 'total 'calls))
(display " model calls")
(newline)
