"""Then steps: exact checks of what came back."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from jsonschema import Draft202012Validator

import ccweb_spec
from ccweb_conformance.checks.attribution import (
    difference_requirements,
    placed,
    success_requirements,
    wrong_error,
)
from ccweb_conformance.checks.description_check import unmet_facts
from ccweb_conformance.checks.failures import charge, fail
from ccweb_conformance.checks.mistakes import charged_mistake
from ccweb_conformance.checks.outcome import ToolOutcome, contract_differences, json_equal
from ccweb_conformance.engine.registry import parse, then
from ccweb_conformance.fixtures.notation import aliases, code_points, numbered
from ccweb_conformance.i18n import phrase
from ccweb_conformance.suite.world import World, audit_sessions_dir, snapshot
from ccweb_conformance.transport.exchange import Exchange

ITEM_COLUMNS = {
    "content": "string",
    "contentChars": "integer",
    "originalChars": "integer",
    "truncated": "boolean",
    "messageId": "nullable",
    "createdAt": "nullable",
}


def _success(world: World) -> ToolOutcome:
    outcome = world.last_outcome()
    if outcome.is_error or outcome.result.get("ok") is not True:
        raise fail(
            "the call failed where the contract requires a success",
            expected='{"ok": true, ...} without isError',
            actual=outcome.result,
            exchange=outcome.exchange,
            proves=success_requirements(outcome.result, outcome.arguments, world.source, world.requirements),
        )
    return outcome


def _check(outcome: ToolOutcome, what: str, expected: Any, actual: Any, at: str = "$", *, world: World) -> None:
    """``actual`` (found at ``at`` in the result, see ``placed``) is ``expected``; a difference is charged to
    the requirements of the differing fields (SEL-7 when only the order differs)."""
    differences = contract_differences(expected, actual)
    if differences:
        mistake = charged_mistake(outcome, world.files.sessions_dir, world.source)
        proves = (
            (mistake,)
            if mistake
            else difference_requirements(expected, actual, placed(differences, at), world.requirements, outcome.result)
        )
        failure = fail(
            f"{what}: " + "; ".join(placed(differences[:8], at)),
            expected=expected,
            actual=actual,
            exchange=outcome.exchange,
            compared=True,
            proves=proves,
            at=at,
        )
        failure.what = what
        raise failure


def _cell(kind: str, raw: str) -> Any:
    text = code_points(raw)
    if kind == "string":
        return text
    if kind == "nullable":
        return None if text == "null" else text
    return json.loads(text)


@then("the result is exactly:")
def result_is_exactly(world: World, docstring: str) -> None:
    """The whole success object, field by field (extra fields allowed, D-5)."""
    outcome = _success(world)
    expected = json.loads(aliases(docstring, world.ids))
    _check(outcome, "the result differs", expected, outcome.result, world=world)


@then("the result has:")
def result_has(world: World, datatable: list[list[str]]) -> None:
    """Top-level fields of the success object; values are JSON, ``{alias}`` is an ID."""
    outcome = _success(world)
    texts = {field: aliases(raw, world.ids) for field, raw in datatable[1:]}
    expected = {field: text if field == "conversationId" else json.loads(text) for field, text in texts.items()}
    actual = {k: outcome.result.get(k, "<missing>") for k in expected}
    _check(outcome, "result fields differ", expected, actual, world=world)


@then("the items are:")
def items_are(world: World, datatable: list[list[str]]) -> None:
    """Every item, in order; only the columns given are compared."""
    outcome = _success(world)
    header, *rows = datatable
    unknown = set(header) - set(ITEM_COLUMNS)
    if unknown:
        raise ValueError(f"unknown item columns {sorted(unknown)}")
    expected = [{name: _cell(ITEM_COLUMNS[name], raw) for name, raw in zip(header, row, strict=True)} for row in rows]
    _check(outcome, "items differ", expected, outcome.result.get("items"), "$.items", world=world)
    count = outcome.result.get("returnedCount")
    _check(outcome, "returnedCount is not the number of items", len(rows), count, "$.returnedCount", world=world)


def _contents_are(world: World, expected: list[str]) -> None:
    """The contents of every item of a success, in order, are ``expected``."""
    outcome = _success(world)
    actual = [item.get("content") if isinstance(item, dict) else item for item in outcome.result.get("items", [])]
    _check(outcome, "item contents differ", expected, actual, "$.items[].content", world=world)


@then("the item contents are:")
def item_contents(world: World, datatable: list[list[str]]) -> None:
    """The contents of every item, in order."""
    _contents_are(world, [code_points(row[0]) for row in datatable[1:]])


@then("the item contents are exactly, lone surrogates included:")
def item_contents_intact(world: World, datatable: list[list[str]]) -> None:
    """UNI-4: the contents of every item, a lone surrogate intact (not U+FFFD)."""
    outcome = _success(world)
    expected = [code_points(row[0]) for row in datatable[1:]]
    actual = [item.get("content") if isinstance(item, dict) else item for item in outcome.result.get("items", [])]
    differences = contract_differences(expected, actual, intact=True)
    if differences:
        raise fail(
            "a lone surrogate did not come back intact: " + "; ".join(differences[:8]),
            expected=expected,
            actual=actual,
            exchange=outcome.exchange,
            compared=True,
            proves="UNI-4",
        )


@then(parse('the item contents are "{first}" to "{last}"'))
def content_sequence(world: World, first: str, last: str) -> None:
    """Item contents "<text>M" .. "<text>N", oldest first."""
    _contents_are(world, numbered(first, last))


@then("every result is the same")
def every_result_same(world: World) -> None:
    """All tool results of this scenario are equal (REG-1)."""
    first = world.outcomes[0]
    for other in world.outcomes[1:]:
        if not json_equal(first.result, other.result):
            raise fail(
                "repeated calls differ",
                expected=first.result,
                actual=other.result,
                exchange=other.exchange,
                proves="REG-1",
            )


def _error(world: World, code: str) -> ToolOutcome:
    outcome = world.last_outcome()
    mismatch = outcome.error_mismatch(code)
    if mismatch == "code":
        raise wrong_error(f"expected the error {code}", outcome, code, mismatch)
    if mismatch == "flag":
        raise wrong_error("an error result must set isError: true (ERR-1)", outcome, code, mismatch)
    return outcome


@then(parse('the error code is "{code}"'))
def error_code_is(world: World, code: str) -> None:
    """An error result with this code and isError true."""
    _error(world, code)


@then(parse('the result is an error with code "{code}" and a non-empty message'))
def error_with_message(world: World, code: str) -> None:
    """The error object of ERR-1, registry code and message included."""
    outcome = _error(world, code)
    message = outcome.result["error"].get("message")
    if not isinstance(message, str) or not message.strip():
        raise fail(
            "error.message must be a non-empty string",
            expected="a message",
            actual=message,
            exchange=outcome.exchange,
            proves="ERR-1",
        )
    if code not in {e.code for e in ccweb_spec.error_codes()}:
        raise AssertionError(f"feature error: {code} is not in the registry")


@then(parse('the error field is "{field}"'))
def error_field_is(world: World, field: str) -> None:
    """error.field names this argument."""
    outcome = world.last_outcome()
    try:
        _check(outcome, "error.field differs", {"error": {"field": field}}, outcome.result, world=world)
    except AssertionError as failure:
        raise charge(failure, "ARG-5") from None


@then("the error field is the empty name")
def error_field_is_empty(world: World) -> None:
    """error.field names an argument whose name is the empty string (``{"": 1}``), not a missing field."""
    error_field_is(world, "")


@then(parse('the error field is one of "{fields}"'))
def error_field_one_of(world: World, fields: str) -> None:
    """error.field names any one of these arguments."""
    outcome = world.last_outcome()
    allowed = [f.strip() for f in fields.split(",")]
    error = outcome.result.get("error")
    actual = error.get("field") if isinstance(error, dict) else None
    if actual not in allowed:
        raise fail(
            "error.field names none of the offending arguments",
            expected=allowed,
            actual=actual,
            exchange=outcome.exchange,
            proves="ARG-5",
        )


@then("the call is not flagged as an error")
def not_flagged(world: World) -> None:
    """isError is absent or false on a success (ERR-2)."""
    outcome = world.last_outcome()
    result = outcome.exchange.response.get("result", {}) if outcome.exchange.response else {}
    if result.get("isError") not in (None, False):
        raise fail(
            "a success must not set isError",
            expected=False,
            actual=result.get("isError"),
            exchange=outcome.exchange,
            proves="ERR-2",
        )


INVALID_PARAMS = -32602


@then("the reply is a JSON-RPC error, never a tool result")
def jsonrpc_error_not_result(world: World) -> None:
    """ERR-3 (D-9 as amended): an unknown tool gets a JSON-RPC error of any code, never a result."""
    exchange = world.exchanges[-1]
    if not isinstance((exchange.response or {}).get("error"), dict):
        raise fail(
            "ERR-3: an unknown tool must be answered with a JSON-RPC error, never a result",
            expected="a JSON-RPC error (any code)",
            actual=exchange.response,
            exchange=exchange,
            proves="ERR-3",
        )


def _last_call(world: World, chosen: Callable[[dict[str, Any]], bool], what: str) -> Exchange:
    """The scenario's last request whose params ``chosen`` picks (``what`` says which, when there is none)."""
    for exchange in reversed(world.exchanges):
        params = (exchange.request or {}).get("params")
        if isinstance(params, dict) and chosen(params):
            return exchange
    raise AssertionError(f"the scenario made no call {what}")


