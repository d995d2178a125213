"""The Scheme standard library, installed as the resource package ``interpreter.stdlib``.

Nothing to import here: the ``.scm`` files beside this one are read with ``importlib.resources``
(see ``interpreter/stdlib_files.py``). ``prelude.scm`` and the other top-level files load at
start-up; ``lazy/`` holds files loaded on first use.
"""
