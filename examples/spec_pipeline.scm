;; A spec-writing pipeline that runs offline: gather requirements, draft the spec behind a
;; quality gate (a reviewer scores each draft on the rubric: completeness, correctness,
;; clarity, actionability; below 70% the scores and suggestions go back to the writer),
;; then turn the accepted spec into a task list. The "models" are DSL procedures.
;;
;;   taskscheme examples/spec_pipeline.scm
;;
;; With real models, drop the define-model forms and pass --model NAME.

(define-model "analyst"
  (lambda (prompt system)
    "- export a report as CSV\n- only admins may export\n- exports over 10 MB are mailed"))

;; The writer adds what the reviewer's suggestions ask for.
(define-model "writer"
  (lambda (prompt system)
    (string-append
     "# Export spec\nAdmins export a report as CSV; large exports (over 10 MB) are mailed."
     (if (string-contains prompt "error cases")
         "\n## Errors\nA non-admin gets 403; a failed mail is retried 3 times, then logged."
         ""))))

;; The reviewer answers in JSON, as a real model would when asked to.
(define-model "reviewer"
  (lambda (prompt system)
    (if (string-contains prompt "## Errors")
        "{\"completeness\": 23, \"correctness\": 22, \"clarity\": 21, \"actionability\": 20, \"suggestions\": []}"
        "{\"completeness\": 12, \"correctness\": 20, \"clarity\": 20, \"actionability\": 10, \"suggestions\": [\"cover the error cases\"]}")))

(define-model "planner"
  (lambda (prompt system)
    "1. CSV writer\n2. admin check (403)\n3. mail large exports with 3 retries"))

(define-task (requirements request)
  (model "analyst")
  (prompt "List the requirements of: {{request}}"))

(define-task (write-spec requirements feedback)
  (model "writer")
  (prompt "Write a spec for:\n{{requirements}}\nReviewer feedback: {{feedback}}"))

(define-task (review-spec spec)                         ; scores, not a pass/fail verdict: no evaluator subtype
  (model "reviewer")
  (prompt "Score this spec on completeness, correctness, clarity and actionability (0-25 each), as JSON with suggestions:\n{{spec}}"))

(define-task (plan spec)
  (model "planner")
  (prompt "Break this spec into tasks:\n{{spec}}"))

(define (gated-spec reqs)
  (quality-gate (lambda (feedback) (write-spec reqs feedback))
                (lambda (draft) (review-spec draft))
                #:threshold 0.8))

(define (last-output outputs) (car (reverse outputs)))

(define result
  (sequential
    (context (accumulate #t) (format full-output))      ; previous-outputs: the outputs themselves
    (step gather (requirements "CSV export of reports"))
    (step spec (gated-spec (last-output previous-outputs)))
    (step tasks (plan (last-output previous-outputs)))))

(display (get result 'status)) (newline)
(define gate (get (cadr (get result 'notes 'steps)) 'output))
(display "spec accepted after ") (display (get gate 'iterations-completed)) (display " drafts; first review: ")
(display (get (car (get gate 'iteration-history)) 'evaluation 'notes 'feedback)) (newline)
(display (get gate 'final-output 'content)) (newline)
(display (get result 'content)) (newline)
