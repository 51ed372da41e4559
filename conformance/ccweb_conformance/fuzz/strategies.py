"""Hypothesis strategies for cc-web conversations and tool arguments, biased toward the edges.

Most cases (:data:`ANSWERED_SHARE`) are calls that read user inputs: the conversation exists and is
readable, the arguments are valid, and its newest message is a user input with characters that
implementations miscount (astral, lone surrogates, combining marks, CJK) or mistake for broken text
(a stored U+FFFD), often past the budget, in files written as cc-web writes them (raw UTF-8). The rest
are anything at all: invalid arguments, junk IDs, broken files, dangling links, no candidate.
``tests/runner/fuzz/test_distribution.py`` shows the mix.
"""

from __future__ import annotations

import json
from functools import cache
from itertools import accumulate, islice
from typing import Any

from hypothesis import strategies as st

from ccweb_conformance.fuzz import edges
from ccweb_conformance.fuzz.case import ABSENT, FuzzCase, IdPlan, Storage
from ccweb_reference.core import candidates

ANSWERED_SHARE = (9, 10)
"""Nine draws in ten make a valid call on a readable conversation whose newest message is a user input."""
_SEGMENT = st.one_of(
    st.sampled_from(edges.ASCII_WORDS),
    st.sampled_from(edges.ASTRAL),
    st.sampled_from(edges.EDGE_STRINGS),
    st.sampled_from(edges.WHITESPACE),
    st.sampled_from(edges.NEAR_WHITESPACE),
    st.sampled_from(edges.LONE_SURROGATES),
    st.text(st.characters(codec=None), max_size=4),
)
_RICH_SEGMENT = st.one_of(
    st.sampled_from(edges.ASCII_WORDS),
    st.sampled_from(edges.ASTRAL),
    st.sampled_from(edges.EDGE_STRINGS),
    st.sampled_from(edges.LONE_SURROGATES),
    st.sampled_from(edges.ASTRAL + edges.ZWJ),
    st.sampled_from(edges.WHITESPACE),
    st.text(st.characters(codec=None), max_size=4),
)
"""Segments of the newest user input: an astral character in two draws of seven, a lone surrogate in one."""
_BLANK = st.one_of(
    st.sampled_from(edges.WHITESPACE),  # first: a blank content shrinks to one character
    st.just(edges.ALL_WHITESPACE),
    st.permutations(edges.WHITESPACE).map("".join),
    st.lists(st.sampled_from(edges.WHITESPACE), max_size=4).map("".join),
)


_SEGMENTS = st.lists(_SEGMENT, min_size=1, max_size=5)
_RICH_SEGMENTS = st.lists(_RICH_SEGMENT, min_size=1, max_size=4)
_REPEATS = st.sampled_from(edges.REPEATS)
_ASTRAL = st.sampled_from(edges.ASTRAL)
_LONE_SURROGATE = st.sampled_from(edges.LONE_SURROGATES)
_ONE_IN = {n: st.integers(0, n - 1) for n in (2, 3, 4, 5, 6, 10)}
"""``_ONE_IN[n]``: a number from 0 to n - 1 (strategies drawn inside composites are made once: see below)."""


@st.composite
def _patterned(draw: st.DrawFn) -> str:
    """A content: a few segments, the whole repeated a small or a budget-sized number of times."""
    pattern = "".join(draw(_SEGMENTS))
    return pattern * draw(_REPEATS)


CONTENT = st.one_of(
    _patterned(), _BLANK, st.sampled_from(edges.EDGE_CONTENTS), st.sampled_from(edges.NEAR_WHITESPACE), _patterned()
)


@st.composite
def _rich(draw: st.DrawFn) -> str:
    """A user input that counts: a pattern starting with an astral character, blank padding around it."""
    pattern = draw(_ASTRAL) + "".join(draw(_RICH_SEGMENTS))
    # Each extra is drawn as "not 0", so that shrinking (toward 0) leaves it out.
    if draw(_ONE_IN[3]) == 2:  # a lone surrogate in one input of three (D-3)
        pattern += draw(_LONE_SURROGATE)
    lead = draw(_BLANK) if draw(_ONE_IN[4]) == 3 else ""  # rare: a short budget still reaches the astral one
    trail = draw(_BLANK) if draw(_ONE_IN[6]) > 0 else ""
    repeats = draw(_REPEATS)
    if draw(_ONE_IN[2]) == 1:  # a stored U+FFFD in about one input of two, near its start (D-8)
        pattern = pattern[0] + edges.REPLACEMENT_CHARACTER + pattern[1:]
    return lead + pattern * repeats + trail


