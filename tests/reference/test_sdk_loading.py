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


_OUTCOMES = """
import json
from pydantic import ValidationError

def outcome(validate, data):
    try:
        return validate(data).model_dump(mode="json", by_alias=True, exclude_unset=True)
    except ValidationError as error:
        return [[e["type"], [str(p) for p in e["loc"]]] for e in error.errors()]

def outcomes(types):
    initialize = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "s", "version": "1"}, "instructions": "i"}
    cases = [
        (types.jsonrpc_message_adapter.validate_python, {"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        (types.jsonrpc_message_adapter.validate_python, {"jsonrpc": "2.0", "id": 1, "result": {}}),
        (types.jsonrpc_message_adapter.validate_python, {"jsonrpc": "1.0", "id": 1, "method": "ping"}),
        (types.client_request_adapter.validate_python, {"method": "tools/call", "params": {"name": "t"}}),
        (types.client_request_adapter.validate_python, {"method": "tools/call", "params": {}}),
        (types.InitializeResult.model_validate, initialize),
        (types.InitializeResult.model_validate, {**initialize, "serverInfo": {"name": "s"}}),
        (types.CallToolResult.model_validate, {"content": [{"type": "text", "text": "x"}], "isError": True, "x": 1}),
        (types.Tool.model_validate, {"name": "t", "input_schema": {"type": "object"}}),
    ]
    return [outcome(validate, data) for validate, data in cases]

def configs(models):
    return {m.__name__: {k: getattr(v, "__name__", v) for k, v in m.model_config.items()} for m in models}

def schemas(types):
    return [m.model_json_schema() for m in (types.InitializeResult, types.CallToolResult, types.JSONRPCRequest)]
"""
"""Validation outcomes, model configs and JSON Schemas, printed alike by a deferred and a plain import."""


def test_version_free_models_and_adapters_are_deferred_only_while_mcp_types_is_imported() -> None:
    """The pydantic details relied on: its private ``config_defaults['defer_build']`` and ``TypeAdapter._defer_build``.

    Fails when a pydantic release moves or renames either (the reference then imports the types
    plainly: ``built`` lists models and adapters built at import), stops honouring them, or when
    they are not restored after the import; and when the fork server's build leaves one unbuilt.
    """
    result = _fresh(
        "import json\n"
        "from pydantic import TypeAdapter\n"
        "from pydantic._internal._config import ConfigWrapper, config_defaults\n"
        "switch = vars(TypeAdapter)['_defer_build']\n"
        "from ccweb_reference import sdk\n"
        "models, adapters = sdk.version_free_models(), sdk.version_free_adapters()\n"
        "unbuilt = sum(not m.__pydantic_complete__ for m in models)\n"
        "built = [m.__name__ for m in (sdk.types.InitializeResult, sdk.types.JSONRPCRequest, sdk.types.Tool)"
        " if m.__pydantic_complete__] + [str(a) for a in adapters if a.pydantic_complete]\n"
        "sdk.build_deferred_models()\n"
        "print(json.dumps({'default': config_defaults['defer_build'],"
        " 'switch': vars(TypeAdapter)['_defer_build'] is switch,"
        " 'adapter': TypeAdapter(int)._defer_build, 'models': len(models), 'unbuilt': unbuilt, 'built': built,"
        " 'adapters': len(adapters), 'defer_build': ConfigWrapper(sdk.types.InitializeResult.model_config).defer_build,"
        " 'left': sum(not m.__pydantic_complete__ for m in models) + sum(not a.pydantic_complete for a in adapters)}))"
    )
    assert result["default"] is False
    assert result["switch"] is True
    assert result["adapter"] is False
    assert result["defer_build"] is False
    assert result["built"] == []
    assert result["adapters"] == 7  # mcp_types.jsonrpc_message_adapter and six over the client's and server's unions
    assert int(result["models"]) > 150  # type: ignore[call-overload]  # mcp_types._types and mcp_types.jsonrpc
    assert int(result["unbuilt"]) > 0.9 * int(result["models"])  # type: ignore[call-overload]
    assert result["left"] == 0


