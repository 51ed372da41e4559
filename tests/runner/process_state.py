"""Whether a process has ended, as the tests that look for leftovers judge it (Linux ``/proc``)."""

from __future__ import annotations

from pathlib import Path


def ended(pid: int) -> bool:
    """True when ``pid`` no longer runs: reaped, or a zombie whose exit status waits for its reaper
    (it has ended; e.g. init reaps it a moment after the runner that started it exited)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")
