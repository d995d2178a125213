"""The Pygments lexer for taskscheme programs, registered as the ``taskscheme`` entry point of
``pygments.lexers``: the docs site, the Jupyter kernel and any Pygments user highlight ``.scm``
task programs with it (``pygmentize -l taskscheme prog.scm``).

Its words come from the interpreter itself, so they cannot drift: the analyzer's special forms
and the task procedures (``parallel-map``, ``quality-gate`` …) are keywords, and so are the
clauses of the task forms (``prompt``, ``model`` …) where one heads a clause of such a form; every
other name a fresh interpreter defines (primitives and the prelude) is a builtin.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any, NamedTuple

from pygments.lexer import RegexLexer
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Whitespace, _TokenType

__all__ = ["TaskSchemeLexer"]  # what Pygments loads from this module

_WORD_END = r"(?=[\s()\[\]\";'`,|]|\Z)"
_NUMBER = r"[+-]?(\d+/\d+|(\d+\.?\d*|\.\d+)([eEsSfFdDlL][+-]?\d+)?|(inf|nan)\.0)([+-].*?i|i|@\S*?)?" + _WORD_END


class Vocabulary(NamedTuple):
    keywords: frozenset[str]
    builtins: frozenset[str]


@cache
def vocabulary() -> Vocabulary:
    """The words to highlight, read from the analyzer's registries and a fresh interpreter.

    Task names come from :mod:`interpreter.tasks.names` (pure data), so highlighting never
    loads the task runtime."""
    # lazy: Pygments imports this module to list its lexers; the interpreter (0.1 s) loads on first use
    from .analyzer import SPECIAL_FORMS
    from .interpreter import Interpreter
    from .tasks.names import LOOP_CLAUSES, TASK_CLAUSES, TASK_NAMES

    interp = Interpreter()
    keywords = {s.name for s in SPECIAL_FORMS} | {*TASK_NAMES, *TASK_CLAUSES, *LOOP_CLAUSES}
    builtins: set[str] = set()
    for symbol, value in interp.global_env.vars.items():
        module = getattr(getattr(value, "fn", None), "__module__", "")
        # parallel-map's family is task vocabulary too
        (keywords if module == "interpreter.primitives.parallel" else builtins).add(symbol.name)
    return Vocabulary(frozenset(keywords), frozenset(builtins - keywords))


@cache
def task_clauses() -> tuple[frozenset[str], frozenset[str]]:
    """(the keywords that are only clause names of the task forms: ``prompt``, ``model`` …; the
    task forms they are clauses of). From the registries alone: no interpreter is made."""
    # lazy, as in vocabulary: Pygments imports this module to list its lexers
    from .analyzer import SPECIAL_FORMS
    from .tasks.names import LOOP_CLAUSES, TASK_CLAUSES, TASK_NAMES, TASK_SYNTAX

    forms = {s.name for s in SPECIAL_FORMS} | set(TASK_NAMES)
    return frozenset({*TASK_CLAUSES, *LOOP_CLAUSES} - forms), frozenset(TASK_SYNTAX)


def _word(lexer: Any, match: Any) -> Iterator[tuple[int, Any, str]]:
    """An identifier, classified by the lexer's :meth:`~TaskSchemeLexer.word_token`."""
    yield match.start(), lexer.word_token(match.group(0)), match.group(0)


class TaskSchemeLexer(RegexLexer):
    """Scheme with taskscheme's forms (``define-task``, ``director-evaluator-loop``,
    ``sequential`` …) as keywords. Unfinished input (an open string or block comment, as
    while typing) is highlighted as far as it goes."""

    name = "taskscheme"
    aliases = ["taskscheme", "task-scheme"]
    filenames = ["*.scm"]
    mimetypes = ["text/x-taskscheme"]

    tokens = {
        "root": [
            (r"\s+", Whitespace),
            (r";.*?$", Comment.Single),
            (r"#\|", Comment.Multiline, "block-comment"),
            (r"#;", Comment.Special),
            (r'"(\\.|[^"\\])*("|\Z)', String),
            (r"#\\(x[0-9a-fA-F]+|[a-zA-Z]+|.)", String.Char),
            (r"#(t|f|true|false)" + _WORD_END, Name.Constant),
            (r"#(u8)?\(|[()\[\]]", Punctuation),
            (r"#[xXoObBdDeEiI]\S*?" + _WORD_END, Number),
            (_NUMBER, Number),
            (r"['`]|,@?", Operator),
            (r"#:[^\s()\[\]\";'`,|]+", String.Symbol),
            (r"\|(\\.|[^|\\])*(\||\Z)", Name.Variable),
            (r"[^\s()\[\]\";'`,|]+", _word),
        ],
        "block-comment": [
            (r"#\|", Comment.Multiline, "#push"),
            (r"\|#", Comment.Multiline, "#pop"),
            (r"[^|#]+|.", Comment.Multiline),
        ],
    }

    def get_tokens_unprocessed(self, text: str, stack: Iterable[str] = ("root",)) -> Iterator[tuple[int, Any, str]]:
        """The tokens, with a clause name a keyword only where it heads a clause of a task form:
        ``prompt`` in ``(define-task (t x) (prompt "…"))``, not in ``(lambda (prompt system) …)``."""
        heads: list[str | None] = []  # each open list's first element: a word, "" if another, None yet
        for index, token, value in super().get_tokens_unprocessed(text, stack):
            if token in Whitespace or token in Comment:
                yield index, token, value
                continue
            heading = bool(heads) and heads[-1] is None
            if heading:
                heads[-1] = value if token is Keyword or token in Name else ""
            if token is Punctuation:
                if value in ")]":
                    if heads:
                        heads.pop()
                else:  # "(", "[", "#(", "#u8("
                    heads.append(None)
            elif token is Keyword:
                clauses, forms = task_clauses()
                if value in clauses and not (heading and len(heads) > 1 and heads[-2] in forms):
                    token = Name.Builtin if value in vocabulary().builtins else Name.Variable
            yield index, token, value

    def word_token(self, word: str) -> _TokenType:
        """Keyword for a task or special form, builtin for a predefined name, else a variable."""
        words = vocabulary()
        if word in words.keywords:
            return Keyword
        return Name.Builtin if word in words.builtins else Name.Variable
