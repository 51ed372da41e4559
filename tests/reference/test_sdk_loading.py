"""How the reference loads the MCP SDK (ccweb_reference.sdk): what it skips, and the SDK details it relies on.

Each check runs in a fresh interpreter, since what a process imports first decides what is deferred.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest


def _fresh(code: str) -> dict[str, object]:
    """Run ``code`` in a new interpreter; it prints one JSON object, returned here."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _package_init(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin is not None
    return Path(spec.origin)


@pytest.mark.parametrize("package", ["mcp", "mcp.server"])
def test_the_deferred_sdk_package_inits_only_import_and_re_export(package: str) -> None:
    """The detail deferring them relies on: running them later changes nothing else.

    A new SDK release that adds any other statement to one of them (a warning filter, a
    registration, a side effect) fails here, and the deferral must be looked at again.
    """
    tree = ast.parse(_package_init(package).read_text(encoding="utf-8"))
    others = [
        ast.unparse(node)[:80]
        for node in tree.body
        if not isinstance(node, ast.Import | ast.ImportFrom)
        and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))  # the docstring
        and not (isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["__all__"])
    ]
    assert others == []


def test_the_stdio_reference_imports_neither_the_sdk_client_nor_mcpserver_nor_builds_era_models() -> None:
    """Fails too when a module on the stdio path imports the SDK before ``ccweb_reference.sdk`` does."""
    result = _fresh(
        "import json, sys, ccweb_reference.cli\n"
        "from ccweb_reference import sdk\n"
        "print(json.dumps({'deferred': [n for n in ('mcp', 'mcp.server') if sdk.is_deferred(n)],"
        " 'imported': sorted(n for n in sys.modules if n in ('mcp.client', 'mcp.server.mcpserver')),"
        " 'built': sum(m.__pydantic_complete__ for m in sdk.era_models())}))"
    )
    assert result == {"deferred": ["mcp", "mcp.server"], "imported": [], "built": 0}


def test_a_deferred_package_runs_its_init_on_the_first_name_looked_up() -> None:
    """``import mcp`` after the reference still gives the SDK's whole package, the same module object."""
    result = _fresh(
        "import json, sys, ccweb_reference.sdk\n"
        "import mcp\n"
        "before = id(mcp)\n"
        "from mcp import ClientSession\n"
        "import mcp.server\n"
        "print(json.dumps({'same': id(sys.modules['mcp']) == before, 'client': ClientSession.__module__,"
        " 'types': mcp.types.Tool.__name__, 'all': len(mcp.__all__) > 50, 'server': mcp.server.MCPServer.__name__,"
        " 'loaded': 'mcp.client.session' in sys.modules}))"
    )
    assert result == {
        "same": True,
        "client": "mcp.client.session",
        "types": "Tool",
        "all": True,
        "server": "MCPServer",
        "loaded": True,
    }


def test_nothing_is_deferred_when_the_sdk_was_imported_first() -> None:
    result = _fresh(
        "import json, mcp, mcp_types.methods\n"
        "from ccweb_reference import sdk\n"
        "print(json.dumps({'deferred': [n for n in ('mcp', 'mcp.server') if sdk.is_deferred(n)],"
        " 'built': all(m.__pydantic_complete__ for m in sdk.era_models())}))"
    )
    assert result == {"deferred": [], "built": True}


def test_era_wire_models_are_built_on_first_use_and_all_at_once_for_the_fork_server() -> None:
    """The SDK details relied on: the era modules' models derive from ``mcp_types._wire_base.WireModel``.

    If a release stops deriving them from it (or pydantic stops honouring ``defer_build``),
    ``unbuilt`` falls to 0 here.
    """
    result = _fresh(
        "import json\n"
        "from ccweb_reference import sdk\n"
        "from mcp_types import methods\n"
        "models = sdk.era_models()\n"
        "unbuilt = sum(not m.__pydantic_complete__ for m in models)\n"
        "request = {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize', 'params': {'protocolVersion': '2025-06-18',"
        " 'capabilities': {}, 'clientInfo': {'name': 'c', 'version': '1'}}}\n"
        "methods.CLIENT_REQUESTS[('initialize', '2025-06-18')].model_validate(request)\n"
        "after_use = sum(not m.__pydantic_complete__ for m in models)\n"
        "sdk.build_deferred_models()\n"
        "print(json.dumps({'models': len(models), 'unbuilt': unbuilt, 'used': unbuilt - after_use > 0,"
        " 'left': sum(not m.__pydantic_complete__ for m in models)}))"
    )
    assert result["models"] == result["unbuilt"]
    assert int(result["models"]) > 250  # type: ignore[call-overload]  # both eras' wire models
    assert result["used"] is True
    assert result["left"] == 0


def test_the_fork_server_builds_every_era_model_before_it_forks() -> None:
    source = Path(importlib.util.find_spec("ccweb_reference.zygote").origin or "").read_text(encoding="utf-8")  # type: ignore[union-attr]
    serve = next(node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef) and node.name == "serve")
    calls = [ast.unparse(node.func) for node in ast.walk(serve) if isinstance(node, ast.Call)]
    assert calls.index("sdk.build_deferred_models") < calls.index("gc.freeze")
