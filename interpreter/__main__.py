"""``python -m interpreter``: the ``taskscheme`` command line."""

from .cli import main

main()
