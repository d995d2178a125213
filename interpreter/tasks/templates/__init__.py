"""XML task templates: the seeds' ``<task>`` documents loaded as tasks.

Owns: ``load-task-templates`` (``primitives``); the loader that turns templates into task
definitions (``loader``) and their composite bodies into the DSL's composition forms (``bodies``);
the XML reading with source positions (``xml_parse``); XML values as Scheme data (``xml_datums``);
the seeds' JavaScript-like conditions translated to DSL expressions (``conditions``).

May import: the layers below the task runtime; the task layer's top-level modules; ``compose``
(the loop's names, the forms' helpers) and what it imports. Nothing imports it but
the task layer's registration (``tasks/dsl.py``) and tests. The loader loads on the first
``load-task-templates`` call, not at start-up.
"""
