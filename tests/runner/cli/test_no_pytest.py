"""``run``, ``run --co`` and ``profile`` run on the runner's own engine: pytest and pytest-bdd are never imported
(D-17). The commands run one after another in one fresh interpreter, which lists after each what it imported
(``runner/imported_modules.py``); ``export``'s own is checked on the export ``tests/runner/export/test_export.py``
makes."""

from __future__ import annotations

import pytest
from runner.imported_modules import imported

COMMANDS = {
    "run": ["run", "--in-process", "--fuzz", "0", "-k", "emoji"],
    "collect-only": ["run", "--co"],
    "profile": ["profile", "--sizes", "1", "--repeats", "1", "--settle", "0", "--no-reference"],
}


@pytest.fixture(scope="module")
def imports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[int, list[str]]]:
    """Per command: its exit code and the pytest modules it imported."""
    folder = tmp_path_factory.mktemp("no-pytest")
    return dict(zip(COMMANDS, imported(folder, *COMMANDS.values()), strict=True))


@pytest.mark.parametrize("command", list(COMMANDS))
def test_the_command_imports_no_pytest(imports: dict[str, tuple[int, list[str]]], command: str) -> None:
    assert imports[command] == (0, [])