@then("the unknown tool was answered with the JSON-RPC error -32602")
def unknown_tool_invalid_params(world: World) -> None:
    """ERR-4 (SHOULD, D-9 as amended): -32602; fastmcp for TypeScript's -32601 is named in the hint."""
    exchange = _last_call(world, lambda params: params.get("name") != ccweb_spec.TOOL_NAME, "of an unknown tool")
    error = (exchange.response or {}).get("error")
    code: Any = error.get("code") if isinstance(error, dict) else None
    if code != INVALID_PARAMS:
        raise fail(
            f"ERR-4: the unknown tool was answered with the JSON-RPC error {json.dumps(code)}, not -32602",
            expected={"error": {"code": INVALID_PARAMS}},
            actual=exchange.response,
            exchange=exchange,
            proves="ERR-4",
        )


def _rejected(world: World, exchange: Exchange) -> bool:
    """True when the call was answered with any JSON-RPC error or an error result (ARG-6, D-13)."""
    if isinstance((exchange.response or {}).get("error"), dict):
        return True
    outcome = world.outcome_of(exchange)
    world.outcomes.append(outcome)
    return outcome.is_error or outcome.result.get("ok") is False


@then("the call is rejected with an error, never a success")
def rejected_never_success(world: World) -> None:
    """ARG-6 (D-13 as amended): any JSON-RPC error or error result; never a success."""
    exchange = world.exchanges[-1]
    if not _rejected(world, exchange):
        raise fail(
            "ARG-6: arguments that are not an object must never be answered with a success",
            expected="a JSON-RPC error or an error result",
            actual=exchange.response,
            exchange=exchange,
            proves="ARG-6",
        )


