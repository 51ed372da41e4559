"""Mutants killed by scenarios of features/ccweb_features/placement.feature."""

from __future__ import annotations

import mcp_types as types

from ccweb_reference import wire
from mutants.patching import _result, _text, _transform_call_result
from mutants.registry import mutant


@mutant(
    "text_disagrees",
    "PLC-2",
    'The result object is found where the contract allows and is consistent [{"conversationId": "{alpha}"}]',
    "the JSON text block has a different totalChars than structuredContent",
)
def _() -> None:
    def transform(result: types.CallToolResult) -> types.CallToolResult:
        data = dict(result.structured_content or {})
        if data.get("ok"):
            data["totalChars"] += 1
        return _result(result, content=[_text(wire.dumps(data))])

    _transform_call_result(transform)


@mutant(
    "text_not_json_only",
    "PLC-1",
    "The result object is found where the contract allows and is consistent",
    "the result is only a Python repr in a text block (no JSON, no structuredContent)",
)
def _() -> None:
    _transform_call_result(
        lambda r: types.CallToolResult(content=[_text(repr(r.structured_content))], is_error=r.is_error)
    )


@mutant(
    "structured_only_strict",
    "PLC-3",
    'The result object is both structured content and JSON text [{"conversationId": "{alpha}"}]',
    "the result is only structuredContent (allowed, but a SHOULD: fails only with --strict)",
    should=True,
)
def _() -> None:
    _transform_call_result(lambda r: _result(r, content=[]))


@mutant(
    "json_blocks_disagree",
    "PLC-2",
    "The result object is found where the contract allows and is consistent",
    "no structuredContent; two JSON text blocks, the second with a different totalChars",
)
def _() -> None:
    def transform(result: types.CallToolResult) -> types.CallToolResult:
        data = dict(result.structured_content or {})
        other = {**data, "totalChars": data["totalChars"] + 1} if data.get("ok") else {**data, "ok": True}
        blocks = [_text(wire.dumps(data)), _text(wire.dumps(other))]
        return types.CallToolResult(content=blocks, is_error=result.is_error)

    _transform_call_result(transform)


@mutant(
    "output_schema_with_text_only",
    "PLC-4",
    "A tool that declares an output schema returns structured content valid against it",
    "the tool declares an outputSchema but sends the result object only as JSON text",
)
def _() -> None:
    _transform_call_result(lambda r: types.CallToolResult(content=r.content, is_error=r.is_error))


@mutant(
    "structured_content_off_schema",
    "PLC-4",
    'A tool that declares an output schema returns structured content valid against it [{"conversationId": "!!"}]',
    "error results carry structuredContent {ok: false, error: {code}} without the message the outputSchema requires",
)
def _() -> None:
    def transform(result: types.CallToolResult) -> types.CallToolResult:
        data = dict(result.structured_content or {})
        if data.get("ok") is False:
            data = {"ok": False, "error": {"code": data["error"]["code"]}}
            return _result(result, structured_content=data, content=[_text(wire.dumps(data))])
        return result

    _transform_call_result(transform)


@mutant(
    "tool_error_text_only",
    "PLC-4",
    'A tool that declares an output schema returns structured content valid against it [{"conversationId": "!!"}]',
    "errors are the contract's object as JSON text only, no structuredContent, while the outputSchema is declared "
    "(fastmcp for Python: a raised ToolError)",
)
def _() -> None:
    def transform(result: types.CallToolResult) -> types.CallToolResult:
        if not result.is_error:
            return result
        return types.CallToolResult(content=[_text(wire.dumps(result.structured_content))], is_error=True)

    _transform_call_result(transform)

