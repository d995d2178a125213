"""``(parallel [#:max-concurrency n] [#:on-error 'raise|'collect] expr …)``: the values
of the expressions, evaluated concurrently, as a list in order (see interpreter/parallel.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..analyzer import Analyzer, Scope, list_items, special_form, syntax_error
from ..datatypes import Keyword, Pair, Span, make_list
from ..env import Env
from ..nodes.core import Node, Run
from ..parallel import max_concurrency, on_error_mode, run_parallel

if TYPE_CHECKING:
    from ..analyzer import AnalysisHost

OPTIONS = ("max-concurrency", "on-error")


class Parallel(Node):
    """Evaluates its expressions in branches of one fan-out."""

    __slots__ = ("exprs", "interp", "options")

    def __init__(self, exprs: list[Node], options: dict[str, Node], interp: AnalysisHost, span: Span | None) -> None:
        self.exprs, self.options, self.interp, self.span = exprs, options, interp, span

    def compile(self, tail: bool) -> Run:
        runs = [e.compile(False) for e in self.exprs]
        cap_of = self.options["max-concurrency"].compile(False) if "max-concurrency" in self.options else None
        mode_of = self.options["on-error"].compile(False) if "on-error" in self.options else None
        interp = self.interp

        def parallel(env: Env) -> Any:
            cap = max_concurrency("parallel", cap_of(env)) if cap_of is not None else interp.max_concurrency
            mode = on_error_mode("parallel", mode_of(env)) if mode_of is not None else "raise"
            jobs = [lambda branch, run=run: run(env) for run in runs]
            return make_list(run_parallel(interp, jobs, cap=cap, on_error=mode, who="parallel", noun="expression"))

        return parallel


@special_form("parallel")
def parallel(an: Analyzer, form: Pair, scope: Scope | None) -> Node:
    items = list_items(form)[1:]
    options: dict[str, Node] = {}
    while items and type(items[0][0]) is Keyword:
        (key, span), rest = items[0], items[1:]
        if key.name not in OPTIONS:
            known = " ".join(f"#:{o}" for o in OPTIONS)
            raise syntax_error(f"parallel: unknown option #:{key.name} (known: {known})", span or form.span)
        if not rest:
            raise syntax_error(f"parallel: option #:{key.name} has no value", span or form.span)
        if key.name in options:
            raise syntax_error(f"parallel: option #:{key.name} given twice", span or form.span)
        options[key.name] = an.analyze(rest[0][0], scope, rest[0][1])
        items = rest[1:]
    exprs = [an.analyze(x, scope, s) for x, s in items]
    return Parallel(exprs, options, an.interp, form.span)
