(define loaded-value 'loaded)
