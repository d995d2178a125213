"""mkdocs hook: adds the generated reference pages (interpreter/reference.py) to the site."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]


def on_files(files: Files, config: Any) -> Files:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from interpreter.reference import PAGES

    for path, write in PAGES.items():
        files.append(File.generated(config, path, content=write()))
    return files
