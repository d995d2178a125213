"""The library suite's programs: each in taskscheme and the same algorithm in plain Python.

Two groups (see ``bench/library.py``, which runs them side by side):

* LIBRARY: the programs of issue 16, code that leans on the library (higher-order list
  procedures, association lists, string ports, floats, vectors with ``do``, strings);
* IDIOMATIC: seven programs written as users write them (built-ins passed by name, ``iota``,
  ``apply``, internal defines), each beside the Python a Python programmer would write
  (comprehensions, ``str.join``, ``list(range)``); ``bench/library.py`` runs them embedded
  with a default ``Interpreter()`` and CPython's default collector settings, as a host does;
* R7RS: ten programs of ecraven/r7rs-benchmarks, written anew with the same algorithms
  (fib, tak, ack, fibfp, nqueens, primes, deriv, mbrot, array1, triangl; triangl starts
  from a board with five holes and stops at ten moves, so that one run takes seconds).

Each case is ``(title, scheme definitions, scheme expression, python function)``; both
sides return the same number, which the runner checks before timing.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from typing import Any, NamedTuple


class Case(NamedTuple):
    title: str
    definitions: str
    expression: str
    python: Callable[[], Any]


# ---------------------------------------------------------------------------------------
# library programs
# ---------------------------------------------------------------------------------------
HIGHER_ORDER = """
(define numbers (iota 300000))
(define (map-filter-fold lst)
  (fold-left (lambda (acc x) (+ acc x)) 0
             (filter (lambda (x) (even? x))
                     (map (lambda (x) (* x 3)) lst))))
"""


def py_map_filter_fold(numbers: list[int]) -> int:
    total = 0
    for x in filter(lambda x: x % 2 == 0, map(lambda x: x * 3, numbers)):
        total = total + x
    return total


ALISTS = """
(define int-alist (map (lambda (i) (cons i (* i i))) (iota 100)))
(define (assv-lookups n)
  (let loop ((i 0) (sum 0))
    (if (= i n) sum (loop (+ i 1) (+ sum (cdr (assv (modulo i 100) int-alist)))))))
(define string-alist (map (lambda (i) (cons (string-append "key-" (number->string i)) i)) (iota 50)))
(define string-keys (list->vector (map car string-alist)))
(define (assoc-lookups n)
  (let loop ((i 0) (sum 0))
    (if (= i n) sum
        (loop (+ i 1) (+ sum (cdr (assoc (vector-ref string-keys (modulo i 50)) string-alist)))))))
