"""Per-check attribution: a failure counts against its check's requirement, not every tag."""

from __future__ import annotations

import ast
import re

import pytest
from paths import REPO

import ccweb_spec
from ccweb_conformance.checks.attribution import (
    charged_requirements,
    code_requirements,
    difference_requirements,
    failure_level,
    field_requirements,
    only_reordered,
    placed,
    proved_requirements,
    success_requirements,
    with_era_disagreement,
)
from ccweb_conformance.checks.failures import charge, fail
from ccweb_conformance.checks.outcome import contract_differences
from ccweb_conformance.reports.model import RunResult, ScenarioResult, scenario_bearing


def scenario(status: str, requirements: tuple[str, ...], charged: tuple[str, ...] = (), proved: tuple[str, ...] = ()):
    return ScenarioResult(
        feature="f", feature_file="f.feature", scenario=f"{status} {requirements} {charged}", line=1,
        tags=requirements, requirements=requirements, level="MUST", status=status,  # type: ignore[arg-type]
        charged=charged, proved=proved,
    )


def statuses(*scenarios: ScenarioResult) -> dict[str, str]:
    run = RunResult("0", "0", "t", "stdio", None, "", 0.0, list(scenarios), selection="x")
    return {r.requirement.id: r.status for r in run.requirement_results()}


def test_a_check_names_its_requirement_and_the_failure_keeps_it() -> None:
    failure = fail("ARG-8: -32603", expected=1, actual=2, proves="ARG-8")
    assert charged_requirements(failure, ("ARG-6", "ARG-8", "PROTO-2")) == ("ARG-8",)


def test_a_failure_without_a_named_check_is_charged_to_the_scenario() -> None:
    assert charged_requirements(fail("x", expected=1, actual=2), ("SEL-1",)) == ()
    assert charged_requirements(ValueError("boom"), ("SEL-1",)) == ()
    assert charged_requirements(None, ("SEL-1",)) == ()


def test_a_check_of_several_requirements_is_narrowed_to_the_scenarios() -> None:
    failure = fail("wrong code", expected=1, actual=2, proves=("STO-1", "STO-2"))
    assert charged_requirements(failure, ("STO-2", "RO-1")) == ("STO-2",)
    assert charged_requirements(failure, ("RO-1", "RO-2")) == ("STO-1", "STO-2")


def test_an_expected_error_code_in_a_scenario_about_another_rule_is_charged_to_that_rule() -> None:
    """Two byte-order marks answered as a success: the BOM rule (STO-3) broke, not STO-1/STO-2, which only
    define conversation_unreadable; a link answered wrongly breaks the link rule (SRC-7), not SRC-2."""
    unreadable_codes = code_requirements("conversation_unreadable")
    unreadable = fail("x", expected=1, actual=2, proves=unreadable_codes, by_expectation=True)
    assert charged_requirements(unreadable, ("STO-3",)) == ("STO-3",)
    assert charged_requirements(unreadable, ("STO-2",)) == ("STO-2",)
    not_found = fail("x", expected=1, actual=2, proves=code_requirements("conversation_not_found"), by_expectation=True)
    assert charged_requirements(not_found, ("SRC-7",)) == ("SRC-7",)
    assert charged_requirements(not_found, ()) == code_requirements("conversation_not_found")
    specific = fail("x", expected=1, actual=2, proves=code_requirements("conversation_unreadable"))
    assert charged_requirements(specific, ("STO-3",)) == ("STO-1", "STO-2")  # a check of the rule itself stays


def test_charge_keeps_a_requirement_the_check_already_named() -> None:
    named = fail("x", expected=1, actual=2, proves="PLC-1")
    assert charge(named, "ARG-5").proves == ("PLC-1",)  # type: ignore[attr-defined]
    assert charge(fail("x", expected=1, actual=2), "ARG-5").proves == ("ARG-5",)  # type: ignore[attr-defined]


