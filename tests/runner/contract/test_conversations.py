"""Conversation IDs shaped like cc-web's (UUIDs), and the prefix kept only in a directory not the runner's."""

from __future__ import annotations

import re

from ccweb_conformance.contract.conversations import conversation_id, new_suite_prefix

UUID4 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")


def test_in_the_runners_own_directory_ids_are_uuids_with_no_shared_prefix() -> None:
    secret = new_suite_prefix(shared_directory=False)
    assert re.fullmatch(r"[0-9a-f]{16}", secret)
    ids = [conversation_id(f"{secret}-{n:03d}", alias) for n in range(1, 51) for alias in ("alpha", "beta")]
    assert all(UUID4.fullmatch(i) for i in ids)
    assert len(set(ids)) == 100
    assert len({i[:4] for i in ids}) > 20  # nothing a server could key on: the leading digits vary
    assert not any(secret[:8] in i for i in ids)


def test_in_a_directory_not_the_runners_every_id_starts_with_the_runs_12_digits() -> None:
    prefix = new_suite_prefix(shared_directory=True)
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}", prefix)
    ids = [conversation_id(f"{prefix}-{n:03d}", "alpha") for n in range(1, 21)]
    assert all(UUID4.fullmatch(i) and i.startswith(f"{prefix}-") for i in ids)
    assert len(set(ids)) == 20


def test_ids_are_known_in_advance_and_keep_an_upper_case_alias_upper_case() -> None:
    assert conversation_id("0123456789abcdef-001", "alpha") == conversation_id("0123456789abcdef-001", "alpha")
    assert conversation_id("0123456789abcdef-001", "alpha") != conversation_id("0123456789abcdef-002", "alpha")
    mixed = conversation_id("0123456789abcdef-001", "MixedCase")
    assert UUID4.fullmatch(mixed.lower()) and mixed == mixed.upper() and re.search("[A-F]", mixed)


def test_after_an_interrupted_run_only_the_runs_own_entries_are_removed(tmp_path) -> None:
    from ccweb_conformance.suite.plugin import remove_run_files  # noqa: PLC0415

    prefix = "9dc48383-dc34"
    (tmp_path / f"{conversation_id(prefix + '-001', 'alpha')}.json").write_text("{}", encoding="utf-8")
    (tmp_path / f"{conversation_id(prefix + '-001', 'alpha')}.json.lock").write_text("", encoding="utf-8")
    (tmp_path / f"..{prefix}-001-dots").mkdir()
    (tmp_path / f"..{prefix}-001-dots" / "x.json").write_text("{}", encoding="utf-8")
    kept = ["..x", "9dc48383-dc35-4000-8000-000000000000.json", "other.json"]
    for name in kept:
        (tmp_path / name).write_text("{}", encoding="utf-8")
    remove_run_files(tmp_path, prefix)
    assert sorted(p.name for p in tmp_path.iterdir()) == kept
