"""The whole suite passes against the reference over stdio: the legacy era forced, and the default target (the
bundled reference, the era detected)."""

from __future__ import annotations

import pytest
from runner.suite.whole_runs import ERA_VERSIONS, REFERENCE, assert_all_passed, run_report

pytestmark = pytest.mark.slow


def test_stdio_legacy(tmp_path):
    code, report = run_report(tmp_path, "--stdio", REFERENCE, "--protocol", "legacy")
    assert_all_passed(code, report, "stdio", ERA_VERSIONS["legacy"])


def test_default_target_is_the_bundled_reference_over_stdio_with_auto_detection(tmp_path):
    """Also the whole suite over stdio in the 2026-07-28 era: auto settles on it with the reference.

    (Forcing that era over stdio is checked at the transport level, in test_transport_reference.)
    """
    code, report = run_report(tmp_path)
    assert_all_passed(code, report, "stdio", "2026-07-28")
    assert (report["protocolVersions"], report["oneEraReason"]) == (["2026-07-28", "2025-11-25"], None)  # D-16
    assert "real age" not in report["waits"]  # the aged conversation was written when the run started (REG-2)
