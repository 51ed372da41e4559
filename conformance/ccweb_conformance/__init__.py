"""The conformance runner for the MCP tool ccweb_list_user_inputs."""

from __future__ import annotations

__all__ = ["kit_version"]

DISTRIBUTION = "ccweb-list-user-inputs-kit"


def kit_version() -> str:
    """The installed kit's version ("0" when run from sources that were never installed)."""
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415 (a slow import: only when asked)

    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:
        return "0"
