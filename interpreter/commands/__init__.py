"""The command line's parts beside the main command (``cli.py``), in the front-end layer.

- :mod:`.arguments`: argparse value types every command shares;
- :mod:`.resume`: the durable-run options (``--resume JOURNAL`` …);
- :mod:`.batch` and :mod:`.batch_flags`: ``taskscheme batch``, which takes the main command's
  run flags and its way of making an interpreter from ``cli.py``, handed in when it runs
  (:func:`.batch.main`), so nothing here imports ``cli.py``.

It may import any layer below the front ends (docs/architecture.md), never ``cli.py``.
"""
