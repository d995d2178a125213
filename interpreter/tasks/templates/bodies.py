"""The DSL a sequential or director_evaluator_loop template becomes.

The translation of a template's ``<steps>``, ``<director>``, ``<evaluator>``, ``<cond>`` and
``<script_execution>`` into the datum a DSL author would write: ``(sequential (step …) …)``,
``(director-evaluator-loop (director …) (evaluator …) …)``, ``(cond (test call) …)``. It is mixed
into :class:`~interpreter.tasks.templates.loader.TemplateLoader`, whose element helpers (``check``,
``invalid``, ``text``, ``number``, ``condition``) and registration of inline parts (``add``,
``script_task``, ``kept``) it uses.
"""

from __future__ import annotations

import shlex
from typing import Any

from ...datatypes import Keyword, Span, Symbol
from ..placeholders import PLACEHOLDER, normal_name, placeholders
from .xml_datums import at, context_clause, described_prompt, kebab, span_of
from .xml_parse import Element

S = Symbol.intern
#: Types the seeds use that are atomic tasks of that subtype.
SUBTYPES = ("director", "evaluator")
COMMON = (
    "description",
    "instructions",
    "system",
    "model",
    "criteria",
    "inputs",
    "context_management",
    "manual_xml",
    "disable_reparsing",
    "output_slot",
    "input_source",
)
COMPONENT = (*COMMON, "cond", "command", "timeout")
#: The variable holding the previous step's output (its text) in a sequential template.
PREVIOUS_OUTPUT = "previous-output"
#: The previous step's result, as the seeds' ``<case test="output.valid == true">`` reads it.
OUTPUT = "output"