@then("the rejection was a JSON-RPC error -32602 or the tool error invalid_arguments")
def rejected_as_invalid(world: World) -> None:
    """ARG-8 (SHOULD, D-13): -32602 or invalid_arguments; the SDK's -32603 is named in the hint."""
    exchange = _last_call(world, lambda p: not isinstance(p.get("arguments", {}), dict), "with non-object arguments")
    response = exchange.response or {}
    error = response.get("error")
    code: Any = error.get("code") if isinstance(error, dict) else None
    if code is None:
        result = world.outcome_of(exchange).result
        code = result.get("error", {}).get("code") if isinstance(result.get("error"), dict) else None
    if code not in (INVALID_PARAMS, "invalid_arguments"):
        raise fail(
            f"ARG-8: non-object arguments were rejected with {json.dumps(code)}, not -32602 or invalid_arguments",
            expected={
                "error": {"code": INVALID_PARAMS},
                "or": {"isError": True, "error": {"code": "invalid_arguments"}},
            },
            actual=response,
            exchange=exchange,
            proves="ARG-8",
        )


@then("the call reads the source conversation with every default, or is rejected with an error")
def defaults_or_rejected(world: World) -> None:
    """ARG-6 (D-13): null arguments may mean no arguments; otherwise any error, never another success."""
    if _rejected(world, world.exchanges[-1]):
        return
    outcome = world.last_outcome()
    expected = {"ok": True, "conversationId": world.source, "requestedLimit": 15, "maxChars": 1000}
    try:
        what = "ARG-6: null arguments read as absent must use every default"
        _check(outcome, what, expected, outcome.result, world=world)
    except AssertionError as failure:
        raise charge(failure, "ARG-6") from None


