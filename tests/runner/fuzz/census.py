"""What the generated cases hold: the features a fuzz phase's cases must carry often enough to find bugs.

Each case is written to a folder and answered by the oracle, as the phase does, and labelled:

- ``items``: the answer is a success with at least one item (the call reads user inputs);
- ``astral``: a returned item's content holds a code point past U+FFFF (UTF-16 counting bugs);
- ``lone surrogate``: a returned item's content holds one (D-3);
- ``stored U+FFFD``: a returned item's content holds U+FFFD, stored as its raw bytes EF BF BD (D-8);
- ``dangling link``: the conversation file is a symbolic link to a missing file (D-7);
- ``raw UTF-8``: the file holds non-ASCII bytes (not ``\\uXXXX`` escapes only);
- ``over budget``: a returned item is truncated (the budget cut a content);
- ``blank input``: a user message's content is made only of whitespace (not a candidate, D-1);
- one label per whitespace character of ``whitespace.yaml``: a user message's content holds it.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import ccweb_spec
from ccweb_conformance.checks.oracle import expected_answer
from ccweb_conformance.fuzz.case import BOM, FuzzCase

WHITESPACE = sorted(ccweb_spec.whitespace())
ID = "0f8e6c1a-9f65-4c55-9b0e-3d2f4e8a7b61"


def _surrogate(text: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def labels(case: FuzzCase, folder: Path) -> set[str]:
    """The labels of one case (its file written to ``folder``, then removed)."""
    path = folder / f"{ID}.json"
    link = case.link_target(ID)
    data = b"" if link is not None else case.file_bytes(ID)
    if link is None:
        path.write_bytes(data)
    else:
        path.symlink_to(link)
    try:
        expected = expected_answer(case.arguments(ID), folder)
    finally:
        path.unlink()
    found: set[str] = set()
    items = [] if expected.is_error else expected.result["items"]
    contents = [item["content"] for item in items]
    if items:
        found.add("items")
    if any(ord(c) > 0xFFFF for text in contents for c in text):
        found.add("astral")
    if any(_surrogate(text) for text in contents):
        found.add("lone surrogate")
    if any("\ufffd" in text for text in contents) and "\ufffd".encode() in data:
        found.add("stored U+FFFD")
    if link is not None:
        found.add("dangling link")
    if any(byte >= 0x80 for byte in data.removeprefix(BOM)):
        found.add("raw UTF-8")
    if any(item["truncated"] for item in items):
        found.add("over budget")
    user_texts = [
        m["content"]
        for m in case.messages
        if isinstance(m, dict) and m.get("role") == "user" and isinstance(m.get("content"), str)
    ]
    if any(text and not text.strip("".join(WHITESPACE)) for text in user_texts):
        found.add("blank input")
    found.update(f"U+{ord(w):04X}" for w in WHITESPACE if any(w in text for text in user_texts))
    return found


def census(cases: Iterable[FuzzCase]) -> Counter[str]:
    """How many cases carry each label."""
    counts: Counter[str] = Counter()
    with tempfile.TemporaryDirectory(prefix="ccweb-census-") as folder:
        for case in cases:
            counts.update(labels(case, Path(folder)))
    return counts
