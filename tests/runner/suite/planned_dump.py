"""Prints, as JSON, every scenario pytest collects through the kit's plugin, as pytest itself names it.

``python -m runner.suite.planned_dump`` (``tests`` on the path): plain pytest, ``-p`` the plugin, nothing run. Each
value is read from pytest's own item (its name, callspec, markers, and the names its ``-k`` matches, through
pytest's private ``KeywordMatcher``, which a test may read and the kit may not), never from the kit's plan: the
test compares the two.
"""

from __future__ import annotations

import json
import sys
from importlib.resources import as_file, files

import pytest
from _pytest.mark import KeywordMatcher

from ccweb_conformance.suite.bdd import bound_scenario
from ccweb_conformance.suite.items import is_scenario

NOT_TAGS = ("xfail", "usefixtures")
"""pytest's own markers, never shown as a scenario's tags."""


class _Dump:
    def __init__(self) -> None:
        self.planned: list[dict[str, object]] = []

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in filter(is_scenario, items):
            template = bound_scenario(getattr(item, "function", None))
            assert template is not None
            callspec = getattr(item, "callspec", None)
            row = callspec.params.get("_pytest_bdd_example", {}) if callspec is not None else {}
            self.planned.append(
                {
                    "feature": template.feature.name,
                    "file": template.feature_file,
                    "name": template.name if callspec is None else f"{template.name} [{callspec.id}]",
                    "line": template.line_number,
                    "tags": sorted(m.name for m in item.iter_markers() if m.name not in NOT_TAGS),
                    "test": item.name,
                    "keywords": sorted(str(n).casefold() for n in KeywordMatcher.from_item(item)._names),
                    "row": row,
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
