"""The ccweb_list_user_inputs contract, loaded from the data files beside this module.

This is the only code in ``spec/``: it reads the JSON and YAML files and hands them out.
Nothing here restates what the files say.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:  # jsonschema costs a tenth of a second to import: only validation needs it
    from jsonschema import Draft202012Validator
    from referencing import Registry

__all__ = [
    "SCHEMA_NAMES",
    "Binding",
    "CaseLevels",
    "CataloguedBug",
    "Decision",
    "DescriptionConcept",
    "DescriptionFact",
    "DescriptionLexicon",
    "ErrorCode",
    "Group",
    "PrdSection",
    "Requirement",
    "binding",
    "case_levels",
    "cases_validator",
    "catalogued_bugs",
    "contract_version",
    "core_cases",
    "core_cases_validator",
    "decisions",
    "description_corpus",
    "description_facts",
    "description_lexicon",
    "error_codes",
    "examples",
    "groups",
    "near_whitespace",
    "output_schema",
    "performance",
    "prd_sections",
    "requirements",
    "schema",
    "spec_files",
    "tool_definition",
    "validator",
    "whitespace",
    "yaml_data",
]

SCHEMA_NAMES = ("input", "success", "error", "conversation")
CONTRACT_VERSION_KEY = "dev.ccweb/contract-version"
TOOL_NAME = "ccweb_list_user_inputs"


@dataclass(frozen=True)
class Requirement:
    """One rule of the contract, in English and Chinese, with where it comes from."""

    id: str
    level: str
    group: str
    source: tuple[str, ...]
    statement: str
    statement_zh: str = ""
    prd: tuple[str, ...] = ()
    """The PRD's acceptance criteria it comes from: AC-1 .. AC-10."""
    prd_sections: tuple[str, ...] = ()
    """The PRD's sections it comes from, e.g. ``入参`` or ``选择与截断 4``."""
    decisions: tuple[str, ...] = ()
    """The design decisions it rests on (D-n, defined in ``decisions.yaml``)."""


@dataclass(frozen=True)
class Group:
    """A heading requirements are reported under: an acceptance criterion or an area."""

    id: str
    title: str
    title_zh: str = ""


@dataclass(frozen=True)
class Decision:
    """A design decision that settles what the PRD leaves open (D-n), in English and Chinese."""

    id: str
    title: str
    statement: str
    title_zh: str = ""
    statement_zh: str = ""


@dataclass(frozen=True)
class PrdSection:
    """A section of the PRD a requirement can cite, by its (Chinese) heading."""

    id: str
    en: str
    items: int = 0
    """How many numbered list items it has that can be cited as ``<id> <n>``."""


@dataclass(frozen=True)
class ErrorCode:
    """One entry of the closed error-code registry."""

    code: str
    meaning: str
    when: str
    source: tuple[str, ...]
    requirements: tuple[str, ...]
    meaning_zh: str = ""
    when_zh: str = ""
    unexpected: tuple[tuple[str, str], ...] = ()
    """Where a success was required: the requirement this error breaks, by what the call sent
    (``fraction``, ``given``, ``default``; see errors.yaml), as (kind, requirement) pairs."""


@dataclass(frozen=True)
class DescriptionConcept:
    """One concept of a description fact: a name and the terms that express it."""

    name: str
    terms: tuple[str, ...]
    name_zh: str = ""
    negatable: bool = False


@dataclass(frozen=True)
class DescriptionFact:
    """A fact the tool description must state: concepts that must share a clause, and contradictions."""

    id: str
    name: str
    fact: str
    number: int | None
    concepts: tuple[DescriptionConcept, ...]
    contradictions: tuple[DescriptionConcept, ...]
    fact_zh: str = ""
    name_zh: str = ""


@dataclass(frozen=True)
class DescriptionLexicon:
    """How description text is split and numbers are read (description.yaml, top level)."""

    gap: int
    abbreviations: tuple[str, ...]
    bullets: tuple[str, ...]
    number_words: dict[str, int]
    chinese_numerals: str
    number_multipliers: dict[str, int] = field(default_factory=dict)
    negations: tuple[str, ...] = ()


