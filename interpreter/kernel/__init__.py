"""The Jupyter kernel: taskscheme in a notebook, one module per job.

- ``kernel``: the ipykernel wrapper kernel (execute, complete, inspect, is-complete);
- ``session``: one interpreter kept across cells, its output and errors as messages;
- ``streams``: text streams and streamed model text as ``stream`` messages;
- ``rich``: TaskResult and LoopResult as HTML tables;
- ``capabilities``: ``,allow`` / ``,deny`` and the kernel's ``--allow`` / ``--deny``;
- ``app``: ``python -m interpreter.kernel``; ``install``: ``taskscheme kernel install``.

Nothing is imported here: ipykernel is needed only by a running kernel (``pip install
'taskscheme[jupyter]'``).
"""
