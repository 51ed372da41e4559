"""The test session's order of files under ``--dist loadfile``: the listed longest files first."""

from __future__ import annotations

from mutants.batches import BATCH_FILES, PARTS
from paths import REPO
from scheduling import listed_longest, longest_first


def test_the_listed_scopes_go_first_in_their_order_and_the_others_keep_theirs() -> None:
    scopes = ["many.py", "few_long.py", "batch.py::part-0", "other.py", "batch.py::part-1", "long.py"]
    listed = ["long.py", "batch.py::part-1", "not_collected.py", "few_long.py"]
    assert longest_first(scopes, listed) == [
        "long.py",
        "batch.py::part-1",
        "few_long.py",
        "many.py",
        "batch.py::part-0",
        "other.py",
    ]


def test_every_listed_scope_is_a_test_file_or_a_part_of_a_batch_file_and_listed_once() -> None:
    listed = listed_longest()
    assert len(set(listed)) == len(listed)
    parts = {f"tests/mutants/{name}::part-{part}" for name in BATCH_FILES for part in range(PARTS)}
    files = [scope for scope in listed if scope not in parts]
    assert [scope for scope in files if "::" in scope or not (REPO / scope).is_file()] == []
    assert all(scope.startswith("tests/") and scope.rsplit("/", 1)[1].startswith("test_") for scope in files)
