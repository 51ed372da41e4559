"""Render the whole contract as one Markdown document, from ``spec/`` and ``features/``.

Every fact comes from :mod:`ccweb_spec` or the feature files; this module only lays it out,
in English or Chinese: the words around the facts come from the runner's locale files
(``locales/``), the statements from ``spec/``. ``ccweb-conformance spec [--lang zh-CN]`` prints
the result; ``docs/SPEC.md`` and ``docs/SPEC.zh-CN.md`` are committed copies.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import ccweb_spec
from ccweb_conformance.i18n import DEFAULT_LANGUAGE, Messages, messages, terms
from ccweb_conformance.reports import markdown_text
from ccweb_conformance.reports.model import ScenarioRef

__all__ = ["ScenarioRef", "render_spec", "scenarios_by_requirement"]

SCHEMA_FILES = {name: f"spec/ccweb_spec/schemas/{name}.schema.json" for name in ccweb_spec.SCHEMA_NAMES}
CONSTRAINT_KEYS = ("minimum", "maximum", "minLength", "maxItems", "pattern")


def scenarios_by_requirement(scenarios: Sequence[ScenarioRef]) -> dict[str, list[ScenarioRef]]:
    """Requirement ID -> the scenarios tagged with it, for every requirement in file order."""
    return {r.id: [s for s in scenarios if r.id in s.tags] for r in ccweb_spec.requirements()}


def _table(say: Messages, columns: Sequence[str], rows: Iterable[Sequence[str]], *, escape: bool = True) -> str:
    """A Markdown table, its headers the messages ``spec.col.<column>``; ``escape=False`` for cells the caller has
    already made safe."""
    return "\n".join(markdown_text.table([say(f"spec.col.{name}") for name in columns], rows, escape=escape))


def _fenced_json(value: Any) -> str:
    """A value as an indented JSON code block."""
    return "```json\n" + json.dumps(value, indent=2, ensure_ascii=False) + "\n```"


def _compact(value: Any) -> str:
    """A value as one line of JSON."""
    return json.dumps(value, ensure_ascii=False)


def _type_of(prop: dict[str, Any], say: Messages) -> str:
    """A property's type as a short phrase: its type(s), const, enum or reference."""
    if "const" in prop:
        return say("spec.type.const", value=json.dumps(prop["const"]))
    if "enum" in prop:
        return say("spec.type.one_of", values=", ".join(f"`{v}`" for v in prop["enum"]))
    if "$ref" in prop:
        return say("spec.type.see", ref=f"`{prop['$ref']}`")
    kind = prop.get("type", "any")
    text = say("spec.type.or").join(kind) if isinstance(kind, list) else str(kind)
    if kind == "array" and "$ref" in prop.get("items", {}):
        text = say("spec.type.array_of", type=text, ref=f"`{prop['items']['$ref']}`")
    return text


def _property_table(schema: dict[str, Any], say: Messages) -> str:
    """One row per property of an object schema."""
    required = set(schema.get("required", []))
    rows = [
        (
            f"`{name}`",
            _type_of(prop, say),
            say("spec.yes") if name in required else say("spec.no"),
            ", ".join(f"{key} {prop[key]}" for key in CONSTRAINT_KEYS if key in prop),  # bounds and pattern
            json.dumps(prop["default"]) if "default" in prop else "",
            prop.get("description", ""),
        )
        for name, prop in schema["properties"].items()
    ]
    return _table(say, ("property", "type", "required", "constraints", "default", "description"), rows)


def regenerate_command(language: str, output: str | None = None) -> str:
    """The command that rewrites ``output`` (default: the committed copy) in ``language``."""
    lang = "" if language == DEFAULT_LANGUAGE else f" --lang {language}"
    return f"ccweb-conformance spec{lang} --output {output or messages(language)('spec.output_file')}"


def render_header(kit_version: str, say: Messages) -> str:
    """Title, versions and where the document comes from."""
    tool = ccweb_spec.tool_definition()
    return "\n".join(
        [
            say("spec.title", tool=tool["name"]),
            "",
            say("spec.versions", contract=ccweb_spec.contract_version(), kit=kit_version),
            "",
            say("spec.generated"),
            say("spec.regenerate", command=regenerate_command(say.language)),
            say("spec.levels"),
        ]
    )


