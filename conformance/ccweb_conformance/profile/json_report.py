"""The profile as JSON: every figure and sample, the growth, verdicts, warnings and wrong answers."""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from typing import Any

from ccweb_conformance.profile.model import Profile, SizeResult, median, p95

FORMAT_VERSION = "1.1.0"
"""1.1.0: configFile."""


def _camel(record: Any) -> dict[str, Any]:
    """A dataclass's fields, named in camelCase as the document names them."""
    return {re.sub(r"_([a-z])", lambda m: m[1].upper(), name): value for name, value in asdict(record).items()}


def _timing(samples: list[float]) -> dict[str, Any]:
    return {"medianMs": median(samples), "p95Ms": p95(samples), "samplesMs": [round(s, 4) for s in samples]}


def _size(size: SizeResult) -> dict[str, Any]:
    return {
        "messages": size.messages,
        "fileBytes": size.file_bytes,
        "first": _timing(size.first_ms),
        "repeated": _timing(size.repeated_ms),
        "floor": _timing(size.floor_ms),
        "idleBytes": size.idle_bytes,
        "peakBytes": size.peak_bytes,
        "memoryMultiple": size.memory_multiple,
        "readBytesPerRepeatedCall": size.read_per_call,
        "storageBytesPerRepeatedCall": size.storage_per_call,
        "readFraction": size.read_fraction,
        "callsChecked": size.calls_checked,
        "wrong": [_camel(w) for w in size.wrong],
        "failure": size.failure,
    }


def profile_json(profile: Profile) -> dict[str, Any]:
    """The JSON document."""
    return {
        "format": "ccweb-conformance-profile",
        "formatVersion": FORMAT_VERSION,
        "kitVersion": profile.kit_version,
        "specVersion": profile.spec_version,
        "startedAt": profile.started_at,
        "durationSeconds": round(profile.duration_s, 3),
        "machine": profile.machine,
        "configFile": profile.config_file,
        "sizes": list(profile.sizes),
        "wrong": profile.wrong,
        "implementations": [
            {
                "name": i.name,
                "description": i.description,
                "transport": i.transport,
                "isReference": i.is_reference,
                "sampled": i.sampled,
                "sizes": [_size(s) for s in i.sizes],
                "growth": [_camel(g) for g in i.growth],
                "verdict": None if i.verdict is None else _camel(i.verdict),
            }
            for i in profile.implementations
        ],
        "advisories": [{"budget": a.budget, "level": "SHOULD", **_camel(a)} for a in profile.advisories],
    }


def render_profile_json(profile: Profile) -> str:
    """The JSON document as text."""
    return json.dumps(profile_json(profile), indent=2, ensure_ascii=False) + "\n"
