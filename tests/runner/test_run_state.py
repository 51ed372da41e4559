"""No module of the runner keeps a run's state: it lives in the run context (``transport/run_context.py``).

Read from the source (no import is executed): every ``global`` statement; every module-level lock,
thread-local, counter or queue; every module-level list, dict or set the package mutates (an item
stored or deleted, a mutating method called on it, here or through another module); every function
cached with ``functools``. What is allowed is static data or a cache of what never changes during a
run, each entry with its reason, in ``run_state_allowed.yaml`` beside this file.
"""

from __future__ import annotations

import ast
from importlib.resources import files
from pathlib import Path

import pytest
import yaml

PACKAGE = Path(str(files("ccweb_conformance")))
ALLOWED_FILE = Path(__file__).with_name("run_state_allowed.yaml")
MUTATORS = {
    "append", "extend", "insert", "pop", "popitem", "remove", "clear", "update", "setdefault", "add", "discard",
    "__setitem__", "__delitem__", "appendleft", "extendleft", "sort", "reverse",
}  # fmt: skip
STATEFUL_CALLS = {
    "Lock", "RLock", "Event", "Condition", "Semaphore", "BoundedSemaphore", "local", "count", "Queue",
    "SimpleQueue", "deque",
}  # fmt: skip
"""Module-level objects that only make sense as shared, changing state."""
CONTAINER_CALLS = {"list", "dict", "set", "bytearray", "defaultdict", "Counter", "OrderedDict", "WeakKeyDictionary",
                   "WeakValueDictionary", "WeakSet"}  # fmt: skip
CONTAINERS = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)
CACHES = {"cache", "lru_cache", "cached_property"}


def _name(node: ast.expr) -> str | None:
    """The called name: ``f`` for ``f(...)`` and ``module.f(...)``."""
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def _assigned(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level names and the value each is first bound to."""
    found: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, node.value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
            found.setdefault(node.target.id, node.value)
    return found


def _mutated(trees: dict[str, ast.Module]) -> set[str]:
    """Names whose object is changed somewhere in the package: ``x[k] = v``, ``del x[k]``, ``x.append(v)``, also as
    ``module.x``."""
    names: set[str | None] = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
                names.add(_name(node.value))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
                names.add(_name(node.func.value))
    return {name for name in names if name is not None}


def module_state(package: Path) -> dict[str, str]:
    """``module: name`` -> what it is, for every piece of module-level state found in ``package``."""
    trees = {
        path.relative_to(package).as_posix(): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(package.rglob("*.py"))
    }
    mutated = _mutated(trees)
    found: dict[str, str] = {}
    for module, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Global):
                for name in node.names:
                    found[f"{module}: {name}"] = "a global statement"
        for name, value in _assigned(tree).items():
            called = _name(value.func) if isinstance(value, ast.Call) else None
            if called in STATEFUL_CALLS:
                found[f"{module}: {name}"] = f"a module-level {called}()"
            elif (isinstance(value, CONTAINERS) or called in CONTAINER_CALLS) and name in mutated:
                found[f"{module}: {name}"] = "a module-level container the package changes"
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                decorators = [_name(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list]
                if any(d in CACHES for d in decorators):
                    found[f"{module}: {node.name}"] = "a cached function"
    return found


def allowed() -> dict[str, str]:
    """``module: name`` -> why it is no run's state."""
    data = yaml.safe_load(ALLOWED_FILE.read_text(encoding="utf-8"))
    return {f"{module}: {name}": reason for module, names in data.items() for name, reason in names.items()}


def test_no_module_keeps_run_state() -> None:
    found = module_state(PACKAGE)
    unexplained = {key: what for key, what in found.items() if key not in allowed()}
    assert unexplained == {}, "module-level state: pass it in the run context, or allow it with a reason"


def test_every_allowed_entry_exists_and_says_why() -> None:
    found = module_state(PACKAGE)
    assert sorted(key for key in allowed() if key not in found) == []
    assert [key for key, reason in allowed().items() if not (isinstance(reason, str) and reason.strip())] == []


SINGLETONS = {
    "a dict filled at run time": ("_TOTALS: dict[str, float] = {}\n\ndef record(kind, s):\n    _TOTALS[kind] = s\n"),
    "a list appended to from another module": ("_STARTED: list[str] = []\n", "from m import a\na._STARTED.append(1)\n"),
    "a global statement": ("_STATE = None\n\ndef set_it(state):\n    global _STATE\n    _STATE = state\n",),
    "a module-level lock": ("import threading\n_LOCK = threading.Lock()\n",),
    "a counter": ("import itertools\n_NUMBERS = itertools.count(1)\n",),
    "a cached function": ("from functools import cache\n\n@cache\ndef shared():\n    return object()\n",),
}


@pytest.mark.parametrize("sources", list(SINGLETONS.values()), ids=list(SINGLETONS))
def test_each_kind_of_singleton_is_found(sources: tuple[str, ...] | str, tmp_path: Path) -> None:
    """The check itself can fail: each way a run's state has lived in a module is found."""
    for number, source in enumerate((sources,) if isinstance(sources, str) else sources):
        (tmp_path / f"m{number}.py").write_text(source, encoding="utf-8")
    assert len(module_state(tmp_path)) == 1


def test_static_data_is_not_state(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text('KINDS = {"settle": "why"}\nNAMES = [k for k in KINDS]\n', encoding="utf-8")
    assert module_state(tmp_path) == {}
