"""How :mod:`ccweb_reference.sdk` loads the MCP SDK: without what a stdio server never runs.

Nothing here imports the SDK; :mod:`ccweb_reference.sdk` calls :func:`defer_package_inits`
and :func:`defer_era_models`, then imports the SDK. See that module for what each does and
``tests/reference/test_sdk_loading.py`` for the SDK details they rely on.
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


def era_models() -> list[Any]:
    """Every pydantic model class defined in the era modules imported so far."""
    from pydantic import BaseModel  # noqa: PLC0415

    models = []
    for module_name in ERA_MODULES:
        module = sys.modules.get(module_name)
        for value in vars(module).values() if module is not None else ():
            if isinstance(value, type) and issubclass(value, BaseModel) and value.__module__ == module_name:
                models.append(value)
    return models


def build_deferred_models() -> int:
    """Build every era model not built yet (the fork server, once); returns how many were built."""
    built = 0
    for model in era_models():
        if not model.__pydantic_complete__:
            model.model_rebuild()
            built += 1
    return built
