"""Which requirements a difference touches, for the fuzz phase's scenario result."""

from __future__ import annotations

import re
from collections.abc import Iterable

import ccweb_spec

FUZZED_GROUPS = ("SEL", "BUD", "UNI", "RES")
"""What a passing fuzz phase vouches for."""

_BY_FIELD = {
    "ok": ("RES-1",),
    "isError": ("ERR-1", "ERR-2"),
    "code": ("ERR-1",),
    "conversationId": ("SRC-4",),
    "requestedLimit": ("ARG-1",),
    "maxChars": ("ARG-1",),
    "totalChars": ("BUD-4",),
    "returnedCount": ("RES-2",),
    "hasMore": ("RES-3",),
    "items": ("SEL-1",),
    "messageId": ("RES-4",),
    "createdAt": ("RES-5",),
    "content": ("SEL-8", "BUD-2"),
    "contentChars": ("UNI-1",),
    "originalChars": ("UNI-1",),
    "truncated": ("BUD-2",),
}
"""The requirement(s) a difference in a field is charged to: the one that defines the field's value."""
_LAST_NAME = re.compile(r"\.([A-Za-z]+)(?:\[\d+\])?$")


def fuzzed_requirements() -> tuple[str, ...]:
    """Every SEL, BUD, UNI and RES requirement, in spec order."""
    return tuple(r.id for r in ccweb_spec.requirements() if r.id.split("-")[0] in FUZZED_GROUPS)


def touched_requirements(differences: Iterable[str]) -> tuple[str, ...]:
    """The requirements the differences (``$.items[0].content: ...``) point at, in spec order."""
    touched: set[str] = set()
    order = [r.id for r in ccweb_spec.requirements()]
    for difference in differences:
        path = difference.split(":", 1)[0]
        match = _LAST_NAME.search(path)
        name = match.group(1) if match else path
        if path == "$" or path in order:  # the whole result (RES-1), or a check that named its requirement
            touched.add("RES-1" if path == "$" else path)
        touched.update(_BY_FIELD.get(name, ()))
    return tuple(sorted(touched, key=order.index)) or fuzzed_requirements()
