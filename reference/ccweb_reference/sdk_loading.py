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
    """Import ``mcp_types`` with the validators it builds at import built on first use; False when not deferred.

    ``import mcp_types`` builds a validator for each of about 190 version-free models and for
    seven type adapters over their unions. The models' base is defined beside them, so
    :func:`defer_era_models` cannot reach them, and an adapter takes no setting from a union.
    Two private pydantic switches can: the default ``config_defaults["defer_build"]``
    (``pydantic._internal._config``) for the models, ``TypeAdapter._defer_build`` for the
    adapters. Both are on only while ``mcp_types`` is imported and restored however the import
    ends, so everything builds with its normal config when first used. Without either switch (a
    pydantic release that changed them) it imports plainly; after ``mcp_types`` it does nothing.
    """
    if "mcp_types" in sys.modules:
        return False
    switches = _defer_build_switches()
    if switches is None:
        importlib.import_module("mcp_types")
        return False
    defaults, adapter_class, adapter_switch = switches
    default = defaults["defer_build"]
    defaults["defer_build"] = True
    setattr(adapter_class, "_defer_build", property(lambda _adapter: True))  # noqa: B010
    try:
        importlib.import_module("mcp_types")
    finally:
        defaults["defer_build"] = default
        setattr(adapter_class, "_defer_build", adapter_switch)  # noqa: B010
    return True


def _defer_build_switches() -> tuple[dict[str, Any], type, property] | None:
    """pydantic's two private switches :func:`import_types_deferred` turns on; None if either is gone."""
    try:
        config = importlib.import_module("pydantic._internal._config")
        adapter_class = importlib.import_module("pydantic").TypeAdapter
    except (ImportError, AttributeError):
        return None
    defaults = getattr(config, "config_defaults", None)
    adapter_switch = vars(adapter_class).get("_defer_build")
    if not isinstance(defaults, dict) or "defer_build" not in defaults or not isinstance(adapter_switch, property):
        return None
    return defaults, adapter_class, adapter_switch


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


def version_free_adapters() -> list[Any]:
    """Every pydantic type adapter the version-free modules imported so far hold (``jsonrpc_message_adapter``, ...)."""
    from pydantic import TypeAdapter  # noqa: PLC0415

    modules = [sys.modules[name] for name in VERSION_FREE_MODULES if name in sys.modules]
    return [value for module in modules for value in vars(module).values() if isinstance(value, TypeAdapter)]


def build_deferred_models() -> int:
    """Build every era and version-free model and adapter not built yet (the fork server, once); returns how many."""
    built = 0
    for model in [*era_models(), *version_free_models()]:
        if not model.__pydantic_complete__:
            model.model_rebuild()
            built += 1
    for adapter in version_free_adapters():
        if not adapter.pydantic_complete:
            adapter.rebuild()
            built += 1
    return built