RICH_CONTENT = _rich()
_TIMESTAMP = st.one_of(st.sampled_from(edges.TIMESTAMPS), st.sampled_from(("", None, 0, False)))
_MESSAGE_ID = st.one_of(st.sampled_from(edges.MESSAGE_IDS), st.sampled_from(("", None, 7)))
_METADATA = {"timestamp": _TIMESTAMP, "createdAt": _TIMESTAMP, "id": _MESSAGE_ID}
_ATTACHMENTS = st.just([{"type": "image", "name": "screen.png", "mediaType": "image/png", "size": 1024}])
_TOOL_CALLS = st.just([{"id": "call-1", "name": "Bash", "input": {"command": "ls -la"}, "result": "a\nb"}])
_FORM = json.dumps({"type": "guided_form", "fields": [{"name": "provider", "options": ["a", "b"]}]})

USER_MESSAGE = st.fixed_dictionaries(
    {"role": st.just("user"), "content": CONTENT}, optional={**_METADATA, "attachments": _ATTACHMENTS}
)
UNDATED_USER_MESSAGE = st.fixed_dictionaries(
    {"role": st.just("user"), "content": CONTENT}, optional={"createdAt": _TIMESTAMP, "id": _MESSAGE_ID}
)
"""No timestamp: createdAt (when present) or null is echoed, where implementations went wrong before."""
ASSISTANT_MESSAGE = st.fixed_dictionaries(
    {"role": st.just("assistant"), "content": CONTENT}, optional={**_METADATA, "toolCalls": _TOOL_CALLS}
)
GUIDED_FORM = st.fixed_dictionaries({"role": st.just("assistant"), "content": st.just(_FORM)}, optional=_METADATA)
OTHER_ROLE = st.fixed_dictionaries({"role": st.sampled_from(edges.OTHER_ROLES), "content": CONTENT})
NON_STRING_CONTENT = st.fixed_dictionaries(
    {"role": st.just("user")}, optional={"content": st.sampled_from(edges.NON_STRINGS), **_METADATA}
)
MESSAGE = st.one_of(
    USER_MESSAGE,
    USER_MESSAGE,
    UNDATED_USER_MESSAGE,
    USER_MESSAGE,
    ASSISTANT_MESSAGE,
    GUIDED_FORM,
    OTHER_ROLE,
    NON_STRING_CONTENT,
    st.sampled_from(edges.NON_OBJECTS),
)

# Strategies drawn inside the composites below are made once here: Hypothesis validates a strategy the first time
# it is drawn from, so one made anew at every draw is validated at every draw (the same draws either way).
_TEMPLATES = st.lists(st.one_of(USER_MESSAGE, UNDATED_USER_MESSAGE, MESSAGE), min_size=1, max_size=6)
_ANSWERED_TEMPLATES = st.lists(
    st.one_of(USER_MESSAGE, UNDATED_USER_MESSAGE, USER_MESSAGE, MESSAGE), min_size=1, max_size=6
)
_CONVERSATION_SIZE = st.sampled_from(edges.CONVERSATION_SIZES)
_NEWEST_INPUT = st.fixed_dictionaries({"role": st.just("user"), "content": RICH_CONTENT}, optional=_METADATA)
_KINDS = ("edge", "absent", "bounds", "edge", "edge", "float")
_VALID_COUNT_KIND = st.sampled_from(_KINDS)
_COUNT_KIND = st.sampled_from((*_KINDS, "invalid"))
_INVALID_COUNT = st.sampled_from(edges.INVALID_COUNTS)
_ID_KIND = st.sampled_from(("exact",) * 6 + ("noisy", "noisy", "junk", "wrong type"))
_ID_NOISE = st.lists(st.sampled_from(edges.ID_NOISE), max_size=3).map("".join)
_NON_STRING_ID = st.sampled_from(edges.NON_STRINGS)
_ANSWERED_NOISE = st.lists(st.sampled_from(edges.ID_NOISE[:-1]), max_size=2).map("".join)  # not NUL: that one is junk
_ANSWERED_STORAGE: st.SearchStrategy[Storage] = st.sampled_from(("raw", "pretty", "compact", "raw", "bom"))
_UNKNOWN_ARGUMENT = st.sampled_from(edges.UNKNOWN_ARGUMENTS)
_ANY_STORAGE: st.SearchStrategy[Storage] = st.sampled_from(
    ("pretty", "raw") * 4
    + ("bom", "compact", "surrogate bytes", "null messages", "no messages", "nan field", "dangling link")
)


@cache
def _order(templates: int, size: int) -> st.SearchStrategy[list[int]]:
    """``size`` indexes into ``templates`` drawn templates (one strategy per pair, made on first use)."""
    return st.lists(st.integers(0, templates - 1), min_size=size, max_size=size)


@cache
def _between(low: int, high: int) -> st.SearchStrategy[int]:
    return st.integers(low, high)


@cache
def _one_of(values: tuple[int, ...]) -> st.SearchStrategy[int]:
    return st.sampled_from(values)


@st.composite
def _messages(draw: st.DrawFn) -> list[Any]:
    """Up to six drawn messages repeated in a drawn order, from none to past the limit's bound.

    Repeating a few drawn messages keeps long conversations cheap to generate, and the
    drawn size shrinks toward short conversations.
    """
    templates = draw(_TEMPLATES)
    order = draw(_order(len(templates), draw(_CONVERSATION_SIZE)))
    return [templates[i] for i in order]


