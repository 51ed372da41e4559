"""Which requirements a difference touches, for the fuzz phase's scenario result."""

from __future__ import annotations

import re
from collections.abc import Iterable

import ccweb_spec

FUZZED_GROUPS = ("SEL", "BUD", "UNI", "RES")
"""What a passing fuzz phase vouches for."""

_BY_FIELD = {
    "ok": ("RES-1", "ERR-1"),
    "isError": ("ERR-1", "ERR-2"),
    "code": ("ERR-1", "ARG-2", "ARG-3", "ARG-4", "STO-1", "STO-2"),
    "conversationId": ("RES-1", "SRC-4"),
    "requestedLimit": ("ARG-1",),
    "maxChars": ("ARG-1",),
    "totalChars": ("BUD-4", "UNI-1"),
    "returnedCount": ("RES-2",),
    "hasMore": ("RES-3",),
    "items": ("SEL-1", "SEL-2", "SEL-6", "BUD-1", "BUD-3"),
    "messageId": ("RES-4",),
    "createdAt": ("RES-5",),
    "content": ("SEL-8", "BUD-2", "UNI-1", "UNI-2", "UNI-3"),
    "contentChars": ("RES-2", "UNI-1", "UNI-2"),
    "originalChars": ("RES-2", "UNI-1", "UNI-2"),
    "truncated": ("BUD-2", "RES-2"),
}
_LAST_NAME = re.compile(r"\.([A-Za-z]+)(?:\[\d+\])?$")


def fuzzed_requirements() -> tuple[str, ...]:
    """Every SEL, BUD, UNI and RES requirement, in spec order."""
    return tuple(r.id for r in ccweb_spec.requirements() if r.id.split("-")[0] in FUZZED_GROUPS)


def touched_requirements(differences: Iterable[str]) -> tuple[str, ...]:
    """The requirements the differences (``$.items[0].content: ...``) point at, in spec order."""
    touched: set[str] = set()
    for difference in differences:
        path = difference.split(":", 1)[0]
        match = _LAST_NAME.search(path)
        name = match.group(1) if match else path
        touched.update(_BY_FIELD.get(name, ()))
    order = [r.id for r in ccweb_spec.requirements()]
    return tuple(sorted(touched, key=order.index)) or fuzzed_requirements()