def test_the_chain_is_followed_to_the_check() -> None:
    try:
        try:
            raise fail("x", expected=1, actual=2, proves="RO-1")
        except AssertionError as inner:
            raise RuntimeError("wrapped") from inner
    except RuntimeError as outer:
        assert charged_requirements(outer, ()) == ("RO-1",)


def test_the_level_is_that_of_the_charged_requirements() -> None:
    assert failure_level(("ARG-8",), ("ARG-6", "ARG-8", "PROTO-2")) == "SHOULD"
    assert failure_level(("ARG-6",), ("ARG-6", "ARG-8")) == "MUST"
    assert failure_level((), ("TOOL-4",)) == "SHOULD"
    assert failure_level((), ("ARG-6", "ARG-8")) == "MUST"


def test_other_requirements_are_proved_only_when_the_last_step_failed() -> None:
    assert proved_requirements(("ARG-6", "ARG-8", "PROTO-2"), ("ARG-8",), 5, 5) == ("ARG-6", "PROTO-2")
    assert proved_requirements(("ARG-6", "ARG-8", "PROTO-2"), ("ARG-6",), 3, 5) == ()
    assert proved_requirements(("ARG-6",), (), 5, 5) == ()


@pytest.mark.parametrize(
    ("code", "requirements"),
    [("conversation_unreadable", ("STO-1", "STO-2")), ("missing_source_conversation", ("SRC-3",)), ("nope", ())],
)
def test_an_error_code_is_charged_to_the_registrys_requirements(code: str, requirements: tuple[str, ...]) -> None:
    assert code_requirements(code) == requirements


@pytest.mark.parametrize(
    ("arguments", "source", "code", "charged"),
    [
        ({"conversationId": "../abc"}, None, "conversation_not_found", ("SRC-4",)),
        ({"conversationId": "abc"}, None, "conversation_not_found", ("SRC-2",)),
        ({}, "abc", "missing_source_conversation", ("SRC-1",)),
        ({}, "a/bc", "conversation_not_found", ("SRC-4",)),
        ({"conversationId": "abc"}, None, "conversation_unreadable", ("STO-1",)),
        ({"conversationId": "abc", "limit": 2}, None, "conversation_unreadable", ("STO-1",)),
        ({"conversationId": "abc"}, None, "invalid_arguments", ("ARG-1",)),
        ({}, "abc", "invalid_arguments", ("ARG-1",)),
        (None, "abc", "invalid_arguments", ("ARG-1",)),
        ({"conversationId": "abc", "maxChars": 7}, None, "invalid_arguments", ("ARG-2",)),
        ({"limit": 50, "maxChars": 1000}, "abc", "invalid_arguments", ("ARG-2",)),
        ({"conversationId": "abc", "limit": 2.0, "maxChars": 10}, None, "invalid_arguments", ("ARG-3",)),
        ({"conversationId": "abc"}, None, "no_such_code", ()),
    ],
)
def test_an_error_where_a_success_was_required(arguments, source, code, charged) -> None:
    result = {"ok": False, "error": {"code": code, "message": "m"}}
    assert success_requirements(result, arguments, source) == charged


def test_an_era_disagreement_adds_proto_4_to_the_failed_checks_requirement() -> None:
    assert with_era_disagreement(("SEL-7",), ("SEL-6", "SEL-7", "ARG-1")) == ("SEL-7", "PROTO-4")
    assert with_era_disagreement((), ("SEL-6", "ARG-1")) == ("SEL-6", "ARG-1", "PROTO-4")  # the check named none
    assert with_era_disagreement(("PROTO-4",), ("ARG-3", "ARG-1")) == ("PROTO-4",)  # raised at the scenario's end


def test_every_unexpected_charge_of_the_registry_is_a_known_requirement() -> None:
    known = {r.id for r in ccweb_spec.requirements()}
    unexpected = {e.code: dict(e.unexpected) for e in ccweb_spec.error_codes() if e.unexpected}
    assert unexpected == {
        "invalid_arguments": {"fraction": "ARG-3", "given": "ARG-2", "default": "ARG-1"},
        "conversation_unreadable": {"default": "STO-1"},
    }
    assert {r for kinds in unexpected.values() for r in kinds.values()} <= known


