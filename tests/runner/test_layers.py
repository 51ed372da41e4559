"""The runner's layers import downwards only, and pytest lives in the suite layer alone.

Read from the source (no import is executed): every ``import`` and ``from ... import`` of
every module under ``ccweb_conformance``, except those under ``if TYPE_CHECKING:``; no two
modules import each other, counting those too.
"""

from __future__ import annotations

import ast
from importlib.resources import files
from pathlib import Path

import pytest

PACKAGE = Path(str(files("ccweb_conformance")))
RANKS = {
    "cli": 9,
    "commands": 8,
    "suite": 7,
    "engine": 6,
    "fuzz": 6,
    "profile": 6,
    "reports": 5,
    "checks": 4,
    "fixtures": 3,
    "transport": 2,
    "config": 2,
    "base": 1,
    "harness": 0,
}
"""Layer -> rank: a module may import its own layer and layers of a lower rank.

``cli`` parses and dispatches; ``commands`` (run, list, spec, profile on one shared session)
sit between it and the engines (suite, fuzz, profile). ``suite`` is the pytest adapter over the runner's
own ``engine`` (the step registry, ``-k``, the scenario executor), so it ranks above it. ``harness`` is
data only (the Node harness and the guide for exported cases, shipped for ``export``): it imports nothing."""
PYTEST_LAYERS = {"suite"}
PYTEST_MODULES = {"pytest", "pytest_bdd", "_pytest"}


BASE = {"__init__", "options", "values", "errors", "i18n", "textwidth", "jsontext", "difftext"}
"""The package's own top modules below the CLI: the runner's shared vocabulary, one layer."""


def layer_of(module: str) -> str:
    """``ccweb_conformance.transport.client`` -> ``transport``; ``ccweb_conformance.options`` -> ``base``."""
    parts = module.split(".")
    name = parts[1] if len(parts) > 1 else "__init__"
    return "base" if name in BASE else name


def module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    return ".".join(relative.parts)


def _type_checking_only(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test) in {"TYPE_CHECKING", "typing.TYPE_CHECKING"}


def imports_of(path: Path, name: str | None = None) -> list[str]:
    """Every module this file imports at run time (absolute names; relative ones resolved)."""
    name = name or module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if _type_checking_only(node):
            skipped |= {id(inner) for inner in ast.walk(node)}
    package = name.rsplit(".", 1)[0] if path.name != "__init__.py" else name
    found: list[str] = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.append(base)
    return found


MODULES = sorted(p for p in PACKAGE.rglob("*.py"))


def test_every_module_belongs_to_a_known_layer():
    assert {layer_of(module_name(p)) for p in MODULES} <= set(RANKS)


@pytest.mark.parametrize("path", MODULES, ids=module_name)
def test_imports_point_down(path: Path):
    here = layer_of(module_name(path).removesuffix(".__init__"))
    upward = [
        target
        for target in imports_of(path)
        if target.startswith("ccweb_conformance.")
        and layer_of(target) != here
        and RANKS[layer_of(target)] >= RANKS[here]
    ]
    assert upward == [], f"{module_name(path)} ({here}) imports from a layer at or above it: {upward}"


def test_the_cli_imports_no_engine_only_the_commands_and_the_base():
    layers = {layer_of(t) for t in imports_of(PACKAGE / "cli.py") if t.startswith("ccweb_conformance.")}
    assert layers == {"base", "commands", "config"}


@pytest.mark.parametrize("path", MODULES, ids=module_name)
def test_pytest_is_imported_only_by_the_suite_layer(path: Path):
    here = layer_of(module_name(path))
    uses = [t for t in imports_of(path) if t.split(".")[0] in PYTEST_MODULES]
    if here not in PYTEST_LAYERS:
        assert uses == [], f"{module_name(path)} ({here}) imports {uses}"


def pytest_names(path: Path, name: str | None = None) -> list[str]:
    """pytest's modules named in ``path``: imported, or spelled in a string (an ``importlib`` import)."""
    spelled = [
        node.value
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.split(".")[0] in PYTEST_MODULES
    ]
    return [t for t in imports_of(path, name) if t.split(".")[0] in PYTEST_MODULES] + spelled


ENGINE = sorted((PACKAGE / "engine").rglob("*.py"))


@pytest.mark.parametrize("path", ENGINE, ids=module_name)
def test_the_engine_names_no_pytest_module(path: Path):
    """The runner's own engine runs without pytest: no import of it, not even by name through importlib."""
    assert pytest_names(path) == []


