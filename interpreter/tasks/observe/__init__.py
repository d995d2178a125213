"""What a run shows of itself while it runs and after.

Owns: trace events and spans (``tracing``: the ``EventHub``, ``Watcher``s, the JSON-lines writer),
the live terminal display (``screen``, ``progress``), the trace tree and its reports (``trace_tree``,
``trace_layout``, ``trace_html``, ``trace_html_assets``, ``trace_chrome``), OpenTelemetry export
(``otel``), model usage totals (``usage``) and the warnings printed as a task nears its limits
(``limit_warnings``). A new trace sink is a ``Watcher`` (``tracing``), added with
``interp.events.watch(...)``.

May import: the layers below the task runtime and the task layer's shared modules (``records``,
``errors``, ``values``). Never ``models``, ``compose``, ``templates`` or ``memory``: they report to
it. Imports nothing on its own: each module loads when it is first used.

One circle is documented: the report writers (``trace_chrome``, ``trace_html``, through
``trace_layout``) read ``trace_tree``'s ``Node``, and ``trace_tree`` imports them inside
``write_reports``.
"""