CONTENTS = ["input 1", "input 2", "input 3"]
ITEMS = [{"content": c, "truncated": False} for c in CONTENTS]


@pytest.mark.parametrize(
    ("expected", "actual", "reordered"),
    [
        (CONTENTS, CONTENTS[::-1], True),
        (CONTENTS, CONTENTS, False),  # no difference at all
        (CONTENTS, ["input 1", "input 3", "input 3"], False),
        (CONTENTS, CONTENTS[:2], False),
        (ITEMS, [{**i, "extra": 1} for i in ITEMS[::-1]], True),  # extra members allowed (D-5)
        ({"ok": True, "hasMore": False, "items": ITEMS}, {"ok": True, "hasMore": False, "items": ITEMS[::-1]}, True),
        ({"ok": True, "hasMore": False, "items": ITEMS}, {"ok": True, "hasMore": True, "items": ITEMS[::-1]}, False),
        ({"hasMore": False}, {"hasMore": True}, False),
    ],
)
def test_only_reordered_items(expected, actual, reordered: bool) -> None:
    assert only_reordered(expected, actual) is reordered


@pytest.mark.parametrize(
    ("differences", "at", "placed_differences"),
    [
        (['$[2]: expected "a", got "b"'], "$.items[].content", ['$.items[2].content: expected "a", got "b"']),
        (["$: expected 3 elements, got []"], "$.items[].content", ["$.items: expected 3 elements, got []"]),
        (["$[0].truncated: expected true, got false"], "$.items", ["$.items[0].truncated: expected true, got false"]),
        (["$: expected 2, got 3"], "$.returnedCount", ["$.returnedCount: expected 2, got 3"]),
        (["$.hasMore: expected true, got false"], "$", ["$.hasMore: expected true, got false"]),
    ],
)
def test_differences_are_placed_in_the_result(differences, at: str, placed_differences) -> None:
    assert placed(differences, at) == placed_differences


def test_a_difference_is_charged_to_the_scenarios_requirements_its_fields_point_at() -> None:
    tags = ("SEL-6", "SEL-7", "ARG-1", "RES-3")
    assert difference_requirements(CONTENTS, CONTENTS[::-1], ["$.items[0].content: x"], tags) == ("SEL-7",)
    assert difference_requirements({"hasMore": True}, {"hasMore": False}, ["$.hasMore: x"], tags) == ("RES-3",)
    both = ["$.hasMore: x", "$.requestedLimit: y"]
    assert difference_requirements({}, {}, both, tags) == ("ARG-1", "RES-3")
    # content points at SEL-8 and BUD-2, neither a tag of the scenario: all of its tags
    assert difference_requirements(CONTENTS, ["x", "y", "z"], ["$.items[0].content: x"], tags) == ()


def test_a_wrong_value_field_outside_the_scenarios_tags_is_charged_to_the_field_requirement() -> None:
    """hasMore, createdAt, truncated: the requirement defining the field, not every tag of the scenario."""
    tags = ("SEL-6", "SEL-7", "ARG-1")
    assert difference_requirements({}, {}, ["$.hasMore: expected true, got false"], tags) == ("RES-3",)
    wrong = ["$.items[0].createdAt: x", "$.items[1].truncated: missing"]
    assert difference_requirements({}, {}, wrong, tags) == ("BUD-2", "RES-5")
    # a difference in the items themselves may be a selection bug: the scenario's own tags
    assert difference_requirements({}, {}, ["$.hasMore: x", "$.items: expected 2 elements, got []"], tags) == ()
    assert difference_requirements({}, {}, ["$.items[0].content: x"], tags) == ()
    assert field_requirements(["$.error.field: missing"]) == ("ARG-5",)
    assert field_requirements(["$.items[0].contentChars: x", "$.totalChars: y"]) == ("BUD-4", "UNI-1")


