"""Composition: tasks put together into larger ones.

Owns: the special forms ``sequential``, ``director-evaluator-loop`` and ``with-evaluation``
(``forms``), their nodes (``nodes``), and their runtimes: the pipeline (``sequence``), the
director-evaluator loop (``loop``), evaluation rounds chosen at run time (``dynamic``, with
``selection`` of an evaluator), the frame a procedure task's body runs in (``context``), and the
composition procedures (``primitives``: ``record-with``, ``structured-answer``, the quality gate).

May import: the layers below the task runtime; the task layer's shared and runtime modules
(``records``, ``errors``, ``values``, ``scripts``, ``host`` …); ``observe``, ``models``, ``memory``.
Never ``templates`` (templates build composition, not the reverse). The runtimes (``loop``,
``sequence``, ``dynamic``) load when a program first uses a composition form: ``forms`` and ``nodes``
import them inside functions for that reason (tests/test_startup_imports.py).
"""
