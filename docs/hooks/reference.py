"""mkdocs hook: adds the generated reference pages (interpreter/reference.py) to the site and
highlights ```scheme blocks with the taskscheme Pygments lexer (task forms as keywords)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
SCHEME_FENCE = re.compile(r"^(\s*```+)scheme\b", re.MULTILINE)


def on_config(config: Any) -> Any:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    make_lexer_findable()
    return config


def make_lexer_findable() -> None:
    """Installed, the package's ``pygments.lexers`` entry point finds the lexer; built from a
    checkout that is not installed, tell Pygments where it is."""
    from pygments.lexers import _mapping, get_lexer_by_name
    from pygments.util import ClassNotFound

    from interpreter.lexer import TaskSchemeLexer as Lexer

    try:
        get_lexer_by_name("taskscheme")
    except ClassNotFound:
        _mapping.LEXERS["TaskSchemeLexer"] = ("interpreter.lexer", Lexer.name, tuple(Lexer.aliases),
                                              tuple(Lexer.filenames), tuple(Lexer.mimetypes))


def on_files(files: Files, config: Any) -> Files:
    from pygments.formatters import HtmlFormatter

    from interpreter.reference import PAGES

    for path, write in PAGES.items():
        files.append(File.generated(config, path, content=write()))
    style = HtmlFormatter(style="default").get_style_defs(".codehilite")
    files.append(File.generated(config, "css/pygments.css", content=style))
    return files


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    return SCHEME_FENCE.sub(r"\1taskscheme", markdown)