def test_a_failed_scenario_fails_only_the_charged_requirement() -> None:
    assert statuses(scenario("failed", ("ARG-6", "ARG-8", "PROTO-2"), charged=("ARG-6",))) == {
        "ARG-6": "failed", "ARG-8": "notreached", "PROTO-2": "notreached",  # it stopped before their checks
    }


def test_a_warning_charged_to_a_should_leaves_the_must_tags_passed() -> None:
    warned = scenario("warning", ("ARG-6", "ARG-8", "PROTO-2"), charged=("ARG-8",), proved=("ARG-6", "PROTO-2"))
    assert statuses(warned) == {"ARG-6": "passed", "ARG-8": "warning", "PROTO-2": "passed"}


def test_a_requirement_charged_outside_the_tags_is_failed_and_listed() -> None:
    broken = scenario("failed", ("SEL-1",), charged=("PLC-1",))
    run = RunResult("0", "0", "t", "stdio", None, "", 0.0, [broken, scenario("passed", ("SEL-1",))])
    by_id = {r.requirement.id: r for r in run.requirement_results()}
    # SEL-1's other scenario passes, but this one stopped before its checks: not reached, never a pass
    assert (by_id["PLC-1"].status, by_id["SEL-1"].status) == ("failed", "notreached")
    assert by_id["PLC-1"].scenarios == [broken]


def test_an_unattributed_failure_fails_every_tag() -> None:
    assert statuses(scenario("failed", ("BUD-1", "BUD-4"))) == {"BUD-1": "failed", "BUD-4": "failed"}


def test_bearing_of_each_status() -> None:
    assert scenario_bearing("SEL-1", scenario("passed", ("SEL-1",))) == "passed"
    assert scenario_bearing("SEL-2", scenario("passed", ("SEL-1",))) is None
    assert scenario_bearing("SEL-1", scenario("xpassed", ("SEL-1",))) == "xpassed"
    assert scenario_bearing("SEL-1", scenario("notrun", ("SEL-1",))) == "notrun"
    assert scenario("passed", ("SEL-1",), charged=("SEL-1",)).failed_requirements() == ()


def test_a_lone_surrogate_may_come_back_as_fffd_unless_intact_is_asked() -> None:
    stored = "a\ud800b"
    assert contract_differences({"c": stored}, {"c": "a\ufffdb"}) == []
    assert contract_differences({"c": stored}, {"c": "a\ufffdb"}, intact=True) == [
        '$.c: expected "a\ud800b", got "a\ufffdb"'
    ]
    assert contract_differences({"c": stored}, {"c": "ab"}) == ['$.c: expected "a\ud800b", got "ab"']
    assert contract_differences({"c": "a\ufffdb"}, {"c": "a\ud800b"}) != []


def test_the_amended_requirements_exist_with_their_levels() -> None:
    levels = {r.id: r.level for r in ccweb_spec.requirements()}
    assert [levels[r] for r in ("ARG-6", "ARG-8", "UNI-3", "UNI-4", "STO-5")] == [
        "MUST", "SHOULD", "MUST", "SHOULD", "SHOULD"
    ]


def sdk_run() -> RunResult:
    """The SDK's -32603: a warning charged to ARG-8, its MUST tags proved by the same scenario."""
    warned = scenario("warning", ("ARG-6", "ARG-8", "PROTO-2"), charged=("ARG-8",), proved=("ARG-6", "PROTO-2"))
    warned.message = "ARG-8 (SHOULD): ...\nARG-8: non-object arguments were rejected with -32603"
    warned.level = "SHOULD"
    return RunResult("0", "0", "t", "stdio", None, "", 1.0, [warned])


