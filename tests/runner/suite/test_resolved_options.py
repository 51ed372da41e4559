"""Plain pytest gets every option as the plugin's flags (and ``-k`` as pytest's own)."""

from __future__ import annotations

from plugin_flags import pytest_flags

from ccweb_conformance.options import RunnerOptions

OPTIONS = RunnerOptions(in_process=True, timeout=7.0, tags="AC-1", keyword="emoji")


def test_plain_pytest_still_gets_every_flag():
    words = pytest_flags(OPTIONS)
    assert words[0] == "--ccweb-in-process"
    assert words[words.index("--ccweb-timeout") + 1] == "7"
    assert words[-4:] == ["-k", "emoji", "--ccweb-tags", "AC-1"]
