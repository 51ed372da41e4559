"""``run --last-failed``: which scenarios failed in the last runs against a target, kept like pytest's cache.

The record is one small JSON file per target, ``.ccweb-conformance/last-failed/<key>.json`` in the
current directory (where the config file is read from too; ``$CCWEB_CONFORMANCE_CACHE_DIR`` moves the
folder). The folder is created with a ``.gitignore`` of ``*`` and a ``CACHEDIR.TAG``, as pytest's
``.pytest_cache`` is; nothing is ever written into a sessions directory. The key is a hash of the
target options (``--stdio``, ``--http-cmd``, ``--url``, ``--sessions-dir``, ``--in-process``; headers and
``--env`` hold secrets and do not change which server it is). After every run the record is updated
as pytest updates its own: a scenario that ran and did not fail leaves it, one that failed (or an
expected failure that passed) joins it, one that was not run keeps its place. The folder stays small:
records not updated for :data:`MAX_AGE_DAYS` days are removed, and only the :data:`MAX_RECORDS` most
recently updated are kept (a batch of runs against many commands once left 89 files). A record names
its target with paths under the current directory relative and the home folder as ``~``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shlex
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ccweb_conformance.reports.model import RunResult, ScenarioRef
from ccweb_conformance.reports.output import write_atomically
from ccweb_conformance.suite.selection import options_selection, template_name
from ccweb_conformance.values import Selection, TargetSpec

__all__ = ["CACHE_DIR", "CACHE_ENV", "LastFailed", "cache_dir", "choose", "record_path", "selection_label", "update"]

CACHE_ENV = "CCWEB_CONFORMANCE_CACHE_DIR"
"""An environment variable naming another cache folder (the kit's own tests use it)."""
CACHE_DIR = ".ccweb-conformance"
"""The cache folder, in the current directory."""
RECORD_VERSION = 1
FAILED = ("failed", "xpassed")
"""The statuses that fail a run and that ``--last-failed`` reruns (a warning does not fail it)."""
SHOWN = 10
"""Names listed in the note before "... and N more"."""
MAX_RECORDS = 20
"""Records kept in the folder (the most recently updated; one per target)."""
MAX_AGE_DAYS = 30
"""A record not updated for this long is removed."""
_TARGET_KEYS = ("stdio", "http_cmd", "url", "sessions_dir", "in_process")
_GITIGNORE = "# Created by ccweb-conformance (the --last-failed record).\n*\n"
_CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by ccweb-conformance.\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/spec.html\n"
)


def cache_dir() -> Path:
    """The cache folder: ``$CCWEB_CONFORMANCE_CACHE_DIR``, else ``.ccweb-conformance`` here."""
    return Path(os.environ.get(CACHE_ENV) or CACHE_DIR)


