"""The catalogue's figures as data: per requirement, the mutants that declare it and the scenario that kills each.

``catalogue_document()`` renders ``spec/ccweb_spec/catalogue.yaml`` from the declarations alone (no mutant
is run: ``test_mutants.py`` is the proof that each named scenario kills its mutant), so that the living spec
of an installed kit, which has no ``tests/`` folder, can show how strong each requirement's scenarios are.
``scripts/catalogue_figures.py`` writes or checks the file. The Chinese one-line descriptions live beside the
declarations, in ``descriptions_zh.yaml``, keyed by mutant name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

import ccweb_spec
from mutants.catalogue import MUTANTS, Mutant

DESCRIPTIONS_ZH = Path(__file__).with_name("descriptions_zh.yaml")
COMMITTED = Path(__file__).resolve().parents[2] / "spec" / "ccweb_spec" / "catalogue.yaml"
"""The generated file, in the checkout (the installed kit reads it through ``ccweb_spec.catalogued_bugs``)."""
HEADER = """\
# Generated from the mutant catalogue's declarations (tests/mutants/) by scripts/catalogue_figures.py:
# do not edit by hand. Each mutant is listed under every requirement it declares, with the scenario that
# must fail against it (tests/mutants/test_mutants.py proves it does); the living spec renders this file.
"""


def descriptions_zh() -> dict[str, str]:
    """Mutant name -> its Chinese one-line description (``DESCRIPTIONS_ZH``)."""
    try:
        data = ccweb_spec.yaml_data(DESCRIPTIONS_ZH.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise LookupError(f"{DESCRIPTIONS_ZH.name}: not YAML ({' '.join(str(error).split())})") from error
    table = data.get("descriptions") if isinstance(data, dict) else None
    if not isinstance(table, dict) or not all(isinstance(text, str) for text in table.values()):
        raise LookupError(f"{DESCRIPTIONS_ZH.name}: no 'descriptions' table of mutant name -> one line of Chinese")
    return {str(name): text for name, text in table.items()}


def _entry(mutant: Mutant, chinese: dict[str, str]) -> dict[str, Any]:
    return {
        "name": mutant.name,
        "description": mutant.description,
        "description_zh": chinese[mutant.name],
        "feature": None if mutant.feature_tag is None else f"{mutant.feature}.feature",
        "killed_by": mutant.killed_by,
    }


def catalogue_document(mutants: dict[str, Mutant] = MUTANTS, chinese: dict[str, str] | None = None) -> str:
    """The text of ``catalogue.yaml``: every requirement in file order, its mutants by name.

    Raises LookupError for a mutant without a Chinese description or declaring an unknown requirement.
    """
    chinese = descriptions_zh() if chinese is None else chinese
    known = [r.id for r in ccweb_spec.requirements()]
    problems = [f"{name}: no Chinese description in {DESCRIPTIONS_ZH.name}" for name in mutants if name not in chinese]
    problems += [
        f"{name}: unknown requirement {rid}"
        for name, mutant in mutants.items()
        for rid in mutant.requirements
        if rid not in known
    ]
    if problems:
        raise LookupError("; ".join(problems))
    by_requirement = {
        rid: [_entry(mutants[name], chinese) for name in sorted(mutants) if rid in mutants[name].requirements]
        for rid in known
    }
    body = yaml.safe_dump({"requirements": by_requirement}, allow_unicode=True, sort_keys=False, width=10_000)
    return HEADER + body
