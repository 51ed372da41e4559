"""``run --collect-only``: the scenarios a run with these options would run, collected as the run collects them.

The engine plans the suite with the run's own selection (``--tags``, ``-k``, ``--last-failed``) and
runs nothing: the target is not started, no file is written, no report either.
"""

from __future__ import annotations

import sys

from ccweb_conformance.commands.last_failed import LastFailed, selection_label
from ccweb_conformance.engine.features import FeatureScenario
from ccweb_conformance.errors import EXIT_PASSED, UsageError
from ccweb_conformance.suite.engine_session import collect
from ccweb_conformance.values import RunValues

__all__ = ["collect_only"]


def collect_only(values: RunValues, last_failed: LastFailed | None, features: list[FeatureScenario]) -> int:
    """Print one line per scenario the run would run (name, then requirement IDs), then the count; exit 0."""
    collector, _ = collect(values, last_failed.names if last_failed else (), features)
    planned = [(p.nodeid, p.requirements) for p in collector.planned]
    if not planned:
        raise UsageError("no scenario matched the selection")
    ignored = [request.flag for request in values.reports.given]
    if ignored:
        note = f"--collect-only writes no report ({', '.join(ignored)} ignored)"
        print(f"ccweb-conformance: note: {note}", file=sys.stderr)
    width = max(len(name) for name, _ in planned)
    for name, requirements in planned:
        print(f"{name.ljust(width)}  {','.join(requirements)}".rstrip())
    selection = selection_label(values.selection, last_failed)
    chosen = f" (selection: {selection})" if selection else ""
    count = f"{len(planned)} scenario" if len(planned) == 1 else f"{len(planned)} scenarios"
    print(f"{count} would run{chosen}; nothing was started")
    return EXIT_PASSED