def test_every_report_charges_the_warning_to_arg_8_only() -> None:
    from ccweb_conformance.reports.console import render_summary  # noqa: PLC0415
    from ccweb_conformance.reports.json_report import build_json  # noqa: PLC0415
    from ccweb_conformance.reports.junit import build_junit  # noqa: PLC0415
    from ccweb_conformance.reports.markdown import render_markdown  # noqa: PLC0415

    run = sdk_run()
    statuses = {r["id"]: r["status"] for r in build_json(run)["requirements"]}
    assert (statuses["ARG-6"], statuses["ARG-8"], statuses["PROTO-2"]) == ("passed", "warning", "passed")
    assert build_json(run)["scenarios"][0]["failedRequirements"] == ["ARG-8"]
    table = render_summary(run, color=False, verbose=False).splitlines()
    arg6 = table.index(next(line for line in table if line.lstrip().startswith("PASS") and "ARG-6" in line))
    arg8 = table.index(next(line for line in table if line.lstrip().startswith("WARN") and "ARG-8" in line))
    assert not table[arg6 + 1].lstrip().startswith("WARN ")  # the warning is not listed under ARG-6
    assert table[arg8 + 1].lstrip().startswith("WARN f.feature::")
    assert "| ARG-6 | MUST | " in render_markdown(run) and "(ARG-8)</summary>" in render_markdown(run)
    out = build_junit(run).find(".//system-out")
    assert out is not None and (out.text or "").startswith("WARN (SHOULD, not failing the run): ARG-8 (SHOULD)")
    run.strict = True
    failure = build_junit(run).find(".//failure")
    assert failure is not None and (failure.text or "").endswith("requirements: ARG-8 (SHOULD)")


_NAMED = re.compile(r"^([A-Z]+-\d+):")


def _leading_text(node: ast.expr) -> str:
    """The literal start of a message: a string, an f-string's first part, the left end of a concatenation."""
    while isinstance(node, ast.BinOp):
        node = node.left
    if isinstance(node, ast.JoinedStr) and node.values:
        node = node.values[0]
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else ""


def _checks_naming_a_requirement() -> list[tuple[str, str, str]]:
    """(place, requirement named at the start of the message, proves=...) for every fail() of the runner."""
    found = []
    for path in sorted((REPO / "conformance" / "ccweb_conformance").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "fail" and node.args:
                named = _NAMED.match(_leading_text(node.args[0]))
                if named:
                    proves = next((ast.unparse(k.value) for k in node.keywords if k.arg == "proves"), "")
                    found.append((f"{path.relative_to(REPO)}:{node.lineno}", named.group(1), proves))
    return found


def test_a_check_that_names_its_requirement_is_charged_to_it() -> None:
    """A message "RO-1: ..." charged to the scenario's tags instead blamed TOOL-5 and PLC-1 for a server that
    rewrote the file after the call (debounced_mark_read); D-n are decisions, whose breach is the scenario's."""
    checks = _checks_naming_a_requirement()
    assert len(checks) >= 12  # the scan finds the runner's checks (15 today)
    wrong = [(place, named, why) for place, named, why in checks if not named.startswith("D-") and named not in why]
    assert wrong == []


@pytest.mark.parametrize(
    ("code", "tags", "charged"),
    [
        # a negative cache: the conversation saved after a not-found call is still not found (REG-3, was SRC-2)
        ("conversation_not_found", ("REG-3",), ("REG-3",)),
        ("conversation_unreadable", ("REG-3",), ("REG-3",)),
        # messages: null answered unreadable: the rule that says null is no messages (STO-2, was STO-1)
        ("conversation_unreadable", ("STO-2",), ("STO-2",)),
        # a link inside the folder answered not found: the link rule (SRC-7, was SRC-2)
        ("conversation_not_found", ("SRC-7",), ("SRC-7",)),
        # a scenario about neither: the registry's charge, as before
        ("conversation_not_found", ("SEL-1",), ("SRC-2",)),
        ("conversation_unreadable", ("SEL-1",), ("STO-1",)),
    ],
)
def test_an_unexpected_error_in_a_scenario_about_its_rule_is_charged_to_that_rule(code, tags, charged) -> None:
    result = {"ok": False, "error": {"code": code, "message": "m"}}
    assert success_requirements(result, {"conversationId": "abc"}, None, tags) == charged
