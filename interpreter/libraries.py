"""R7RS libraries: ``define-library`` and ``import``.

The standard libraries (``(scheme base)``, ``(scheme write)`` …) name what is built in:
importing one is accepted and changes nothing, except through ``prefix``/``rename``/
``only``, which bind the new names. A user library's body runs once, on first import,
in a frame of its own: what it does not export stays private. Its exported macros keep
seeing the library's private bindings. Libraries come from ``define-library`` forms
already evaluated, or from ``<dir>/<name …>.sld`` (or ``.scm``) beside the importing
file or in the working directory, read under the file capability.
"""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .analyzer import MACRO, SPECIAL_FORMS, VAR, Analyzer, Macro, Scope, elements, list_items, syntax_error
from .capabilities import permission_denied
from .datatypes import Pair, Span, Symbol, cons, sym
from .env import Env
from .errors import SchemeError
from .evaluator import UNASSIGNED
from .macros import call_at_expansion
from .nodes.core import Node, Run, unassigned_error
from .primitives.registry import installer, make_primitive

if TYPE_CHECKING:
    from .analyzer import AnalysisHost

STANDARD = {
    ("scheme", name)
    for name in [
        "base",
        "case-lambda",
        "char",
        "complex",
        "cxr",
        "eval",
        "file",
        "inexact",
        "lazy",
        "load",
        "process-context",
        "read",
        "repl",
        "time",
        "write",
        "r5rs",
    ]
}

#: A binding an import makes: ("value", v) or ("macro", m).
Binding = tuple[str, Any]


class LibraryScope(Scope):
    """The scope of a library's body; remembers its runtime frame once it has run."""

    __slots__ = ("frame", "library")

    def __init__(self, library: Library) -> None:
        super().__init__({}, None, " ".join(library.name))
        self.library = library
        self.frame: Env | None = None

    def reference(self, key: Symbol, span: Span | None) -> Node:
        assert self.frame is not None
        return FrameRef(self.frame, key, span)


class FrameRef(Node):
    """A variable of a library's frame, referenced by one of its macros from outside."""

    __slots__ = ("frame", "name")

    def __init__(self, frame: Env, name: Symbol, span: Span | None) -> None:
        self.frame, self.name, self.span = frame, name, span

    def compile(self, tail: bool) -> Run:
        frame_vars, name, span = self.frame.vars, self.name, self.span

        def ref(env: Env) -> Any:
            value = frame_vars[name]
            if value is UNASSIGNED:
                raise unassigned_error(name, span)
            return value

        return ref


class Library:
    """A library declared with ``define-library``."""

    def __init__(self, name: tuple[str, ...], span: Span | None, file: Path | None = None) -> None:
        self.name = name
        self.span = span
        self.file = file  # where it was declared: includes in its body resolve against it
        self.exports: dict[Symbol, Symbol] = {}  # external name -> internal name
        self.imports: list[tuple[Any, Span | None]] = []
        self.body: list[tuple[Any, Span | None]] = []
        self.scope: LibraryScope | None = None


_REGISTRY: weakref.WeakKeyDictionary[Any, dict[tuple[str, ...], Library]] = weakref.WeakKeyDictionary()


def registry(interp: AnalysisHost) -> dict[tuple[str, ...], Library]:
    found = _REGISTRY.get(interp)
    if found is None:
        found = _REGISTRY[interp] = {}
        interp.analyzer.foreign_scope = foreign_scope
    return found


def foreign_scope(name: Symbol, home: Scope) -> Any:
    """How an exported macro's free identifier resolves in its library's frame."""
    if type(home) is not LibraryScope or home.frame is None:
        return None
    if name in home.macros:
        return MACRO, home.macros[name], 0, False, home
    if name in home.vars:
        return VAR, name, -1, False, home
    return None


def library_name(spec: Any, span: Span | None) -> tuple[str, ...]:
    parts = []
    for item in spec if type(spec) is Pair else [None]:
        if type(item) is Symbol:
            parts.append(item.name)
        elif type(item) is int and item >= 0:
            parts.append(str(item))
        else:
            raise syntax_error("library name must be a list of identifiers and integers, e.g. (mylib util)", span)
    return tuple(parts)


