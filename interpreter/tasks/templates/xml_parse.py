"""Reading XML template files: a hardened expat parse into :class:`Element` trees.

The stdlib expat parser with entity declarations and external entities refused (no
billion laughs, no file disclosure), and limits on size, depth and element count.
Malformed XML is an ``XML_PARSE_ERROR`` with line and column.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from xml.parsers import expat

from ...datatypes import Span
from ..errors import TaskError
from ..records import XmlParseFailure
from .conditions import _position

#: Elements that may repeat in their parent; their paths are numbered (``task[2]``).
REPEATED = ("task", "input", "case")

#: Limits on one template file: hostile XML must not take the host's time or memory
#: (100,000 nested elements took 28 s, 2M character references 48 s).
MAX_TEMPLATE_BYTES = 4_000_000
MAX_ELEMENT_DEPTH = 64
MAX_ELEMENTS = 20_000


@dataclass
class Element:
    """An XML element with where it starts and its path from the root (``task[2]/director``)."""

    tag: str
    attrs: dict[str, str]
    line: int
    col: int
    path: str
    children: list[Element] = field(default_factory=list)
    text: str = ""
    text_line: int = 0  # where the text starts
    text_col: int = 0
    comments: list[str] = field(default_factory=list)  # ``<!-- other elements -->`` marks an elided part

    def elided(self) -> bool:
        """Whether the element leaves parts out, as the seeds' fragments do (``...``, ``<!-- other elements -->``)."""
        marks = ("...", "…", "other elements")
        return self.text.strip() in ("...", "…") or any(m in c for c in self.comments for m in marks)

    def text_start(self) -> tuple[int, int]:
        """Line and column of the first non-blank character of the text."""
        offset = len(self.text) - len(self.text.lstrip())
        return _position(self.text, offset, self.text_line or self.line, self.text_col or self.col)

    def child(self, tag: str) -> Element | None:
        found = [c for c in self.children if c.tag == tag]
        return found[0] if found else None


class Refused(Exception):
    """An XML construct refused for safety (entity declarations, external entities)."""


def parse_xml(text: str | bytes, filename: str) -> Element:
    """The root element of ``text``; XML_PARSE_ERROR (with line and column) if it is not well-formed."""
    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    stack: list[Element] = []
    roots: list[Element] = []
    texts: dict[int, list[str]] = {}  # id of an element: the pieces of its text (joined at its end)
    seen: dict[tuple[int, str], int] = {}  # (id of a parent, tag): children with the tag so far
    count = [0]
    if len(text) > MAX_TEMPLATE_BYTES:
        raise xml_parse_error(f"{filename}: larger than {MAX_TEMPLATE_BYTES} bytes (refused)", filename, 1, 1)

    def refuse(what: str) -> Any:
        def handler(*_: Any) -> Any:
            raise Refused(what)

        return handler

    def start(tag: str, attrs: dict[str, str]) -> None:
        count[0] += 1
        if len(stack) >= MAX_ELEMENT_DEPTH or count[0] > MAX_ELEMENTS:
            raise Refused(f"more than {MAX_ELEMENT_DEPTH} nested or {MAX_ELEMENTS} elements")
        parent = stack[-1] if stack else None
        name = tag
        if parent is not None and tag in REPEATED:
            number = seen[id(parent), tag] = seen.get((id(parent), tag), 0) + 1
            name = f"{tag}[{number}]"
        path = f"{parent.path}/{name}" if parent is not None else tag
        element = Element(tag, dict(attrs), parser.CurrentLineNumber, parser.CurrentColumnNumber + 1, path)
        (parent.children if parent is not None else roots).append(element)
        stack.append(element)

    def end(tag: str) -> None:
        element = stack.pop()
        element.text = "".join(texts.pop(id(element), ()))

    def chars(data: str) -> None:
        if stack:
            element = stack[-1]
            pieces = texts.setdefault(id(element), [])
            if not pieces:
                element.text_line, element.text_col = parser.CurrentLineNumber, parser.CurrentColumnNumber + 1
            pieces.append(data)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    parser.CommentHandler = lambda text: stack[-1].comments.append(text) if stack else None
    parser.EntityDeclHandler = refuse("entity declarations are not allowed")
    parser.UnparsedEntityDeclHandler = refuse("entity declarations are not allowed")
    parser.ExternalEntityRefHandler = refuse("external entities are not allowed")
    try:
        parser.Parse(text, True)
    except expat.ExpatError as exc:
        why = expat.ErrorString(exc.code)
        if exc.code == expat.errors.codes[expat.errors.XML_ERROR_JUNK_AFTER_DOC_ELEMENT]:
            why += " (a file holds one root element: put several templates in <tasks>…</tasks>)"
        raise xml_parse_error(f"{filename}: {why}", filename, exc.lineno, exc.offset + 1) from None
    except Refused as exc:
        line, col = parser.CurrentLineNumber, parser.CurrentColumnNumber + 1
        raise xml_parse_error(f"{filename}: {exc} (refused for safety)", filename, line, col) from None
    return roots[0]


def xml_parse_error(message: str, filename: str, line: int, col: int) -> TaskError:
    err = TaskError(
        XmlParseFailure(message=f"{message} at line {line}, column {col}", location=f"{filename}:{line}:{col}")
    )
    err.span = Span(filename, line, col)
    return err


