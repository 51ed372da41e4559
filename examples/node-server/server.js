#!/usr/bin/env node
// A minimal MCP server with one tool, ccweb_list_user_inputs, over stdio, as cc-web runs
// its per-agent-session MCP server:
//
//   CC_WEB_SESSIONS_DIR  the folder of session files <id>.json (required)
//   CCWEB_SESSION_ID     the conversation this agent runs in (the default conversation)
//
// It uses the SDK's low-level Server rather than McpServer.registerTool: registerTool
// validates (and with zod, may coerce) arguments before the tool sees them and answers
// with its own error text, while the contract wants the raw arguments checked against
// its JSON Schema and every failure returned as {"ok": false, "error": {...}}.

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { TOOL, TOOL_NAME } from './contract.js';
import { callTool, SessionStore } from './list-user-inputs.js';

const sessionsDir = process.env.CC_WEB_SESSIONS_DIR;
if (!sessionsDir) {
  console.error('ccweb_list_user_inputs: set CC_WEB_SESSIONS_DIR to the cc-web sessions folder');
  process.exit(2);
}
// Read once at start: one server process belongs to one agent session.
const sourceConversation = process.env.CCWEB_SESSION_ID;
const store = new SessionStore(sessionsDir);

const server = new Server(
  { name: 'ccweb-node-example', version: '1.0.0' },
  { capabilities: { tools: {} } },
);

server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [TOOL] }));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: rawArguments } = request.params;
  if (name !== TOOL_NAME) {
    // An unknown tool is a protocol error, not a tool result (ERR-3).
    throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  }
  const { result, isError } = await callTool(store, rawArguments, sourceConversation);
  // D-10: the same object twice, as structuredContent and as the JSON text of one block.
  // JSON.stringify writes a lone surrogate as a \uXXXX escape, so it survives the trip.
  return {
    content: [{ type: 'text', text: JSON.stringify(result) }],
    structuredContent: result,
    isError,
  };
});

const transport = new StdioServerTransport();
await server.connect(transport);

// D-13: the SDK as it comes. Its own request validation answers a tools/call whose arguments
// are not an object with -32603 before the handler above runs: never a success, and the server
// keeps serving, which is what ARG-6 (MUST) asks. -32602 would meet the SHOULD (ARG-8) too; the
// runner warns and names the SDK, and no transport patch is needed to conform.
