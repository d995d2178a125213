"""``python -m tests.fuzz --count N --seed S``: fuzz N programs and report leaks, overruns, hangs."""

from __future__ import annotations

import argparse
import sys

from . import fuzz, programs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument("--count", type=int, default=2000, help="programs to run (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="the random seed (default 0, as CI)")
    parser.add_argument("--start", type=int, default=0, metavar="N", help="begin at program N of the seed (chunked runs)")
    parser.add_argument("--show", type=int, metavar="N", help="print program N of this seed and stop")
    opts = parser.parse_args(argv)
    if opts.show is not None:
        print(next(programs(1, opts.seed, opts.show)))
        return 0
    report = fuzz(opts.count, opts.seed, progress=lambda line: print(line, file=sys.stderr, flush=True), start=opts.start)
    for finding in report.findings:
        print(finding.line())
    print(f"seed {opts.seed}, programs {opts.start}-{opts.start + opts.count - 1}: {report.summary()}")
    return 1 if report.findings else 0


if __name__ == "__main__":
    sys.exit(main())
