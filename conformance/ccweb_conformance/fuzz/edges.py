"""The characters and values the generators aim at: edges of D-1 ... D-3 and D-5 ... D-6."""

from __future__ import annotations

from typing import Any, Final

import ccweb_spec

WHITESPACE: Final = tuple(sorted(ccweb_spec.whitespace()))
"""Every character that does not count as content (D-1)."""
ALL_WHITESPACE: Final = "".join(WHITESPACE)
"""Blank, and made of every whitespace character at once: a gap in an implementation's set shows."""
NEAR_WHITESPACE: Final = ccweb_spec.near_whitespace()
"""Characters that look blank but are content (D-1)."""
ASCII_WORDS: Final = ("a", "ok", "line\r\nbreak", "fix the bug", "\r\n", "x" * 7, "0", "-", '"quoted"', "\\", "{}")
ASTRAL: Final = ("😀", "🎉", "\U0001d518", "🀄", "\U0010fffd")
"""Code points outside the BMP: 1 code point, 2 UTF-16 units."""
ZWJ: Final = ("👨\u200d👩\u200d👧\u200d👦", "🏳\ufe0f\u200d🌈", "👩🏽\u200d🚀")
COMBINING: Final = ("e\u0301", "a\u0308\u0323", "\u0301", "ก\u0e49", "\u1100\u1161\u11a8")
CJK: Final = ("你好", "漢字", "한국어", "日本語テキスト", "\u3000全角")
LONE_SURROGATES: Final = ("\ud800", "\udbff", "\udc00", "\udfff")
REPLACEMENT_CHARACTER: Final = "\ufffd"
"""U+FFFD stored as such (raw EF BF BD): valid UTF-8 and one code point, never a sign of a broken file (D-8)."""
EDGE_STRINGS: Final = ASTRAL + ZWJ + COMBINING + CJK
REPEATS: Final = (1, 1, 1, 2, 3, 50, 333, 999, 1000, 1001, 2500)
"""How often a content's pattern repeats: small first (shrinking goes left), then around the budget."""
ID_NOISE: Final = ("/", ".", "..", "_", " ", "é", "😀", "\u200b", "\ufeff", "#", "\x00")
"""Characters an explicit conversationId may carry that cleaning removes (D-7)."""
TIMESTAMPS: Final = ("2026-11-30T09:00:00.000Z", "2026-11-30T10:00:00+01:00", "yesterday", "0", " ")
MESSAGE_IDS: Final = ("msg-1", "01J9Z", "🆔", " ", "null")
OTHER_ROLES: Final = ("system", "tool", "User", "USER", "", "user ", "developer")
NON_STRINGS: Final[tuple[Any, ...]] = (None, 0, 42, 1.5, True, False, [], ["hello"], {"text": "hello"})
NON_OBJECTS: Final[tuple[Any, ...]] = (None, 1, "user", ["user", "hello"], True, 2.5, "")
INVALID_COUNTS: Final[tuple[Any, ...]] = (
    0,
    -1,
    51,
    1001,
    2**53,
    "15",
    "",
    True,
    False,
    None,
    [],
    {},
    [15],
    1.5,
    49.9,
    1e-9,
)
"""Argument values outside the bounds or of the wrong type (ARG-2, ARG-3)."""
UNKNOWN_ARGUMENTS: Final = ("extra", "max_chars", "Limit", "conversationID", "")
CONVERSATION_SIZES: Final = (1, 2, 0, 3, 4, 5, 6, 8, 14, 15, 16, 30, 49, 50, 51, 75)
"""How many messages a conversation holds: small first (shrinking goes left), then around the limit's bounds."""
EDGE_CONTENTS: Final = (
    "line\r\nbreak",
    "  padded  ",
    "\ufeffafter a BOM",
    "tab\tand\r\nCRLF\r\n",
    "\ud800 lone high",
    "lone low \udc00",
    "e\u0301\u0301\u0301",
    "👨\u200d👩\u200d👧\u200d👦 family",
    "\u200b",
    "\x85",
    "\u180e",
)
"""Whole contents, each aimed at one rule (SEL-2, SEL-8, UNI-1 ... UNI-3)."""
