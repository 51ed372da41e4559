"""The fuzz phase writes through the run's workspace: in a ``--sessions-dir`` every entry it makes carries the
run's prefix, and none is left (it had written fully random UUIDs there, with no common prefix, and swept nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ccweb_conformance.fixtures.conversations import ConversationFiles
from ccweb_conformance.fixtures.held_dir import HeldDir, Identity
from ccweb_conformance.fixtures.workspace import Workspace
from ccweb_conformance.fuzz.phase import run_fuzz
from ccweb_conformance.fuzz.settings import FuzzSettings
from ccweb_conformance.fuzz.sweep import sweep_cases
from ccweb_conformance.options import RunnerOptions
from ccweb_conformance.transport.run_context import RunContext
from ccweb_conformance.values import target_of

CASES = 20
CALLS = CASES + len(sweep_cases())
THEIRS = "a1b2c3d4-0000-4000-8000-000000000000.json"


def _given(tmp_path: Path) -> Path:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    (sessions / THEIRS).write_text('{"messages": []}', encoding="utf-8")
    return sessions


def _made(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every entry the phase's conversation files create, in order."""
    made: list[Path] = []
    original = ConversationFiles._track

    def track(self: ConversationFiles, folder: HeldDir, name: str, identity: Identity) -> Path:
        path = original(self, folder, name, identity)
        made.append(path)
        return path

    monkeypatch.setattr(ConversationFiles, "_track", track)
    return made


@pytest.mark.parametrize("handed", [True, False], ids=["the run's workspace", "the phase's own"])
def test_in_a_given_sessions_dir_every_entry_carries_the_runs_prefix_and_none_is_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, handed: bool
) -> None:
    sessions = _given(tmp_path)
    made = _made(monkeypatch)
    target = target_of(RunnerOptions(in_process=True, sessions_dir=sessions))
    workspace = Workspace(sessions) if handed else None
    prefixes: list[str] = []
    original_part = Workspace.part
    server_made: list[str] = []

    def part(self: Workspace, name: str) -> ConversationFiles:
        prefixes.append(self.prefix)
        if len(prefixes) == 1:  # an entry a server left named after one of the run's conversations
            server_made.append(f"{self.prefix}-0000-0000-000000000000.json.lock")
            (sessions / server_made[0]).write_text("", encoding="utf-8")
        return original_part(self, name)

    monkeypatch.setattr(Workspace, "part", part)
    run = run_fuzz(target, FuzzSettings(CASES, 5), RunContext(), workspace=workspace)
    assert (run.passed, run.cases_run, run.sweep_calls) == (True, CASES, CALLS - CASES)
    [prefix] = set(prefixes)
    if workspace is not None:
        assert prefix == workspace.prefix
    assert len(made) == CALLS
    assert [p.parent for p in made] == [sessions] * CALLS
    assert [p.name for p in made if not p.name.startswith(f"{prefix}-")] == []
    assert sorted(p.name for p in sessions.iterdir()) == sorted([THEIRS, *server_made])  # only what the run made goes


def test_in_the_runners_own_directory_the_phase_leaves_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    made = _made(monkeypatch)
    run = run_fuzz(target_of(RunnerOptions(in_process=True)), FuzzSettings(CASES, 5), RunContext())
    assert (run.passed, len(made)) == (True, CALLS)
    assert {p.parent.name for p in made} == {"sessions"}  # reached through the link, as the suite's
    assert list(tmp_path.iterdir()) == []


def test_a_run_in_a_given_sessions_dir_names_the_suites_and_the_phases_files_with_one_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ccweb_conformance.cli import main  # noqa: PLC0415

    sessions = _given(tmp_path)
    made = _made(monkeypatch)
    phase_parts: list[str] = []
    original_part = Workspace.part

    def part(self: Workspace, name: str) -> ConversationFiles:
        phase_parts.append(name)
        return original_part(self, name)

    monkeypatch.setattr(Workspace, "part", part)
    arguments = ["run", "--in-process", "--sessions-dir", str(sessions), "--tags", "AC-3", "--fuzz", str(CASES)]
    assert main([*arguments, "--json", str(tmp_path / "report.json")]) == 0
    capsys.readouterr()
    ours = [p.name for p in made if p.parent == sessions]
    fuzz = [name for name in phase_parts if name.startswith("fuzz")]
    assert len(fuzz) == CALLS
    assert len(ours) > CALLS  # the scenarios' files and the phase's
    assert len({name[:14] for name in ours}) == 1  # one run prefix: 12 hex digits and their hyphens
    assert [p.name for p in sessions.iterdir()] == [THEIRS]
