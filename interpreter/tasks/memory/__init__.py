"""Long-term memory: what a program remembers across runs, and finds again by meaning.

Owns: the memory store (``store``: notes, tags, ranking by embeddings or words, SQLite
persistence, indexing files) and its procedures (``primitives``: ``remember``, ``recall``,
``index-files``).

May import: the layers below the task runtime and the task layer's shared modules (``records``,
``errors``, ``disk``, ``arguments``). Never ``models``, ``compose``, ``templates``, ``observe``
or the task library: its procedures take the interpreter as a small ``MemoryHost`` protocol.
"""
