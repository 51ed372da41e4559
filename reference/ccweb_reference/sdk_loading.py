"""How :mod:`ccweb_reference.sdk` loads the MCP SDK: without what a stdio server never runs.

Nothing here imports the SDK until asked; :mod:`ccweb_reference.sdk` calls
:func:`defer_package_inits`, :func:`import_types_deferred` and :func:`defer_era_models` (in
that order: the last imports ``mcp_types`` too), then imports the rest of the SDK. See that
module for what each does and ``tests/reference/test_sdk_loading.py`` for the SDK and pydantic
details they rely on. The runner loads ``mcp_types`` with the last two as well
(``ccweb_conformance.transport.sdk_types``).
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from types import ModuleType
from typing import Any

DEFERRED_PACKAGES = ("mcp", "mcp.server")
"""The packages whose ``__init__`` runs on the first look-up of a name, not on a submodule's import."""

_INIT_LOCK = threading.RLock()

ERA_MODULES = ("mcp_types._v2025_11_25", "mcp_types._v2026_07_28")
"""The SDK's per-era wire models (internal to ``mcp_types``; imported by ``mcp_types.methods``)."""

VERSION_FREE_MODULES = ("mcp_types._types", "mcp_types.jsonrpc")
"""The SDK's version-free models and JSON-RPC envelopes (imported by ``import mcp_types``)."""


def defer_package_inits(names: tuple[str, ...] = DEFERRED_PACKAGES) -> list[str]:
    """Register each package not imported yet as an empty module that runs its ``__init__`` on demand.

    Returns the names registered: none when the SDK was imported already, in which case
    everything stays as it is. Parents come before children in ``names``.
    """
    registered: list[str] = []
    for name in names:
        if name in sys.modules:
            continue
        parent, _, child = name.rpartition(".")
        if parent and parent not in sys.modules:
            break
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or spec.submodule_search_locations is None:
            break
        module = importlib.util.module_from_spec(spec)
        module.__getattr__ = _runs_init_of(module)  # type: ignore[method-assign]
        sys.modules[name] = module
        if parent:
            setattr(sys.modules[parent], child, module)
        registered.append(name)
    return registered


def _runs_init_of(module: ModuleType) -> Any:
    """A module ``__getattr__`` that runs the package's ``__init__`` once, then answers the look-up."""

    def look_up(name: str) -> Any:
        with _INIT_LOCK:  # a second thread waits for the first one's __init__ to finish
            if vars(module).get("__getattr__") is look_up:
                del vars(module)["__getattr__"]
                spec = module.__spec__
                assert spec is not None and spec.loader is not None
                spec.loader.exec_module(module)
        return getattr(module, name)

    return look_up


def is_deferred(name: str) -> bool:
    """Whether package ``name`` is imported but its ``__init__`` has not run yet."""
    module = sys.modules.get(name)
    return module is not None and "__getattr__" in vars(module)


def defer_era_models() -> bool:
    """Give the era wire models' base pydantic's ``defer_build``; False when too late or not possible."""
    if any(name in sys.modules for name in ERA_MODULES):
        return False
    try:
        from mcp_types._wire_base import WireModel  # noqa: PLC0415
    except ImportError:
        return False
    WireModel.model_config["defer_build"] = True
    return True


def import_types_deferred() -> bool:
    """Import ``mcp_types`` with pydantic's ``defer_build`` default on; False when not deferred.

    The version-free models' base is defined beside them, so :func:`defer_era_models` cannot
    reach them; pydantic's own default (private: ``pydantic._internal._config.config_defaults``)
    can. It is on only while ``mcp_types`` is imported and restored however the import ends, so
    the models build with their normal config on first use. Without that private default (a
    pydantic release that moved it), or when ``mcp_types`` was imported already, it imports
    plainly or does nothing.
    """
    if "mcp_types" in sys.modules:
        return False
    try:
        from pydantic._internal._config import config_defaults  # noqa: PLC0415
    except ImportError:
        config_defaults = None
    if not isinstance(config_defaults, dict) or "defer_build" not in config_defaults:
        importlib.import_module("mcp_types")
        return False
    default = config_defaults["defer_build"]
    config_defaults["defer_build"] = True
    try:
        importlib.import_module("mcp_types")
    finally:
        config_defaults["defer_build"] = default
    return True


def rebuilds_are_thread_safe() -> bool:
    """Whether pydantic builds a deferred model under a lock, so threads may first use one at once.

    pydantic 2.14 added that lock (private: ``pydantic.main._rebuild_lock``); before it, two
    threads validating with one unbuilt model could see it half built. The runner validates
    from several threads and defers only when this is true.
    """
    import pydantic.main  # noqa: PLC0415

    return hasattr(pydantic.main, "_rebuild_lock")


def _models_of(module_names: tuple[str, ...]) -> list[Any]:
    """Every pydantic model class defined in those of ``module_names`` imported so far."""
    from pydantic import BaseModel  # noqa: PLC0415

    models = []
    for module_name in module_names:
        module = sys.modules.get(module_name)
        for value in vars(module).values() if module is not None else ():
            if isinstance(value, type) and issubclass(value, BaseModel) and value.__module__ == module_name:
                models.append(value)
    return models


def era_models() -> list[Any]:
    """Every pydantic model class defined in the era modules imported so far."""
    return _models_of(ERA_MODULES)


def version_free_models() -> list[Any]:
    """Every pydantic model class defined in the version-free modules imported so far."""
    return _models_of(VERSION_FREE_MODULES)


def build_deferred_models() -> int:
    """Build every era and version-free model not built yet (the fork server, once); returns how many."""
    built = 0
    for model in [*era_models(), *version_free_models()]:
        if not model.__pydantic_complete__:
            model.model_rebuild()
            built += 1
    return built