def _target_key(target: TargetSpec) -> str:
    values: dict[str, Any] = {name: getattr(target, name) for name in _TARGET_KEYS}
    if target.sessions_dir is not None:
        values["sessions_dir"] = str(target.sessions_dir.resolve())
    text = json.dumps(values, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def describe_target(target: TargetSpec) -> str:
    """The target as the command line names it (values of headers and --env redacted)."""
    return shlex.join(target.target_words) if target.target_words else "the bundled reference"


def record_path(target: TargetSpec) -> Path:
    """Where the record of this target lives."""
    return cache_dir() / "last-failed" / f"{_target_key(target)}.json"


@dataclass(frozen=True)
class Record:
    """What the last runs against one target left: the scenarios that failed, when it was written."""

    failed: tuple[str, ...]
    updated: str


def load(path: Path) -> Record | None:
    """The record at ``path``, or None when there is none or it cannot be read (a broken cache is no record).

    Only a regular file is read: a named pipe put there would block the run for ever.
    """
    if not path.is_file():
        return None
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(document, dict) or document.get("version") != RECORD_VERSION:
        return None
    failed = document.get("failed")
    if not isinstance(failed, list):
        return None
    return Record(tuple(str(name) for name in failed), str(document.get("updated", "")))


@dataclass(frozen=True)
class LastFailed:
    """What ``--last-failed`` selected: the scenarios to rerun (none: every scenario) and the note saying so."""

    names: tuple[str, ...]
    note: str


def selection_label(selection: Selection, chosen: LastFailed | None) -> str | None:
    """How a run names its selection: the ``--tags`` / ``-k`` part, with ``--last-failed`` in front of it when that
    chose scenarios (``chosen``)."""
    label = options_selection(selection)
    if chosen is None or not chosen.names:
        return label
    mine = f"--last-failed ({len(chosen.names)} scenarios)"
    return f"{mine} {label}" if label else mine


def choose(selection: Selection, target: TargetSpec, scenarios: Iterable[ScenarioRef]) -> LastFailed | None:
    """The selection ``--last-failed`` makes against ``target`` (None without it), from the target's record, among
    the features' ``scenarios``."""
    if not selection.last_failed:
        return None
    scenario_names = {f"{s.feature_file}::{s.name}" for s in scenarios}
    path = record_path(target)
    named = describe_target(target)
    record = load(path)
    if record is None:
        return LastFailed((), f"--last-failed: no record of a run against {named} in {path}; running every scenario")
    names = tuple(n for n in record.failed if n in scenario_names or template_name(n) in scenario_names)
    others = [n for n in record.failed if n not in names]
    if not names:
        extra = f" (the failures recorded are not scenarios: {', '.join(others)})" if others else ""
        note = f"--last-failed: no scenario failed in the last runs against {named} (recorded {record.updated})"
        return LastFailed((), f"{note}{extra}; running every scenario")
    lines = [
        f"--last-failed: rerunning the {len(names)} scenarios that failed in the last runs against {named} "
        f"(recorded {record.updated}):",
        *(f"  {name}" for name in names[:SHOWN]),
    ]
    if len(names) > SHOWN:
        lines.append(f"  ... and {len(names) - SHOWN} more")
    if others:
        lines.append(f"  not rerun (not scenarios of this suite): {', '.join(others)}")
    return LastFailed(names, "\n".join(lines))


def update(target: TargetSpec, run: RunResult) -> str | None:
    """Record what ``run`` left failed for ``target``; a warning line when the record could not be written."""
    path = record_path(target)
    ran = {s.nodeid for s in run.scenarios if s.status != "notrun"}
    failed_now = [s.nodeid for s in run.scenarios if s.status in FAILED]
    previous = load(path)
    kept = [n for n in (previous.failed if previous is not None else ()) if n not in ran]
    document = {
        "version": RECORD_VERSION,
        "target": _portable(describe_target(target)),
        "updated": datetime.now(UTC).isoformat(timespec="seconds"),
        "failed": list(dict.fromkeys(kept + failed_now)),
    }
    try:
        _prepare(path.parent.parent)
        path.parent.mkdir(exist_ok=True)
        write_atomically(path, (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode("utf-8"))
    except OSError as error:
        return f"could not record the failures for --last-failed in {path}: {error.strerror or error}"
    prune(path.parent, keep=path)
    return None


def prune(folder: Path, *, keep: Path, now: float | None = None) -> list[Path]:
    """Remove the records of ``folder`` older than :data:`MAX_AGE_DAYS` and all but the :data:`MAX_RECORDS`
    newest (``keep``, just written, always stays); returns what was removed. Other files are left alone."""
    moment = time.time() if now is None else now
    records: list[tuple[float, Path]] = []
    for entry in folder.glob("*.json"):
        with contextlib.suppress(OSError):
            if entry.is_file() and not entry.is_symlink():
                records.append((entry.stat().st_mtime, entry))
    records.sort(reverse=True)
    oldest = moment - MAX_AGE_DAYS * 86400
    doomed = [p for rank, (mtime, p) in enumerate(records) if p != keep and (mtime < oldest or rank >= MAX_RECORDS)]
    removed = []
    for record in doomed:
        with contextlib.suppress(OSError):
            record.unlink()
            removed.append(record)
    return removed


def _portable(text: str) -> str:
    """``text`` with the current directory's paths relative (``./x``) and the home folder written ``~``."""
    here = str(Path.cwd())
    out = text.replace(here + os.sep, "./") if here != os.sep else text
    home = os.path.expanduser("~")
    return out.replace(home + os.sep, "~/") if home not in ("", os.sep, "~") else out


def _prepare(folder: Path) -> None:
    """Create the cache folder with its .gitignore and CACHEDIR.TAG (as pytest does)."""
    if folder.is_dir():
        return
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".gitignore").write_text(_GITIGNORE, encoding="utf-8")
    (folder / "CACHEDIR.TAG").write_text(_CACHEDIR_TAG, encoding="utf-8")

