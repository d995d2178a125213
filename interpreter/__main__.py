"""``python -m interpreter``: the ``taskscheme`` command line."""

from .launch import main

main()