MESSAGES = _messages()


@st.composite
def _answered_messages(draw: st.DrawFn) -> list[Any]:
    """A conversation ending with a user input that counts, after drawn messages that are mostly user inputs."""
    templates = draw(_ANSWERED_TEMPLATES)
    order = draw(_order(len(templates), draw(_CONVERSATION_SIZE)))
    newest = draw(_NEWEST_INPUT)
    if draw(_ONE_IN[2]) == 1:  # in one conversation of two, a blank input just before it (D-1)
        return [*(templates[i] for i in order), {"role": "user", "content": draw(_BLANK)}, newest]
    return [*(templates[i] for i in order), newest]


_ANSWERED_MESSAGES = _answered_messages()


def budget_edges(messages: list[Any]) -> list[int]:
    """Code points of the newest 1, 2 and 3 candidates, each less one, as is and plus one (the budget edges)."""
    sums = accumulate(len(candidate.content) for candidate in reversed(candidates(messages)))
    return [s + d for s in islice(sums, 3) for d in (-1, 0, 1)]


def _count(draw: st.DrawFn, low: int, high: int, edge_values: list[int], *, valid: bool = False) -> Any:
    """An argument value: absent, an edge, anything in bounds, an integral float, or (unless ``valid``) invalid."""
    kind = draw(_VALID_COUNT_KIND if valid else _COUNT_KIND)
    if kind == "absent":
        return ABSENT
    if kind == "bounds":
        return draw(_between(low, high))
    if kind == "invalid":
        return draw(_INVALID_COUNT)
    value = draw(_one_of(tuple(sorted({low, low + 1, high - 1, high, *(v for v in edge_values if low <= v <= high)}))))
    return float(value) if kind == "float" else value


@st.composite
def _id_plan(draw: st.DrawFn) -> IdPlan:
    kind = draw(_ID_KIND)
    if kind == "exact":
        return IdPlan()
    if kind == "noisy":
        return IdPlan(prefix=draw(_ID_NOISE), suffix=draw(_ID_NOISE))
    if kind == "junk":
        return IdPlan(literal=draw(_ID_NOISE))
    return IdPlan(literal=draw(_NON_STRING_ID))


@st.composite
def fuzz_cases(draw: st.DrawFn) -> FuzzCase:
    """A conversation, how it is stored, and the arguments of one call: mostly one that reads user inputs."""
    if draw(_ONE_IN[ANSWERED_SHARE[1]]) < ANSWERED_SHARE[0]:
        return draw(_ANSWERED_CASES)
    return draw(_ANY_CASES)


@st.composite
def answered_cases(draw: st.DrawFn) -> FuzzCase:
    """A valid call on a readable conversation whose newest message is a user input."""
    messages = draw(_ANSWERED_MESSAGES)
    found = len(candidates(messages))
    limit = _count(draw, 1, 50, [found - 1, found, found + 1], valid=True)
    max_chars = _count(draw, 1, 1000, budget_edges(messages), valid=True)
    exact = draw(_ONE_IN[5]) > 0
    return FuzzCase(
        messages=messages,
        storage=draw(_ANSWERED_STORAGE),
        conversation_id=IdPlan() if exact else IdPlan(prefix=draw(_ANSWERED_NOISE), suffix=draw(_ANSWERED_NOISE)),
        limit=limit,
        max_chars=max_chars,
    )


@st.composite
def any_cases(draw: st.DrawFn) -> FuzzCase:
    """Anything: invalid arguments, junk IDs, broken files, dangling links, conversations without a candidate."""
    messages = draw(MESSAGES)
    found = len(candidates(messages))
    limit = _count(draw, 1, 50, [found - 1, found, found + 1])
    max_chars = _count(draw, 1, 1000, budget_edges(messages))
    unknown = draw(_UNKNOWN_ARGUMENT) if draw(_ONE_IN[10]) == 9 else ABSENT
    storage = draw(_ANY_STORAGE)
    conversation_id = draw(_ID_PLAN)
    if storage == "dangling link":  # the call reaches the file: valid arguments, the link's own ID (D-7)
        return FuzzCase(messages=messages, storage=storage, limit=_valid(limit, 50), max_chars=_valid(max_chars, 1000))
    return FuzzCase(
        messages=messages,
        storage=storage,
        conversation_id=conversation_id,
        limit=limit,
        max_chars=max_chars,
        unknown_argument=unknown,
    )


def _valid(value: Any, high: int) -> Any:
    """``value`` when it is a valid count from 1 to ``high`` (an integral float included), else absent."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return value if number and float(value).is_integer() and 1 <= value <= high else ABSENT


_ANSWERED_CASES = answered_cases()
_ANY_CASES = any_cases()
_ID_PLAN = _id_plan()
