from .datatypes import NIL as NIL
from .datatypes import VOID as VOID
from .datatypes import Char as Char
from .datatypes import Keyword as Keyword
from .datatypes import Pair as Pair
from .datatypes import Symbol as Symbol
from .datatypes import cons as cons
from .errors import ErrorRecord as ErrorRecord
from .errors import SchemeError as SchemeError
from .errors import SchemeExit as SchemeExit
from .interpreter import Interpreter as Interpreter
from .tasks.models.backends import TransientModelError as TransientModelError

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
__version__: str
