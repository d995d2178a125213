"""A batch's metric: a procedure ``(lambda (input result) …)`` run on each item's input
and the value its task returned, giving a number or a boolean (``--metric PROC``,
``interp.batch(…, metric=…)``), as DSPy's ``Evaluate`` runs a metric per example.

The metric runs where the item ran (the same branch or worker, under the item's limits),
after the item; its value goes into the item's record as ``metric``, and a metric that
fails or returns anything else leaves ``metric`` null with ``metric_error`` saying why.
An item whose task raised an error gets no metric (the summary scores it 0).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..datatypes import Procedure
from ..errors import SchemeError
from ..evaluator import Interrupted
from ..printer import write_string
from ..tasks.compose.sequence import error_info

if TYPE_CHECKING:
    from ..facade import Facade

#: What ``metric=`` may be: DSL source (an expression naming or making a procedure), a
#: Scheme procedure, or a Python callable ``(input, result)``.
MetricSpec = str | Procedure | Callable[[Any, Any], Any]
Score = float | bool


def metric_procedure(interp: Facade, metric: MetricSpec) -> Procedure:
    """The metric as a Scheme procedure of two arguments; an error says what is wrong with it."""
    if isinstance(metric, str):
        value = interp.eval_scheme(metric, filename="<metric>")
    elif isinstance(metric, Procedure):
        value = metric
    elif callable(metric):
        value = interp.converter.to_scheme(metric)
    else:
        value = metric
    if not isinstance(value, Procedure):
        raise SchemeError(
            f"metric: expected a procedure (lambda (input result) …), got {write_string(value)}",
            kind="type-error",
        )
    return value


def score(
    interp: Facade, proc: Procedure, given: Any, value: Any, call: Callable[[Any, list[Any], Any], Any], meter: Any
) -> tuple[Score | None, dict[str, Any] | None]:
    """Run the metric on one item: ``(score, None)``, or ``(None, error)`` when it fails."""
    try:
        out = call(proc, [interp.converter.to_scheme(given), value], meter)
    except Interrupted:
        raise
    except SchemeError as err:
        return None, error_info(err)
    if isinstance(out, bool):
        return out, None
    if isinstance(out, int | float | Fraction) and float(out) == float(out):  # not NaN
        return float(out), None

    message = f"metric returned {write_string(out)}: expected a number or a boolean"
    return None, {"type": "type-error", "message": message}
