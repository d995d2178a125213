"""``string-ref`` / ``string-set!`` on a long mutable string, beside the same loop in plain Python.

    python bench/mutable_strings.py

Both sides make a 40,000-character string and run 40,000 rounds of one
``string-set!`` and one ``string-ref`` at spread-out indices. Before the lazy
``MString`` representation each access copied the whole string (O(n)); now both are O(1),
so the time per access should not depend on the string's length.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import best

from interpreter import Interpreter

SCHEME = """
(define (churn n)
  (let ((s (make-string n #\\a)))
    (let loop ((k 0) (acc 0))
      (if (= k n)
          acc
          (begin (string-set! s (modulo (* k 7) n) #\\b)
                 (loop (+ k 1) (+ acc (char->integer (string-ref s (modulo (* k 13) n))))))))))
"""


def py_churn(n: int) -> int:
    s = ["a"] * n
    acc = 0
    for k in range(n):
        s[(k * 7) % n] = "b"
        acc += ord(s[(k * 13) % n])
    return acc


def main() -> None:
    interp = Interpreter()
    interp.eval_scheme(SCHEME)
    print("| length | taskscheme (s) | Python (s) | ratio |")
    print("|---:|---:|---:|---:|")
    for n in (4_000, 40_000):
        assert interp.eval_scheme(f"(churn {n})") == py_churn(n)
        ts = best(lambda n=n: interp.eval_scheme(f"(churn {n})"), 3)
        py = best(lambda n=n: py_churn(n), 3)
        print(f"| {n:,} | {ts:.4f} | {py:.4f} | {ts / py:.1f}x |")


if __name__ == "__main__":
    main()
