"""The binding names are spec data: one file, its schema, and no other spelling in the kit's code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from jsonschema import Draft202012Validator, ValidationError
from paths import REPO

import ccweb_spec

SCHEMA = json.loads(ccweb_spec.spec_files().joinpath("schemas/binding.schema.json").read_text(encoding="utf-8"))
DATA = yaml.safe_load(ccweb_spec.spec_files().joinpath("binding.yaml").read_text(encoding="utf-8"))


def test_the_binding_file_is_valid_and_gives_the_names_of_the_design():
    Draft202012Validator.check_schema(SCHEMA)
    Draft202012Validator(SCHEMA).validate(DATA)
    assert ccweb_spec.binding() == ccweb_spec.Binding(
        sessions_dir_env="CC_WEB_SESSIONS_DIR",
        source_env="CCWEB_SESSION_ID",
        source_header="X-CCWeb-Session-Id",
    )


def test_the_schema_rejects_an_unknown_name_and_a_header_with_a_space():
    with pytest.raises(ValidationError):
        Draft202012Validator(SCHEMA).validate({**DATA, "source_cookie": "x"})
    with pytest.raises(ValidationError):
        Draft202012Validator(SCHEMA).validate({**DATA, "source_header": "X CCWeb"})


def _code_files() -> list[Path]:
    folders = [REPO / "conformance" / "ccweb_conformance", REPO / "reference" / "ccweb_reference"]
    return sorted(p for folder in folders for p in folder.rglob("*") if p.suffix in {".py", ".yaml", ".json"})


@pytest.mark.parametrize("name", ["CCWEB_SESSION_ID", "X-CCWeb-Session-Id", "CC_WEB_SESSIONS_DIR"])
def test_no_code_of_the_runner_or_the_reference_spells_a_binding_name(name: str):
    spelled = [str(p.relative_to(REPO)) for p in _code_files() if name in p.read_text(encoding="utf-8")]
    assert spelled == []
