"""Mutants killed by scenarios of features/ccweb_features/ac07_unicode.feature."""

from __future__ import annotations

from typing import Any

from ccweb_reference import tool
from mutants.patching import (
    _ORIGINAL_LIST,
    _SURROGATE,
    _cluster_cut,
    _cluster_len,
    _core,
    _utf8_cut,
    _utf8_len,
    _utf16_cut,
    _utf16_len,
)
from mutants.registry import mutant


@mutant("utf16_units", "UNI-1", "Characters outside the BMP count as one", "lengths and cuts in UTF-16 code units")
def _() -> None:
    _core(length=_utf16_len, cut=_utf16_cut)


@mutant("utf8_bytes", "UNI-1", "Characters outside the BMP count as one", "lengths and cuts in UTF-8 bytes")
def _() -> None:
    _core(length=_utf8_len, cut=_utf8_cut)


@mutant(
    "grapheme_clusters",
    "UNI-2",
    "A ZWJ family counts each code point and may be cut inside",
    "lengths in (approximate) grapheme clusters: a ZWJ sequence counts one",
)
def _() -> None:
    _core(length=_cluster_len, cut=_cluster_cut)


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
