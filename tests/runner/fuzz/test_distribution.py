"""What the default phase's 60 cases (seed 0) hold: mostly user inputs, with the characters bugs hide in.

The figures are exact for the seed and the Hypothesis version the kit pins in its lock (a seed's
cases depend on both, as the digest does). Before this generator, the same phase held 1 case
that returned an item, none with an astral character or over the budget, and no raw UTF-8 file.
"""

from __future__ import annotations

import hashlib

from runner.fuzz.census import WHITESPACE, census

from ccweb_conformance.fuzz import settings_for
from ccweb_conformance.fuzz.phase import _case_digest_line, generated_cases
from ccweb_conformance.options import RunnerOptions

DEFAULT = settings_for(RunnerOptions())
assert DEFAULT is not None
CASES = generated_cases(DEFAULT.seed, DEFAULT.count)


def test_the_default_phase_is_60_cases_of_seed_0_and_its_digest_is_the_runs():
    digest = hashlib.sha256(b"".join(_case_digest_line(case) for case in CASES)).hexdigest()
    assert (DEFAULT.count, DEFAULT.seed, len(CASES), digest[:12]) == (60, 0, 60, "73889ce750cd")


def test_most_cases_read_user_inputs_with_astral_characters_lone_surrogates_raw_utf8_and_over_budget():
    counts = census(CASES)
    assert {k: v for k, v in counts.items() if not k.startswith("U+")} == {
        "items": 52,
        "astral": 50,
        "lone surrogate": 10,
        "raw UTF-8": 58,  # every fixture is written as cc-web writes it: raw UTF-8 (issue 21 item 5)
        "over budget": 42,
        "blank input": 26,
    }


def test_every_whitespace_character_is_in_a_user_input_of_a_third_of_the_cases():
    counts = census(CASES)
    assert len(WHITESPACE) == 25
    assert {w: counts[f"U+{ord(w):04X}"] for w in WHITESPACE} == {
        "\t": 29,
        "\n": 25,
        "\x0b": 21,
        "\x0c": 22,
        "\r": 27,
        " ": 30,
        "\xa0": 21,
        "\u1680": 22,
        "\u2000": 21,
        "\u2001": 21,
        "\u2002": 21,
        "\u2003": 22,
        "\u2004": 21,
        "\u2005": 21,
        "\u2006": 21,
        "\u2007": 21,
        "\u2008": 22,
        "\u2009": 21,
        "\u200a": 21,
        "\u2028": 21,
        "\u2029": 21,
        "\u202f": 21,
        "\u205f": 21,
        "\u3000": 21,
        "\ufeff": 21,
    }
