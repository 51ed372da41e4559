"""The MCP SDK as the reference uses it, loaded without what a stdio server never runs.

Every module of the reference imports the SDK through this one. Three things happen first,
before any ``mcp`` module is imported (no SDK code is replaced: one pydantic setting is added
to one SDK class, and two of pydantic's own switches are on while ``mcp_types`` is imported;
``tests/reference/test_sdk_loading.py`` fails when a release of the SDK or pydantic changes
what they rely on):

* **Package ``__init__`` files run on first use**
  (:func:`~ccweb_reference.sdk_loading.defer_package_inits`). Importing any ``mcp.*``
  module runs ``mcp/__init__.py``, which imports the SDK's client, and
  ``mcp/server/__init__.py``, which imports ``MCPServer`` with its resources, prompts and
  auth: nothing the reference uses. Those two packages are put into ``sys.modules`` as the
  module objects the import system would make, but empty, with a module ``__getattr__``
  (PEP 562) that runs the package's own ``__init__`` into that same object the first time a
  name is looked up on it. Submodules import as usual, and ``from mcp import ClientSession``
  or ``mcp.types`` still work. This relies on those ``__init__`` files only importing and
  re-exporting, so that running them later changes nothing else.
* **Each era's wire models build their validators when first used**
  (:func:`~ccweb_reference.sdk_loading.defer_era_models`).
  ``mcp_types.methods`` imports the wire models of both protocol eras (2025-11-25 and
  2026-07-28), about 300 pydantic models; a connection speaks one era and validates a
  handful of them. Their shared base, ``mcp_types._wire_base.WireModel``, is given pydantic's
  ``defer_build`` before they are defined, so a model's schema and validator are built on
  its first validation. The fork server builds them all once before it forks
  (:func:`~ccweb_reference.sdk_loading.build_deferred_models`), so its children stay as
  fast as before.
* **The version-free models and adapters build their validators when first used**
  (:func:`~ccweb_reference.sdk_loading.import_types_deferred`). ``import mcp_types`` defines
  about 190 version-free pydantic models (``mcp_types._types``, ``mcp_types.jsonrpc``) and seven
  type adapters over their unions (``jsonrpc_message_adapter``, ...). The models' base class is
  defined in the same module, so no setting can be given to it first, and an adapter of a union
  takes none from it: two private pydantic switches, its ``defer_build`` default and
  ``TypeAdapter._defer_build``, are on while ``mcp_types`` is imported and restored after (a
  pydantic without them gets a plain import). Deferring the models alone saves nothing: the
  adapters then build every model's schema inline. The fork server builds these too before it
  forks.

The Starlette, uvicorn and OpenTelemetry imports of the SDK's low-level server module are
not avoided: they are module-level imports of ``mcp.server.lowlevel.server`` itself, which
only a change to the SDK could defer.
"""

from ccweb_reference.sdk_loading import (
    build_deferred_models,
    defer_era_models,
    defer_package_inits,
    era_models,
    import_types_deferred,
    is_deferred,
    version_free_adapters,
    version_free_models,
)

defer_package_inits()
import_types_deferred()  # first: importing the era models' base imports mcp_types too
defer_era_models()

import mcp_types as types  # noqa: E402
from mcp.server.context import ServerRequestContext  # noqa: E402
from mcp.server.lowlevel.server import Server  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from mcp.shared.message import SessionMessage  # noqa: E402

__all__ = [
    "MCPError",
    "Server",
    "ServerRequestContext",
    "SessionMessage",
    "build_deferred_models",
    "defer_era_models",
    "defer_package_inits",
    "era_models",
    "import_types_deferred",
    "is_deferred",
    "types",
    "version_free_adapters",
    "version_free_models",
]
