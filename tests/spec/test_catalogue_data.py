"""spec/ccweb_spec/catalogue.yaml is valid against its schema and names only requirements that exist."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator, ValidationError

import ccweb_spec

SCHEMA = json.loads(ccweb_spec.spec_files().joinpath("schemas/catalogue.schema.json").read_text(encoding="utf-8"))
DATA = yaml.safe_load(ccweb_spec.spec_files().joinpath("catalogue.yaml").read_text(encoding="utf-8"))


def test_the_catalogue_file_is_valid_and_lists_every_requirement_in_file_order() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    Draft202012Validator(SCHEMA).validate(DATA)
    assert list(DATA["requirements"]) == [r.id for r in ccweb_spec.requirements()]


def _first_bug(**change: Any) -> dict[str, Any]:
    """The data with its first catalogued bug changed (``None`` as a value removes the member)."""
    data = json.loads(json.dumps(DATA))
    bug = next(bugs[0] for bugs in data["requirements"].values() if bugs)
    for key, value in change.items():
        if value is None:
            del bug[key]
        else:
            bug[key] = value
    return data


@pytest.mark.parametrize(
    "broken",
    [
        _first_bug(description_zh=None),
        _first_bug(description_zh=""),
        _first_bug(description="two\nlines"),
        _first_bug(feature="ac07_unicode"),
        _first_bug(strength=3),
        {"requirements": {"uni-1": []}},
        {"requirements": {}, "mutants": []},
    ],
)
def test_the_schema_rejects_a_broken_entry(broken: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        Draft202012Validator(SCHEMA).validate(broken)
