#!/usr/bin/env python3
"""taskscheme's command line: ``python repl.py [FILE] [-e EXPR]``; no file starts the REPL."""

from interpreter.launch import main  # Ctrl-C during start-up exits 130 quietly

if __name__ == "__main__":
    main()
