"""The profile's conversation files: the same bytes in every sessions directory in use, removed after."""

from __future__ import annotations

import time
from pathlib import Path

from ccweb_conformance.fixtures.conversations import ConversationFiles


class Workspace:
    """Writes each conversation into every distinct sessions directory; remembers the last write."""

    def __init__(self, directories: list[Path], prefix: str) -> None:
        unique = list(dict.fromkeys(d.resolve() for d in directories))
        self.files = [ConversationFiles(d, prefix) for d in unique]
        self.prefix = prefix
        self.last_write = time.monotonic()
        self.revisions: dict[str, int] = {}
        """Which revision each conversation's file holds now (see profile.conversation)."""

    @property
    def oracle_dir(self) -> Path:
        """The directory whose files the oracle reads (every directory holds the same bytes)."""
        return self.files[0].sessions_dir

    def conversation_id(self, kind: str, messages: int) -> str:
        """The ID of the profile's conversation of this kind and size, the same in every directory."""
        return f"{self.prefix}-{kind}{messages}"

    def create(self, conversation_id: str, data: bytes) -> None:
        """Create the file (revision 0) in every directory, never overwriting anything."""
        for files in self.files:
            files.write_bytes(conversation_id, data)
        self.revisions[conversation_id] = 0
        self.last_write = time.monotonic()

    def rewrite(self, conversation_id: str, data: bytes, revision: int) -> None:
        """Rewrite our file in place in every directory, as cc-web saves a session."""
        for files in self.files:
            files.rewrite(conversation_id, data)
        self.revisions[conversation_id] = revision
        self.last_write = time.monotonic()

    def wait_settled(self, seconds: float) -> None:
        """Sleep until ``seconds`` have passed since the last write."""
        remaining = seconds - (time.monotonic() - self.last_write)
        if remaining > 0:
            time.sleep(remaining)

    def remove_all(self) -> None:
        """Remove every file this workspace created."""
        for files in self.files:
            files.remove_all()
        self.revisions.clear()
