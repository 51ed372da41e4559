"""The runner loads the SDK's types through ``transport/sdk_types.py``: their validators built on first use."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from importlib.resources import files
from pathlib import Path

PACKAGE = Path(str(files("ccweb_conformance")))


def test_only_sdk_types_imports_mcp_types_so_the_deferral_always_comes_first() -> None:
    importing = sorted(
        {
            str(path.relative_to(PACKAGE))
            for path in PACKAGE.rglob("*.py")
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if (isinstance(node, ast.Import) and any(a.name.split(".")[0] == "mcp_types" for a in node.names))
            or (isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "mcp_types")
        }
    )
    assert importing == ["transport/sdk_types.py"]


def _built(imports: str) -> dict[str, object]:
    """In a fresh interpreter: import ``imports``, then say what of ``mcp_types`` is built."""
    code = (
        f"import json\n{imports}\n"
        "from pydantic._internal._config import config_defaults\n"
        "from ccweb_reference import sdk_loading as s\n"
        "models = s.era_models() + s.version_free_models()\n"
        "print(json.dumps({'default': config_defaults['defer_build'], 'models': len(models),"
        " 'built': sum(m.__pydantic_complete__ for m in models),"
        " 'adapters': sum(a.pydantic_complete for a in s.version_free_adapters())}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_the_runner_s_first_import_of_the_types_defers_their_validators_as_the_reference_does() -> None:
    """What ``ccweb-conformance run`` imports before a server answers builds none of them but what the SDK forces."""
    runner = _built("import ccweb_conformance.cli, ccweb_conformance.suite.world")
    reference = _built("import ccweb_reference.sdk")
    plain = _built("import mcp_types.methods")
    assert runner["default"] is False
    assert int(runner["built"]) <= int(reference["built"])  # type: ignore[call-overload]  # the SDK's server uses two
    assert runner["adapters"] == 0
    assert int(runner["models"]) > 450  # type: ignore[call-overload]  # both eras' and the version-free ones
    assert int(runner["built"]) < 0.05 * int(plain["built"])  # type: ignore[call-overload]
