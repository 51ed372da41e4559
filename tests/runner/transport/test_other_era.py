"""D-16: ``--protocol auto`` tests the other era too when the server speaks both."""

from __future__ import annotations

from pathlib import Path

import pytest

from ccweb_conformance.transport.negotiate import one_era_reason, other_era
from ccweb_conformance.transport.targets import InProcessTarget


def test_only_auto_after_2026_asks_for_the_initialize_era() -> None:
    assert other_era("auto", "modern") == "legacy"
    assert other_era("auto", "legacy") is None
    assert other_era("legacy", "legacy") is None
    assert other_era("2026-07-28", "modern") is None


def test_auto_finds_both_eras_of_the_reference(tmp_path: Path) -> None:
    with InProcessTarget(tmp_path, protocol="auto") as target:
        assert target.detect_other_era() is None
        assert target.other_era == "legacy"
        assert target.one_era_reason is None
        assert (target.client(None).era, target.client(None).protocol_version) == ("modern", "2026-07-28")
        assert (target.other_client("x").era, target.other_client("x").protocol_version) == ("legacy", "2025-11-25")


@pytest.mark.parametrize("protocol", ["legacy", "2026-07-28"])
def test_an_explicit_protocol_tests_one_era(tmp_path: Path, protocol: str) -> None:
    with InProcessTarget(tmp_path, protocol=protocol) as target:  # type: ignore[arg-type]
        assert target.detect_other_era() == "only one era was asked for"
        assert target.other_era is None
        assert target.one_era_reason == "requested"


def test_why_one_era_is_decided_with_the_negotiation() -> None:
    """The one place --protocol is judged (transport/negotiate.py) also says why a run tests one era."""
    assert [one_era_reason(mode) for mode in ("auto", "legacy", "2026-07-28")] == ["server", "requested", "requested"]


def test_each_client_keeps_the_era_it_was_made_to_ask_for(tmp_path: Path) -> None:
    """--protocol is never overwritten after construction: the other era's client is made asking for it, and the
    era negotiation settles on has its own place (``era``)."""
    with InProcessTarget(tmp_path, protocol="auto") as target:
        target.detect_other_era()
        first, other = target.client(None), target.other_client(None)
        assert (target.protocol, first.protocol_mode, first.era) == ("auto", "auto", "modern")
        assert (other.protocol_mode, other.era) == ("legacy", "legacy")
        with pytest.raises(AttributeError):
            first.protocol_mode = "legacy"  # type: ignore[misc]
