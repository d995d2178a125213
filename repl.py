#!/usr/bin/env python3
"""taskscheme's command line: ``python repl.py [FILE] [-e EXPR]``; no file starts the REPL."""

from interpreter.cli import main

if __name__ == "__main__":
    main()
