"""The steps that change a conversation file themselves (its mode, its times, saves while calls run), against a
server that swaps the file or the sessions directory's link between the runner's steps.

Each step runs on a small stand-in for the scenario's world: the runner's files, the aliases, and for the saves
a call that is the hostile server's turn.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from runner.fixtures.hostile import by_another_thread, state, swap_for_link, users_folder

from ccweb_conformance.fixtures.conversations import cc_web_session
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.suite.steps import concurrency_steps, realism_steps, when_steps
from ccweb_conformance.transport.run_context import RunContext


def _raised(step: Callable[[], object]) -> str:
    """The message of the OSError or RuntimeError ``step`` raised ("" when it raised none)."""
    try:
        step()
    except (OSError, RuntimeError) as error:
        return str(error)
    return ""


def _world(tmp_path: Path) -> tuple[Any, Path]:
    """A world holding conversation "alpha" (saying "hello") in the runner's own directory under ``tmp_path/root``."""
    root = tmp_path / "root"
    root.mkdir()
    files = Workspace(None, root=root).scenario(1)
    alpha = files.new_id("alpha")
    files.write_session(alpha, cc_web_session(alpha, [{"role": "user", "content": "hello", "timestamp": None}]))
    target = SimpleNamespace(without_permission_override=lambda: target)
    world = SimpleNamespace(
        files=files,
        ids={"alpha": alpha},
        cleanups=[],
        target=target,
        context=RunContext(),
        held_calls=0,
        unjudged_calls=0,
    )
    return world, root


def test_making_a_file_unreadable_never_changes_the_mode_of_a_users_file_put_in_its_place(tmp_path: Path) -> None:
    world, root = _world(tmp_path)
    home = users_folder(tmp_path)
    before = state(home)
    by_another_thread(lambda: swap_for_link(root / "sessions-data" / f"{world.ids['alpha']}.json", home / "keys.json"))
    refused = _raised(lambda: realism_steps.conversation_without_permission(world, "alpha"))
    assert state(home) == before
    assert stat.S_IMODE((home / "keys.json").stat().st_mode) == 0o644
    assert refused.endswith(f"refused: not the kind of entry the runner made: '{world.ids['alpha']}.json'")


def test_a_rewrite_keeping_the_times_changes_the_runs_file_not_the_users_of_the_same_name(tmp_path: Path) -> None:
    world, root = _world(tmp_path)
    home = users_folder(tmp_path)
    name = f"{world.ids['alpha']}.json"
    ours = (root / "sessions-data" / name).read_bytes()

    def relink() -> None:  # the user's copy under the same name, and the directory's link pointed at it
        (home / name).write_bytes(ours)
        swap_for_link(root / "sessions", home)

    by_another_thread(relink)
    before = state(home)
    when_steps.conversation_rewritten_same_size(world, "alpha", "howdy")
    assert state(home) == before
    assert json.loads((root / "sessions-data" / name).read_bytes())["messages"][0]["content"] == "howdy"


def test_saves_while_calls_run_stop_at_a_link_put_in_the_files_place(tmp_path: Path) -> None:
    """The server, during the calls, replaces the conversation's file with a link to a user's file: the saves
    stop, the user's file is never truncated nor written, and the scenario says so."""
    world, root = _world(tmp_path)
    home = users_folder(tmp_path)
    before = state(home)
    path = root / "sessions-data" / f"{world.ids['alpha']}.json"
    calls: list[int] = []

    def call_and_read(arguments: dict[str, Any]) -> None:
        calls.append(len(calls))
        if len(calls) == 1:
            by_another_thread(lambda: swap_for_link(path, home / "notes.txt"))

    world.call_and_read = call_and_read
    world.eras_answer_alike = True
    stopped = _raised(
        lambda: concurrency_steps.call_during_saves(world, 3, "alpha", 20, '{"conversationId": "{alpha}"}')
    )
    assert state(home) == before
    assert (len(calls), path.is_symlink()) == (3, True)
    assert stopped == f"the rewriter stopped: [Errno 116] refused: a symbolic link: '{path.name}'"


def test_a_save_held_torn_is_never_begun_on_a_link_put_in_the_files_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server, during the first torn save's call, replaces the conversation's file with a link to a user's
    file: the next save is refused before it truncates anything, and the scenario says so. Every save counts as
    on time: a loaded machine that completes the first one late would make the step save again, and that save,
    refused, would leave no call (the lateness retry is tested in test_held_saves.py)."""
    monkeypatch.setattr(concurrency_steps, "ON_TIME_S", float("inf"))
    world, root = _world(tmp_path)
    home = users_folder(tmp_path)
    before = state(home)
    path = root / "sessions-data" / f"{world.ids['alpha']}.json"
    world.outcomes, world.other_era_outcomes = [], []

    def call_and_read(arguments: dict[str, Any]) -> None:
        world.outcomes.append(SimpleNamespace(is_error=False, result={"ok": True}))
        if len(world.outcomes) == 1:
            by_another_thread(lambda: swap_for_link(path, home / "notes.txt"))

    world.call_and_read = call_and_read
    refused = _raised(
        lambda: concurrency_steps.call_during_held_saves(world, 2, "alpha", 50, '{"conversationId": "{alpha}"}')
    )
    assert state(home) == before
    assert (len(world.outcomes), path.is_symlink()) == (1, True)
    assert refused == f"[Errno 116] refused: a symbolic link: '{path.name}'"
