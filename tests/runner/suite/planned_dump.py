"""Prints, as JSON, every scenario pytest collects through the kit's plugin, as the plugin plans it.

``python -m runner.suite.planned_dump`` (``tests`` on the path): plain pytest, ``-p`` the plugin, nothing run.
"""

from __future__ import annotations

import json
import sys
from importlib.resources import as_file, files

import pytest

from ccweb_conformance.suite.items import is_scenario, planned_of


class _Dump:
    def __init__(self) -> None:
        self.planned: list[dict[str, object]] = []

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in filter(is_scenario, items):
            p = planned_of(item)
            self.planned.append(
                {
                    "feature": p.feature,
                    "file": p.feature_file,
                    "name": p.name,
                    "line": p.line,
                    "tags": list(p.tags),
                    "test": p.test_name,
                    "keywords": sorted(p.keywords),
                    "row": p.example,
                }
            )
        items[:] = []


def main() -> int:
    """Collect the suite with plain pytest and the kit's plugin; print what the plugin planned."""
    dump = _Dump()
    with as_file(files("ccweb_conformance").joinpath("suite", "test_conformance.py")) as suite:
        arguments = [str(suite), "-q", "-c", "/dev/null", "--rootdir", str(suite.parent), "-p", "no:cacheprovider"]
        arguments += ["--disable-plugin-autoload", "-p", "pytest_bdd.plugin", "-p", "ccweb_conformance.suite.plugin"]
        arguments += ["-o", "disable_test_id_escaping_and_forfeit_all_rights_to_community_support=true"]
        pytest.main(arguments, plugins=[dump])
    sys.stdout.flush()
    print(json.dumps(dump.planned, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
