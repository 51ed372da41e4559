"""Mutants killed by scenarios of features/ccweb_features/ac01_tool_definition.feature."""

from __future__ import annotations

import copy
from typing import Any

import mcp_types as types

from ccweb_conformance.transport.versions import MODERN_VERSION
from ccweb_reference import server
from mutants.patching import Handler, _edit_tool, _wrap_handler
from mutants.registry import mutant


@mutant(
    "tool_renamed", "TOOL-1", "The tool is listed under its contract name", "the tool is listed as ccweb_list_inputs"
)
def _() -> None:
    _edit_tool(lambda t: t.update(name="ccweb_list_inputs"))


@mutant(
    "schema_limit_max_100",
    "TOOL-2",
    "The input schema declares exactly the contract's arguments",
    "the input schema declares limit maximum 100",
)
def _() -> None:
    _edit_tool(lambda t: t["inputSchema"]["properties"]["limit"].update(maximum=100))


@mutant(
    "schema_extra_property",
    "TOOL-2",
    "The input schema declares exactly the contract's arguments",
    "the input schema declares a cursor property the contract does not have",
)
def _() -> None:
    _edit_tool(lambda t: t["inputSchema"]["properties"].update(cursor={"type": "string"}))


@mutant(
    "schema_open",
    "TOOL-2",
    "The input schema declares exactly the contract's arguments",
    "the input schema does not forbid additional properties",
)
def _() -> None:
    _edit_tool(lambda t: t["inputSchema"].pop("additionalProperties"))


@mutant(
    "description_without_purpose",
    "TOOL-3",
    "The description states the default, the 15 inputs, the budget and the purpose",
    "the description drops the sentence about checking work against the user's requirements",
)
def _() -> None:
    _edit_tool(lambda t: t.update(description=t["description"].split(" Use it to check")[0]))


@mutant(
    "description_budget_per_item",
    "TOOL-3",
    "The description states the default, the 15 inputs, the budget and the purpose",
    "the description states the 1,000-character budget per input instead of in total",
)
def _() -> None:
    _edit_tool(lambda t: t.update(description=t["description"].replace(" in total,", " for each input,")))


@mutant(
    "description_assistant_replies",
    "TOOL-3",
    "The description states the default, the 15 inputs, the budget and the purpose",
    "the description promises the latest 15 assistant replies instead of user inputs",
)
def _() -> None:
    _edit_tool(lambda t: t.update(description=t["description"].replace("15 user inputs", "15 assistant replies")))


@mutant(
    "description_default_latest_conversation",
    "TOOL-3",
    "The description states the default, the 15 inputs, the budget and the purpose",
    "the description names the most recently updated conversation as the default",
)
def _() -> None:
    old = "by default the current conversation (the one this agent runs in)"
    new = "by default the most recently updated one"
    _edit_tool(lambda t: t.update(description=t["description"].replace(old, new)))


@mutant(
    "no_read_only_hint",
    "TOOL-4",
    "The tool is annotated as read-only",
    "annotations.readOnlyHint is missing (SHOULD)",
    should=True,
)
def _() -> None:
    _edit_tool(lambda t: t["annotations"].pop("readOnlyHint"))


@mutant(
    "no_output_schema",
    "TOOL-5",
    "The declared output schema accepts every result the server returns",
    "no outputSchema is declared (SHOULD)",
    should=True,
)
def _() -> None:
    _edit_tool(lambda t: t.pop("outputSchema"))


@mutant(
    "output_schema_success_only",
    "TOOL-5",
    "The declared output schema accepts every result the server returns",
    "the outputSchema accepts only the success object, not the error object (SHOULD)",
    should=True,
)
def _() -> None:
    def edit(definition: dict[str, Any]) -> None:
        bundled = definition["outputSchema"]
        bundled["oneOf"] = bundled["oneOf"][:1]

    _edit_tool(edit)


@mutant(
    "no_contract_version",
    "PROTO-3",
    "The tool reports the contract version it implements",
    "the tool's _meta has no contract version (SHOULD)",
    should=True,
)
def _() -> None:
    _edit_tool(lambda t: t.pop("_meta"))


@mutant(
    "schema_limit_max_100_after_initialize",
    "TOOL-2",
    "The input schema declares exactly the contract's arguments",
    "the input schema declares limit maximum 100, only on connections that began with initialize (D-16)",
)
def _() -> None:
    def wrap(handler: Handler) -> Handler:
        async def list_tools(ctx: Any, params: Any) -> Any:
            result = await handler(ctx, params)
            if ctx.protocol_version == MODERN_VERSION:
                return result
            tools = []
            for tool in result.tools:
                schema = copy.deepcopy(tool.input_schema)
                schema["properties"]["limit"]["maximum"] = 100
                tools.append(tool.model_copy(update={"input_schema": schema}))
            return result.model_copy(update={"tools": tools})

        return list_tools

    _wrap_handler("tools/list", wrap)


@mutant(
    "conversation_id_required",
    "TOOL-2",
    "The input schema declares exactly the contract's arguments",
    'the input schema marks conversationId required ("required": ["conversationId"])',
)
def _() -> None:
    _edit_tool(lambda t: t["inputSchema"].update(required=["conversationId"]))


@mutant(
    "tool_listed_twice",
    "TOOL-1",
    "The tool is listed under its contract name",
    "tools/list lists the tool twice, the second copy with a wrong limit maximum (a reader of the first sees no fault)",
)
def _() -> None:
    def wrap(handler: Handler) -> Handler:
        async def list_tools(ctx: Any, params: Any) -> Any:
            listed = await handler(ctx, params)
            second = copy.deepcopy(server.TOOL)
            second["inputSchema"]["properties"]["limit"]["maximum"] = 100
            return types.ListToolsResult(tools=[*listed.tools, types.Tool.model_validate(second, by_name=False)])

        return list_tools

    _wrap_handler("tools/list", wrap)


@mutant(
    "tool_listing_grows",
    "TOOL-1",
    "The tool is listed under its contract name",
    "every tools/list call lists the tool once more (a package-level list appended to on each request, as a Go"
    " slice easily is): the first listing is right",
)
def _() -> None:
    calls = [0]

    def wrap(handler: Handler) -> Handler:
        async def list_tools(ctx: Any, params: Any) -> Any:
            listed = await handler(ctx, params)
            calls[0] += 1
            return types.ListToolsResult(tools=[*listed.tools, *[listed.tools[0]] * (calls[0] - 1)])

        return list_tools

    _wrap_handler("tools/list", wrap)