def library_known(interp: AnalysisHost, spec: Any) -> bool:
    name = library_name(spec, None)
    return name in STANDARD or name[0] == "srfi" or name in registry(interp)


# -- define-library ------------------------------------------------------------------
def define_library(an: Analyzer, form: Pair) -> None:
    """Register the library ``form`` declares; its body runs on first import."""
    items = list_items(form)
    if len(items) < 2:
        raise syntax_error("define-library: expected (define-library (name ...) declaration ...)", form.span)
    lib = Library(library_name(items[1][0], form.span), form.span, an.interp.loading[-1] if an.interp.loading else None)
    declarations(an, lib, items[2:])
    registry(an.interp)[lib.name] = lib


#: The macros a library declaration may be (``include``, ``include-ci``,
#: ``include-library-declarations``, ``cond-expand``), by name: forms/syntax.py registers
#: them where it defines them, and they expand here whatever the program calls its own globals.
DECLARATION_MACROS: dict[str, Any] = {}


def declarations(an: Analyzer, lib: Library, items: list[tuple[Any, Span | None]]) -> None:
    for decl, span in items:
        head = decl.car.name if type(decl) is Pair and type(decl.car) is Symbol else None
        if head == "export":
            for spec, sspan in elements(decl.cdr):
                if type(spec) is Symbol:
                    lib.exports[spec] = spec
                elif type(spec) is Pair and len(list(spec)) == 3 and spec.car is sym("rename"):
                    _, internal, external = list(spec)
                    lib.exports[external] = internal
                else:
                    raise syntax_error("export: expected a name or (rename internal external)", sspan or span)
        elif head == "import":
            lib.imports.extend(elements(decl.cdr))
        elif head == "begin":
            lib.body.extend(elements(decl.cdr))
        elif head in ("include", "include-ci"):
            expanded = DECLARATION_MACROS[head].expand(decl, an, None)
            lib.body.extend(elements(expanded.cdr))
        elif head in ("include-library-declarations", "cond-expand"):
            expanded = DECLARATION_MACROS[head].expand(decl, an, None)
            declarations(an, lib, list(elements(expanded.cdr)))
        else:
            raise syntax_error("define-library: unknown declaration (expected export, import, begin …)", span)


def instantiate(an: Analyzer, lib: Library) -> LibraryScope:
    """Run a library's body once, in its own frame."""
    if lib.scope is not None:
        if lib.scope.frame is None:
            raise SchemeError(f"library ({' '.join(lib.name)}) imports itself", kind="syntax-error", span=lib.span)
        return lib.scope
    scope = lib.scope = LibraryScope(lib)
    frame = Env({}, an.interp.global_env)
    for spec, span in lib.imports:
        for name, (kind, value) in import_set(an, spec, span).items():
            if kind == "macro":
                scope.macros[name] = value
            else:
                scope.vars[name] = False
                frame.vars[name] = value
    loading = an.interp.loading
    if lib.file is not None:
        loading.append(lib.file)
    try:
        scanned = an.scan_body(lib.body, scope)
        for name in scope.vars:
            frame.vars.setdefault(name, UNASSIGNED)
        nodes = [an.analyze(f, scope, s) for f, s in scanned]
    finally:
        if lib.file is not None:
            loading.pop()
    def run() -> None:
        for node in nodes:
            node.evaluate(frame)

    call_at_expansion(an.interp, make_primitive("library-body", run), [])
    scope.frame = frame
    return scope


# -- import --------------------------------------------------------------------------
def import_set(an: Analyzer, spec: Any, span: Span | None) -> dict[Symbol, Binding]:
    """The bindings an import set makes (a standard library alone makes none)."""
    found = resolve_set(an, spec, span)
    return found if found is not None else {}