def render_tool(say: Messages) -> str:
    """The tool definition: name, title, description, annotations, input and output schemas."""
    tool = ccweb_spec.tool_definition()
    rows = ((k, json.dumps(v)) for k, v in tool["annotations"].items())
    annotations = _table(say, ("annotation", "value"), rows)
    output = tool["outputSchema"]
    success, error = output["$defs"]["success"], output["$defs"]["error"]
    inputs = _property_table(tool["inputSchema"], say)
    return "\n\n".join(
        [
            say("spec.tool.heading"),
            say("spec.tool.name", name=tool["name"]) + "\n" + say("spec.tool.title", title=tool["title"]),
            say("spec.tool.description") + "\n\n> " + tool["description"],
            say("spec.tool.annotations") + "\n\n" + annotations,
            say("spec.tool.input_schema", file=SCHEMA_FILES["input"]) + "\n\n" + inputs,
            say("spec.tool.output_schema", success=SCHEMA_FILES["success"], error=SCHEMA_FILES["error"]),
            say("spec.tool.success", description=success["description"]) + "\n\n" + _property_table(success, say),
            say("spec.tool.item") + "\n\n" + _property_table(success["$defs"]["item"], say),
            say("spec.tool.error", description=error["description"]) + "\n\n" + _property_table(error, say),
            say("spec.tool.error_member") + "\n\n" + _property_table(error["properties"]["error"], say),
        ]
    )


def _prd_cell(requirement: ccweb_spec.Requirement) -> str:
    """The PRD acceptance criteria and sections a requirement comes from."""
    return ", ".join((*requirement.prd, *requirement.prd_sections))


def render_requirements(say: Messages) -> str:
    """Every requirement with level, statement and traceability, under its group (criteria first)."""
    requirements = ccweb_spec.requirements()
    separator = say("spec.requirements.separator")
    sections = separator.join(say("spec.requirements.section", id=s.id, en=s.en) for s in ccweb_spec.prd_sections())
    parts = [say("spec.requirements.heading"), say("spec.requirements.legend", sections=sections)]
    header = ("id", "level", "statement", "prd", "decisions", "source")
    for group in ccweb_spec.groups():
        rows = [
            (f"**{r.id}**", r.level, say.statement(r), _prd_cell(r), ", ".join(r.decisions), ", ".join(r.source))
            for r in requirements
            if r.group == group.id
        ]
        heading = say("spec.requirements.group", id=group.id, title=say.title(group))
        parts.append(heading + "\n\n" + _table(say, header, rows))
    return "\n\n".join(parts)


def render_decisions(say: Messages) -> str:
    """The design decisions (D-n) with the requirements that rest on each."""
    requirements = ccweb_spec.requirements()
    rows = [
        (
            f"**{d.id}**",
            (d.title_zh if say.chinese else "") or d.title,
            (d.statement_zh if say.chinese else "") or d.statement,
            ", ".join(r.id for r in requirements if d.id in r.decisions),
        )
        for d in ccweb_spec.decisions()
    ]
    header = ("id", "decision", "statement", "requirements")
    return say("spec.decisions.heading") + "\n\n" + say("spec.decisions.intro") + "\n\n" + _table(say, header, rows)


def render_terms(say: Messages) -> str:
    """The terminology both living specs use (locales/terms.yaml), English beside Chinese."""
    rows = [(t.en, t.zh, t.note_zh if say.chinese else t.note_en) for t in terms()]
    header = ("term_en", "term_zh", "meaning")
    return say("spec.terms.heading") + "\n\n" + say("spec.terms.intro") + "\n\n" + _table(say, header, rows)


def render_errors(say: Messages) -> str:
    """The closed error-code registry."""
    rows = [
        (
            f"`{e.code}`",
            (e.meaning_zh if say.chinese else "") or e.meaning,
            (e.when_zh if say.chinese else "") or e.when,
            ", ".join(e.source),
            ", ".join(e.requirements),
        )
        for e in ccweb_spec.error_codes()
    ]
    header = ("code", "meaning", "when", "source", "requirements")
    return say("spec.errors.heading") + "\n\n" + _table(say, header, rows)


def render_description_facts(say: Messages) -> str:
    """The facts the description must state: the concepts that must share a clause, and contradictions."""
    parts = [say("spec.facts.heading"), say("spec.facts.intro", gap=ccweb_spec.description_lexicon().gap)]
    for fact in ccweb_spec.description_facts():
        lines = [say("spec.facts.concept", name=c.name, terms=_terms(c)) for c in fact.concepts]
        lines += [say("spec.facts.contradiction", name=c.name, terms=_terms(c)) for c in fact.contradictions]
        text = (fact.fact_zh if say.chinese else "") or fact.fact
        parts.append(f"### `{fact.id}`\n\n{text}\n\n" + "\n".join(lines))
    return "\n\n".join(parts)


def _terms(concept: ccweb_spec.DescriptionConcept) -> str:
    return ", ".join(f"`{term}`" for term in concept.terms)


def _label(scenario: ScenarioRef, say: Messages) -> str:
    """``file.feature`` :: name, with the number of example rows of an outline."""
    rows = say("spec.trace.examples", n=scenario.examples) if scenario.examples else ""
    return f"`{scenario.feature_file}` :: {scenario.name}{rows}"


