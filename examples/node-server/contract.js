// The contract of ccweb_list_user_inputs as data: the tool definition that tools/list shows
// and the strict argument validator (D-6).
//
// The JSON files in ./contract/ are verbatim copies of the contract kit's spec files
// (spec/tool.json and spec/schemas/{input,success,error}.schema.json); the kit's test
// tests/test_node_example.py fails when they drift. Copy the folder along with this file.

import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';

const readContract = (name) => JSON.parse(readFileSync(new URL(`./contract/${name}`, import.meta.url), 'utf8'));

const toolJson = readContract('tool.json');
export const INPUT_SCHEMA = readContract('input.schema.json');
const SUCCESS_SCHEMA = readContract('success.schema.json');
const ERROR_SCHEMA = readContract('error.schema.json');

/** The output schema: success or error object, bundled as JSON Schema 2020-12 does it
 * (each schema embedded under $defs with its own $id and referenced by that $id). */
export const OUTPUT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  oneOf: [{ $ref: SUCCESS_SCHEMA.$id }, { $ref: ERROR_SCHEMA.$id }],
  $defs: { success: SUCCESS_SCHEMA, error: ERROR_SCHEMA },
};

/** The tool exactly as tools/list must show it: name, title, description, annotations,
 * _meta (contract version), inputSchema and outputSchema. */
export const TOOL = { ...toolJson, inputSchema: INPUT_SCHEMA, outputSchema: OUTPUT_SCHEMA };

export const TOOL_NAME = TOOL.name;

// Defaults come from the schema, never restated here.
const DEFAULTS = {
  limit: INPUT_SCHEMA.properties.limit.default,
  maxChars: INPUT_SCHEMA.properties.maxChars.default,
};

// allErrors: false stops at the first error, which is enough to name one offending field.
// No coercion and no defaults inside ajv: "15", true and null must be rejected as they are.
const ajv = new Ajv2020({ allErrors: false, strict: true });
const validateInput = ajv.compile(INPUT_SCHEMA);

/** The argument ajv blames for its first error: the unknown property's name, or the first
 * segment of the instance path ("/limit" -> "limit"). */
function offendingField(error) {
  if (error.keyword === 'additionalProperties') return error.params.additionalProperty;
  const segment = error.instancePath.split('/')[1];
  return segment ? segment.replace(/~1/g, '/').replace(/~0/g, '~') : 'arguments';
}

/**
 * Validate the raw tool arguments (undefined when the request had no arguments field).
 * Returns { ok: true, conversationId, limit, maxChars } with defaults applied, or
 * { ok: false, field, message } naming one offending argument.
 */
export function parseArguments(raw) {
  const args = raw === undefined || raw === null ? {} : raw;
  if (!validateInput(args)) {
    const [error] = validateInput.errors;
    const field = offendingField(error);
    return { ok: false, field, message: `invalid argument '${field}': ${error.message}` };
  }
  return {
    ok: true,
    conversationId: args.conversationId, // undefined when absent: use the source conversation
    // A JSON 15.0 is the JS number 15, an integer in JSON Schema 2020-12: echoed as 15.
    limit: args.limit ?? DEFAULTS.limit,
    maxChars: args.maxChars ?? DEFAULTS.maxChars,
  };
}