def spec_files() -> Traversable:
    """The folder holding the spec data files (works from a wheel too)."""
    return files(__name__)


@cache
def _json(relative: str) -> Any:
    return json.loads(spec_files().joinpath(relative).read_text(encoding="utf-8"))


_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when PyYAML has it: ten times faster


def yaml_data(text: str) -> Any:
    """The kit's own YAML data read safely, with libyaml when PyYAML has it (the same data as the
    pure-Python safe loader, about ten times faster); the runner's messages and hints use it too."""
    return yaml.load(text, Loader=_SAFE_LOADER)  # a safe loader, C or Python


@cache
def _yaml(relative: str) -> Any:
    return yaml_data(spec_files().joinpath(relative).read_text(encoding="utf-8"))


def schema(name: str) -> dict[str, Any]:
    """One of the JSON Schemas by short name: input, success, error, conversation."""
    if name not in SCHEMA_NAMES:
        raise KeyError(f"unknown schema {name!r}; known: {', '.join(SCHEMA_NAMES)}")
    result: dict[str, Any] = json.loads(json.dumps(_json(f"schemas/{name}.schema.json")))
    return result


def output_schema() -> dict[str, Any]:
    """The tool's outputSchema: success or error, bundled into one self-contained document.

    Bundling follows JSON Schema 2020-12: each referenced schema is embedded under
    ``$defs`` with its own ``$id``, and referenced by that ``$id``.
    """
    success, error = schema("success"), schema("error")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "oneOf": [{"$ref": success["$id"]}, {"$ref": error["$id"]}],
        "$defs": {"success": success, "error": error},
    }


def tool_definition() -> dict[str, Any]:
    """The tool exactly as ``tools/list`` must show it."""
    tool: dict[str, Any] = json.loads(json.dumps(_json("tool.json")))
    tool["inputSchema"] = schema("input")
    tool["outputSchema"] = output_schema()
    return tool


def contract_version() -> str:
    """The contract's semantic version."""
    version: str = _json("tool.json")["_meta"][CONTRACT_VERSION_KEY]
    return version


@cache
def _registry() -> Registry[Any]:
    from referencing import Registry, Resource  # noqa: PLC0415 (see the imports above)
    from referencing.jsonschema import DRAFT202012  # noqa: PLC0415

    resources = [
        (s["$id"], Resource.from_contents(s, default_specification=DRAFT202012))
        for s in (schema(n) for n in SCHEMA_NAMES)
    ]
    return Registry().with_resources(resources)


def validator(name: str) -> Draft202012Validator:
    """A 2020-12 validator for a schema by short name, or ``output`` for the tool's output."""
    from jsonschema import Draft202012Validator  # noqa: PLC0415 (see the imports above)

    document = output_schema() if name == "output" else schema(name)
    return Draft202012Validator(document, registry=_registry())


def _one_line(text: str | None) -> str:
    """A (folded) text as one line; missing is empty, which the kit's tests reject."""
    return " ".join((text or "").split())


def requirements() -> tuple[Requirement, ...]:
    """Every requirement, in file order."""
    return tuple(
        Requirement(
            r["id"],
            r["level"],
            r["group"],
            tuple(r["source"]),
            _one_line(r["statement"]),
            _one_line(r.get("statement_zh")),
            tuple(r.get("prd") or ()),
            tuple(r.get("prd_sections") or ()),
            tuple(r.get("decisions") or ()),
        )
        for r in _yaml("requirements.yaml")["requirements"]
    )


def groups() -> tuple[Group, ...]:
    """The reporting groups (acceptance criteria first, then areas), in file order."""
    return tuple(Group(g["id"], g["title"], _one_line(g.get("title_zh"))) for g in _yaml("requirements.yaml")["groups"])