def _code_points(chars: Iterable[str]) -> str:
    """Characters as sorted ``U+XXXX`` code points."""
    return ", ".join(f"U+{ord(c):04X}" for c in sorted(chars))


def render_whitespace(say: Messages) -> str:
    """The whitespace set of D-1 and its near misses."""
    return "\n\n".join(
        [
            say("spec.whitespace.heading"),
            say("spec.whitespace.blank", points=_code_points(ccweb_spec.whitespace())),
            say("spec.whitespace.content", points=_code_points(ccweb_spec.near_whitespace())),
        ]
    )


def render_schemas(say: Messages) -> str:
    """Every JSON Schema, in full."""
    parts = [
        say("spec.schemas.schema", name=name, file=SCHEMA_FILES[name]) + "\n\n" + _fenced_json(ccweb_spec.schema(name))
        for name in ccweb_spec.SCHEMA_NAMES
    ]
    return "\n\n".join([say("spec.schemas.heading"), *parts])


def render_examples(say: Messages) -> str:
    """The labelled examples: valid ones in full, rejected ones as a compact list."""
    parts = [say("spec.examples.heading"), say("spec.examples.intro")]
    for name in ccweb_spec.SCHEMA_NAMES:
        cases = ccweb_spec.examples(name)
        parts.append(f"### {name}")
        parts += [f"**{c['description']}**\n\n" + _fenced_json(c["data"]) for c in cases if c["valid"]]
        rejected = [f"- {c['description']}: `{_compact(c['data'])}`" for c in cases if not c["valid"]]
        if rejected:
            parts.append(say("spec.examples.rejected") + "\n\n" + "\n".join(rejected))
    return "\n\n".join(parts)


def render_traceability(scenarios: Sequence[ScenarioRef], say: Messages) -> str:
    """Requirement -> the scenarios that prove it."""
    levels = {r.id: r.level for r in ccweb_spec.requirements()}
    rows = [
        (f"**{rid}**", levels[rid], "<br>".join(markdown_text.cell(_label(s, say)) for s in proving))
        for rid, proving in scenarios_by_requirement(scenarios).items()
    ]
    return say("spec.trace.heading") + "\n\n" + _table(say, ("requirement", "level", "scenarios"), rows, escape=False)


def _caught_by(bug: ccweb_spec.CataloguedBug, say: Messages) -> str:
    """The scenario that kills a catalogued bug: ``file.feature`` :: name, or the fuzz phase."""
    if bug.feature is None:
        return say("spec.catalogue.fuzz", scenario=markdown_text.cell(bug.killed_by))
    return f"`{bug.feature}` :: {markdown_text.cell(bug.killed_by)}"


def render_catalogue(say: Messages) -> str:
    """Per requirement, the catalogued bugs (mutants) its scenarios catch, one line each, or that none reaches it."""
    caught = ccweb_spec.catalogued_bugs()
    names = {bug.name for bugs in caught.values() for bug in bugs}
    intro = say(
        "spec.catalogue.intro",
        bugs=len(names),
        reached=sum(1 for bugs in caught.values() if bugs),
        requirements=len(caught),
    )
    parts = [say("spec.catalogue.heading"), intro]
    for requirement in ccweb_spec.requirements():
        bugs = caught[requirement.id]
        if not bugs:
            parts.append(say("spec.catalogue.none", id=requirement.id, level=requirement.level))
            continue
        lines = [
            say(
                "spec.catalogue.bug",
                name=bug.name,
                description=markdown_text.cell((bug.description_zh if say.chinese else "") or bug.description),
                scenario=_caught_by(bug, say),
            )
            for bug in bugs
        ]
        heading = say("spec.catalogue.caught", id=requirement.id, level=requirement.level, n=len(bugs))
        parts.append(heading + "\n\n" + "\n".join(lines))
    return "\n\n".join(parts)


def render_spec(kit_version: str, scenarios: Sequence[ScenarioRef], language: str = DEFAULT_LANGUAGE) -> str:
    """The whole contract as Markdown in ``language`` (en or zh-CN), ending with one newline.

    ``scenarios`` are the features' scenarios (``suite.scenario_index.feature_scenarios()``).
    """
    say = messages(language)
    sections = [
        render_header(kit_version, say),
        render_tool(say),
        render_requirements(say),
        render_decisions(say),
        render_terms(say),
        render_errors(say),
        render_description_facts(say),
        render_whitespace(say),
        render_schemas(say),
        render_examples(say),
        render_traceability(scenarios, say),
        render_catalogue(say),
    ]
    return "\n\n".join(sections) + "\n"
