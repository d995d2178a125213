"""``python -m interpreter.kernel -f CONNECTION_FILE [--allow CAP] [--deny CAP] [--model NAME]``."""

from .app import main

main()
