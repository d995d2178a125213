;; A refinement loop that runs offline: a DSL-defined model drafts release notes,
;; a real script (examples/score_notes.py) checks them, and its JSON verdict is the
;; evaluation that the next draft is built from.
;;
;;   taskscheme examples/refine.scm
;;   taskscheme --trace run.jsonl examples/refine.scm     (every iteration, script run and model call as JSON lines)
;;
;; With a real model, drop define-model and pass --model NAME; the loop is unchanged.

;; Where this file is, so the scorer is found from any working folder.
(define (folder-of path)
  (let loop ((i (- (string-length path) 1)))
    (cond ((< i 0) ".")
          ((char=? (string-ref path i) #\/) (substring path 0 i))
          (else (loop (- i 1))))))

(define scorer (string-append (folder-of (car (command-line))) "/score_notes.py"))

;; A toy "model": it fixes what the feedback in its prompt complains about.
(define-model "drafter"
  (lambda (prompt system)
    (cond ((string-contains prompt "must start with a verb")
           "- Add the loop form\n- Fix the reader\n- Document tasks")
          ((string-contains prompt "no 'Breaking changes' line")
           "- Add the loop form\n- Fix the reader\n- Document tasks\nBreaking changes: none")
          (else "- the loop form\n- reader fixes"))))

(define-task (draft-notes changes feedback)
  (description "Write release notes for a list of changes")
  (model "drafter")
  (prompt "Write release notes as bullet points for: {{changes}}\nFeedback on the last draft: {{feedback}}"))

(define result
  (director-evaluator-loop
    (max-iterations 5)
    (inputs (changes "loop form, reader fix, task docs")
            (scorer scorer))
    (director (draft-notes changes evaluation-feedback))
    (script-execution (list "python3" scorer) (timeout 20))
    (evaluator script-stdout)))                       ; the script's JSON verdict

(for-each
 (lambda (entry)
   (display "iteration ") (display (get entry 'iteration)) (display ": ")
   (display (get entry 'evaluation 'notes 'feedback))
   (display " (score ") (display (get entry 'evaluation 'notes 'details 'metrics 'score)) (display ")")
   (newline))
 (get result 'iteration-history))

(display (get result 'status)) (display " after ")
(display (get result 'iterations-completed)) (display " iterations:") (newline)
(display (get result 'final-output 'content)) (newline)
