#!/usr/bin/env python3
"""Score release notes read from standard input; print a JSON verdict for a director-evaluator loop.

The notes pass when they have at least three bullet points ("- "), every bullet starts
with a capitalised verb from a small list, and a "Breaking changes" line is present.
The exit status is 0 when they pass and 1 otherwise (the loop treats it as information).
"""

import json
import sys

VERBS = {"Add", "Added", "Fix", "Fixed", "Remove", "Removed", "Improve", "Improved", "Document", "Documented"}


def score(text: str) -> dict:
    bullets = [line[2:].strip() for line in text.splitlines() if line.startswith("- ")]
    violations = []
    if len(bullets) < 3:
        violations.append(f"only {len(bullets)} bullet points, need at least 3")
    weak = [b for b in bullets if b.split(" ", 1)[0] not in VERBS]
    if weak:
        violations.append(f"bullets must start with a verb such as Add or Fix: {weak[0]!r}")
    if "Breaking changes" not in text:
        violations.append("no 'Breaking changes' line")
    checks = 3
    passed = checks - len(violations)
    return {
        "success": not violations,
        "feedback": "; ".join(violations) if violations else "the notes are complete",
        "details": {"metrics": {"score": round(passed / checks, 2), "bullets": len(bullets)}, "violations": violations},
    }


if __name__ == "__main__":
    verdict = score(sys.stdin.read())
    print(json.dumps(verdict))
    sys.exit(0 if verdict["success"] else 1)