@then("the result object is placed as the contract allows")
def placed_as_allowed(world: World) -> None:
    """PLC-1 and PLC-2 are checked whenever a result is read; this states it for the record."""
    world.last_outcome()  # every outcome was read by tool_outcome, which raises where PLC-1 or PLC-2 fails


@then("the result carries the structured content its declared output schema requires")
def structured_as_declared(world: World) -> None:
    """PLC-4 is checked whenever a result is read (tool_outcome); this states it for the record."""
    world.last_outcome()  # read by tool_outcome against the declared outputSchema, which raises where PLC-4 fails


@then("the result object is both structured content and the JSON text of a text block")
def placed_both_ways(world: World) -> None:
    """PLC-3."""
    outcome = world.last_outcome()
    placement = {"structuredContent": outcome.in_structured_content, "jsonTextBlocks": outcome.json_text_blocks}
    if not outcome.in_structured_content or outcome.json_text_blocks < 1:
        raise fail(
            "the result object should be both structuredContent and JSON text",
            expected={"structuredContent": True, "jsonTextBlocks": 1},
            actual=placement,
            exchange=outcome.exchange,
            proves="PLC-3",
        )


def _tool(world: World, name: str) -> dict[str, Any]:
    """The one tool of this name across every page of tools/list (TOOL-1: exactly once, D-16)."""
    listing, exchange = world.tool_listing, world.tools_exchange
    if listing is None or exchange is None:
        raise AssertionError("the scenario did not list the tools")
    if listing.problem is not None:
        raise fail(
            f"tools/list: {listing.problem}", expected="pages that end", actual=listing.problem, exchange=exchange,
            proves="TOOL-1",
        )
    found = listing.named(name)
    if len(found) == 1:
        return found[0]
    pages = f"{len(listing.exchanges)} page{'s' if len(listing.exchanges) > 1 else ''}"
    if found:
        raise fail(
            f"tools/list lists {name} {len(found)} times across its {pages}: a tool is listed exactly once",
            expected=f"one {name}",
            actual=found,
            exchange=exchange,
            proves="TOOL-1",
        )
    names = [t.get("name") if isinstance(t, dict) else t for t in listing.tools]
    raise fail(
        f"tools/list does not list {name} (in {pages})", expected=name, actual=names, exchange=exchange, proves="TOOL-1"
    )


@then(parse('the tool "{name}" is listed'))
def tool_listed(world: World, name: str) -> None:
    """TOOL-1."""
    _tool(world, name)


@then(parse('the input schema of "{name}" declares exactly these properties:'))
def input_schema_properties(world: World, name: str, datatable: list[list[str]]) -> None:
    """TOOL-2: property names, types, bounds and defaults."""
    schema = _tool(world, name).get("inputSchema")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    header, *rows = datatable
    expected: dict[str, Any] = {}
    for row in rows:
        cells = dict(zip(header, row, strict=True))
        expected[cells["property"]] = {
            k: (v if k == "type" else json.loads(v)) for k, v in cells.items() if k != "property" and v
        }
    if schema is None or not isinstance(properties, dict):
        raise fail(
            "the input schema's properties differ from the contract",
            expected=expected,
            actual=properties,
            exchange=world.tools_exchange,
            proves="TOOL-2",
        )
    if set(properties) - set(expected):  # per key below: only the contract's keys, each as its own difference
        raise fail(
            "the input schema declares properties the contract does not",
            expected=sorted(expected),
            actual=sorted(properties),
            exchange=world.tools_exchange,
        )
    actual = {
        key: {k: value[k] for k in expected[key] if k in value} if isinstance(value, dict) else value
        for key, value in properties.items()
    }
    if not json_equal(expected, actual):
        raise fail(
            "the input schema's properties differ from the contract",
            expected={"properties": expected},
            actual={"properties": actual},
            exchange=world.tools_exchange,
            compared=True,
        )
    if schema.get("type") != "object":
        raise fail(
            "the input schema must be an object schema",
            expected="object",
            actual=schema.get("type"),
            exchange=world.tools_exchange,
            proves="TOOL-2",
        )


