"""The step registry (``engine/registry.py``): a text is matched against the patterns once, until a step is added."""

from __future__ import annotations

from typing import Any

import pytest

from ccweb_conformance.engine.registry import Parse, Registry, parse


def counted_registry(monkeypatch: pytest.MonkeyPatch) -> tuple[Registry, list[str]]:
    """A registry of two steps, and the texts its parse patterns were run on."""
    read: list[str] = []
    original = Parse.arguments

    def arguments(self: Parse, step: str) -> dict[str, Any] | None:
        read.append(step)
        return original(self, step)

    monkeypatch.setattr(Parse, "arguments", arguments)
    steps = Registry()
    steps.step("given", parse("a conversation of {size:d} KB"))(lambda size: None)
    steps.step("given", "a thing")(lambda: None)
    return steps, read


def test_a_text_seen_again_is_not_matched_again(monkeypatch: pytest.MonkeyPatch) -> None:
    steps, read = counted_registry(monkeypatch)
    found = [[(entry.kind, arguments) for entry, arguments in steps.matches("given", text)] for text in (
        "a conversation of 5 KB", "a conversation of 5 KB", "a thing", "a thing", "a conversation of 6 KB",
    )]  # fmt: skip
    assert found == [[("given", {"size": 5})]] * 2 + [[("given", {})]] * 2 + [[("given", {"size": 6})]]
    assert read == ["a conversation of 5 KB", "a thing", "a conversation of 6 KB"]


def test_the_arguments_handed_out_are_copies(monkeypatch: pytest.MonkeyPatch) -> None:
    steps, _ = counted_registry(monkeypatch)
    steps.matches("given", "a conversation of 5 KB")[0][1]["size"] = 99
    assert steps.matches("given", "a conversation of 5 KB")[0][1] == {"size": 5}


def test_a_step_registered_after_a_lookup_is_found_by_the_next(monkeypatch: pytest.MonkeyPatch) -> None:
    steps, _ = counted_registry(monkeypatch)
    assert [entry.parameters for entry, _ in steps.matches("when", "I wait 3 s")] == []
    steps.step("when", parse("I wait {seconds:d} s"))(lambda seconds: None)
    assert [(entry.parameters, arguments) for entry, arguments in steps.matches("when", "I wait 3 s")] == [
        (("seconds",), {"seconds": 3})
    ]