def prd_sections() -> tuple[PrdSection, ...]:
    """The PRD sections requirements may cite, in the PRD's order."""
    return tuple(PrdSection(s["id"], s["en"], s.get("items", 0)) for s in _yaml("requirements.yaml")["prd_sections"])


def decisions() -> tuple[Decision, ...]:
    """The design decisions D-1 .. D-n, in file order."""
    return tuple(
        Decision(
            d["id"],
            d["title"],
            _one_line(d["statement"]),
            _one_line(d.get("title_zh")),
            _one_line(d.get("statement_zh")),
        )
        for d in _yaml("decisions.yaml")["decisions"]
    )


def error_codes() -> tuple[ErrorCode, ...]:
    """The closed error-code registry."""
    return tuple(
        ErrorCode(
            e["code"],
            e["meaning"],
            _one_line(e["when"]),
            tuple(e["source"]),
            tuple(e["requirements"]),
            _one_line(e.get("meaning_zh")),
            _one_line(e.get("when_zh")),
            tuple((str(kind), str(requirement)) for kind, requirement in e.get("unexpected", {}).items()),
        )
        for e in _yaml("errors.yaml")["errors"]
    )


def _concepts(entries: list[dict[str, Any]]) -> tuple[DescriptionConcept, ...]:
    return tuple(
        DescriptionConcept(c["name"], tuple(map(str, c["terms"])), c.get("name_zh", ""), c.get("negatable", False))
        for c in entries
    )


def description_facts() -> tuple[DescriptionFact, ...]:
    """The facts the tool description must state (D-11)."""
    return tuple(
        DescriptionFact(
            f["id"],
            f["name"],
            f["fact"],
            f.get("number"),
            _concepts(f["concepts"]),
            _concepts(f["contradictions"]),
            _one_line(f.get("fact_zh")),
            f.get("name_zh", ""),
        )
        for f in _yaml("description.yaml")["facts"]
    )


def description_lexicon() -> DescriptionLexicon:
    """The clause splitting and number reading rules for description facts (D-11)."""
    data = _yaml("description.yaml")
    return DescriptionLexicon(
        data["gap"],
        tuple(data["abbreviations"]),
        tuple(data["bullets"]),
        {str(k): int(v) for k, v in data["number_words"].items()},
        data["chinese_numerals"],
        {str(k): int(v) for k, v in data.get("number_multipliers", {}).items()},
        tuple(str(n) for n in data.get("negations", ())),
    )


def description_corpus() -> list[dict[str, Any]]:
    """Labelled tool descriptions (D-11): ``[{id, lang, style, text, verdict, failing}]``."""
    cases: list[dict[str, Any]] = _yaml("examples/descriptions.yaml")["descriptions"]
    return cases


def whitespace() -> frozenset[str]:
    """The characters that do not count as content (D-1)."""
    ranges = _yaml("whitespace.yaml")["whitespace"]
    return frozenset(chr(c) for low, high in ranges for c in range(low, high + 1))


def near_whitespace() -> tuple[str, ...]:
    """Characters that look blank but count as content (D-1)."""
    return tuple(chr(c) for c in _yaml("whitespace.yaml")["not_whitespace"])


def examples(name: str) -> list[dict[str, Any]]:
    """Labelled example instances for a schema: ``[{description, data, valid}]``."""
    cases: list[dict[str, Any]] = _json(f"examples/{name}.json")
    return cases


@dataclass(frozen=True)
class Binding:
    """The names that bind an implementation to cc-web: environment variables and header."""

    sessions_dir_env: str
    source_env: str
    source_header: str


@cache
def binding() -> Binding:
    """The binding names (binding.yaml; tests/spec validates it against schemas/binding.schema.json)."""
    data: dict[str, str] = _yaml("binding.yaml")
    return Binding(**data)


@cache
def performance() -> dict[str, Any]:
    """The advisory performance budgets, profile settings and the reference's goals, validated once (read-only)."""
    from jsonschema import Draft202012Validator  # noqa: PLC0415 (see the imports above)

    data: dict[str, Any] = json.loads(json.dumps(_yaml("performance.yaml")))
    Draft202012Validator(_json("schemas/performance.schema.json")).validate(data)
    return data