def test_the_engine_check_sees_pytest_by_name(tmp_path: Path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import importlib\nfrom pytest_bdd import given\nimportlib.import_module('_pytest.mark.expression')\n",
        encoding="utf-8",
    )
    assert pytest_names(probe, "ccweb_conformance.engine.probe") == ["pytest_bdd", "_pytest.mark.expression"]
    assert ENGINE != []


def test_the_check_sees_an_upward_import(tmp_path: Path):
    """The walker finds imports in functions and resolves relative ones (so the rule can fail)."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import ccweb_conformance.suite.world\n"
        "def f():\n    from ..suite import plugin\n    import ccweb_conformance.cli\n",
        encoding="utf-8",
    )
    assert imports_of(probe, "ccweb_conformance.transport.probe") == [
        "typing",
        "ccweb_conformance.suite",
        "ccweb_conformance.cli",
    ]


def every_import_of(path: Path, name: str, modules: set[str]) -> set[str]:
    """The modules of ``modules`` this file imports, those under ``if TYPE_CHECKING:`` too, and
    ``from package import module`` as that module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name.rsplit(".", 1)[0] if path.name != "__init__.py" else name
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found |= {f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names}
    return (found & modules) - {name}


def import_graph(paths: list[Path], root: Path) -> dict[str, set[str]]:
    """Module -> the modules under ``root`` it imports; a package's ``__init__`` (re-exports only) is left out."""
    names = {".".join(p.relative_to(root).with_suffix("").parts): p for p in paths if p.name != "__init__.py"}
    return {name: every_import_of(path, name, set(names)) for name, path in names.items()}


def _cycle_from(start: str, graph: dict[str, set[str]]) -> list[str] | None:
    """A path start -> ... -> start, if there is one (depth-first)."""
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    seen: set[str] = set()
    while stack:
        node, path = stack.pop()
        for target in sorted(graph.get(node, ())):
            if target == start:
                return [*path, start]
            if target not in seen:
                seen.add(target)
                stack.append((target, [*path, target]))
    return None


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every module's shortest-found way back to itself, if it has one."""
    return [cycle for module in sorted(graph) if (cycle := _cycle_from(module, graph)) is not None]


def test_no_two_modules_import_each_other():
    """Not directly, not through a longer cycle, not even for type checking: a cycle is one module in two files."""
    assert cycles(import_graph(MODULES, PACKAGE.parent)) == []


def test_the_cycle_check_sees_type_only_and_longer_cycles(tmp_path: Path):
    """A cycle through ``if TYPE_CHECKING:``, one through ``from package import module``, and one of three."""
    files = {
        "pkg/__init__.py": "",
        "pkg/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.b import B\n",
        "pkg/b.py": "from pkg import a\n",
        "pkg/c.py": "import pkg.d\n",
        "pkg/d.py": "def f():\n    from . import e\n",
        "pkg/e.py": "from .c import g\n",
        "pkg/f.py": "import pkg.a\n",
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(exist_ok=True)
        (tmp_path / relative).write_text(text, encoding="utf-8")
    graph = import_graph(sorted(tmp_path.rglob("*.py")), tmp_path)
    assert cycles(graph) == [
        ["pkg.a", "pkg.b", "pkg.a"],
        ["pkg.b", "pkg.a", "pkg.b"],
        ["pkg.c", "pkg.d", "pkg.e", "pkg.c"],
        ["pkg.d", "pkg.e", "pkg.c", "pkg.d"],
        ["pkg.e", "pkg.c", "pkg.d", "pkg.e"],
    ]


REFERENCE_IMPORTS = {
    "ccweb_conformance.fuzz.strategies": {"ccweb_reference.core"},
    "ccweb_conformance.transport.inprocess": {
        "ccweb_reference.server",
        "ccweb_reference.stdio",
        "ccweb_reference.store",
    },
    "ccweb_conformance.transport.sdk_types": {"ccweb_reference.sdk_loading"},
}
"""Module -> what it imports of the reference: the pure core (the fuzzer's candidates; the oracle loads
private copies by name), the bundled reference hosted in-process (served by its own stdio loop), and the
SDK loader (no SDK code of its own: the runner loads ``mcp_types`` with its validators deferred, as the
reference does). Nothing else, so the runner's own transport writes its JSON itself (``jsontext.compact``),
not with the reference's wire helper."""


def test_the_runner_imports_the_reference_only_as_its_core_and_the_in_process_target():
    found = {
        module_name(path): {t for t in imports_of(path) if t.split(".")[0] == "ccweb_reference"} for path in MODULES
    }
    assert {name: targets for name, targets in found.items() if targets} == REFERENCE_IMPORTS
