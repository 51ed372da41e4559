#!/usr/bin/env node
// ccweb_list_user_inputs over stdio on the official TypeScript SDK v2
// (@modelcontextprotocol/server), in both MCP eras: 2025-06-18 / 2025-11-25 (initialize)
// and 2026-07-28 (server/discover, per-request _meta). serveStdio picks the era from the
// client's opening message and pins one McpServer from the factory for the connection.
//
//   CC_WEB_SESSIONS_DIR  the folder of session files <id>.json (required)
//   CCWEB_SESSION_ID     the conversation this agent runs in (the default conversation)
//
// The tool's logic is the Node example's (examples/node-server), imported, not copied:
// argument validation against the contract's JSON Schema, the selection and budget rules,
// the read-only store with its D-14 re-read window (250 ms, the contract asks for >= 200 ms).

import { fromJsonSchema, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { INPUT_SCHEMA, OUTPUT_SCHEMA, TOOL } from '../../examples/node-server/contract.js';
import { callTool, SessionStore } from '../../examples/node-server/list-user-inputs.js';

const sessionsDir = process.env.CC_WEB_SESSIONS_DIR;
if (!sessionsDir) {
  console.error('ccweb_list_user_inputs: set CC_WEB_SESSIONS_DIR to the cc-web sessions folder');
  process.exit(2);
}
// Read once at start: one stdio server process belongs to one agent session.
const sourceConversation = process.env.CCWEB_SESSION_ID;
const store = new SessionStore(sessionsDir);

// D-13 (note of 2026-12-05): McpServer answers a failed input schema with a plain-text tool
// error (no structuredContent, no code), which the contract does not accept. So tools/list
// shows the contract's input schema as it is, the SDK lets every argument object through
// untouched (no coercion, no defaults), and the handler validates it strictly (D-6) and
// answers {"ok": false, "error": {"code": "invalid_arguments", "field", ...}}. Arguments that
// are not an object never reach the handler: the SDK's request validation answers -32602.
const passThrough = { getValidator: () => (input) => ({ valid: true, data: input, errorMessage: undefined }) };
const inputSchema = fromJsonSchema(INPUT_SCHEMA, passThrough);
// The output schema (success or error object) is checked by the SDK's own validator on
// every success, as McpServer does for any tool that declares one.
const outputSchema = fromJsonSchema(OUTPUT_SCHEMA);

function createServer() {
  const server = new McpServer({ name: 'ccweb-node-sdk-v2', version: '1.0.0' });
  server.registerTool(
    TOOL.name,
    {
      title: TOOL.title,
      description: TOOL.description,
      inputSchema,
      outputSchema,
      annotations: TOOL.annotations,
      _meta: TOOL._meta,
    },
    async (rawArguments) => {
      const { result, isError } = await callTool(store, rawArguments, sourceConversation);
      // D-10: the same object twice, as structuredContent and as the JSON text of one block.
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result, isError };
    },
  );
  return server;
}

serveStdio(createServer, { onerror: (error) => console.error(`ccweb-node-sdk-v2: ${error.message}`) });
