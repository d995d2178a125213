;; Retrieval from indexed notes with fresh context, offline: index-files puts every note into
;; the memory (SQLite full-text search); a task with (context (fresh enabled)) gets the best
;; matches for its prompt appended under "## Relevant context", and its result lists them.
;;
;;   taskscheme examples/notes_qa/ask.scm
;;   taskscheme --memory notes.sqlite examples/notes_qa/ask.scm     (keep the index between runs)
;;
;; With a real model, drop define-model and pass --model NAME.

(define (folder-of path)
  (let loop ((i (- (string-length path) 1)))
    (cond ((< i 0) ".")
          ((char=? (string-ref path i) #\/) (substring path 0 i))
          (else (loop (- i 1))))))

(define notes (string-append (folder-of (car (command-line))) "/notes"))
(display (index-files notes #:glob "*.md")) (display " notes indexed") (newline)

;; The stand-in "model" answers with the first sentence line of the context it was given.
(define (after-heading prompt)
  (let loop ((lines (member "## Relevant context" (string-split prompt #\newline))))
    (cond ((or (not lines) (null? lines)) "I don't know.")
          ((or (string=? (car lines) "") (string-prefix? "[" (car lines)) (string-prefix? "#" (car lines)))
           (loop (cdr lines)))
          (else (car lines)))))

(define-model "reader" (lambda (prompt system) (after-heading prompt)))

(define-task (ask question)
  (description "Answer a question from the team's notes")
  (context (inherit none) (fresh enabled))            ; retrieve from the memory; no other history
  (model "reader")
  (prompt "Answer from the notes only: {{question}}"))

(define (source-name match)                            ; "…/notes/deploys.md#0" → "deploys.md#0"
  (let ((parts (string-split (get match 'source) #\/)))
    (car (reverse parts))))

(for-each
 (lambda (question)
   (let ((answer (ask question)))
     (display question) (newline)
     (display "  ") (display (get answer 'content)) (newline)
     (display "  best match: ") (display (source-name (car (get answer 'notes 'context-matches)))) (newline)))
 '("When do deploys run?" "How fast must on-call answer pages?"))
