"""taskscheme: a Scheme interpreter for writing LLM task programs."""

from .datatypes import NIL, VOID, Char, Keyword, Pair, Symbol, cons
from .errors import ErrorRecord, SchemeError, SchemeExit
from .interpreter import Interpreter
from .tasks.models import TransientModelError

__all__ = [
    "NIL",
    "VOID",
    "Char",
    "ErrorRecord",
    "Interpreter",
    "Keyword",
    "Pair",
    "SchemeError",
    "SchemeExit",
    "Symbol",
    "TransientModelError",
    "cons",
]
__version__ = "0.1.0"
