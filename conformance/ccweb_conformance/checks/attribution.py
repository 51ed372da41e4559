"""Which requirement a failed scenario is charged to: the one of the check that failed.

A scenario carries several requirement tags, but a failure breaks the requirement of the check
that raised it, not every tag. A check names its requirement when it raises
(:func:`~ccweb_conformance.checks.failures.fail` with ``proves=``); a failure that names none
is charged to every requirement of the scenario, as before. The scenario's other requirements
are passed by it only when their checks all ran: when the failed step was its last.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import ccweb_spec
from ccweb_conformance.checks.failures import ConformanceFailure, fail
from ccweb_conformance.checks.outcome import ToolOutcome, contract_differences, json_equal
from ccweb_conformance.errors import ProtocolFailure, causes

_ORDER = {r.id: number for number, r in enumerate(ccweb_spec.requirements())}
_LEVELS = {r.id: r.level for r in ccweb_spec.requirements()}
_CHAIN_LIMIT = 10
WIRE_REQUIREMENT = "PROTO-1"
"""Every message the server sends is valid JSON-RPC and answers the request it belongs to."""
WIRE_VIOLATIONS = frozenset({"garbage", "wrong-id", "duplicate"})
"""Kinds of :class:`ProtocolFailure` in which a message the server sent broke JSON-RPC (charged to PROTO-1)."""


def charged_requirements(error: BaseException | None, requirements: Sequence[str] = ()) -> tuple[str, ...]:
    """The requirements the failed check proves, in spec order; () when no check named any.

    A check that may prove one of several (an error code defined by two requirements) is
    charged to those the scenario is about, when it is about any of them, else to all; a check
    of an expected value (an error code) in a scenario about none of the requirements defining
    it is charged to the scenario's own (a link answered wrongly breaks the link rule, SRC-7,
    not the rule that defines ``conversation_not_found``). A message the server sent that is not
    JSON-RPC (not JSON, a number beyond what the runner reads, another request's id, a second
    response) breaks PROTO-1, whatever the scenario is about.
    """
    for cause in causes(error, _CHAIN_LIMIT):
        if isinstance(cause, ProtocolFailure) and cause.kind in WIRE_VIOLATIONS:
            return (WIRE_REQUIREMENT,)
        if isinstance(cause, ConformanceFailure) and cause.proves:
            known = [r for r in dict.fromkeys(cause.proves) if r in _ORDER]
            ours = [r for r in requirements if r in _ORDER]
            known = [r for r in known if r in requirements] or (ours if cause.by_expectation and ours else known)
            return tuple(sorted(known, key=_ORDER.__getitem__))
    return ()


ERA_REQUIREMENT = "PROTO-4"
"""Both eras answer alike (D-16): a call the two eras answered differently is charged to it."""


def with_era_disagreement(charged: Sequence[str], requirements: Sequence[str]) -> tuple[str, ...]:
    """A failed scenario whose calls the two eras answered differently: PROTO-4, and the failed check's
    requirements (the scenario's own when the check named none), in spec order."""
    against = {*(charged or requirements), ERA_REQUIREMENT}
    return tuple(sorted((r for r in against if r in _ORDER), key=_ORDER.__getitem__))


def failure_level(charged: Sequence[str], requirements: Sequence[str]) -> str:
    """SHOULD when every requirement the failure counts against is SHOULD-level, else MUST."""
    against = tuple(charged) or tuple(requirements)
    return "SHOULD" if against and all(_LEVELS.get(r) == "SHOULD" for r in against) else "MUST"


def proved_requirements(
    requirements: Sequence[str], charged: Sequence[str], steps_run: int, steps_total: int
) -> tuple[str, ...]:
    """The scenario's requirements other than the charged ones, when the failing step was its last.

    Then every other check of the scenario ran and passed; otherwise they are not judged by it.
    """
    if not charged or steps_total <= 0 or steps_run != steps_total:
        return ()
    return tuple(r for r in requirements if r not in charged)


_NOT_ID_CHARACTER = re.compile(r"[^A-Za-z0-9-]")
_LOOKUP_ERRORS = frozenset({"conversation_not_found", "invalid_conversation_id", "missing_source_conversation"})
_NUMERIC_ARGUMENTS = ("limit", "maxChars")


def _registry_entry(code: str) -> ccweb_spec.ErrorCode | None:
    """The error registry's entry for ``code`` (None for a code outside it)."""
    return next((entry for entry in ccweb_spec.error_codes() if entry.code == code), None)


def code_requirements(code: str) -> tuple[str, ...]:
    """The requirements that say when the error ``code`` is given (the registry's)."""
    entry = _registry_entry(code)
    return entry.requirements if entry else ()


def wrong_error(what: str, outcome: ToolOutcome, code: str, mismatch: str) -> ConformanceFailure:
    """The failure of an answer that is not the tool error ``code``: ``mismatch`` ``flag``, the error object without
    ``isError: true`` (ERR-1); else not that error object (charged to the code's requirements)."""
    if mismatch == "flag":
        return fail(what, expected=True, actual=False, exchange=outcome.exchange, proves="ERR-1")
    return fail(
        what,
        expected={"ok": False, "error": {"code": code}},
        actual=outcome.result,
        exchange=outcome.exchange,
        compared=True,
        proves=code_requirements(code),
        by_expectation=True,
    )


def sent_kind(arguments: Any) -> str:
    """What a call sent for the numeric arguments, as errors.yaml's ``unexpected`` keys name it.

    ``fraction``: limit or maxChars written with a fraction (15.0); ``given``: limit or maxChars
    sent; ``default``: neither (the defaults).
    """
    sent = [arguments[name] for name in _NUMERIC_ARGUMENTS if isinstance(arguments, dict) and name in arguments]
    if any(isinstance(value, float) for value in sent):
        return "fraction"
    return "given" if sent else "default"


def unexpected_requirements(code: str, arguments: Any) -> tuple[str, ...]:
    """The requirement an unexpected ``code`` breaks where a success was required (errors.yaml's
    ``unexpected``, chosen by what the call sent); () when the registry names none."""
    entry = _registry_entry(code)
    if entry is None:
        return ()
    chosen = dict(entry.unexpected)
    found = chosen.get(sent_kind(arguments), chosen.get("default"))
    return (found,) if found else ()


ERRORS_NEVER_CACHED = "REG-3"
"""Errors are never cached: an error where a success was due, in a scenario about it, breaks it."""


def success_requirements(
    result: Mapping[str, Any], arguments: Any, source: str | None, requirements: Sequence[str] = ()
) -> tuple[str, ...]:
    """Whom to charge when a success was required and ``result`` is an error.

    In a scenario about errors never being cached (REG-3): REG-3. In a scenario about a requirement
    that says when this code applies (the registry's ``requirements``: STO-2 for
    ``conversation_unreadable`` on ``messages: null``, SRC-7 for ``conversation_not_found`` on a link
    inside the folder): that requirement. Else a lookup error (the runner wrote the conversation) means
    the server did not find it: the cleaning (SRC-4) when the ID needed cleaning, else reading the
    explicit (SRC-2) or the source conversation (SRC-1). Another registry error is charged as
    errors.yaml's ``unexpected`` says (conversation_unreadable on the valid file the runner wrote: STO-1;
    invalid_arguments for valid arguments: the requirement defining them as valid). Else: () (the
    scenario's own requirements).
    """
    error = result.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    if not isinstance(code, str):
        return ()
    if ERRORS_NEVER_CACHED in requirements and _registry_entry(code) is not None:
        return (ERRORS_NEVER_CACHED,)
    about = tuple(r for r in code_requirements(code) if r in requirements)
    if about:
        return about
    if code not in _LOOKUP_ERRORS:
        return unexpected_requirements(code, arguments)
    explicit = arguments.get("conversationId") if isinstance(arguments, dict) else None
    raw = explicit if isinstance(explicit, str) else source
    if isinstance(raw, str) and _NOT_ID_CHARACTER.search(raw):
        return ("SRC-4",)
    return ("SRC-2",) if isinstance(explicit, str) else ("SRC-1",)


FIELD_REQUIREMENTS: Mapping[str, tuple[str, ...]] = {
    field: tuple(requirements)
    for field, requirements in ccweb_spec.yaml_data(
        (Path(__file__).parent / "field_requirements.yaml").read_text(encoding="utf-8")
    ).items()
}
"""The requirement(s) a difference in a field is charged to: the one that defines the field's value."""
_LAST_NAME = re.compile(r"\.([A-Za-z]+)(?:\[\d+\])?$")
ORDER_REQUIREMENT = "SEL-7"
"""Items are ordered oldest to newest: the exact expected items in another order break only it."""


VALUE_FIELDS = frozenset(FIELD_REQUIREMENTS) - {"items", "content"}
"""Fields whose wrong value breaks the requirement that defines it, whatever the scenario is about."""


def _field_name(difference: str) -> str:
    """``$.items[0].hasMore: expected ...`` -> ``hasMore``; ``$: ...`` -> ``$``."""
    path = difference.split(":", 1)[0]
    match = _LAST_NAME.search(path)
    return match.group(1) if match else path


def field_requirements(differences: Iterable[str]) -> tuple[str, ...]:
    """The requirements the differences (``$.items[0].content: ...``) point at, in spec order; () for none.

    A difference of the whole result (``$``) points at RES-1; one named by its check (``PLC-1: ...``)
    at that requirement.
    """
    touched: set[str] = set()
    for difference in differences:
        path = difference.split(":", 1)[0]
        name = _field_name(difference)
        if path == "$" or path in _ORDER:
            touched.add("RES-1" if path == "$" else path)
        touched.update(FIELD_REQUIREMENTS.get(name, ()))
    return tuple(sorted(touched, key=_ORDER.__getitem__))


def placed(differences: Iterable[str], at: str) -> list[str]:
    """Differences of a compared value moved to where it sits in the result object (``at``).

    ``at`` is the value's path; ``[]`` in it stands for the index of a compared list of fields
    (``$.items[].content`` for the list of contents: ``$[2]`` is ``$.items[2].content``, ``$`` the
    list itself, ``$.items``).
    """
    moved: list[str] = []
    for difference in differences:
        path, _, rest = difference.partition(":")
        if "[]" in at:
            head, tail = at.split("[]", 1)
            end = path.find("]")
            path = head + path[1 : end + 1] + tail + path[end + 1 :] if path.startswith("$[") else head + path[1:]
        elif path.startswith("$"):
            path = at + path[1:]
        moved.append(f"{path}:{rest}")
    return moved


def only_reordered(expected: Any, actual: Any) -> bool:
    """True when ``actual``'s items are exactly the expected items in another order (a result or a list)."""
    if isinstance(expected, dict) and isinstance(actual, dict) and isinstance(expected.get("items"), list):
        rest = {key: value for key, value in expected.items() if key != "items"}
        return not contract_differences(rest, actual) and only_reordered(expected["items"], actual.get("items"))
    if not isinstance(expected, list) or not isinstance(actual, list) or len(expected) != len(actual):
        return False
    left = list(actual)
    for wanted in expected:
        match = next((i for i, item in enumerate(left) if not contract_differences(wanted, item)), None)
        if match is None:
            return False
        del left[match]
    return bool(contract_differences(expected, actual))


DERIVED_FIELDS = frozenset({"returnedCount", "totalChars"})
"""Counts a server derives from its own items: wrong while they agree with its items, the items are wrong."""


def _items(result: Any) -> list[Any] | None:
    items = result.get("items") if isinstance(result, dict) else None
    return items if isinstance(items, list) else None


def derived_from_items(name: str, result: Any) -> bool:
    """True when the server's ``returnedCount`` is the number of its items, or its ``totalChars`` the sum of their
    ``contentChars``: a wrong value of it then comes from which items were chosen (selection or budget), not from the
    count's own rule (RES-2, BUD-4)."""
    items = _items(result)
    if items is None or name not in DERIVED_FIELDS:
        return False
    if name == "returnedCount":
        return bool(json_equal(result.get("returnedCount"), len(items)))
    chars = [item.get("contentChars") if isinstance(item, dict) else None for item in items]
    if not all(isinstance(c, int) and not isinstance(c, bool) for c in chars):
        return False
    return bool(json_equal(result.get("totalChars"), sum(chars)))


def difference_requirements(
    expected: Any, actual: Any, differences: Sequence[str], requirements: Sequence[str], result: Any = None
) -> tuple[str, ...]:
    """Whom an exact-result difference is charged to: SEL-7 alone when only the order differs, else
    the scenario's requirements the differing fields point at (``differences`` placed in the result,
    see :func:`placed`); when they point at none of them but every difference is a value field
    (``hasMore``, ``createdAt``, ``truncated``, ...: not the items or their contents, which a
    selection bug changes), the requirements that define those fields; else () for all of them.

    ``result``: the whole result the compared value came from. A count that agrees with its own items
    (:func:`derived_from_items`) points at no field of its own: the items were chosen wrongly (a blank
    message counted by a whitespace bug is SEL-2's, not RES-2's)."""
    if only_reordered(expected, actual):
        return (ORDER_REQUIREMENT,)
    own = [d for d in differences if not derived_from_items(_field_name(d), result)]
    touched = field_requirements(own)
    ours = tuple(r for r in touched if r in requirements)
    if ours or not differences:
        return ours
    if len(own) < len(differences):
        return ()
    return touched if all(_field_name(d) in VALUE_FIELDS for d in differences) else ()


_WHITESPACE = "".join(ccweb_spec.whitespace())
SELECTION_FIELDS = frozenset({"items", "content", "hasMore", *DERIVED_FIELDS})
"""Fields whose difference the chosen items explain (when they differ): the selection or budget rule that chose them."""


def _contents(items: list[Any]) -> list[Any]:
    return [item.get("content") if isinstance(item, dict) else item for item in items]


def _stored_entries(stored: Sequence[Any], contents: Iterable[Any]) -> list[Any]:
    """The stored messages whose content is one of ``contents`` (as text, for non-string content)."""
    wanted = {c for c in contents if isinstance(c, str)}
    found = []
    for message in stored:
        content = message.get("content") if isinstance(message, dict) else None
        text = content if isinstance(content, str) else json.dumps(content) if content is not None else None
        if text in wanted or (content is not None and str(content) in wanted):
            found.append(message)
    return found


def _extra_requirement(extra: list[Any], stored: Sequence[Any]) -> str:
    """Items returned that should not be: blank by the contract's whitespace (SEL-2), another role (SEL-1),
    content that is not a string (SEL-3); else content not as stored (SEL-8)."""
    if all(isinstance(c, str) and not c.strip(_WHITESPACE) for c in extra):
        return "SEL-2"
    entries = _stored_entries(stored, extra)
    if any(isinstance(m, dict) and m.get("role") != "user" for m in entries):
        return "SEL-1"
    if any(isinstance(m, dict) and not isinstance(m.get("content"), str) for m in entries):
        return "SEL-3"
    return "SEL-8"


def _budget_bound(result: Mapping[str, Any]) -> bool:
    """Whether the budget ended a result's walk: an item was cut, or the total reached maxChars."""
    items = _items(result) or []
    total = result.get("totalChars")
    limit = result.get("maxChars")
    full = isinstance(total, int) and isinstance(limit, int) and total >= limit
    return full or any(isinstance(i, dict) and i.get("truncated") is True for i in items)


def _missing_requirement(missing: list[Any], expected: Mapping[str, Any], actual: Mapping[str, Any]) -> str:
    """Items not returned that should be: a message only blank to Python's strip (SEL-2), else the budget when it
    ended either walk (BUD-1: lengths counted otherwise run out early), else the window of the last ``limit``
    candidates (SEL-6)."""
    if any(isinstance(c, str) and c.strip(_WHITESPACE) and not c.strip() for c in missing):
        return "SEL-2"
    return "BUD-1" if _budget_bound(expected) or _budget_bound(actual) else "SEL-6"


def _cut_elsewhere(extra: list[Any], missing: list[Any]) -> bool:
    """Whether a returned content is the expected one cut at another length (one a prefix of the other), and not
    merely trimmed of whitespace (SEL-8's)."""
    pairs = [(a, e) for a in extra for e in missing if isinstance(a, str) and isinstance(e, str) and a != e]
    cut = any(e.startswith(a) or a.startswith(e) for a, e in pairs)
    return cut and not any(e.strip(_WHITESPACE) == a for a, e in pairs)


def selection_requirements(expected: Any, actual: Any, stored: Sequence[Any] = ()) -> tuple[str, ...]:
    """The selection or budget rule that explains how the items of ``actual`` differ from those of ``expected``
    (both success objects), given the ``stored`` messages; () when the items hold the same contents.

    More items than ``requestedLimit``: SEL-6; items that should not be there: see :func:`_extra_requirement`;
    contents cut where the expected are whole or cut elsewhere: BUD-2; items missing: see
    :func:`_missing_requirement`."""
    wanted, got = _items(expected), _items(actual)
    if wanted is None or got is None or not isinstance(expected, dict):
        return ()
    exp, act = _contents(wanted), _contents(got)
    if exp == act:
        return ()
    limit = expected.get("requestedLimit")
    if isinstance(limit, int) and len(act) > limit:
        return ("SEL-6",)
    extra = [c for c in act if c not in exp]
    missing = [c for c in exp if c not in act]
    if _cut_elsewhere(extra, missing):
        return ("BUD-2",)
    if extra:
        return (_extra_requirement(extra, stored),)
    return (_missing_requirement(missing, expected, actual),) if missing else ()


def result_requirements(
    expected: Any, actual: Any, differences: Sequence[str], stored: Sequence[Any] = ()
) -> tuple[str, ...]:
    """Whom the differences of a whole success object are charged to, field by field, in spec order; () when
    no field names one.

    A field is charged to the requirement that defines it (``FIELD_REQUIREMENTS``), except the fields the
    chosen items explain: ``returnedCount`` and ``totalChars`` while they agree with the server's own items
    (a wrong item count or length is then charged by the items' own differences), and, when the items differ,
    ``hasMore``, the items and their contents (:data:`SELECTION_FIELDS`), which are charged to the selection or
    budget rule that explains the items (:func:`selection_requirements`)."""
    if only_reordered(expected, actual):
        return (ORDER_REQUIREMENT,)
    chosen = selection_requirements(expected, actual, stored)
    touched: set[str] = set()
    for difference in differences:
        name = _field_name(difference)
        # a count right for the items it was given, or the items themselves: the rule that chose the items
        by_items = derived_from_items(name, actual) or (chosen and name in SELECTION_FIELDS - DERIVED_FIELDS)
        touched.update(chosen if by_items else field_requirements([difference]))
    return tuple(sorted(touched, key=_ORDER.__getitem__))