class TemplateBodies:
    """The bodies of composite templates, as DSL data (a mixin of ``TemplateLoader``)."""

    # Provided by TemplateLoader.
    file: str
    previous: bool
    reads_output: bool
    described: dict[str, dict[str, str]]

    def sequence(self, element: Element, name: str, params: list[str]) -> Any:
        steps = element.child("steps")
        if steps is None or not steps.children:
            raise self.invalid(
                steps or element, "a sequential template needs <steps> with at least one step", f"{element.path}/steps"
            )
        self.check(steps, ("task", "cond"))
        span = Span(self.file, element.line, element.col)
        clauses: list[Any] = [S("sequential")]
        context = context_clause(self.context_settings(element), span)
        if context is not None:
            clauses.append(context)
        calls = []
        for index, step in enumerate(steps.children, 1):
            step_name = step.attrs.get("name") or step.attrs.get("ref") or str(index)
            calls.append((step, step_name, self.component(step, f"{name}/{step_name}", None)))
        previous, output = S(PREVIOUS_OUTPUT), S(OUTPUT)
        for step, step_name, call in calls:
            where = span_of(step, self.file)
            value = S("value")
            sets = []
            if self.previous:  # some step reads the previous step's output: keep its text
                text = at(
                    where,
                    S("if"),
                    at(where, S("task-result?"), value),
                    at(where, S("get"), value, at(where, S("quote"), S("content"))),
                    value,
                )
                sets.append(at(where, S("set!"), previous, text))
            if self.reads_output:  # a <case test="output.valid …">: the previous step's result
                sets.append(at(where, S("set!"), output, value))
            if sets:
                call = at(where, S("let"), at(where, at(where, value, call)), *sets, value)
            clauses.append(at(where, S("step"), S(kebab(step_name)), call))
        body = at(span, *clauses)
        if self.reads_output:  # before the first step, an input named output (else #f)
            body = at(span, S("let"), at(span, at(span, output, output if OUTPUT in params else False)), body)
        return at(span, S("let"), at(span, at(span, previous, "")), body) if self.previous else body

    def loop(self, element: Element, name: str, params: list[str]) -> Any:
        span = Span(self.file, element.line, element.col)
        clauses: list[Any] = [S("director-evaluator-loop")]
        limit = self.number(element, "max_iterations", int)
        if limit is not None:
            clauses.append(at(span, S("max-iterations"), limit))
        context = context_clause(self.context_settings(element), span)
        if context is not None:
            clauses.append(context)
        if params:
            clauses.append(at(span, S("inputs"), *[at(span, S(p), S(p)) for p in params]))
        for role in ("director", "evaluator"):
            part = element.child(role)
            if part is None:
                raise self.invalid(
                    element,
                    f"a director_evaluator_loop template needs a <{role}>{fragment(element)}",
                    f"{element.path}/{role}",
                )
            call = self.component(part, f"{name}/{role}", role)
            clauses.append(at(span_of(part, self.file), S(role), call))
            if role == "director":
                script = self.script(element)
                if script is not None:
                    clauses.append(script)
        condition = element.child("termination_condition")
        if condition is not None:
            inner = condition.child("condition")
            self.check(condition, ("condition",) if inner is not None else ())
            if inner is not None:
                self.check(inner, ())
            source = inner if inner is not None else condition
            if not source.text.strip():
                raise self.invalid(source, f"<{source.tag}> needs an expression")
            test = self.condition(source, source.text.strip(), *source.text_start())
            clauses.append(at(span_of(condition, self.file), S("termination-condition"), test))
        return at(span, *clauses)

    def script(self, element: Element) -> Any:
        part = element.child("script_execution")
        if part is None:
            return None
        self.check(part, ("command", "timeout", "inputs"))
        inputs = part.child("inputs")
        if inputs is not None:  # the seeds pass the director's result, which goes to standard input
            self.check(inputs, ("input",))
            for item in inputs.children:
                self.check(item, (), ("name", "from"))
                source = normal_name(item.attrs.get("from", "director_result"))
                if source not in ("director_result", "solution"):
                    raise self.invalid(
                        item, f"a script's input comes from director_result (its standard input), not {source}"
                    )
        command = self.text(part, "command", required=True)
        if not command:
            raise self.invalid(part, "<command> is empty", f"{part.path}/command")
        items: list[Any] = [S("script-execution"), self.command(part.child("command") or part, command)]
        timeout = self.number(part, "timeout", float)
        if timeout is not None:
            items.append(at(span_of(part, self.file), S("timeout"), timeout))
        return at(span_of(part, self.file), *items)

    def command(self, element: Element, text: str) -> Any:
        """A command with ``{{placeholders}}``: a plain string, or a list of its words with the
        placeholders' values displayed into them (so a value with spaces stays one word)."""
        if not placeholders(text):
            return text
        whole = PLACEHOLDER.fullmatch(text.strip())
        if whole is not None:  # <command>{{script_path}}</command>: the value itself, a string or a list
            return S(kebab(whole.group(1)))
        try:
            words = shlex.split(text)
        except ValueError as exc:
            raise self.invalid(element, f"cannot split the command {text!r}: {exc}") from None
        span = span_of(element, self.file)
        parts: list[Any] = [S("list")]
        for word in words:
            pieces: list[Any] = []
            last = 0
            for match in PLACEHOLDER.finditer(word):
                if match.start() > last:
                    pieces.append(word[last : match.start()])
                variable = S(kebab(match.group(1)))
                pieces.append(
                    at(
                        span,
                        S("call-with-output-string"),
                        at(span, S("lambda"), at(span, S("port")), at(span, S("display"), variable, S("port"))),
                    )
                )
                last = match.end()
            if last < len(word):
                pieces.append(word[last:])
            parts.append(pieces[0] if len(pieces) == 1 else at(span, S("string-append"), *pieces))
        return at(span, *parts)

    def component(self, element: Element, name: str, role: str | None) -> Any:
        """The call expression of a director, evaluator, step or cond case."""
        span = span_of(element, self.file)
        if element.tag == "cond" or element.child("cond") is not None:
            cond = element if element.tag == "cond" else element.child("cond")
            assert cond is not None
            if cond is not element:
                self.check(element, ("cond",), ("name",))
            return self.cond(cond, name, role)
        attrs = ("ref", "name", "subtype", "type") if element.tag == "task" else ("ref",)
        self.check(element, COMPONENT, attrs)
        args: list[Any] = []
        inputs = element.child("inputs")
        params = self.params(element)
        for item, param in zip(inputs.children if inputs is not None else [], params):
            args += [Keyword.intern(param), S(self.source_of(item, param))]
        for source in self.sources(element, params):
            params.append(source)
            args += [Keyword.intern(source), S(source)]
        ref = element.attrs.get("ref", "").strip()
        if ref:
            extra = [c.tag for c in element.children if c.tag not in ("inputs", "output_slot", "input_source")]
            if extra:
                raise self.invalid(
                    element, f"a <{element.tag}> with ref={ref!r} takes only <inputs> and slots, not <{extra[0]}>"
                )
            return self.kept(element, at(span, S(ref), *args))
        kind = element.attrs.get("type", "atomic")
        if kind == "script":
            self.script_task(element, name, params)
            return self.kept(element, at(span, S(name), *args))
        if kind not in ("atomic", *SUBTYPES):
            raise self.invalid(
                element, f"a step or part is an atomic or script task, not {kind!r}", f"{element.path}@type"
            )
        if kind in SUBTYPES:
            role = kind
        prompt = self.text(element, "instructions") or self.text(element, "description")
        if prompt:  # every input reaches the model: those the text does not place, labelled
            prompt = described_prompt(prompt, params, self.described.get(element.path))
        if not prompt:
            raise self.invalid(
                element,
                f"<{element.tag}> needs a ref attribute, <instructions> or a <description>",
                f"{element.path}/instructions",
            )
        subtype = element.attrs.get("subtype", role)
        fields = self.fields(element, "atomic", subtype)
        fields["body"] = prompt  # the seeds' components give their prompt as the <description>
        self.add(element, name, "atomic", params, fields, None)
        return self.kept(element, at(span, S(name), *args))

    def cond(self, element: Element, name: str, role: str | None) -> Any:
        self.check(element, ("case",))
        if not element.children:
            raise self.invalid(element, "<cond> needs at least one <case>")
        clauses: list[Any] = [S("cond")]
        for index, case in enumerate(element.children, 1):
            self.check(case, ("task", "cond"), ("test",))
            test_text = case.attrs.get("test", "").strip()
            if not test_text:
                raise self.invalid(case, "a <case> needs a test attribute", f"{case.path}@test")
            if len(case.children) != 1:
                raise self.invalid(case, "a <case> holds exactly one <task> or <cond>")
            test = S("else") if test_text == "else" else self.condition(case, test_text, case.line, case.col)
            call = self.component(case.children[0], f"{name}/case-{index}", role)
            clauses.append(at(span_of(case, self.file), test, call))
        if clauses[-1].car is not S("else"):
            clauses.append(self.no_case_matched(element, name))
        return at(span_of(element, self.file), *clauses)

    def no_case_matched(self, element: Element, name: str) -> Any:
        """The ``else`` of a ``<cond>`` without one: a TASK_FAILURE naming the block, not a void result."""
        span = span_of(element, self.file)
        message = f"no <case> of the <cond> in {name} ({span.file}:{span.line}:{span.col}) matched"
        error_type = at(span, S("quote"), S("TASK_FAILURE"))
        failure = at(span, S("make-task-error"), error_type, message, Keyword.intern("reason"), "no_case_matched")
        return at(span, S("else"), at(span, S("raise"), failure))


def fragment(element: Element) -> str:
    """Why a template with a missing part is one of the seeds' fragments, when it marks the gap."""
    if not element.elided():
        return ""
    return " (the block elides parts, with '...' or <!-- other elements -->: it is a fragment)"
