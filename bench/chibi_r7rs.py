"""Run chibi-scheme's ``tests/r7rs-tests.scm`` (a suite nobody here wrote) and count its assertions.

    python bench/chibi_r7rs.py PATH/TO/r7rs-tests.scm [--failures]

The suite is not part of this repository (fetch it from github.com/ashinn/chibi-scheme).
Its ``(chibi test)`` import is replaced by the stdlib's SRFI-64-style harness (approximate
comparison for inexact numbers, as chibi's own ``test`` does), plus ``test-values``.
Each top-level form runs on its own, so one unsupported form costs only its own assertions;
a top-level error is counted as one failed assertion.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from interpreter import Interpreter, SchemeError
from interpreter.reader import read_all

SHIM = """
(define-syntax test-values
  (syntax-rules ()
    ((_ expected expr)
     (test (call-with-values (lambda () expected) list) (call-with-values (lambda () expr) list)))))
(define-syntax test-read-error
  (syntax-rules ()
    ((_ str) (test-error (read (open-input-string str))))))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path)
    parser.add_argument("--failures", action="store_true", help="list every failed assertion")
    opts = parser.parse_args()
    text = opts.suite.read_text(encoding="utf-8").replace("(chibi test)", "")
    interp = Interpreter(allow_files=[str(opts.suite.parent)])
    interp.eval("(test-reset!)")
    interp.eval(SHIM)
    top_level_errors: list[str] = []
    for datum in read_all(text, filename=str(opts.suite)):
        try:
            interp.eval_datum(datum)
        except SchemeError as exc:
            top_level_errors.append(str(exc).splitlines()[0])
    passed, failed = interp.eval("(test-results)")
    failed += len(top_level_errors)
    total = passed + failed
    print(f"chibi r7rs-tests.scm: {passed} of {total} assertions pass ({100 * passed / total:.1f}%)")
    if opts.failures:
        for line in interp.eval("(test-failures)"):
            print(line)
        for line in top_level_errors:
            print("TOP-LEVEL", line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
