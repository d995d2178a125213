"""``python -m tests.fuzz --count N --seed S``: fuzz N programs and report leaks, overruns, hangs."""

from __future__ import annotations

import argparse
import sys

from . import fuzz, programs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument("--count", type=int, default=2000, help="programs to run (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="the random seed (default 0, as CI)")
    parser.add_argument("--show", type=int, metavar="N", help="print program N of this seed and stop")
    opts = parser.parse_args(argv)
    if opts.show is not None:
        print(list(programs(opts.show + 1, opts.seed))[opts.show])
        return 0
    report = fuzz(opts.count, opts.seed, progress=lambda line: print(line, file=sys.stderr, flush=True))
    for finding in report.findings:
        print(f"[{finding.kind}] #{finding.index}: {finding.detail}\n    {finding.program[:300]!r}")
    print(report.summary())
    return 1 if report.findings else 0


if __name__ == "__main__":
    sys.exit(main())
