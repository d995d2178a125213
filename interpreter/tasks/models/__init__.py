"""The path from a model call to a provider, and back.

Owns: the model interface and its backends (``backends``: ``llm`` models, Python callables, DSL
procedures, the registry), the provider clients (``providers``), the gateway every call goes through
(``gateway``: permission, limits, retries, streaming, structured output), and what wraps a call:
the response cache (``cache``), record/replay (``replay``), the rate limiter (``ratelimit``),
concurrent identical calls shared (``inflight``, ``workers``), the durable journal's model and
script sources (``journaled``), JSON schemas for structured output (``schemas``), the ``llm``
log (``llm_log``). A new model backend goes into ``backends`` (the ``Model`` protocol).

May import: the layers below the task runtime; the task layer's shared modules (``records``,
``errors``, ``values``, ``disk`` …); ``observe`` (usage totals, limit warnings). Never ``compose``,
``templates``, ``memory`` or the task library. Imports nothing on its own: each module loads when
it is first used. ``llm`` itself loads on first use, through ``providers.llm_package()``.
"""
