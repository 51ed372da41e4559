"""Which protocol eras a run tested (D-16), worded the same in every report."""

from __future__ import annotations

from ccweb_conformance.i18n import Messages, messages
from ccweb_conformance.reports.model import RunResult


def protocol_shown(run: RunResult, say: Messages | None = None) -> str:
    """The negotiated revision(s) and which eras were tested, e.g. ``2026-07-28 + 2025-11-25 (both eras tested)``."""
    say = say or messages()
    if len(run.eras) > 1:
        return say("eras.both", first=run.eras[0], other=run.eras[1])
    version = run.protocol_version or (run.eras[0] if run.eras else None)
    if version is None:
        return say("console.not_negotiated")
    if run.one_era_reason is None:
        return version
    return say("eras.one", version=version, reason=say(f"eras.reason_{run.one_era_reason}"))
