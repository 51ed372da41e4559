"""A command parses each feature file once and passes the result on (the plan, the selection, the run)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest
from gherkin.parser import Parser

from ccweb_conformance.cli import main

FEATURE_FILES = len(list(Path(str(files("ccweb_features"))).glob("*.feature")))


def test_run_collect_only_parses_each_feature_file_once(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    parsed: list[str] = []
    parse = Parser.parse

    def counted(self: Parser, text: Any, *more: Any, **named: Any) -> Any:
        parsed.append(str(text)[:40])
        return parse(self, text, *more, **named)

    monkeypatch.setattr(Parser, "parse", counted)
    assert main(["run", "--co", "--tags", "AC-7", "-k", "emoji"]) == 0
    assert "scenarios would run (selection: --tags AC-7 -k emoji); nothing was started" in capsys.readouterr().out
    assert len(parsed) == FEATURE_FILES
