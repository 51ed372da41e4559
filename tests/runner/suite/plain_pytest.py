"""Plain pytest with the kit's plugin against the in-process reference, under a mutant of ``tests/mutants`` if named.

``python -m runner.suite.plain_pytest OUT_DIR CASES`` (``tests`` on the path; CASES a JSON object: a case's name ->
``[MUTANT|-, KEYWORD, PYTEST ARGS...]``) imports pytest, pytest-bdd, the plugin and the reference once, then forks
one child per case, two at a time (``runner/forked.py``): each applies its mutant and runs the scenarios ``-k
KEYWORD`` selects as a team's own pytest run would (the plugin named with ``-p``, nothing auto-loaded), its output
and then ``exit N`` to ``OUT_DIR/NAME.out`` (its standard error to ``NAME.err``).
"""

from __future__ import annotations

import json
import os
import sys
from importlib.resources import as_file, files
from pathlib import Path

import pytest


def plain_pytest(mutant: str, keyword: str, *extra: str) -> int:
    """Apply the mutant (``-``: none), run pytest, print its exit code."""
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


def main(argv: list[str]) -> int:
    """Each case in a forked child; exit 1 if a child failed."""
    from runner.forked import each_in_a_child, import_the_kit  # noqa: PLC0415 (tests/ on the path)

    out_dir, cases = Path(argv[0]), json.loads(argv[1])
    import_the_kit()
    codes = each_in_a_child(list(cases), lambda name: plain_pytest(*cases[name]), out_dir)
    return int(any(codes.values()))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
