"""The profile's conversation files, written into the run's workspace and removed after each size."""

from __future__ import annotations

import time
from pathlib import Path

from ccweb_conformance.fixtures.workspace import Workspace

PROFILE_PART = "profile"
"""The workspace part the profile's conversations are named under."""


class ProfileFiles:
    """Writes and rewrites the profile's conversations in the run's workspace; remembers the last write."""

    def __init__(self, workspace: Workspace) -> None:
        self.files = workspace.part(PROFILE_PART)
        self.last_write = time.monotonic()
        self.revisions: dict[str, int] = {}
        """Which revision each conversation's file holds now (see profile.conversation)."""

    @property
    def sessions_dir(self) -> Path:
        """The directory every implementation, and the oracle, read."""
        return self.files.sessions_dir

    def conversation_id(self, kind: str, messages: int) -> str:
        """The ID (a UUID, as cc-web's) of the profile's conversation of this kind and size."""
        return self.files.new_id(f"{kind}{messages}")

    def create(self, conversation_id: str, data: bytes) -> None:
        """Create the file (revision 0), never overwriting anything."""
        self.files.write_bytes(conversation_id, data)
        self.revisions[conversation_id] = 0
        self.last_write = time.monotonic()

    def rewrite(self, conversation_id: str, data: bytes, revision: int) -> None:
        """Rewrite our file in place, as cc-web saves a session."""
        self.files.rewrite(conversation_id, data)
        self.revisions[conversation_id] = revision
        self.last_write = time.monotonic()

    def wait_settled(self, seconds: float) -> None:
        """Sleep until ``seconds`` have passed since the last write."""
        time.sleep(max(seconds - (time.monotonic() - self.last_write), 0.0))

    def remove_all(self) -> None:
        """Remove every file this profile created."""
        self.files.remove_all()
        self.revisions.clear()
