"""Plain pytest with the kit's plugin against the in-process reference, under a mutant of ``tests/mutants`` if named.

``python -m runner.suite.plain_pytest MUTANT|- KEYWORD [PYTEST ARGS...]`` (``tests`` on the path) runs the scenarios
``-k KEYWORD`` selects as a team's own pytest run would (the plugin named with ``-p``, nothing auto-loaded) and
prints pytest's output, then ``exit N``.
"""

from __future__ import annotations

import os
import sys
from importlib.resources import as_file, files

import pytest


def main(argv: list[str]) -> int:
    """Apply the mutant (``-``: none), run pytest, print its exit code."""
    mutant, keyword, *extra = argv
    if mutant != "-":
        from mutants.run import _apply  # noqa: PLC0415 (only when a mutant is asked for)

        if not _apply("mutant", mutant):
            return 2
    with as_file(files("ccweb_conformance").joinpath("suite", "test_conformance.py")) as suite:
        arguments = [str(suite), "-q", "-c", os.devnull, "--rootdir", str(suite.parent), "--disable-plugin-autoload"]
        arguments += ["-p", "no:cacheprovider", "-p", "pytest_bdd.plugin", "-p", "ccweb_conformance.suite.plugin"]
        code = pytest.main([*arguments, "--ccweb-in-process", "-k", keyword, *extra])
    print(f"exit {int(code)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
