"""The command line hands its resolved options to the pytest plugin as an object; plain pytest keeps the flags."""

from __future__ import annotations

from types import SimpleNamespace

from ccweb_conformance.options import RunnerOptions, pytest_flags
from ccweb_conformance.suite.plugin import ResolvedOptions, options_from
from ccweb_conformance.values import resolve_values

OPTIONS = RunnerOptions(in_process=True, timeout=7.0, tags="AC-1", keyword="emoji")


def test_plain_pytest_still_gets_every_flag():
    words = pytest_flags(OPTIONS)
    assert words[0] == "--ccweb-in-process"
    assert words[words.index("--ccweb-timeout") + 1] == "7"
    assert words[-4:] == ["-k", "emoji", "--ccweb-tags", "AC-1"]


def test_the_object_wins_over_the_flags():
    values = resolve_values(OPTIONS)
    resolved = ResolvedOptions(values)
    config = SimpleNamespace(
        pluginmanager=SimpleNamespace(get_plugins=lambda: [object(), resolved]),
        getoption=lambda name: None,
    )
    assert options_from(config) is values  # type: ignore[arg-type]
