"""The layers of interpreter/ (docs/architecture.md): every top-level module sits in exactly one layer of
pyproject's import-linter contract, the contract holds, and the top-level import graph has no circle."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import grimp
import pytest
from importlinter.api import read_configuration
from importlinter.cli import lint_imports

CHECKOUT = Path(__file__).resolve().parent.parent
PACKAGE = CHECKOUT / "interpreter"
PYPROJECT = CHECKOUT / "pyproject.toml"


def layers_contract() -> dict:
    """The `layers` contract's options, as import-linter reads them from pyproject.toml."""
    contracts = read_configuration(str(PYPROJECT))["contracts_options"]
    (contract,) = [c for c in contracts if c["type"] == "layers"]
    return contract


def contract_layers() -> list[list[tuple[str, bool]]]:
    """Each layer, highest first, as (module name, optional) pairs."""
    layers = []
    for layer in layers_contract()["layers"]:
        names = [name.strip() for name in re.split(r"[:|]", layer)]
        layers.append([(name.strip("()"), name.startswith("(")) for name in names])
    return layers


def top_level_modules() -> set[str]:
    """The modules and packages directly in interpreter/ (a folder counts when it holds Python files)."""
    found = {path.stem for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    found |= {path.name for path in PACKAGE.iterdir() if path.is_dir() and any(path.glob("*.py"))}
    return found


def test_every_top_level_module_is_in_exactly_one_layer() -> None:
    named = [name for layer in contract_layers() for name, _ in layer]
    repeated = sorted({name for name in named if named.count(name) > 1})
    assert not repeated, f"in more than one layer of pyproject's contract: {repeated}"
    modules = top_level_modules()
    unassigned = sorted(modules - set(named))
    assert not unassigned, f"interpreter/ modules in no layer (add them to pyproject's contract): {unassigned}"
    required = {name for layer in contract_layers() for name, optional in layer if not optional}
    assert not required - modules, f"the contract names modules that do not exist: {sorted(required - modules)}"


def test_the_layers_contract_holds(capsys: pytest.CaptureFixture[str]) -> None:
    status = lint_imports(config_filename=str(PYPROJECT), no_cache=True, no_logo=True)
    report = capsys.readouterr().out
    assert status == 0, report


def test_the_contract_counts_type_checking_and_function_level_imports() -> None:
    assert read_configuration(str(PYPROJECT))["session_options"].get("exclude_type_checking_imports") in (
        None,
        "false",
        "False",
    )
    ignored = layers_contract().get("ignore_imports", [])
    assert not any("*" in line for line in ignored), "ignore_imports names each import: no wildcards"


def top_level_graph() -> dict[str, set[str]]:
    """Edges between the top-level modules of interpreter/, counting every import grimp sees: module
    level, inside functions and under TYPE_CHECKING."""
    graph = grimp.build_graph("interpreter", cache_dir=None, exclude_type_checking_imports=False)
    edges: dict[str, set[str]] = {}
    for importer in graph.modules:
        if "." not in importer:
            continue
        source = importer.split(".")[1]
        for imported in graph.find_modules_directly_imported_by(importer):
            if imported.startswith("interpreter.") and (target := imported.split(".")[1]) != source:
                edges.setdefault(source, set()).add(target)
    return edges


def circles(edges: dict[str, set[str]]) -> Iterator[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()

    def visit(node: str) -> Iterator[list[str]]:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(edges.get(node, ())):
            if successor not in index:
                yield from visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                yield sorted(component)

    for node in sorted(edges):
        if node not in index:
            yield from visit(node)


def test_circles_finds_a_circle_and_only_circles() -> None:
    assert list(circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})) == [["a", "b", "c"]]
    assert list(circles({"a": {"b"}, "b": {"c"}, "d": {"a"}})) == []


def test_the_host_and_front_layers_have_no_circle_among_their_modules() -> None:
    front, host = contract_layers()[:2]
    assert ("cli", False) in front and ("interpreter", False) in host
    upper = {name for name, _ in front + host}
    edges = {module: targets & upper for module, targets in top_level_graph().items() if module in upper}
    found = list(circles(edges))
    assert not found, f"import circles between host and front-end modules: {found}"


def unexplained_function_level_imports(modules: set[str]) -> list[str]:
    """``file:line`` of each import inside a function of ``modules`` (top-level names in interpreter/)
    with no ``#`` reason on its line, or on a comment line right above its group of imports."""
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0].removesuffix(".py") not in modules:
            continue
        lines = path.read_text().splitlines()
        for function in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if not isinstance(node, ast.Import | ast.ImportFrom):
                    continue
                if any("#" in line for line in lines[node.lineno - 1 : node.end_lineno]):
                    continue
                above = node.lineno - 2
                while above >= 0 and lines[above].strip().startswith(("from ", "import ")):
                    above -= 1
                if not lines[above].strip().startswith("#"):
                    found.add(f"{path.relative_to(CHECKOUT)}:{node.lineno}")
    return sorted(found)


@pytest.mark.parametrize("layer", [pytest.param(index, id=layer[0][0]) for index, layer in enumerate(contract_layers())])
def test_each_function_level_import_says_why(layer: int) -> None:
    """Inside a function only an optional dependency or a measured start-up cost, with its reason."""
    modules = {name for name, _ in contract_layers()[layer]}
    found = unexplained_function_level_imports(modules)
    assert not found, f"function-level imports without a `# reason` (hoist them, or say why): {found}"


def test_top_level_import_graph_is_acyclic() -> None:
    found = list(circles(top_level_graph()))
    assert not found, f"import circles between top-level modules of interpreter/: {found}"
