"""Reader speed: ``read_all`` over a generated ~1 MB program, beside Python's own parsers.

    python bench/read.py [--size BYTES] [--repeat N] [--ordinary]

The program is a realistic mix (definitions, nested lists, strings with escapes,
symbols, integers and decimals, line and block comments, quotes and quasiquotes,
vectors, characters, association lists), generated from a fixed seed. On the same
run Python's ``ast.parse`` reads a Python program and ``json.loads`` a JSON text of
about the same size, so the figures compare on one machine at one moment.
``--ordinary`` reads the repository's own ``.scm`` files instead, repeated to the size (code
as people write it: more comments, longer names, fewer numbers). The issue's target is
``read_all`` >= 1 MB/s on 5 MB of ordinary code (``--size 5000000 --ordinary``).
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import best

from interpreter.reader import read_all, read_with_spans

WORDS = ["task", "prompt", "result", "score", "items", "name", "value", "loop", "acc", "string-append",
         "map", "filter", "assoc", "cdr", "car", "list->vector", "make-hash", "reviewer", "draft", "x",
         "hash-table-ref", "previous-outputs", "<=", "+", "*", "string?", "set!", "feedback", "k"]


class Scheme:
    """A random Scheme program, one top-level form at a time."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def atom(self) -> str:
        r = self.rng.random()
        if r < 0.45:
            return self.rng.choice(WORDS)
        if r < 0.65:
            return str(self.rng.randint(-1000, 100000))
        if r < 0.72:
            return f"{self.rng.uniform(-100, 100):.3f}"
        if r < 0.88:
            words = " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(1, 8)))
            return '"' + (words + "\\n" if self.rng.random() < 0.3 else words) + '"'
        if r < 0.92:
            return self.rng.choice(["#t", "#f", "#\\a", "#\\space", "#:key"])
        return "'" + self.rng.choice(WORDS)

    def datum(self, depth: int) -> str:
        r = self.rng.random()
        if depth > 4 or r < 0.5:
            return self.atom()
        items = " ".join(self.datum(depth + 1) for _ in range(self.rng.randint(1, 5)))
        if r < 0.58:
            return "'(" + items + ")"
        if r < 0.62:
            return "#(" + items + ")"
        if r < 0.66:
            return "`(" + items + " ,x ,@rest)"
        if r < 0.7:
            return "((" + self.atom() + " . " + self.atom() + "))"
        return "(" + items + ")"

    def form(self) -> str:
        name = self.rng.choice(WORDS)
        body = "\n    ".join(self.datum(1) for _ in range(self.rng.randint(1, 4)))
        comment = f";; {name}: {self.rng.choice(WORDS)} {self.rng.choice(WORDS)}\n" if self.rng.random() < 0.5 else ""
        if self.rng.random() < 0.05:
            comment += "#| a block\n   comment |#\n"
        return f"{comment}(define ({name}-{self.rng.randint(0, 999)} a b)\n  (let ((x {self.atom()}))\n    {body}))\n"


def python_value(rng: random.Random, depth: int) -> object:
    """A random JSON-like value (for ``json.loads`` and, written as Python, ``ast.parse``)."""
    r = rng.random()
    if depth > 4 or r < 0.5:
        return rng.choice([rng.choice(WORDS), rng.randint(-1000, 100000), round(rng.uniform(-100, 100), 3), True])
    if r < 0.8:
        return [python_value(rng, depth + 1) for _ in range(rng.randint(1, 5))]
    return {rng.choice(WORDS): python_value(rng, depth + 1) for _ in range(rng.randint(1, 4))}


def generate(size: int) -> tuple[str, str, str]:
    """A Scheme program, a Python program and a JSON text, each about ``size`` characters."""
    rng = random.Random(16)
    scheme, python, values = [], [], []
    total = 0
    gen = Scheme(rng)
    while total < size:
        form = gen.form()
        scheme.append(form)
        total += len(form)
    total = 0
    while total < size:
        value = python_value(rng, 1)
        line = f"def f{len(python)}(a, b):\n    # a comment\n    return {value!r}\n"
        python.append(line)
        values.append(value)
        total += len(line)
    text = json.dumps(values, indent=1)
    while len(text) > size * 1.1 and len(values) > 1:
        values = values[: len(values) * 9 // 10]
        text = json.dumps(values, indent=1)
    return "".join(scheme), "".join(python), text


def ordinary(size: int) -> str:
    """About ``size`` characters of ordinary code: the repository's own ``.scm`` files (examples,
    the standard library, the R7RS tests), one after another, repeated."""
    root = Path(__file__).resolve().parent.parent
    texts = [path.read_text(encoding="utf-8") for path in sorted(root.glob("**/*.scm")) if ".git" not in path.parts]
    chunk = "\n".join(texts) + "\n"
    text = chunk * (size // len(chunk) + 1)
    return text[: text.rindex("\n(", 0, size) + 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="characters of each input (default 1,000,000)")
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    parser.add_argument("--ordinary", action="store_true", help="read the repository's .scm files, repeated")
    args = parser.parse_args()
    scheme, python, text = generate(args.size)
    if args.ordinary:
        scheme = ordinary(args.size)
    data = read_with_spans(scheme, "bench.scm")  # builds the parser (and checks the input reads)
    rows = [
        ("taskscheme read_all", len(scheme), best(lambda: read_all(scheme, "bench.scm"), args.repeat)),
        ("Python ast.parse", len(python), best(lambda: ast.parse(python), args.repeat)),
        ("Python json.loads", len(text), best(lambda: json.loads(text), args.repeat)),
    ]
    print(f"{len(data):,} top-level forms read; best of {args.repeat}")
    print("| reader | input (chars) | time (s) | MB/s |")
    print("|---|---:|---:|---:|")
    for name, size, seconds in rows:
        print(f"| {name} | {size:,} | {seconds:.3f} | {size / seconds / 1e6:.2f} |")
    ours, theirs = rows[0][1] / rows[0][2], rows[1][1] / rows[1][2]
    print(f"read_all: {ours / 1e6:.2f} MB/s (target >= 1 MB/s); ast.parse: {theirs / ours:.2f}x read_all's speed")


if __name__ == "__main__":
    main()
