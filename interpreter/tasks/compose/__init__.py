"""Composition: tasks put together into larger ones.

Owns: the special forms ``sequential``, ``director-evaluator-loop`` and ``with-evaluation``
(``forms``), their nodes (``nodes``), and their runtimes: the pipeline (``sequence``), the
director-evaluator loop (``loop``), evaluation rounds chosen at run time (``dynamic``, with
``selection`` of an evaluator); and the composition procedures (``primitives``: ``record-with``,
``structured-answer``, the quality gate, ``run-script`` traced).

May import: the layers below the task runtime; the task layer's top-level modules up to
``library`` and ``primitives`` (``records``, ``errors``, ``values``, ``scripts`` …); ``observe``,
``models``, ``memory``. Never ``templates`` (templates build composition, not the reverse).

The runtimes (``loop``, ``sequence``, ``dynamic``) load when a program first uses a composition
form: ``forms`` and ``nodes`` import them inside functions for that reason
(tests/test_startup_imports.py).
"""
