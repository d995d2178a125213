"""taskscheme: a Scheme interpreter for writing LLM task programs."""

from importlib import import_module

#: Where each public name lives: imported on first use, so that ``import interpreter``
#: costs nothing until a name is needed (the command line installs its Ctrl-C handler
#: first: launch.py). Type checkers read the names from ``__init__.pyi``.
_HOMES = {
    **dict.fromkeys(["NIL", "VOID", "Char", "Keyword", "Pair", "Symbol", "cons"], ".datatypes"),
    **dict.fromkeys(["ErrorRecord", "SchemeError", "SchemeExit"], ".errors"),
    "Interpreter": ".interpreter",
    "TransientModelError": ".tasks.models.backends",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'interpreter' has no attribute {name!r}")
    value = getattr(import_module(home, __name__), name)
    globals()[name] = value
    return value


__all__ = list(_HOMES)
__version__ = "0.1.0"
