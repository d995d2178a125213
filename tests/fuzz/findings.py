"""Programs the long fuzz runs found (leaks, overruns, hangs), cut down to their cause.
``tests/test_fuzz.py`` runs each under the fuzzer's limits; each must now end in a
value or a taskscheme error within its timeout plus half a second.

Each entry names the run and program it came from (``python -m tests.fuzz --seed S
--show N`` prints the original)."""

from __future__ import annotations

#: Digits past CPython's 4,300-digit int/str limit but inside ``max_digits``.
BIG = "1" * 5_000

FINDINGS: dict[str, str] = {
    # seed 1 #11816 (leak): an integer constant past 4,300 digits was written into
    # generated Python code with repr() (ValueError from the int/str limit).
    "big constant in a compiled body": f"(define (f x) (+ x {BIG})) (f 1)",
    "big constant as a test operand": f"(define (f x) (if (> x {BIG}) 1 2)) (f 1)",
    # (found while fixing it) error messages that printed a big integer argument
    "big index in a message": "(list-tail (list 1 2) (expt 10 5000))",
    "big ratio in a message": "(number->string 1 (/ (expt 10 5000) 3))",
    "big index of get": "(get (list 1 2) (expt 10 5000))",
    # seed 1 #10750, #15867, #18290, #18454, #20159, #20500 (overruns and hangs of 3-20 s):
    # the decimal-number regex \\d+\\.?\\d* backtracked quadratically on a long digit run
    # that did not end as a number.
    "long digit run that is no number": f"(quote {'1' * 50_000}x)",
    "long digit run, unclosed": f"(let ((x {'1' * 50_000}",
    # seed 1 #9298, #15877, #19945, #20330, #20972, #23274 (overruns of 1-2.5 s):
    # doubling append in one primitive call, no deadline check inside append.
    "doubling append": "(let loop ((l (list 1))) (loop (append l l)))",
    # seed 1 #2809, #51708, #53048 (overruns of 2-5 s): each line of a backtrace printed
    # its whole call, a 50,000-digit literal included, before cutting it to 40 characters.
    "backtrace through calls holding a huge literal": "(define (nest x) "
    + "(- " * 40
    + f"x {'1' * 49_000}"
    + ") 1" * 39
    + ")) (nest (list 1))",
    # (found while fixing it) a type error printed a million-element list whole
    "type error naming a long list": "(define l (iota 1000000)) (vector-ref l 0)",
}

#: Findings that need the process's memory not to grow (a long fuzz run reuses freed
#: memory, so the memory budget does not end them): run without ``max_memory``.
WITHOUT_MEMORY_BUDGET = {"doubling append"}