def resolve_set(an: Analyzer, spec: Any, span: Span | None) -> dict[Symbol, Binding] | None:
    """Bindings by name; None stands for "all the built-in names" (a standard library)."""
    if type(spec) is not Pair:
        raise syntax_error("import: expected a library name such as (scheme base)", span)
    head = spec.car.name if type(spec.car) is Symbol else None
    args = list(spec.cdr) if type(spec.cdr) is Pair else []
    if head in ("only", "except", "prefix", "rename") and args and type(args[0]) is Pair:
        inner = resolve_set(an, args[0], span)
        if head == "prefix":
            if len(args) != 2 or type(args[1]) is not Symbol:
                raise syntax_error("import: expected (prefix import-set prefix)", span)
            source = inner if inner is not None else all_globals(an)
            return {sym(args[1].name + k.name): v for k, v in source.items()}
        if inner is None:
            if head == "except":
                return None
            inner = {}
            wanted = args[1:] if head == "only" else [p.car for p in args[1:] if type(p) is Pair]
            for name in wanted:
                inner[name] = global_binding(an, name, span)
        if head == "only":
            return {k: v for k, v in inner.items() if k in args[1:]}
        if head == "except":
            return {k: v for k, v in inner.items() if k not in args[1:]}
        renamed = dict(inner)
        for pair in args[1:]:
            old, new = list(pair) if type(pair) is Pair else (None, None)
            if old not in renamed:
                raise syntax_error(f"import: rename of a name the library does not export: {old}", span)
            renamed[new] = renamed.pop(old)
        return renamed
    name = library_name(spec, span)
    if name in STANDARD or name[0] == "srfi":
        return None
    lib = find_library(an, name, span)
    scope = instantiate(an, lib)
    assert scope.frame is not None
    out: dict[Symbol, Binding] = {}
    for external, internal in lib.exports.items():
        if internal in scope.macros:
            out[external] = ("macro", scope.macros[internal])
        elif internal in scope.vars:
            out[external] = ("value", scope.frame.vars[internal])
        else:
            out[external] = global_binding(an, internal, span)
    return out


def global_binding(an: Analyzer, name: Symbol, span: Span | None) -> Binding:
    if name in an.macros:
        return "macro", an.macros[name]
    if name in SPECIAL_FORMS:
        return "macro", KeywordAlias(name)
    if name in an.gvars:
        return "value", an.gvars[name]
    raise syntax_error(f"import: {name.name} is not defined", span)


def all_globals(an: Analyzer) -> dict[Symbol, Binding]:
    out: dict[Symbol, Binding] = {k: ("value", v) for k, v in an.gvars.items()}
    out.update({k: ("macro", KeywordAlias(k)) for k in SPECIAL_FORMS})
    out.update({k: ("macro", v) for k, v in an.macros.items()})
    return out


class KeywordAlias(Macro):
    """Another name for a special form (``(import (prefix (scheme base) s:))`` gives ``s:if``)."""

    def __init__(self, keyword: Symbol) -> None:
        self.keyword = keyword

    def expand(self, form: Pair, analyzer: Analyzer, scope: Scope | None) -> Any:
        return cons(self.keyword, form.cdr, form.span)


def find_library(an: Analyzer, name: tuple[str, ...], span: Span | None) -> Library:
    """A declared library, or one loaded from ``name/…/last.sld`` (or ``.scm``)."""
    libs = registry(an.interp)
    if name in libs:
        return libs[name]
    interp = an.interp
    bases = ([interp.loading[-1].parent] if interp.loading else []) + [Path.cwd()]
    refused = False
    for base in bases:
        for ext in (".sld", ".scm"):
            path = base.joinpath(*name[:-1], name[-1] + ext)
            try:  # asked before the file system: a refusal must not tell whether the file exists
                interp.check_file_access(path, "import")
            except SchemeError:
                refused = True
                continue
            if path.is_file():
                interp.eval_file(path)
                if name in libs:
                    return libs[name]
    if refused:  # the same error whether or not the file exists
        err = permission_denied("import", "allow_files", f"loading the library ({' '.join(name)}) from a file")
        err.span = span
        raise err
    raise SchemeError(f"import: unknown library ({' '.join(name)})", kind="syntax-error", span=span)


def import_into_globals(an: Analyzer, form: Pair) -> None:
    """``(import set ...)`` at top level: bind each import set's names globally."""
    for spec, span in list_items(form)[1:]:
        for name, (kind, value) in import_set(an, spec, span or form.span).items():
            if kind == "macro":
                an.macros[name] = value
            else:
                an.macros.pop(name, None)
                an.gvars[name] = value


@installer
def install_environments(interp: AnalysisHost) -> None:
    """``null-environment``: like the other environment procedures, the interaction environment."""

    def null_environment(version: Any = 5) -> Any:
        return interp.global_env

    interp.define_primitive("null-environment", null_environment)
