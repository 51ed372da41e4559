"""Mutants killed by scenarios of features/ccweb_features/ac07_unicode.feature."""

from __future__ import annotations

import re
from typing import Any

from ccweb_reference import store, tool
from mutants.patching import (
    _ORIGINAL_LIST,
    _ORIGINAL_PARSE_CONVERSATION,
    _SURROGATE,
    _core,
)
from mutants.registry import mutant


@mutant("utf16_units", "UNI-1", "Characters outside the BMP count as one", "lengths and cuts in UTF-16 code units")
def _() -> None:
    _core(unit="utf16")


@mutant("utf8_bytes", "UNI-1", "Characters outside the BMP count as one", "lengths and cuts in UTF-8 bytes")
def _() -> None:
    _core(unit="utf8")


@mutant(
    "grapheme_clusters",
    "UNI-2",
    "A ZWJ family counts each code point and may be cut inside",
    "lengths in (approximate) grapheme clusters: a ZWJ sequence counts one",
)
def _() -> None:
    _core(unit="zwj-cluster")


@mutant(
    "lone_surrogate_dropped",
    "UNI-3",
    "A lone surrogate counts one and is never dropped, split or an error",
    "lone surrogates in content are dropped (U+FFFD in their place is allowed, D-3; dropping them is not)",
)
def _() -> None:
    def list_user_inputs(*args: Any) -> dict[str, Any]:
        result = _ORIGINAL_LIST(*args)
        for item in result["items"]:
            item["content"] = _SURROGATE.sub("", item["content"])
        return result

    tool.list_user_inputs = list_user_inputs


_PAIR_ESCAPE = re.compile(rb"\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}")


def _halves(text: str) -> str:
    """Each character outside the BMP as its two UTF-16 surrogates, each a code point of its own."""
    return "".join(
        chr(0xD800 + ((ord(c) - 0x10000) >> 10)) + chr(0xDC00 + ((ord(c) - 0x10000) & 0x3FF)) if ord(c) > 0xFFFF else c
        for c in text
    )


@mutant(
    "escaped_pair_as_two",
    "UNI-1",
    "An emoji stored as an escaped surrogate pair is one code point",
    "an emoji stored as an escaped surrogate pair (\\ud83d\\ude00) is read as two code points and cut between them",
)
def _() -> None:
    def parse(data: bytes) -> Any:
        messages = _ORIGINAL_PARSE_CONVERSATION(data)
        if not _PAIR_ESCAPE.search(data):
            return messages
        return [
            {**m, "content": _halves(m["content"])} if isinstance(m, dict) and isinstance(m.get("content"), str) else m
            for m in messages
        ]

    store.parse_conversation = parse
