"""Two runs in one process share nothing: each counts its own processes and waits (its run context)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ccweb_conformance.checks.ledger import SETTLE_S
from ccweb_conformance.cli import main
from ccweb_conformance.transport import census, zygote_client

pytestmark = pytest.mark.slow

SCENARIO = "keeps_serving_after_a_message"
"""One scenario against the bundled reference: its source-less server in each era, a raw line nobody answers."""


def _run(report: Path) -> dict[str, Any]:
    assert main(["run", "-k", SCENARIO, "--no-rerun", "--json", str(report)]) == 0
    return json.loads(report.read_text(encoding="utf-8"))


def _started() -> list[census.Started]:
    """What one run of the scenario starts: a server per era, forks of the run's fork server where it runs."""
    if zygote_client.supported():
        return [census.Started("fork server", "exec", "suite")] + [census.Started("stdio server", "fork", "suite")] * 2
    return [census.Started("stdio server", "exec", "suite")] * 2


def test_the_second_run_of_a_process_counts_what_a_lone_run_does(tmp_path: Path) -> None:
    first, second = _run(tmp_path / "first.json"), _run(tmp_path / "second.json")
    expected = census.summary(_started())
    assert (first["processes"], second["processes"]) == (expected, expected)
    for waits in (first["waits"], second["waits"]):
        assert sorted(waits) == ["raw-text quiet", "settle"]
        assert waits["raw-text quiet"] == 0.1  # the stdio quiet time after the one raw line, once
        assert 0 < waits["settle"] < 2 * SETTLE_S  # what was left of the settle delay before the final audit, once
