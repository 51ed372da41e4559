"""The reference server the README tests run the documents' HTTP commands against (one per test module)."""

from readme_commands import server

__all__ = ["server"]