def test_deferred_version_free_models_and_the_adapters_built_at_import_validate_as_a_plain_import_does() -> None:
    """After the default is restored: the adapters, the models built on first use, their configs and schemas."""
    deferred = _fresh(
        _OUTCOMES + "from ccweb_reference import sdk\n"
        "before = sum(not m.__pydantic_complete__ for m in sdk.version_free_models())\n"
        "got = outcomes(sdk.types)\n"
        "after = sum(not m.__pydantic_complete__ for m in sdk.version_free_models())\n"
        "print(json.dumps({'outcomes': got, 'configs': configs(sdk.version_free_models()),"
        " 'schemas': schemas(sdk.types), 'built_on_use': before - after}))"
    )
    plain = _fresh(
        _OUTCOMES + "import mcp_types\n"
        "from ccweb_reference import sdk_loading\n"
        "print(json.dumps({'outcomes': outcomes(mcp_types), 'configs': configs(sdk_loading.version_free_models()),"
        " 'schemas': schemas(mcp_types)}))"
    )
    assert int(deferred.pop("built_on_use")) > 3  # type: ignore[call-overload]
    assert deferred == plain
    outcomes = plain["outcomes"]
    assert isinstance(outcomes, list)
    assert outcomes[0] == {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    assert outcomes[2][0] == ["literal_error", ["JSONRPCRequest", "jsonrpc"]]
    assert outcomes[6] == [["missing", ["serverInfo", "version"]]]
    assert outcomes[7] == {"content": [{"type": "text", "text": "x"}], "isError": True}
    assert outcomes[8] == {"name": "t", "inputSchema": {"type": "object"}}  # populate_by_name, as configured


@pytest.mark.parametrize(
    "hide",
    [
        "sys.modules['pydantic._internal._config'] = None  # the module moved",
        "c.config_defaults = types.MappingProxyType(c.config_defaults)  # no longer a dict to set",
        "from pydantic import TypeAdapter; TypeAdapter._defer_build = False  # no longer a property",
    ],
)
def test_without_pydantic_s_private_default_the_types_are_imported_plainly(hide: str) -> None:
    result = _fresh(
        "import json, sys, types\n"
        "import pydantic.main, pydantic._internal._config as c\n" + hide + "\n"
        "from ccweb_reference import sdk\n"
        "print(json.dumps({'unbuilt': sorted(m.__name__ for m in sdk.version_free_models()"
        " if not m.__pydantic_complete__), 'era_unbuilt': sum(not m.__pydantic_complete__ for m in sdk.era_models()),"
        " 'adapters': [a.pydantic_complete for a in sdk.version_free_adapters()],"
        " 'ping': sdk.types.jsonrpc_message_adapter.validate_python({'jsonrpc': '2.0', 'id': 1, 'method': 'p'}).method"
        "}))"
    )
    plain = _fresh(
        "import json, mcp_types\n"
        "from ccweb_reference import sdk_loading\n"
        "print(json.dumps({'unbuilt': sorted(m.__name__ for m in sdk_loading.version_free_models()"
        " if not m.__pydantic_complete__)}))"
    )
    assert result["unbuilt"] == plain["unbuilt"]
    assert result["adapters"] == [True] * 7
    assert result["ping"] == "p"
    assert int(result["era_unbuilt"]) > 250  # type: ignore[call-overload]  # the era models are still deferred


def test_the_runner_s_threads_may_first_use_a_deferred_model_at_once() -> None:
    """The pydantic detail the runner's deferral relies on: a lock around building a deferred model.

    Fails when a pydantic release renames ``pydantic.main._rebuild_lock``: the runner then loads
    ``mcp_types`` plainly (slower to start, never wrong) until this is looked at again.
    """
    result = _fresh(
        "import json\nfrom ccweb_reference import sdk_loading\n"
        "print(json.dumps({'safe': sdk_loading.rebuilds_are_thread_safe()}))"
    )
    assert result == {"safe": True}
