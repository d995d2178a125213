"""XML task templates: ``<task>`` files become TaskDefinitions that run through the DSL's own nodes.

A template of type ``sequential`` or ``director_evaluator_loop`` is translated into the
same datum a DSL author would write (``(sequential (step …) …)``,
``(director-evaluator-loop (director …) (evaluator …) …)``), analysed and compiled
by the interpreter's analyzer; so a loop from XML and the same loop in the DSL give
the same ``LoopResult``. An inline director, evaluator or step becomes an atomic
task named ``<template>/<role>``. The translation of composite bodies is in :mod:`.bodies`.

Parsing (:mod:`.xml_parse`) is hardened: the stdlib expat parser with entity declarations and external
entities refused (no billion laughs, no file disclosure). Malformed XML is an
``XML_PARSE_ERROR`` with line and column; a schema violation is a
``VALIDATION_ERROR`` whose ``path`` names the element.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pydantic

from ...analyzer import Scope
from ...datatypes import Span, Symbol, TailCall
from ...errors import SchemeError
from ...nodes.core import Lambda
from ...reader import read_with_spans
from ..compose.forms import mentions
from ..compose.loop import DIRECTOR_NAMES, EVALUATION_NAMES, SOLUTION_NAMES
from ..errors import TaskError, from_validation, validation_error
from ..placeholders import normal_name, placeholders
from ..records import ScriptSpec, TaskDefinition, TaskParam, context_for
from .bodies import COMMON, OUTPUT, PREVIOUS_OUTPUT, SUBTYPES, TemplateBodies, fragment
from .conditions import ConditionError, translate
from .xml_datums import _written, at, described_prompt, kebab, relocate, span_of
from .xml_parse import REPEATED, Element, parse_xml, xml_parse_error

__all__ = ["TemplateLoader", "load_templates", "parse_xml", "xml_parse_error"]

if TYPE_CHECKING:
    from ..library import TaskHost

S = Symbol.intern
TASK_TYPES = ("atomic", "script", "sequential", "director_evaluator_loop", "director", "evaluator")
BY_TYPE = {
    "atomic": (),
    "director": (),
    "evaluator": (),
    "script": ("command", "timeout"),
    "sequential": ("steps",),
    "director_evaluator_loop": ("max_iterations", "director", "evaluator", "script_execution", "termination_condition"),
}
CONTEXT = ("inherit_context", "accumulate_data", "accumulation_format", "fresh_context", "max_stored_chars")
#: Names a loop binds for its parts, in the seeds' spelling (``from="evaluation_feedback"``).
LOOP_SOURCES = {normal_name(s.name) for s in (*DIRECTOR_NAMES, *SOLUTION_NAMES, *EVALUATION_NAMES)}
#: The input or argument that gives a script step its command at run time (seed 004's step has none).
COMMAND_PARAM = "command"
#: Why a file whose root is a part of a template is refused (the seeds show such fragments).
FRAGMENTS = {
    "cond": "a <cond> is a fragment; it goes in a sequential template's <steps>",
    "script_execution": "a <script_execution> is a fragment; it goes in a director_evaluator_loop template",
    "context_management": "a <context_management> is a fragment; it goes in a <task>",
    "input": "an <input> is a fragment; it goes in a <task>'s <inputs>",
    "inputs": "<inputs> is a fragment; it goes in a <task>",
    "steps": "<steps> is a fragment; it goes in a sequential template",
    "director": "a <director> is a fragment; it goes in a director_evaluator_loop template",
    "evaluator": "an <evaluator> is a fragment; it goes in a director_evaluator_loop template",
    "xs:schema": "this is the XML Schema that templates follow, not a template",
}
#: ``from=`` names that mean another binding: the seeds pass the director's result as text.
SOURCE_NAMES = {"director_result": "solution"}


# -- loading -------------------------------------------------------------------------------
def template_files(path: Path) -> list[Path]:
    """``path`` itself, or the ``.xml`` files of a folder in name order."""
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.suffix == ".xml" and p.is_file())
    if not path.exists():
        raise SchemeError(f"load-task-templates: no such file or folder: {path}", kind="file-error")
    return [path]


def load_templates(
    interp: TaskHost, path: str | Path, *, script: str | None = None, replace: Any = False
) -> list[str]:
    """Read the templates at ``path`` (a file or a folder) and register them; their names.

    Each file is checked whole before anything in it is registered. A name already
    defined is a VALIDATION_ERROR naming both places (seed 004's ``registerTask``) unless
    ``replace`` is true (or it is the same template loaded again). ``script`` is the command
    of script steps that give none.
    """
    names: list[str] = []
    for file in template_files(Path(path)):
        real = interp.check_file_access(file, "load-task-templates")  # a link may lead out of the folder
        try:
            text = real.read_bytes()
        except OSError as exc:
            raise SchemeError(
                f"load-task-templates: cannot read {file}: {exc.strerror or exc}", kind="file-error"
            ) from None
        loader = TemplateLoader(interp, str(file), script)
        loader.load(parse_xml(text, str(file)))
        names += loader.register(replace is not False)
    return names


class TemplateBody:
    """Runs a compiled template: a closure over the global frame taking the parameters."""

    takes_bound_arguments = True

    def __init__(self, closure: Any) -> None:
        self.closure = closure

    def __call__(self, bound: dict[str, Any]) -> TailCall:
        return TailCall(self.closure, list(bound.values()))


class TemplateLoader(TemplateBodies):
    """Validates the templates of one file and turns them into definitions."""

    def __init__(self, interp: TaskHost, filename: str, script: str | None = None) -> None:
        self.interp = interp
        self.file = filename
        self.fallback = script  # load-task-templates #:script: the command of script steps that name none
        self.pending: list[tuple[TaskDefinition, Any]] = []
        self.slots: dict[str, None] = {}  # output slots of the template being read
        self.previous = False  # whether a step of it reads the previous step's output
        self.reads_output = False  # whether a condition of it reads ``output`` (the previous step's result)
        self.described: dict[str, dict[str, str]] = {}  # element path: input name → its description

    # -- errors and small readers ----------------------------------------------------------
    def invalid(self, element: Element, message: str, path: str | None = None) -> TaskError:
        err = validation_error(f"{self.file}:{element.line}:{element.col}: {message}", path or element.path)
        err.span = Span(self.file, element.line, element.col)
        return err

    def check(
        self, element: Element, children: tuple[str, ...], attrs: tuple[str, ...] = (), text: bool = False
    ) -> None:
        """Refuse unknown attributes and child elements, and repeated ones that must be single;
        text beside the elements too, unless ``text`` (an ``<input>``'s description)."""
        for name in element.attrs:
            if name not in attrs:
                known = ", ".join(attrs) or "none"
                raise self.invalid(
                    element, f"<{element.tag}> has no attribute {name} (attributes: {known})", f"{element.path}@{name}"
                )
        seen: set[str] = set()
        for child in element.children:
            if child.tag not in children:
                known = ", ".join(f"<{c}>" for c in children) or "none"
                raise self.invalid(child, f"unexpected <{child.tag}> in <{element.tag}> (allowed: {known})")
            if child.tag in seen and child.tag not in REPEATED:
                raise self.invalid(child, f"<{child.tag}> appears twice in <{element.tag}>")
            seen.add(child.tag)
        if element.text.strip() and children and not (text and not element.children):
            raise self.invalid(
                element,
                f"<{element.tag}> holds text outside its elements: {element.text.strip()[:40]!r}{fragment(element)}",
            )

    def text(self, element: Element, tag: str, required: bool = False) -> str | None:
        child = element.child(tag)
        if child is None:
            if required:
                raise self.invalid(element, f"<{element.tag}> needs a <{tag}>", f"{element.path}/{tag}")
            return None
        if child.children:
            raise self.invalid(child.children[0], f"<{tag}> holds text, not elements")
        return child.text.strip()

    def boolean(self, element: Element, tag: str) -> bool | None:
        value = self.text(element, tag)
        if value is None:
            return None
        if value.lower() not in ("true", "false"):
            raise self.invalid(element.child(tag) or element, f"<{tag}> must be true or false, got {value!r}")
        return value.lower() == "true"

    def number(self, element: Element, tag: str, kind: type) -> Any:
        value = self.text(element, tag)
        if value is None:
            return None
        try:
            number = kind(value)
        except ValueError:
            number = None
        if number is None or number <= 0:
            what = "a positive integer" if kind is int else "a positive number"
            raise self.invalid(element.child(tag) or element, f"<{tag}> must be {what}, got {value!r}")
        return number

    def condition(self, element: Element, text: str, line: int, col: int) -> Any:
        """A condition: DSL code (starting with ``(`` or ``#``) or the seeds' JavaScript-like
        syntax (:mod:`.conditions`), whose errors give the line and column in the XML file."""
        if text[:1] in ("(", "#"):
            datum = self.expression(element, text)
        else:
            try:
                datum = translate(text, self.file, line, col)
            except ConditionError as exc:
                err = validation_error(
                    f"{self.file}:{exc.line}:{exc.col}: condition {text!r}: {exc.message}", element.path
                )
                err.span = Span(self.file, exc.line, exc.col)
                raise err from None
        self.reads_output = self.reads_output or mentions([datum], S(OUTPUT))
        return datum

    def expression(self, element: Element, text: str) -> Any:
        """One DSL expression read from XML text, its positions pointing into the XML file."""
        try:
            data = read_with_spans(text, self.file)
        except SchemeError as exc:
            raise self.invalid(element, f"cannot read the expression {text!r}: {exc.message}") from None
        if len(data) != 1:
            raise self.invalid(element, f"expected one expression, got {len(data)}: {text!r}")
        return relocate(data[0][0], element, self.file)

    # -- templates -------------------------------------------------------------------------
    def load(self, root: Element) -> None:
        if root.tag == "tasks":
            self.check(root, ("task",))
            tasks = root.children
        elif root.tag == "task":
            tasks = [root]
        else:
            why = FRAGMENTS.get(root.tag, f"<{root.tag}> is not a template")
            raise self.invalid(root, f"the root element must be <task> or <tasks>, not <{root.tag}>: {why}")
        stem = kebab(Path(self.file).stem)
        for index, element in enumerate(tasks, 1):
            self.template(element, stem if len(tasks) == 1 else f"{stem}-{index}")

    def template(self, element: Element, default_name: str) -> None:
        """One ``<task>``; the seeds' templates have no name, so one without a name is named
        after its file (``refine.xml`` → ``refine``; ``refine-2`` for the second of several)."""
        kind = element.attrs.get("type", "atomic")
        if kind not in TASK_TYPES:
            raise self.invalid(
                element, f"unknown task type {kind!r} (types: {', '.join(TASK_TYPES)})", f"{element.path}@type"
            )
        self.check(element, COMMON + BY_TYPE[kind], ("name", "type", "subtype"))
        name = element.attrs.get("name", "").strip() or default_name
        params = self.params(element) + self.sources(element, self.params(element))
        subtype = element.attrs.get("subtype") or (kind if kind in SUBTYPES else None)
        kind = "atomic" if kind in SUBTYPES else kind
        self.slots, self.previous, self.reads_output = {}, False, False
        if kind == "script":
            self.script_task(element, name, params)
            return
        fields = self.fields(element, kind, subtype)
        if kind == "atomic":
            described = self.described.get(element.path, {})
            fields["body"] = described_prompt(
                self.text(element, "instructions") or self.text(element, "description") or "", params, described
            )
            if not fields["body"]:
                raise self.invalid(element, "<task> needs a <instructions>", f"{element.path}/instructions")
            self.add(element, name, kind, params, fields, None)
            return
        if self.text(element, "instructions"):
            raise self.invalid(element.child("instructions") or element, f"a {kind} template has no <instructions>")
        if kind == "director_evaluator_loop" and element.child("inputs") is None:
            params = self.loop_inputs(element)
        datum = self.sequence(element, name, params) if kind == "sequential" else self.loop(element, name, params)
        datum = self.with_slots(datum, Span(self.file, element.line, element.col))
        fields["body"] = _written(datum)
        self.add(element, name, kind, params, fields, self.compile(element, name, params, datum))

    def params(self, element: Element) -> list[str]:
        """The names of ``<inputs><input name=…/></inputs>``, in kebab-case."""
        inputs = element.child("inputs")
        if inputs is None:
            return []
        self.check(inputs, ("input",))
        names = []
        described: dict[str, str] = {}
        for item in inputs.children:
            self.check(item, ("task",), ("name", "from"), text=True)
            if item.child("task") is not None:
                self.check(item.children[0], ("description",))
            name = item.attrs.get("name", "").strip()
            if not name:
                raise self.invalid(item, "an <input> needs a name attribute", f"{item.path}@name")
            names.append(kebab(name))
            if item.text.strip():  # seed 004: <input name="code">The code to analyze</input>
                described[kebab(name)] = " ".join(item.text.split())
        if len(set(names)) != len(names):
            raise self.invalid(inputs, "an input is named twice")
        self.described[element.path] = described
        return names

    def sources(self, element: Element, params: list[str]) -> list[str]:
        """``<input_source>name</input_source>``: a parameter the task gets from that slot
        (added unless an input already has the name)."""
        source = self.text(element, "input_source")
        if not source:
            return []
        return [] if kebab(source) in params else [kebab(source)]

    def source_of(self, item: Element, param: str) -> str:
        """The variable an ``<input>`` reads: its ``from`` (the seeds' names translated), the
        previous step's output for the seeds' nested ``<task>`` description, else its own name."""
        if "from" in item.attrs:
            source = normal_name(item.attrs["from"].strip())
        elif item.child("task") is not None:
            source = normal_name(PREVIOUS_OUTPUT)
        else:
            source = normal_name(param)
        if source == normal_name(PREVIOUS_OUTPUT):
            self.previous = True
        return kebab(SOURCE_NAMES.get(source, source))

    def kept(self, element: Element, call: Any) -> Any:
        """``call``, its value also stored in the component's ``<output_slot>`` and, in a
        sequential template, as ``previous-output`` (the text of the last step)."""
        slot = self.text(element, "output_slot")
        span = span_of(element, self.file)
        value = S("value")
        sets: list[Any] = []
        if slot and normal_name(slot) not in LOOP_SOURCES:  # the loop binds its own names
            self.slots[kebab(slot)] = None
            sets.append(at(span, S("set!"), S(kebab(slot)), value))
        if not sets:
            return call
        return at(span, S("let"), at(span, at(span, value, call)), *sets, value)

    def with_slots(self, datum: Any, span: Span) -> Any:
        """The body inside ``(let ((slot #f) …) …)`` for the output slots its components fill."""
        if not self.slots:
            return datum
        return at(span, S("let"), at(span, *[at(span, S(slot), False) for slot in self.slots]), datum)

    def script_task(self, element: Element, name: str, params: list[str]) -> None:
        """A script template: ``<command>`` with ``{{input}}`` placeholders, an optional
        ``<timeout>``; inputs the command does not name go to its standard input (the seeds
        pass the director's output to the script). A non-zero exit is a FAILED result whose
        notes hold the script's output; a failing step says the exit code and stderr.

        Seed 004's script step has no ``<command>``: it finds one when it runs (a ``command``
        input or argument, else the loader's ``#:script``, else the interpreter's
        ``target_script``). A ``command`` input or argument (one the ``<command>`` does not place)
        comes before the ``<command>``."""
        command = self.text(element, "command") or ""
        if element.child("command") is not None and not command:
            raise self.invalid(element, "<command> is empty", f"{element.path}/command")
        used = {normal_name(p) for p in placeholders(command)}
        taking = None if COMMAND_PARAM in used else COMMAND_PARAM  # unless <command> places {{command}}
        optional = (COMMAND_PARAM,) if taking and COMMAND_PARAM not in params else ()
        rest = [p for p in params if normal_name(p) not in used and p != taking]
        script: dict[str, Any] = {"input": "\n".join(f"{{{{{p}}}}}" for p in rest) if rest else None}
        if taking:
            script["command_param"] = taking
            script["fallback"] = self.fallback
        timeout = self.number(element, "timeout", float)
        if timeout is not None:
            script["timeout"] = timeout
        fields = self.fields(element, "script", element.attrs.get("subtype"))
        fields["body"] = command or None
        fields["script"] = validated_script(self, element, script)
        self.add(element, name, "script", [*params, *optional], fields, None, optional)

    def loop_inputs(self, element: Element) -> list[str]:
        """A loop template without ``<inputs>`` (as in the seeds) takes the names its parts
        read ``from=`` that the loop does not bind itself (``user_query``), and the
        ``{{placeholders}}`` of its script command (``script_path``), in order of use."""
        found: dict[str, None] = {}
        for role in ("director", "evaluator", "script_execution"):
            part = element.child(role)
            inputs = part.child("inputs") if part is not None else None
            for item in inputs.children if inputs is not None else []:
                source = item.attrs.get("from", "").strip()
                if source and normal_name(source) not in LOOP_SOURCES:
                    found.setdefault(kebab(source), None)
        script = element.child("script_execution")
        command = script.child("command") if script is not None else None
        if command is not None:
            for name in placeholders(command.text):
                found.setdefault(kebab(name), None)
        return list(found)

    def fields(self, element: Element, kind: str, subtype: str | None) -> dict[str, Any]:
        fields: dict[str, Any] = {"subtype": subtype}
        for tag in ("description", "criteria"):
            fields[tag] = self.text(element, tag) or ""
        for tag in ("system", "model"):
            fields[tag] = self.text(element, tag)
        if fields["model"]:
            self.known_model(element.child("model") or element, fields["model"])
        fields["context_management"] = self.context(element, kind, subtype)
        metadata: dict[str, Any] = {"source": f"{self.file}:{element.line}:{element.col}"}
        for tag in ("manual_xml", "disable_reparsing"):
            value = self.boolean(element, tag)
            if value is not None:
                metadata[tag] = value
        fields["metadata"] = metadata
        return fields

    def context(self, element: Element, kind: str, subtype: str | None) -> Any:
        settings = self.context_settings(element)
        try:
            return context_for(kind, subtype, settings)
        except pydantic.ValidationError as exc:
            err = from_validation(exc, f"{self.file}: {element.path}/context_management")
            record = err.record
            record.path = f"{element.path}/context_management" + (f"/{record.path}" if record.path else "")  # type: ignore[attr-defined]
            err.span = Span(self.file, element.line, element.col)
            raise err from None

    def context_settings(self, element: Element) -> dict[str, Any]:
        context = element.child("context_management")
        if context is None:
            return {}
        self.check(context, CONTEXT)
        settings: dict[str, Any] = {}
        for tag in ("inherit_context", "accumulation_format", "fresh_context"):
            value = self.text(context, tag)
            if value is not None:
                settings[tag] = value
        accumulate = self.boolean(context, "accumulate_data")
        if accumulate is not None:
            settings["accumulate_data"] = accumulate
        limit = self.number(context, "max_stored_chars", int)
        if limit is not None:
            settings["max_stored_chars"] = limit
        return settings

    def known_model(self, element: Element, model: str) -> None:
        """An unknown ``<model>`` fails when the template loads, suggesting similar names."""
        try:
            self.interp.tasks.models.get(model)
        except TaskError as err:
            raise self.invalid(element, err.record.message, f"{element.path}") from None  # type: ignore[attr-defined]

    def add(
        self,
        element: Element,
        name: str,
        kind: str,
        params: list[str],
        fields: dict[str, Any],
        body: Any,
        optional: tuple[str, ...] = (),
    ) -> None:
        if any(d.name == name for d, _ in self.pending):
            raise self.invalid(element, f"task {name} is defined twice", f"{element.path}@name")
        try:
            described = self.described.get(element.path, {})
            definition = TaskDefinition(
                name=name,
                type=kind,
                params=[
                    TaskParam(name=p, description=described.get(p, ""), required=p not in optional, default=False)
                    for p in params
                ],
                **fields,  # type: ignore[arg-type]
            )
        except pydantic.ValidationError as exc:
            err = from_validation(exc, f"{self.file}:{element.line}:{element.col}: task {name}")
            record = err.record
            record.path = f"{element.path}/{record.path}" if record.path else element.path  # type: ignore[attr-defined]
            err.span = Span(self.file, element.line, element.col)
            raise err from None
        self.pending.append((definition, body))

    def register(self, replace: bool) -> list[str]:
        """Register the file's templates; unless ``replace``, none may redefine a task defined elsewhere."""
        tasks = self.interp.tasks
        if not replace:
            for definition, _ in self.pending:
                place = definition.metadata.get("source")
                tasks.check_redefinition(definition.name, place, "load-task-templates", "#:replace #t")
        for definition, body in self.pending:
            tasks.register(definition, body, replace=True, place=definition.metadata.get("source"))
        return [d.name for d, _ in self.pending]

    def compile(self, element: Element, name: str, params: list[str], datum: Any) -> TemplateBody:
        """Analyse and compile the body as a procedure of the parameters over the global frame."""
        interp = self.interp
        symbols = tuple(S(p) for p in params)
        span = Span(self.file, element.line, element.col)
        scope = Scope(dict.fromkeys(symbols, False), None, name)
        body = interp.analyzer.analyze(datum, scope, span)
        node = Lambda(symbols, None, body, name, interp.runtime, (), span)
        return TemplateBody(node.compile(False)(interp.global_env))


def validated_script(loader: TemplateLoader, element: Element, settings: dict[str, Any]) -> Any:
    try:
        return ScriptSpec(**settings)
    except pydantic.ValidationError as exc:
        raise loader.invalid(element, f"script: {exc.errors()[0]['msg']}") from None
