"""A fuzz-phase difference is charged to the requirement of the field that differs (issue 34, item 5).

A count that agrees with the server's own items (``returnedCount``, ``totalChars``), ``hasMore`` and the items
themselves are charged to the selection or budget rule that chose the items; any other field to the requirement
that defines it. Before, a difference no field map named was charged to about 22 requirements at once, and a
whitespace bug that only moved ``returnedCount`` was charged to RES-2.
"""

from __future__ import annotations

from typing import Any

import pytest

from ccweb_conformance.checks.attribution import difference_requirements, result_requirements
from ccweb_conformance.checks.outcome import contract_differences
from ccweb_conformance.fuzz.case import FuzzCase
from ccweb_conformance.fuzz.execute import Mismatch
from ccweb_conformance.fuzz.requirements import mismatch_requirements


def item(content: str, *, cut: int | None = None, **extra: Any) -> dict[str, Any]:
    shown = content if cut is None else content[:cut]
    fields = {"messageId": None, "createdAt": None, "content": shown, "contentChars": len(shown)}
    return {**fields, "originalChars": len(content), "truncated": cut is not None, **extra}


def success(*items: dict[str, Any], limit: int = 15, max_chars: int = 1000, has_more: bool = False,
            **changes: Any) -> dict[str, Any]:
    total = sum(i["contentChars"] for i in items)
    result = {"ok": True, "conversationId": "c", "requestedLimit": limit, "maxChars": max_chars,
              "totalChars": total, "returnedCount": len(items), "hasMore": has_more, "items": list(items)}
    return {**result, **changes}


def charged(expected: dict[str, Any], actual: dict[str, Any], stored: list[Any] | None = None) -> tuple[str, ...]:
    """What the fuzz phase charges a mismatch of these two success objects to."""
    differences = contract_differences(expected, actual)
    assert differences
    case = FuzzCase(messages=stored or [], storage="raw")
    wanted, got = {"isError": False, "result": expected}, {"isError": False, "result": actual}
    return mismatch_requirements(Mismatch(case, "c", wanted, got, differences))


def user(content: Any, role: str = "user") -> dict[str, Any]:
    return {"role": role, "content": content}


A, B = item("first"), item("second")


@pytest.mark.parametrize(
    ("name", "expected", "actual", "stored", "requirements"),
    [
        # returnedCount: agrees with the server's items -> the rule that chose them; else its own rule
        ("blank message counted", success(A, B), success(A, item("\u3000 "), B),
         [user("first"), user("\u3000 "), user("second")], ("SEL-2",)),
        ("returnedCount alone", success(A, B), success(A, B, returnedCount=3), [], ("RES-2",)),
        # totalChars: the same
        ("totalChars alone", success(A, B), success(A, B, totalChars=99), [], ("BUD-4",)),
        ("cut elsewhere", success(A, item("second", cut=3), max_chars=8, has_more=True),
         success(A, item("second", cut=2), max_chars=8, has_more=True), [], ("BUD-2", "UNI-1")),
        # hasMore: alone its own rule; with the items, the rule that chose them
        ("hasMore alone", success(A, B), success(A, B, has_more=True), [], ("RES-3",)),
        ("window too wide", success(B, limit=1, has_more=True), success(A, B, limit=1, has_more=False),
         [user("first"), user("second")], ("SEL-6",)),
        ("window too narrow", success(A, B, limit=2), success(B, limit=2, has_more=True),
         [user("first"), user("second")], ("SEL-6",)),
        # no item where the first that does not fit is cut: exactly what skipping it does (checks/mistakes.yaml)
        ("budget walk", success(item("second", cut=4), max_chars=4, has_more=True), success(max_chars=4, has_more=True),
         [user("first"), user("second")], ("BUD-2",)),
        ("assistant included", success(A), success(A, item("reply")), [user("first"), user("reply", "assistant")],
         ("SEL-1",)),
        ("number content included", success(A), success(A, item("42")), [user("first"), user(42)], ("SEL-3",)),
        ("near-whitespace dropped", success(A, item("\x1c")), success(A), [user("first"), user("\x1c")], ("SEL-2",)),
        ("content trimmed", success(item(" a ")), success(item("a", originalChars=3) | {"contentChars": 1}),
         [user(" a ")], ("SEL-8", "UNI-1")),
        # fields of their own: the requirement that defines each
        ("contentChars", success(A, B), success(A, B | {"contentChars": 7}, totalChars=12), [], ("UNI-1",)),
        ("createdAt", success(A), success(A | {"createdAt": "2026-01-01"}), [], ("RES-5",)),
        ("messageId", success(A), success(A | {"messageId": "m1"}), [], ("RES-4",)),
        ("truncated flag", success(A), success(A | {"truncated": True}), [], ("BUD-2",)),
        ("order", success(A, B), success(B, A), [], ("SEL-7",)),
        ("echoed limit", success(A, limit=5), success(A, limit=15), [], ("ARG-1",)),
    ],
)
def test_a_fuzz_difference_is_charged_by_the_field_that_differs(name, expected, actual, stored, requirements) -> None:
    assert charged(expected, actual, stored) == requirements, name


def test_a_count_that_agrees_with_the_servers_items_is_the_scenarios_in_a_scenario() -> None:
    """The whitespace bug measured: `the result has returnedCount 2` got 3, with the blank message among the items:
    SEL-2 (the scenario's), not RES-2; a count that disagrees with the items is still RES-2's."""
    result = success(A, item("\u3000 "), B)
    assert difference_requirements({"returnedCount": 2}, result, ["$.returnedCount: x"], ("SEL-2",), result) == ()
    wrong = success(A, B, returnedCount=3)
    assert difference_requirements({"returnedCount": 2}, wrong, ["$.returnedCount: x"], ("SEL-2",), wrong) == (
        "RES-2",
    )


def test_no_field_named_is_no_charge_of_the_whole_result() -> None:
    assert result_requirements(success(A), success(A), []) == ()
