;; A code-review loop that runs offline: a DSL-defined "model" writes a Python function, and the
;; evaluator is a real test command (run_tests.py runs `python3 -m unittest` on each draft). The
;; failing tests are the feedback that the next draft is written from.
;;
;;   taskscheme examples/code_review/review.scm
;;   taskscheme --trace review.jsonl examples/code_review/review.scm
;;
;; With a real model, drop define-model and pass --model NAME; the loop is unchanged.

(define (folder-of path)
  (let loop ((i (- (string-length path) 1)))
    (cond ((< i 0) ".")
          ((char=? (string-ref path i) #\/) (substring path 0 i))
          (else (loop (- i 1))))))

(define runner (string-append (folder-of (car (command-line))) "/run_tests.py"))

;; The toy coder fixes what the failing tests in its prompt name.
(define-model "coder"
  (lambda (prompt system)
    (cond ((string-contains prompt "test_collapses_spaces")
           "import re\n\ndef slugify(text):\n    words = re.findall(r\"[a-z0-9]+\", text.lower())\n    return \"-\".join(words)\n")
          ((string-contains prompt "test_drops_punctuation")
           "def slugify(text):\n    return \"-\".join(text.lower().split(\" \"))\n")
          (else "def slugify(text):\n    return text.lower().replace(\" \", \"-\")\n"))))

(define-task (write-code request feedback)
  (description "Write a Python module")
  (system "Answer with the code of the module only.")
  (model "coder")
  (prompt "{{request}}\nTest results of the last draft: {{feedback}}"))

(define result
  (director-evaluator-loop
    (max-iterations 4)
    (inputs (request "Write slugify(text): lowercase words joined by hyphens, no punctuation."))
    (director (write-code request evaluation-feedback))
    (script-execution (list "python3" runner) (timeout 60))
    (evaluator script-stdout)))

(for-each
 (lambda (entry)
   (display "draft ") (display (get entry 'iteration)) (display ": ")
   (display (get entry 'evaluation 'notes 'feedback)) (newline))
 (get result 'iteration-history))
(display (get result 'status)) (display " after ")
(display (get result 'iterations-completed)) (display " drafts") (newline)
