"""The MCP SDK's types (``mcp_types``) as the runner loads them: each model's validator built on first use.

Every module of the runner imports ``mcp_types`` through this one (``types``, and ``methods``
for ``mcp_types.methods``). Importing them plainly builds about 490 pydantic validators, both
eras' and the version-free ones, of which a run uses a few dozen. They are loaded as the reference loads them
(:mod:`ccweb_reference.sdk_loading`, which imports no SDK code of its own): the version-free
models with pydantic's ``defer_build`` default on only during their import, the era models with
``defer_build`` on their base, so a model's validator is built when a message is first checked
against it. The runner checks messages from several threads, so this is done only where pydantic
builds a deferred model under a lock (:func:`~ccweb_reference.sdk_loading.rebuilds_are_thread_safe`);
elsewhere the types are imported plainly. Either way the same validators check the same messages.
"""

from __future__ import annotations

from ccweb_reference.sdk_loading import defer_era_models, import_types_deferred, rebuilds_are_thread_safe

if rebuilds_are_thread_safe():
    import_types_deferred()  # first: importing the era models' base imports mcp_types too
    defer_era_models()

import mcp_types as types
from mcp_types import methods

__all__ = ["methods", "types"]