@then(parse('the input schema of "{name}" requires no property'))
def input_schema_requires_nothing(world: World, name: str) -> None:
    """TOOL-2: every argument is optional, so ``required`` is absent or empty (D-16)."""
    schema = _tool(world, name).get("inputSchema")
    actual = schema.get("required", "<absent>") if isinstance(schema, dict) else schema
    if actual not in ("<absent>", []):
        raise fail(
            "the input schema must require no property: every argument is optional",
            expected="no required member, or required: []",
            actual=actual,
            exchange=world.tools_exchange,
        )


@then(parse('the input schema of "{name}" forbids additional properties'))
def input_schema_forbids_additional(world: World, name: str) -> None:
    """TOOL-2: additionalProperties false."""
    schema = _tool(world, name).get("inputSchema", {})
    actual = schema.get("additionalProperties", "<absent>") if isinstance(schema, dict) else schema
    if actual is not False:
        raise fail(
            "the input schema must set additionalProperties: false",
            expected=False,
            actual=actual,
            exchange=world.tools_exchange,
            proves="TOOL-2",
        )


@then(parse('the description of "{name}" states every fact of the contract'))
def description_states_facts(world: World, name: str) -> None:
    """TOOL-3: each fact of description.yaml stated in one clause (description_check)."""
    description = _tool(world, name).get("description")
    unmet = unmet_facts(description if isinstance(description, str) else "")
    if unmet:
        raise fail(
            "the description does not state every fact of D-11",
            expected=phrase("fact.every", facts=tuple(verdict.phrase for verdict in unmet)),  # worded by the reports
            actual=description,
            exchange=world.tools_exchange,
            proves="TOOL-3",
        )


@then(parse('the tool "{name}" is annotated with readOnlyHint true'))
def annotated_read_only(world: World, name: str) -> None:
    """TOOL-4."""
    annotations = _tool(world, name).get("annotations")
    actual = annotations.get("readOnlyHint") if isinstance(annotations, dict) else None
    if actual is not True:
        raise fail(
            "annotations.readOnlyHint should be true",
            expected=True,
            actual=annotations,
            exchange=world.tools_exchange,
            proves="TOOL-4",
        )


@then(parse('the tool "{name}" declares an output schema that accepts every result received'))
def output_schema_accepts(world: World, name: str) -> None:
    """TOOL-5: an outputSchema exists and validates every result object of the scenario."""
    schema = _tool(world, name).get("outputSchema")
    if not isinstance(schema, dict):
        raise fail(
            "the tool should declare an outputSchema",
            expected="an object schema",
            actual=schema,
            exchange=world.tools_exchange,
            proves="TOOL-5",
        )
    validator = Draft202012Validator(schema)
    for outcome in world.outcomes:
        errors = [e.message for e in validator.iter_errors(outcome.result)]
        if errors:
            raise fail(
                "a result does not validate against the declared outputSchema: " + "; ".join(errors[:3]),
                expected="valid",
                actual=outcome.result,
                exchange=outcome.exchange,
                proves="TOOL-5",
            )


@then(parse('the tool "{name}" reports contract version "{version}" in its _meta'))
def reports_version(world: World, name: str, version: str) -> None:
    """PROTO-3."""
    meta = _tool(world, name).get("_meta")
    actual = meta.get(ccweb_spec.CONTRACT_VERSION_KEY) if isinstance(meta, dict) else None
    if actual != version:
        raise fail(
            f"_meta[{ccweb_spec.CONTRACT_VERSION_KEY!r}] should name the contract version",
            expected=version,
            actual=meta,
            exchange=world.tools_exchange,
            proves="PROTO-3",
        )


