"""A feature's text read into runnable scenarios, for tests that hold a feature as a string or read one file."""

from __future__ import annotations

from gherkin.parser import Parser

from ccweb_conformance.engine.scenarios import Scenario, pickled


def parse_feature(text: str, feature_file: str) -> list[Scenario]:
    """The scenarios of one feature's text, in file order (an outline's rows in order)."""
    return pickled(Parser().parse(text), feature_file)
