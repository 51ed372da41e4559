"""The characters and values the generators aim at: edges of D-1 ... D-3 and D-5 ... D-6.

The tables are data (``edges.json``): ASTRAL holds code points outside the BMP (1 code point, 2 UTF-16 units);
REPEATS how often a content's pattern repeats and CONVERSATION_SIZES how many messages a conversation holds, small
first (shrinking goes left), then around the budget or the limit's bounds; ID_NOISE the characters an explicit
conversationId may carry that cleaning removes (D-7); INVALID_COUNTS argument values outside the bounds or of the
wrong type (ARG-2, ARG-3); EDGE_CONTENTS whole contents, each aimed at one rule (SEL-2, SEL-8, UNI-1 ... UNI-3).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import ccweb_spec

_TABLES: Final[dict[str, tuple[Any, ...]]] = {
    name: tuple(values)
    for name, values in json.loads((Path(__file__).parent / "edges.json").read_text(encoding="utf-8")).items()
}

WHITESPACE: Final = tuple(sorted(ccweb_spec.whitespace()))
"""Every character that does not count as content (D-1)."""
ALL_WHITESPACE: Final = "".join(WHITESPACE)
"""Blank, and made of every whitespace character at once: a gap in an implementation's set shows."""
NEAR_WHITESPACE: Final = ccweb_spec.near_whitespace()
"""Characters that look blank but are content (D-1)."""
ASCII_WORDS: Final[tuple[str, ...]] = _TABLES["ASCII_WORDS"]
ASTRAL: Final[tuple[str, ...]] = _TABLES["ASTRAL"]
ZWJ: Final[tuple[str, ...]] = _TABLES["ZWJ"]
COMBINING: Final[tuple[str, ...]] = _TABLES["COMBINING"]
CJK: Final[tuple[str, ...]] = _TABLES["CJK"]
LONE_SURROGATES: Final[tuple[str, ...]] = _TABLES["LONE_SURROGATES"]
REPLACEMENT_CHARACTER: Final = "\ufffd"
"""U+FFFD stored as such (raw EF BF BD): valid UTF-8 and one code point, never a sign of a broken file (D-8)."""
EDGE_STRINGS: Final = ASTRAL + ZWJ + COMBINING + CJK
REPEATS: Final[tuple[int, ...]] = _TABLES["REPEATS"]
ID_NOISE: Final[tuple[str, ...]] = _TABLES["ID_NOISE"]
TIMESTAMPS: Final[tuple[str, ...]] = _TABLES["TIMESTAMPS"]
MESSAGE_IDS: Final[tuple[str, ...]] = _TABLES["MESSAGE_IDS"]
OTHER_ROLES: Final[tuple[str, ...]] = _TABLES["OTHER_ROLES"]
NON_STRINGS: Final = _TABLES["NON_STRINGS"]
NON_OBJECTS: Final = _TABLES["NON_OBJECTS"]
INVALID_COUNTS: Final = _TABLES["INVALID_COUNTS"]
UNKNOWN_ARGUMENTS: Final[tuple[str, ...]] = _TABLES["UNKNOWN_ARGUMENTS"]
CONVERSATION_SIZES: Final[tuple[int, ...]] = _TABLES["CONVERSATION_SIZES"]
EDGE_CONTENTS: Final[tuple[str, ...]] = _TABLES["EDGE_CONTENTS"]
