"""The expected-failures file: scenarios an implementation is known to fail, and why.

.. code-block:: yaml

    version: 1
    expected_failures:
      - scenario: "ac07_unicode.feature::An emoji outside the BMP counts as one"
        reason: "we count UTF-16 units until #123 lands"
      - requirement: UNI-1        # tolerates every failure charged to UNI-1
        reason: "..."

A scenario entry is strict (the run fails if that scenario passes: fix done, remove the
entry). A requirement entry covers every failure charged to that requirement
(:attr:`ScenarioResult.charged <ccweb_conformance.reports.model.ScenarioResult.charged>`),
whatever the scenario is tagged with: a failure is covered when every requirement it is charged
to has an entry. Passing scenarios simply pass, but an entry that covered no failure of a run
that reached its requirement is stale, and a stale entry of either kind fails the run
(:meth:`ExpectedFailures.stale`), so a fixed bug never hides behind its entry.

A ``scenario`` is a node id (``<feature file>::<scenario name>``) where ``*`` matches any
run of characters (e.g. every row of an outline), matched in linear time (no regular
expression, so no backtracking). The file is validated against
``schemas/expected-failures.schema.json``; every problem is a :class:`UsageError` with a
one-line message naming the file, the entry and its line.

The file is read within bounds, whatever it holds: at most :data:`MAX_FILE_BYTES` bytes, no
aliases (``*name``: an alias bomb expands a few hundred bytes into gigabytes), nesting at most
:data:`MAX_DEPTH` levels deep and scalars of at most :data:`MAX_SCALAR_CHARS` characters.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator, ValidationError

import ccweb_spec
from ccweb_conformance.errors import UsageError
from ccweb_conformance.reports.model import ScenarioResult

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_SCALAR_CHARS",
    "ExpectedFailure",
    "ExpectedFailures",
    "Staleness",
    "glob_match",
    "load_expected_failures",
    "schema",
]

MAX_FILE_BYTES = 256 * 1024
"""Largest expected-failures file read (a file of a thousand entries is about 100 KB)."""
MAX_DEPTH = 16
"""Deepest nesting of lists and mappings (the format needs three levels)."""
MAX_SCALAR_CHARS = 4096
"""Longest string in the file (a scenario node id is well under 300 characters)."""


@dataclass(frozen=True)
class ExpectedFailure:
    """One entry: a scenario node id pattern or a requirement ID, with the reason."""

    reason: str
    scenario: str | None = None
    requirement: str | None = None
    line: int | None = None
    """Line of the entry in the file (1-based), when loaded from a file."""

    @property
    def label(self) -> str:
        """How the entry is named in messages, e.g. ``requirement UNI-1``."""
        return f'scenario "{self.scenario}"' if self.scenario is not None else f"requirement {self.requirement}"

@dataclass(frozen=True)
class Staleness:
    """Entries that covered nothing in a run: ``errors`` fail it, ``warnings`` (outside a selection) do not."""

    errors: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExpectedFailures:
    """The loaded file (or none): answers which scenarios are expected to fail."""

    entries: tuple[ExpectedFailure, ...] = ()
    source: str | None = None
    """The file the entries came from, for messages."""

    @property
    def requirements(self) -> frozenset[str]:
        """The requirements with an entry."""
        return frozenset(e.requirement for e in self.entries if e.requirement is not None)

    def scenario_entry_for(self, scenario_nodeid: str) -> ExpectedFailure | None:
        """The first scenario entry naming a scenario, or None (strict: the scenario must fail)."""
        named = (e for e in self.entries if e.scenario is not None and glob_match(e.scenario, scenario_nodeid))
        return next(named, None)

    def covering(self, charged: Iterable[str]) -> tuple[ExpectedFailure, ...]:
        """The requirement entries that together cover a failure charged to ``charged``, in file order;
        () unless every one of those requirements has an entry (a failure of another stays a failure)."""
        against = set(charged)
        entries = tuple(e for e in self.entries if e.requirement is not None and e.requirement in against)
        return entries if against and against <= {e.requirement for e in entries} else ()

    def entry_for(self, scenario_nodeid: str, charged: tuple[str, ...]) -> ExpectedFailure | None:
        """The entry that covers a failed scenario, or None: a scenario entry naming it first, else the first
        requirement entry when the requirements the failure is charged to all have one."""
        entry = self.scenario_entry_for(scenario_nodeid)
        return entry if entry is not None else next(iter(self.covering(charged)), None)

    def stale(self, scenarios: Iterable[ScenarioResult], *, complete: bool) -> Staleness:
        """The entries that covered nothing in a run.

        A scenario entry is stale when it names no scenario of the run; a requirement entry when no
        failure of the run, expected or not, was charged to its requirement. Stale is an error (the run fails)
        when the run was complete (no selection, nothing stopped it) or, for a requirement entry, when
        the run reached the requirement (a scenario bearing on it ran); else a warning (a selection that
        left the entry's scenarios out says nothing of it).
        """
        ran = [s for s in scenarios if s.status not in ("notrun", "skipped")]
        nodeids = [s.nodeid for s in ran]
        # a failure charged to the entry's requirement and another (a second bug beside the known one) keeps the
        # entry alive: the gap is not closed, and the run fails on the other requirement anyway
        excused = {r for s in ran if s.status in ("xfailed", "failed") for r in s.failed_requirements()}
        excused.update(r for s in ran for r in s.baselined)
        reached = {r for s in ran for r in (*s.requirements, *s.charged)}
        where = f"{self.source}: " if self.source else ""
        errors: list[str] = []
        warnings: list[str] = []
        for entry in self.entries:
            at = f" (line {entry.line})" if entry.line else ""
            if entry.scenario is not None:
                if any(glob_match(entry.scenario, n) for n in nodeids):
                    continue
                stale, judged = f"{where}{entry.label}{at} matched no scenario", complete
            else:
                if entry.requirement in excused:
                    continue
                stale = f"{where}{entry.label}{at} matched no failure"
                judged = complete or entry.requirement in reached
            if judged:
                errors.append(f"{stale}: a stale entry fails the run (the gap is closed: remove the entry)")
            else:
                warnings.append(stale)
        return Staleness(tuple(errors), tuple(warnings))


def glob_match(pattern: str, text: str) -> bool:
    """Whether ``text`` matches ``pattern`` whole, where ``*`` matches any run of characters.

    Linear in ``len(pattern) + len(text)`` up to the cost of :meth:`str.find`: the literal
    pieces between stars are found left to right, each at its earliest place (for a
    pattern whose only wildcard is ``*``, the earliest place never loses a match).
    """
    pieces = pattern.split("*")
    if len(pieces) == 1:
        return pattern == text
    first, *middle, last = pieces
    if not text.startswith(first) or len(text) - len(first) < len(last) or not text.endswith(last):
        return False
    at, end = len(first), len(text) - len(last)
    for piece in middle:
        found = text.find(piece, at, end)
        if found < 0:
            return False
        at = found + len(piece)
    return True


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of the expected-failures file."""
    # Beside the package rather than importlib.resources: works for editable installs too.
    text = (Path(__file__).parent.parent / "schemas" / "expected-failures.schema.json").read_text(encoding="utf-8")
    document: dict[str, Any] = json.loads(text)
    return document


def load_expected_failures(path: Path) -> ExpectedFailures:
    """Read and check an expected-failures file; raise :class:`UsageError` on any problem."""
    name = str(path)
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else " ".join(str(exc).split())
        raise UsageError(f"{name}: cannot read the expected-failures file ({reason})") from exc
    if len(data) > MAX_FILE_BYTES:
        raise UsageError(f"{name}: larger than {MAX_FILE_BYTES:,} bytes; an expected-failures file is a short list")
    try:
        root, document = _load(text)
    except _Refused as exc:
        raise UsageError(f"{name}: line {exc.line}: {exc}") from None
    except yaml.YAMLError as exc:
        raise UsageError(f"{name}: not valid YAML ({_yaml_problem(exc)})") from None
    lines = _entry_lines(root)
    errors = sorted(Draft202012Validator(schema()).iter_errors(document), key=_error_order)
    if errors:
        raise UsageError(f"{name}: {_describe(errors[0], document, lines)}")
    known = {r.id for r in ccweb_spec.requirements()}
    entries = []
    for index, raw in enumerate(document["expected_failures"]):
        line = lines[index] if index < len(lines) else None
        if "requirement" in raw and raw["requirement"] not in known:
            raise UsageError(f"{name}: {_entry_name(index, lines)}: unknown requirement {_short(raw['requirement'])}")
        entries.append(ExpectedFailure(raw["reason"].strip(), raw.get("scenario"), raw.get("requirement"), line))
    return ExpectedFailures(tuple(entries), name)


class _Refused(Exception):
    """A bound of the file was passed, at a 1-based line."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing aliases, deep nesting and long scalars while it composes.

    Composition is recursive (one Python frame per level), so the depth check also keeps a
    deeply nested file from ending in a ``RecursionError``.
    """

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        """Compose one node, or refuse it."""
        event = self.peek_event()  # type: ignore[no-untyped-call]
        line = event.start_mark.line + 1
        if isinstance(event, yaml.AliasEvent):
            raise _Refused(line, f"aliases (*{event.anchor}) are not allowed in an expected-failures file")
        if isinstance(event, yaml.ScalarEvent) and len(event.value) > MAX_SCALAR_CHARS:
            raise _Refused(line, f"a value longer than {MAX_SCALAR_CHARS:,} characters")
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _Refused(line, f"lists and mappings nested deeper than {MAX_DEPTH} levels")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _load(text: str) -> tuple[yaml.Node | None, Any]:
    """The file's node tree (for the entries' lines) and the document it makes, composed within bounds."""
    loader = _BoundedLoader(text)
    try:
        root = loader.get_single_node()
        return root, None if root is None else loader.construct_document(root)
    finally:
        loader.dispose()


def _short(value: object, limit: int = 60) -> str:
    """``repr`` of a value from the file, cut to ``limit`` characters (messages stay one short line)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 1]}…"


def _entry_lines(root: yaml.Node | None) -> list[int]:
    """The 1-based line of each entry under ``expected_failures`` (empty if not a list)."""
    if not isinstance(root, yaml.MappingNode):
        return []
    for key, value in root.value:
        named = isinstance(key, yaml.ScalarNode) and key.value == "expected_failures"
        if named and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return []


def _yaml_problem(exc: yaml.YAMLError) -> str:
    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        mark = exc.problem_mark
        return f"line {mark.line + 1}, column {mark.column + 1}: {exc.problem}"
    return " ".join(str(exc).split())


_ORDER = {"type": 0, "const": 1, "required": 2, "additionalProperties": 3, "oneOf": 4}


def _error_order(error: ValidationError) -> tuple[list[tuple[int, int | str]], int]:
    path: list[tuple[int, int | str]] = [(0, p) if isinstance(p, int) else (1, str(p)) for p in error.absolute_path]
    return path, _ORDER.get(str(error.validator), 9)


def _entry_name(index: int, lines: list[int]) -> str:
    at = f" (line {lines[index]})" if index < len(lines) else ""
    return f"entry {index + 1}{at}"


def _describe(error: ValidationError, document: Any, lines: list[int]) -> str:
    """One line saying what is wrong, in the file's terms."""
    path = list(error.absolute_path)
    if not path:
        return _describe_top(error, document)
    if path[0] == "version":
        return f"version must be 1, not {_short(error.instance)}"
    if len(path) == 1:
        return "expected_failures must be a list of entries"
    where = _entry_name(int(path[1]), lines)
    if len(path) > 2:
        return f"{where}: {_describe_field(error, str(path[2]))}"
    return f"{where}: {_describe_entry(error)}"


def _describe_entry(error: ValidationError) -> str:
    entry = error.instance
    if not isinstance(entry, dict):
        return "expected a mapping with scenario or requirement, and reason"
    if error.validator == "required":
        return "missing reason"
    if error.validator == "additionalProperties":
        extra = sorted(set(entry) - {"scenario", "requirement", "reason"}, key=str)
        return f"unknown key {_short(extra[0])} (allowed: scenario, requirement, reason)"
    if "scenario" in entry and "requirement" in entry:
        return "has both scenario and requirement; give exactly one"
    return "needs a scenario or a requirement"


def _describe_field(error: ValidationError, field: str) -> str:
    if error.validator == "type":
        return f"{field} must be a string"
    if field == "reason":
        return "reason is empty"
    return f"{field} must look like <file>.feature::<scenario name>, not {_short(error.instance)}"


def _describe_top(error: ValidationError, document: Any) -> str:
    if not isinstance(document, dict):
        return "expected a mapping with version and expected_failures"
    if error.validator == "required":
        missing = [k for k in ("version", "expected_failures") if k not in document]
        return f"missing {missing[0]}"
    extra = sorted(set(document) - {"version", "expected_failures"}, key=str)
    return f"unknown key {_short(extra[0])} (allowed: version, expected_failures)"
