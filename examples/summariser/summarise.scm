;; A document summariser that runs offline: every file is summarised at once with parallel-map,
;; the model's answers are cached (a second run makes no model call), and a flaky model's
;; transient errors are retried with backoff. The "model" is a DSL procedure that fails the
;; first time it sees each document, as an overloaded provider would.
;;
;;   taskscheme --cache summaries.sqlite examples/summariser/summarise.scm
;;   taskscheme --cache summaries.sqlite examples/summariser/summarise.scm   # again: all cached
;;
;; With a real model, drop define-model and pass --model NAME (and keep --cache).

(define (folder-of path)
  (let loop ((i (- (string-length path) 1)))
    (cond ((< i 0) ".")
          ((char=? (string-ref path i) #\/) (substring path 0 i))
          (else (loop (- i 1))))))

(define here (folder-of (car (command-line))))
(define names '("release.txt" "incident.txt" "hiring.txt" "office.txt"))

(define (read-text path)
  (call-with-input-file path
    (lambda (port)
      (let loop ((lines '()))
        (let ((line (read-line port)))
          (if (eof-object? line)
              (string-join (reverse lines) "\n")
              (loop (cons line lines))))))))

;; Overloaded once per document, then it answers with the document's first sentence.
(define seen (make-equal-hash-table))
(define-model "flaky"
  (lambda (prompt system)
    (let ((text (cadr (string-split prompt #\newline))))
      (if (hash-table-ref/default seen text #f)
          (car (string-split text #\.))
          (begin (hash-table-set! seen text #t)
                 (transient-error "overloaded, try again"))))))

(define-task (summarise text)
  (description "Summarise a document in one sentence")
  (model "flaky")
  (retries 3 (backoff 0.01))                          ; transient errors only; 0.01 s, 0.02 s …
  (cache #t)                                          ; same prompt, same model: the stored answer
  (prompt "Summarise in one sentence:\n{{text}}"))

(define results
  (parallel-map (lambda (name) (summarise (read-text (string-append here "/documents/" name))))
                names
                #:max-concurrency 4))

(for-each (lambda (name result)
            (display name) (display ": ") (display (get result 'content))
            (display (if (get result 'notes 'cached) " (cached)" ""))
            (newline))
          names results)
(display (get (usage) 'total 'calls)) (display " model calls, ")
(display (get (usage) 'total 'cached)) (display " cached, ")
(display (get (usage) 'total 'attempts)) (display " attempts") (newline)
