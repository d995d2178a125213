;; A batch evaluation of a prompt over a JSONL data set, with a metric; offline (the "model"
;; is a keyword rule written in the DSL, so it gets some items wrong, as a model would):
;;
;;   taskscheme batch examples/batch_eval/classify.scm --task classify \
;;       --inputs examples/batch_eval/sentiment.jsonl --output results.jsonl --metric exact-label
;;
;; Each line of sentiment.jsonl gives classify's arguments by name (review) plus the expected
;; label, which only the metric reads. The summary prints the mean metric; results.jsonl holds
;; every item's input, answer, metric and usage (run again to resume). With a real model, drop
;; define-model and add --model NAME; change the prompt and compare the two means.

(define-model "keyword-rule"
  (lambda (prompt system)
    (let ((review (string-downcase prompt)))
      (if (or (string-contains review "not ") (string-contains review "never")
              (string-contains review "stopped"))
          "negative"
          "positive"))))

(define-task (classify review (label #f))              ; label: the data set's answer, unused here
  (description "Classify a product review")
  (model "keyword-rule")
  (prompt "Answer positive or negative. Review: {{review}}"))

;; The metric: 1 when the answer is the expected label, else 0.
(define (exact-label input result)
  (if (string=? (string-trim (get result 'content)) (get input 'label)) 1 0))
