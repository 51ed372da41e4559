"""The garbage collector around a run (``commands/heap.py``): off while the run imports, what was imported frozen."""

from __future__ import annotations

import gc
import importlib
import types
from collections.abc import Iterator

import pytest

from ccweb_conformance import cli
from ccweb_conformance.commands import frame, heap


@pytest.fixture(autouse=True)
def _collector_as_found() -> Iterator[None]:
    """Each test starts with nothing frozen and the collector on, and leaves the process so."""
    assert gc.get_freeze_count() == 0
    assert gc.isenabled()
    yield
    gc.unfreeze()
    gc.enable()


def test_no_collection_while_importing_and_the_collector_back_on_after_an_error() -> None:
    seen = []
    with pytest.raises(ImportError), heap.importing():
        seen.append(gc.isenabled())
        raise ImportError("a module that is not there")
    assert (seen, gc.isenabled()) == ([False], True)


def test_a_collector_that_was_off_stays_off_after_the_imports() -> None:
    gc.disable()
    with heap.importing():
        pass
    assert gc.isenabled() is False


def test_freezing_more_inside_a_frozen_block_leaves_it_standing_and_its_end_unfreezes_all() -> None:
    counts = []
    with heap.frozen():
        outer = gc.get_freeze_count()
        made_since = [[index] for index in range(1000)]  # tracked objects made after the outer freeze
        heap.freeze_more()
        counts.append(gc.get_freeze_count() - outer >= len(made_since))
        counts.append(outer > 0)
    assert (counts, gc.get_freeze_count()) == ([True, True], 0)


def test_the_freeze_is_undone_when_its_block_raises() -> None:
    with pytest.raises(RuntimeError), heap.frozen():
        raise RuntimeError("the run failed")
    assert gc.get_freeze_count() == 0


def test_the_run_command_runs_on_a_frozen_heap_with_the_collector_on_and_leaves_nothing_frozen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = []

    def fake_framed(*args: object, **kwargs: object) -> int:
        seen.append((gc.get_freeze_count() > 0, gc.isenabled()))
        return 0

    monkeypatch.setattr(frame, "framed", fake_framed)
    assert cli.main(["run", "--stdio", "false", "--no-rerun"]) == 0
    assert (seen, gc.get_freeze_count(), gc.isenabled()) == ([(True, True)], 0, True)


def test_a_commands_module_is_imported_with_the_collector_off(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []

    def import_module(name: str) -> types.ModuleType:
        seen.append((name, gc.isenabled()))
        return types.ModuleType(name)

    monkeypatch.setattr(importlib, "import_module", import_module)
    cli.command_module("list")
    assert (seen, gc.isenabled()) == ([("ccweb_conformance.commands.list", False)], True)


def test_what_an_import_made_is_frozen_before_the_collector_is_back_on_when_asked() -> None:
    seen = []
    with heap.frozen():
        for freeze in (False, True):
            with heap.importing(freeze=freeze):
                made = [[index] for index in range(100)]
            seen.append((any(found is made[0] for found in gc.get_objects()), gc.isenabled()))
    assert (seen, gc.get_freeze_count()) == ([(True, True), (False, True)], 0)


def test_a_command_runs_on_a_frozen_heap_and_leaves_nothing_frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []

    def fake_main(args: object) -> int:
        seen.append((gc.get_freeze_count() > 0, gc.isenabled()))
        return 0

    monkeypatch.setattr(cli.command_module("list"), "main", fake_main)
    assert cli.main(["list"]) == 0
    assert (seen, gc.get_freeze_count(), gc.isenabled()) == ([(True, True)], 0, True)


def test_the_run_parses_the_features_with_the_collector_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from ccweb_conformance.commands import run  # noqa: PLC0415 (the module cli.main imports for ``run``)

    seen = []
    parse = run.bundled_features

    def bundled_features() -> object:
        seen.append(gc.isenabled())
        return parse()

    monkeypatch.setattr(run, "bundled_features", bundled_features)
    monkeypatch.setattr(frame, "framed", lambda *args, **kwargs: 0)
    assert cli.main(["run", "--stdio", "false", "--no-rerun"]) == 0
    assert (seen, gc.get_freeze_count(), gc.isenabled()) == ([False], 0, True)