@dataclass(frozen=True)
class CaseLevels:
    """Which scenarios a harness can replay without MCP (case_levels.yaml)."""

    reasons: dict[str, str]
    """Reason key -> the sentence the export gives."""
    mcp_level: dict[str, str]
    """Requirement ID or prefix -> reason key: its scenarios are MCP-level."""
    mcp_only: dict[str, str]
    """Requirement ID or prefix -> reason key: never claimed by a function-level case."""
    scenarios: dict[str, str]
    """Scenario ID (file::name) -> reason key: MCP-level whatever it sends."""
    runner_only: dict[str, str]
    """Requirement ID -> the part of it only ``ccweb-conformance run`` proves (named in the export)."""

    @staticmethod
    def _lookup(table: dict[str, str], requirement: str) -> str | None:
        return table.get(requirement) or table.get(requirement.split("-", maxsplit=1)[0])

    def scenario_reason(self, requirement: str) -> str | None:
        """The reason key that makes a scenario tagged with ``requirement`` MCP-level, or None."""
        return self._lookup(self.mcp_level, requirement)

    def claim_reason(self, requirement: str) -> str | None:
        """The reason key a function-level case may not claim ``requirement`` for, or None."""
        return self._lookup(self.mcp_only, requirement)


@cache
def case_levels() -> CaseLevels:
    """The rules that split the suite into function-level cases and MCP-level scenarios."""
    data = _yaml("case_levels.yaml")
    return CaseLevels(
        dict(data["reasons"]),
        dict(data["mcp_level"]),
        dict(data["mcp_only"]),
        dict(data["mcp_level_scenarios"]),
        dict(data["runner_only"]),
    )


@cache
def core_cases() -> list[dict[str, Any]]:
    """The contract's hand-computed cases (core_cases.yaml): stored messages, limit, budget, the exact result."""
    # PyYAML's own loader: libyaml refuses the lone-surrogate escapes some cases store (D-3)
    cases: list[dict[str, Any]] = yaml.safe_load(spec_files().joinpath("core_cases.yaml").read_text("utf-8"))["cases"]
    return cases


def core_cases_validator() -> Draft202012Validator:
    """A validator for core_cases.yaml (schemas/core-cases.schema.json)."""
    from jsonschema import Draft202012Validator  # noqa: PLC0415 (lazy, see the imports)

    return Draft202012Validator(_json("schemas/core-cases.schema.json"), registry=_registry())


def cases_validator() -> Draft202012Validator:
    """A validator for the exported cases (``ccweb-conformance export``; schemas/cases.schema.json)."""
    from jsonschema import Draft202012Validator  # noqa: PLC0415 (lazy, see the imports)

    return Draft202012Validator(_json("schemas/cases.schema.json"), registry=_registry())


@dataclass(frozen=True)
class CataloguedBug:
    """A deliberately broken version of the reference that the kit's tests keep (a mutant), and the scenario
    that must fail against it."""

    name: str
    description: str
    description_zh: str
    killed_by: str
    """The scenario's name as the reports give it (an outline's row in `` [...]``, or every row without one)."""
    feature: str | None
    """The feature file holding that scenario; None for the fuzz phase every full run ends with."""


@cache
def catalogued_bugs() -> dict[str, tuple[CataloguedBug, ...]]:
    """Requirement ID -> the catalogued bugs that declare it, for every requirement (catalogue.yaml, generated
    from the kit's mutant catalogue by ``scripts/catalogue_figures.py``; none is an empty tuple)."""
    listed = _yaml("catalogue.yaml")["requirements"]
    return {
        r.id: tuple(
            CataloguedBug(b["name"], b["description"], b["description_zh"], b["killed_by"], b.get("feature"))
            for b in listed.get(r.id) or ()
        )
        for r in requirements()
    }