@then("every message received was valid MCP for the negotiated revision")
def every_message_valid(world: World) -> None:
    """PROTO-1: no schema violations in any exchange of the scenario."""
    for exchange in world.exchanges:
        if exchange.violations:
            raise fail(
                "a message breaks the MCP schema: " + "; ".join(exchange.violations[:5]),
                expected="valid MCP",
                actual=exchange.response,
                exchange=exchange,
                proves="PROTO-1",
            )


@then("the sessions directory is unchanged since the snapshot")
def sessions_dir_unchanged(world: World) -> None:
    """RO-1, RO-2: same names; same bytes, size, mtime and ctime for our files."""
    before = world.saved_snapshot
    if before is None:
        raise AssertionError("the scenario took no snapshot")
    after = snapshot(world.target.sessions_dir, world.files.created())
    judged = world.ledger.judged if world.ledger is not None else (lambda name: True)
    created = sorted(n for n in set(after["names"]) - set(before["names"]) if judged(n))
    removed = sorted(n for n in set(before["names"]) - set(after["names"]) if judged(n))
    if created or removed:
        raise fail(
            "the sessions directory changed",
            expected="no entry created or removed",
            actual={"created": created, "removed": removed},
            exchange=world.exchanges[-1] if world.exchanges else None,
            proves="RO-2",
        )
    changed = {
        name: {"before": str(fp), "after": str(after["fingerprints"].get(name))}
        for name, fp in before["fingerprints"].items()
        if after["fingerprints"].get(name) != fp
    }
    if changed:
        raise fail(
            "files changed although the tool is read-only",
            expected="identical bytes, size, mtime_ns, ctime_ns",
            actual=changed,
            exchange=world.exchanges[-1] if world.exchanges else None,
            proves="RO-1",
        )
    audit_sessions_dir(world, "after the calls")


def _declares_logging(handshake: list[Exchange]) -> bool:
    """The ``initialize`` answer of a connection's handshake declares the logging capability."""
    for exchange in handshake:
        result = (exchange.response or {}).get("result")
        if (exchange.request or {}).get("method") == "initialize" and isinstance(result, dict):
            capabilities = result.get("capabilities")
            return isinstance(capabilities, dict) and "logging" in capabilities
    return False


@then("no log message came for a request that did not ask for one")
def no_unrequested_log(world: World) -> None:
    """PROTO-1: the runner sets no logLevel and sends no logging/setLevel, so a ``notifications/message`` breaks
    MCP: 2026-07-28 allows one only for a request whose ``_meta`` set logLevel, the initialize era only from a
    server that declares the logging capability. Every connection of the scenario (each era) is judged."""
    clients = [world.client()]
    if world.target.other_era is not None:
        clients.append(world.target.other_client(world.source, world.lane))
    for client in clients:
        logs = [message for message in client.received if message.get("method") == "notifications/message"]
        if logs and not (client.era == "legacy" and _declares_logging(client.handshake)):
            raise fail(
                f"PROTO-1: {len(logs)} notifications/message came at {client.protocol_version} though no request "
                "set logLevel and the server declares no logging capability",
                expected="no notifications/message",
                actual=logs[0],
                exchange=world.exchanges[-1] if world.exchanges else None,
                proves="PROTO-1",
            )


@then("tools/list lists the same tools as before the calls")
def same_tools_after_calls(world: World) -> None:
    """PROTO-1: the tools a server lists must not vary as a side effect of other requests on the connection
    (2026-07-28, Tools, "Listing Tools"): the scenario's first listing, whole and in its order (a SHOULD of the
    same clause), against one made on the same connection after the scenario's calls."""
    before = world.tool_listing
    if before is None:
        raise AssertionError("the scenario did not list the tools")
    after = world.listed(world.client())
    if not json_equal(before.tools, after.tools):
        raise fail(
            "PROTO-1: tools/list changed on the same connection after the scenario's calls: the tools a server "
            "lists must not vary as a side effect of other requests",
            expected=before.tools,
            actual=after.tools,
            exchange=after.exchanges[-1] if after.exchanges else None,
            proves="PROTO-1",
        )