"""

INT_ALIST = [(i, i * i) for i in range(100)]
STRING_ALIST = [(f"key-{i}", i) for i in range(50)]


def py_assv(key: Any, alist: list[tuple[Any, Any]]) -> Any:
    for entry in alist:
        if entry[0] == key:
            return entry
    return False


def py_assv_lookups(n: int) -> int:
    total = 0
    for i in range(n):
        total += py_assv(i % 100, INT_ALIST)[1]
    return total


def py_assoc_lookups(n: int) -> int:
    keys = [k for k, _ in STRING_ALIST]
    total = 0
    for i in range(n):
        total += py_assv(keys[i % 50], STRING_ALIST)[1]
    return total


PORTS = """
(define (port-writes n)
  (let ((port (open-output-string)))
    (let loop ((i 0))
      (if (< i n)
          (begin (write-string "line " port) (write-char #\\x port) (write-char #\\newline port)
                 (loop (+ i 1)))))
    (string-length (get-output-string port))))
"""


def py_port_writes(n: int) -> int:
    port = io.StringIO()
    for _ in range(n):
        port.write("line ")
        port.write("x")
        port.write("\n")
    return len(port.getvalue())


FLOATS = """
(define (float-loop n)
  (let loop ((i 0) (x 0.5) (acc 0.0))
    (if (= i n) (round acc)
        (loop (+ i 1) (+ (* x 0.999) 0.001) (+ acc (* x 1.5))))))
"""


def py_float_loop(n: int) -> float:
    i, x, acc = 0, 0.5, 0.0
    while i != n:
        i, x, acc = i + 1, x * 0.999 + 0.001, acc + x * 1.5
    return round(acc)


VECTORS = """
(define (vector-fill-sum n)
  (let ((v (make-vector n 0)))
    (do ((i 0 (+ i 1))) ((= i n)) (vector-set! v i (* i 2)))
    (do ((i 0 (+ i 1)) (sum 0 (+ sum (vector-ref v i)))) ((= i (vector-length v)) sum))))
"""


def py_vector_fill_sum(n: int) -> int:
    v = [0] * n
    i = 0
    while i != n:
        v[i] = i * 2
        i += 1
    i = total = 0
    while i != len(v):
        total += v[i]
        i += 1
    return total


MERGE_SORT = """
(define sort-data (let loop ((i 0) (x 7) (acc '()))
  (if (= i 20000) acc (loop (+ i 1) (modulo (+ (* x 1103515245) 12345) 2147483648) (cons x acc)))))
(define (merge a b)
  (cond ((null? a) b)
        ((null? b) a)
        ((< (car a) (car b)) (cons (car a) (merge (cdr a) b)))
        (else (cons (car b) (merge a (cdr b))))))
(define (split lst)
  (if (or (null? lst) (null? (cdr lst)))
      (values lst '())
      (let-values (((a b) (split (cddr lst))))
        (values (cons (car lst) a) (cons (cadr lst) b)))))
(define (merge-sort lst)
  (if (or (null? lst) (null? (cdr lst)))
      lst
      (let-values (((a b) (split lst)))
        (merge (merge-sort a) (merge-sort b)))))
(define (sorted-checksum)
  (let loop ((l (merge-sort sort-data)) (i 0) (sum 0))
    (if (null? l) sum (loop (cdr l) (+ i 1) (modulo (+ sum (* i (car l))) 1000000007)))))
"""


def _lcg_list() -> list[int]:
    """The same list as the Scheme ``sort-data``: consed in order, so last value first."""
    values, x = [], 7
    for _ in range(20000):
        values.append(x)
        x = (x * 1103515245 + 12345) % 2147483648
    return values[::-1]


def py_merge_sort(xs: list[int]) -> list[int]:
    if len(xs) < 2:
        return xs
    return py_merge_iter(py_merge_sort(xs[0::2]), py_merge_sort(xs[1::2]))


def py_merge_iter(a: list[int], b: list[int]) -> list[int]:
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        if a[i] < b[j]:
            out.append(a[i])
            i += 1
        else:
            out.append(b[j])
            j += 1
    return out + a[i:] + b[j:]


def py_sorted_checksum() -> int:
    total = 0
    for i, x in enumerate(py_merge_sort(_lcg_list())):
        total = (total + i * x) % 1000000007
    return total


STRINGS = """
(define (string-appends n)
  (let loop ((i 0) (total 0))
    (if (= i n) total
        (loop (+ i 1) (+ total (string-length (string-append "key-" (number->string i) "-value")))))))
(define text (make-string 200000 #\\a))
(string-set! text 100 #\\e)
(define (count-vowels s)
  (let ((n (string-length s)))
    (let loop ((i 0) (count 0))
      (if (= i n) count
          (loop (+ i 1) (if (memv (string-ref s i) '(#\\a #\\e #\\i #\\o #\\u)) (+ count 1) count))))))
"""


def py_string_appends(n: int) -> int:
    total = 0
    for i in range(n):
        total += len("key-" + str(i) + "-value")
    return total


def py_count_vowels(s: str) -> int:
    count = 0
    for i in range(len(s)):
        if s[i] in "aeiou":
            count += 1
    return count


TEXT = "a" * 100 + "e" + "a" * (200000 - 101)

LIBRARY = [
    Case(
        "map/filter/fold-left over 300,000 numbers",
        HIGHER_ORDER,
        "(map-filter-fold numbers)",
        lambda: py_map_filter_fold(list(range(300000))),
    ),
    Case(
        "assv lookups in a 100-entry alist, 100,000 times",
        ALISTS,
        "(assv-lookups 100000)",
        lambda: py_assv_lookups(100000),
    ),
    Case("assoc (string keys), 100,000 times", ALISTS, "(assoc-lookups 100000)", lambda: py_assoc_lookups(100000)),
    Case("string port writes, 3 x 100,000", PORTS, "(port-writes 100000)", lambda: py_port_writes(100000)),
    Case("float arithmetic loop, 300,000 iterations", FLOATS, "(float-loop 300000)", lambda: py_float_loop(300000)),
    Case(
        "vector filled and summed with do, 300,000",
        VECTORS,
        "(vector-fill-sum 300000)",
        lambda: py_vector_fill_sum(300000),
    ),
    Case("merge sort of 20,000 numbers (let-values)", MERGE_SORT, "(sorted-checksum)", py_sorted_checksum),
    Case(
        "string-append and number->string, 100,000",
        STRINGS,
        "(string-appends 100000)",
        lambda: py_string_appends(100000),
    ),
    Case(
        "string-ref over a 200,000-character mutable string",
        STRINGS,
        "(count-vowels text)",
        lambda: py_count_vowels(TEXT),
    ),
]


# ---------------------------------------------------------------------------------------
# idiomatic programs (issue 35): as users write them, beside idiomatic Python
# ---------------------------------------------------------------------------------------
IDIOMS = """
(define (hof n) (fold-left + 0 (filter even? (map (lambda (x) (* x 3)) (iota n)))))
(define (digits n) (string-length (apply string-append (map number->string (iota n)))))
(define (merge-sort lst)
  (define (merge a b)
    (cond ((null? a) b)
          ((null? b) a)
          ((< (car a) (car b)) (cons (car a) (merge (cdr a) b)))
          (else (cons (car b) (merge a (cdr b))))))
  (define (split lst)
    (if (or (null? lst) (null? (cdr lst)))
        (values lst '())
        (let-values (((a b) (split (cddr lst))))
          (values (cons (car lst) a) (cons (cadr lst) b)))))
  (if (or (null? lst) (null? (cdr lst)))
      lst
      (let-values (((a b) (split lst)))
        (merge (merge-sort a) (merge-sort b)))))
(define sort-data (let loop ((i 0) (x 7) (acc '()))
  (if (= i 20000) acc (loop (+ i 1) (modulo (+ (* x 1103515245) 12345) 2147483648) (cons x acc)))))
(define (sorted-checksum)
  (let loop ((l (merge-sort sort-data)) (i 0) (sum 0))
    (if (null? l) sum (loop (cdr l) (+ i 1) (modulo (+ sum (* i (car l))) 1000000007)))))
(define (roots n)
  (let loop ((i 0) (acc 0.0))
    (if (= i n) (round acc) (loop (+ i 1) (+ acc (sqrt (exact->inexact i)))))))
(define numbers (iota 300000))
(define (increments l) (length (map (lambda (x) (+ x 1)) l)))
(define (sum-of-squares l) (apply + (map (lambda (x) (* x x)) l)))
(define words
  (map (lambda (i) (string->symbol (string-append "w" (number->string (modulo (* i 7) 1000))))) (iota 200000)))
(define (word-counts words)
  (let ((counts (make-equal-hash-table)))
    (for-each (lambda (w) (hash-table-update!/default counts w (lambda (c) (+ c 1)) 0)) words)
    (hash-table-ref/default counts 'w7 0)))
(define strings (map number->string (iota 100000)))
(define (joined l) (string-length (apply string-append l)))
(define number-vector (list->vector numbers))
(define (right-sum l) (fold-right + 0 l))
(define (reduced-sum l) (reduce + 0 l))
(define (inexacts v) (vector-length (vector-map exact->inexact v)))
"""

NUMBERS = list(range(300000))
WORDS = [f"w{i * 7 % 1000}" for i in range(200000)]
STRINGS = [str(i) for i in range(100000)]


def py_word_counts(words: list[str]) -> int:
    counts: dict[str, int] = {}
    for w in words:
        counts[w] = counts.get(w, 0) + 1
    return counts.get("w7", 0)


def py_roots(n: int) -> float:
    return round(sum(math.sqrt(float(i)) for i in range(n)))


IDIOMATIC = [
    Case(
        "(fold-left + 0 (filter even? (map (lambda (x) (* x 3)) (iota n)))), 300,000",
        IDIOMS,
        "(hof 300000)",
        lambda: sum([y for y in [x * 3 for x in range(300000)] if y % 2 == 0]),
    ),
    Case(
        "(apply string-append (map number->string (iota n))), 100,000",
        IDIOMS,
        "(digits 100000)",
        lambda: len("".join([str(i) for i in range(100000)])),
    ),
    Case("merge sort of 20,000 numbers, internal defines", IDIOMS, "(sorted-checksum)", py_sorted_checksum),
    Case(
        "float loop with sqrt and exact->inexact, 300,000",
        IDIOMS,
        "(roots 300000)",
        lambda: py_roots(300000),
    ),
    Case(
        "(map (lambda (x) (+ x 1)) l), 300,000",
        IDIOMS,
        "(increments numbers)",
        lambda: len([x + 1 for x in NUMBERS]),
    ),
    Case(
        "(apply + (map (lambda (x) (* x x)) l)), 300,000",
        IDIOMS,
        "(sum-of-squares numbers)",
        lambda: sum([x * x for x in NUMBERS]),
    ),
    Case(
        "word counts in a hash table, 200,000 words",
        IDIOMS,
        "(word-counts words)",
        lambda: py_word_counts(WORDS),
    ),
]


#: What single list operations cost beside the C loops Python has for them (printed by
#: ``bench/library.py`` apart, not in any mean: no pure-Python walk of pairs reaches them).
ELEMENTS = [
    Case("(iota n) beside list(range(n)), 300,000", IDIOMS, "(length (iota 300000))", lambda: len(list(range(300000)))),
    Case(
        "(apply string-append l) beside str.join, 100,000 strings",
        IDIOMS,
        "(joined strings)",
        lambda: len("".join(STRINGS)),
    ),
    # the walks given a built-in by name (inline_walks: fold-right, reduce, vector-map)
    Case(
        "(fold-right + 0 l) beside sum(reversed(l)), 300,000",
        IDIOMS,
        "(right-sum numbers)",
        lambda: sum(reversed(NUMBERS)),
    ),
    Case("(reduce + 0 l) beside sum(l), 300,000", IDIOMS, "(reduced-sum numbers)", lambda: sum(NUMBERS)),
    Case(
        "(vector-map exact->inexact v) beside [float(x) for x in v], 300,000",
        IDIOMS,
        "(inexacts number-vector)",
        lambda: len([float(x) for x in NUMBERS]),
    ),
]


# ---------------------------------------------------------------------------------------
# ecraven/r7rs-benchmarks, written anew
# ---------------------------------------------------------------------------------------
FIB = "(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))"


def py_fib(n: int) -> int:
    return n if n < 2 else py_fib(n - 1) + py_fib(n - 2)


TAK = """
(define (tak x y z)
  (if (not (< y x)) z (tak (tak (- x 1) y z) (tak (- y 1) z x) (tak (- z 1) x y))))
"""


def py_tak(x: int, y: int, z: int) -> int:
    if not y < x:
        return z
    return py_tak(py_tak(x - 1, y, z), py_tak(y - 1, z, x), py_tak(z - 1, x, y))


ACK = """
(define (ack m n)
  (cond ((= m 0) (+ n 1))
        ((= n 0) (ack (- m 1) 1))
        (else (ack (- m 1) (ack m (- n 1))))))
"""


def py_ack(m: int, n: int) -> int:
    if m == 0:
        return n + 1
    if n == 0:
        return py_ack(m - 1, 1)
    return py_ack(m - 1, py_ack(m, n - 1))


FIBFP = "(define (fibfp n) (if (< n 2.) n (+ (fibfp (- n 1.)) (fibfp (- n 2.)))))"


def py_fibfp(n: float) -> float:
    return n if n < 2.0 else py_fibfp(n - 1.0) + py_fibfp(n - 2.0)


NQUEENS = """
(define (queens board-size)
  (define (iota1 n) (let loop ((i n) (l '())) (if (= i 0) l (loop (- i 1) (cons i l)))))
  (define (my-try x y z)
    (if (null? x)
        (if (null? y) 1 0)
        (+ (if (ok? (car x) 1 z) (my-try (append (cdr x) y) '() (cons (car x) z)) 0)
           (my-try (cdr x) (cons (car x) y) z))))
  (define (ok? row dist placed)
    (if (null? placed)
        #t
        (and (not (= (car placed) (+ row dist)))
             (not (= (car placed) (- row dist)))
             (ok? row (+ dist 1) (cdr placed)))))
  (my-try (iota1 board-size) '() '()))
"""


def py_queens(board_size: int) -> int:
    def my_try(x: list[int], y: list[int], z: list[int]) -> int:
        if not x:
            return 1 if not y else 0
        a = my_try(x[1:] + y, [], [x[0], *z]) if ok(x[0], 1, z) else 0
        return a + my_try(x[1:], [x[0], *y], z)

    def ok(row: int, dist: int, placed: list[int]) -> bool:
        for p in placed:
            if p == row + dist or p == row - dist:
                return False
            dist += 1
        return True

    return my_try(list(range(1, board_size + 1)), [], [])


PRIMES = """
(define (interval-list m n) (if (> m n) '() (cons m (interval-list (+ 1 m) n))))
(define (sieve l)
  (letrec ((remove-multiples
            (lambda (n l)
              (if (null? l) '()
                  (if (= (modulo (car l) n) 0)
                      (remove-multiples n (cdr l))
                      (cons (car l) (remove-multiples n (cdr l))))))))
    (if (null? l) '() (cons (car l) (sieve (remove-multiples (car l) (cdr l)))))))
(define (primes-sum n times)
  (let loop ((k 0) (s 0)) (if (= k times) s (loop (+ k 1) (+ s (apply + (sieve (interval-list 2 n))))))))
"""


def py_primes_sum(n: int, times: int) -> int:
    def sieve(items: list[int]) -> list[int]:
        out = []
        while items:
            p = items[0]
            out.append(p)
            items = [x for x in items[1:] if x % p != 0]
        return out

    return sum(sum(sieve(list(range(2, n + 1)))) for _ in range(times))


DERIV = """
(define (deriv a)
  (cond ((not (pair? a)) (if (eq? a 'x) 1 0))
        ((eq? (car a) '+) (cons '+ (map deriv (cdr a))))
        ((eq? (car a) '-) (cons '- (map deriv (cdr a))))
        ((eq? (car a) '*) (list '* a (cons '+ (map (lambda (a) (list '/ (deriv a) a)) (cdr a)))))
        ((eq? (car a) '/)
         (list '- (list '/ (deriv (cadr a)) (caddr a))
               (list '/ (cadr a) (list '* (caddr a) (caddr a) (deriv (caddr a))))))
        (else (error "no derivation method available" (car a)))))
(define (deriv-loop n)
  (let loop ((i 0) (size 0))
    (if (= i n) size
        (loop (+ i 1) (length (deriv '(+ (* 3 x x) (* a x x) (* b x) 5)))))))
"""

DERIV_INPUT = ("+", ("*", 3, "x", "x"), ("*", "a", "x", "x"), ("*", "b", "x"), 5)


def py_deriv(a: Any) -> Any:
    if not isinstance(a, tuple):
        return 1 if a == "x" else 0
    op = a[0]
    if op in ("+", "-"):
        return (op, *map(py_deriv, a[1:]))
    if op == "*":
        return ("*", a, ("+", *(("/", py_deriv(b), b) for b in a[1:])))
    if op == "/":
        return ("-", ("/", py_deriv(a[1]), a[2]), ("/", a[1], ("*", a[2], a[2], py_deriv(a[2]))))
    raise ValueError(op)


def py_deriv_loop(n: int) -> int:
    size = 0
    for _ in range(n):
        size = len(py_deriv(DERIV_INPUT))
    return size


MBROT = """
(define (mbrot-count r i step x y)
  (let ((max-count 64) (radius^2 16.0))
    (let ((cr (+ r (* (exact->inexact x) step)))
          (ci (+ i (* (exact->inexact y) step))))
      (let loop ((zr cr) (zi ci) (c 0))
        (if (= c max-count)
            c
            (let ((zr^2 (* zr zr)) (zi^2 (* zi zi)))
              (if (> (+ zr^2 zi^2) radius^2)
                  c
                  (let ((new-zr (+ (- zr^2 zi^2) cr))
                        (new-zi (+ (* 2.0 (* zr zi)) ci)))
                    (loop new-zr new-zi (+ c 1))))))))))
(define (mbrot matrix r i step n)
  (let loop1 ((y (- n 1)))
    (if (>= y 0)
        (let loop2 ((x (- n 1)))
          (if (>= x 0)
              (begin (vector-set! (vector-ref matrix x) y (mbrot-count r i step x y))
                     (loop2 (- x 1)))
              (loop1 (- y 1)))))))
(define (mbrot-test n)
  (let ((matrix (make-vector n)))
    (let loop ((i (- n 1)))
      (if (>= i 0) (begin (vector-set! matrix i (make-vector n)) (loop (- i 1)))))
    (mbrot matrix -1.0 -0.5 0.005 n)
    (let sum ((i 0) (total 0))
      (if (= i n) total (sum (+ i 1) (+ total (apply + (vector->list (vector-ref matrix i)))))))))
"""


def py_mbrot_count(r: float, i: float, step: float, x: int, y: int) -> int:
    max_count, radius2 = 64, 16.0
    cr, ci = r + float(x) * step, i + float(y) * step
    zr, zi, c = cr, ci, 0
    while c != max_count:
        zr2, zi2 = zr * zr, zi * zi
        if zr2 + zi2 > radius2:
            return c
        zr, zi, c = zr2 - zi2 + cr, 2.0 * (zr * zi) + ci, c + 1
    return c


def py_mbrot_test(n: int) -> int:
    matrix = [[0] * n for _ in range(n)]
    for y in range(n - 1, -1, -1):
        for x in range(n - 1, -1, -1):
            matrix[x][y] = py_mbrot_count(-1.0, -0.5, 0.005, x, y)
    return sum(sum(row) for row in matrix)


ARRAY1 = """
(define (create-x n)
  (define result (make-vector n))
  (do ((i 0 (+ i 1))) ((>= i n) result) (vector-set! result i i)))
(define (create-y x)
  (let* ((n (vector-length x)) (result (make-vector n)))
    (do ((i (- n 1) (- i 1))) ((< i 0) result) (vector-set! result i (vector-ref x i)))))
(define (array1-try n) (vector-length (create-y (create-x n))))
(define (array1 m n)
  (let loop ((repeat m) (result 0)) (if (> repeat 0) (loop (- repeat 1) (array1-try n)) result)))
"""


def py_array1(m: int, n: int) -> int:
    def create_x(n: int) -> list[int]:
        result = [None] * n
        i = 0
        while i < n:
            result[i] = i
            i += 1
        return result

    def create_y(x: list[Any]) -> list[Any]:
        n = len(x)
        result = [None] * n
        i = n - 1
        while i >= 0:
            result[i] = x[i]
            i -= 1
        return result

    result = 0
    for _ in range(m):
        result = len(create_y(create_x(n)))
    return result


TRIANGL_A = [
    1,
    2,
    4,
    3,
    5,
    6,
    1,
    3,
    6,
    2,
    5,
    4,
    11,
    12,
    13,
    7,
    8,
    4,
    4,
    7,
    11,
    8,
    12,
    13,
    6,
    10,
    15,
    9,
    14,
    13,
    13,
    14,
    15,
    9,
    10,
    6,
    6,
]
TRIANGL_B = [
    2,
    4,
    7,
    5,
    8,
    9,
    3,
    6,
    10,
    5,
    9,
    8,
    12,
    13,
    14,
    8,
    9,
    5,
    2,
    4,
    7,
    5,
    8,
    9,
    3,
    6,
    10,
    5,
    9,
    8,
    12,
    13,
    14,
    8,
    9,
    5,
    5,
]
TRIANGL_C = [
    4,
    7,
    11,
    8,
    12,
    13,
    6,
    10,
    15,
    9,
    14,
    13,
    13,
    14,
    15,
    9,
    10,
    6,
    1,
    2,
    4,
    3,
    5,
    6,
    1,
    3,
    6,
    2,
    5,
    4,
    11,
    12,
    13,
    7,
    8,
    4,
    4,
]


def _scheme_vector(items: list[int]) -> str:
    return "(list->vector '(" + " ".join(map(str, items)) + "))"


TRIANGL = f"""
(define *board* (make-vector 16 1))
(define *sequence* (make-vector 14 0))
(define *a* {_scheme_vector(TRIANGL_A)})
(define *b* {_scheme_vector(TRIANGL_B)})
(define *c* {_scheme_vector(TRIANGL_C)})
(define *answer* '())
(define (last-position)
  (do ((i 1 (+ i 1))) ((or (= i 16) (= 1 (vector-ref *board* i))) (if (= i 16) 0 i))))
(define (attempt i depth)
  (cond ((= depth 11)
         (set! *answer* (cons (cdr (vector->list *sequence*)) *answer*))
         #t)
        ((and (= 1 (vector-ref *board* (vector-ref *a* i)))
              (= 1 (vector-ref *board* (vector-ref *b* i)))
              (= 0 (vector-ref *board* (vector-ref *c* i))))
         (vector-set! *board* (vector-ref *a* i) 0)
         (vector-set! *board* (vector-ref *b* i) 0)
         (vector-set! *board* (vector-ref *c* i) 1)
         (vector-set! *sequence* depth i)
         (do ((j 0 (+ j 1)) (depth (+ depth 1)))
             ((or (= j 36) (attempt j depth)) #f))
         (vector-set! *board* (vector-ref *a* i) 1)
         (vector-set! *board* (vector-ref *b* i) 1)
         (vector-set! *board* (vector-ref *c* i) 0)
         #f)
        (else #f)))
(define (triangl i depth)
  (vector-fill! *board* 1)
  (for-each (lambda (hole) (vector-set! *board* hole 0)) '(0 5 2 11 4))
  (set! *answer* '())
  (attempt i depth)
  (apply + (car *answer*)))
"""


def py_triangl(i: int, depth: int) -> int:
    board = [1] * 16
    for hole in (0, 5, 2, 11, 4):
        board[hole] = 0
    sequence = [0] * 14
    answer: list[list[int]] = []
    a, b, c = TRIANGL_A, TRIANGL_B, TRIANGL_C

    def attempt(i: int, depth: int) -> bool:
        if depth == 11:
            answer.insert(0, sequence[1:])
            return True
        if board[a[i]] == 1 and board[b[i]] == 1 and board[c[i]] == 0:
            board[a[i]] = 0
            board[b[i]] = 0
            board[c[i]] = 1
            sequence[depth] = i
            j = 0
            while not (j == 36 or attempt(j, depth + 1)):
                j += 1
            board[a[i]] = 1
            board[b[i]] = 1
            board[c[i]] = 0
        return False

    attempt(i, depth)
    return sum(answer[0])


R7RS = [
    Case("fib 25", FIB, "(fib 25)", lambda: py_fib(25)),
    Case("tak 22 16 8", TAK, "(tak 22 16 8)", lambda: py_tak(22, 16, 8)),
    Case("ack 3 6", ACK, "(ack 3 6)", lambda: py_ack(3, 6)),
    Case("fibfp 25.", FIBFP, "(fibfp 25.)", lambda: py_fibfp(25.0)),
    Case("nqueens 8", NQUEENS, "(queens 8)", lambda: py_queens(8)),
    Case("primes <= 1000, 10 times", PRIMES, "(primes-sum 1000 10)", lambda: py_primes_sum(1000, 10)),
    Case("deriv, 20,000 times", DERIV, "(deriv-loop 20000)", lambda: py_deriv_loop(20000)),
    Case("mbrot 75", MBROT, "(mbrot-test 75)", lambda: py_mbrot_test(75)),
    Case("array1 (200,000 elements, 3 times)", ARRAY1, "(array1 3 200000)", lambda: py_array1(3, 200000)),
    Case("triangl 22 1 (5 holes, 10 moves)", TRIANGL, "(triangl 22 1)", lambda: py_triangl(22, 1)),
]
