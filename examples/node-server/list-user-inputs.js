// ccweb_list_user_inputs without MCP: arguments + source conversation + sessions directory
// -> the result object. The D-n / requirement IDs in comments point at the contract kit
// (its spec/requirements.yaml and DESIGN decisions).
//
// It only ever reads: no write, no "load and save" helper, nothing outside the directory.

import { constants as fsConstants, promises as fs } from 'node:fs';
import path from 'node:path';
import { parseArguments } from './contract.js';

/** A contract error: becomes {"ok": false, "error": {...}} with isError: true (D-9). */
export class ToolError extends Error {
  constructor(code, message, field) {
    super(message);
    this.code = code;
    this.field = field;
  }

  toObject() {
    const error = { code: this.code, message: this.message };
    if (this.field !== undefined) error.field = this.field;
    return { ok: false, error };
  }
}

// ---------------------------------------------------------------------------------------
// The rules (pure, no I/O)
// ---------------------------------------------------------------------------------------

/** cc-web's own ID cleaning: drop every character outside [A-Za-z0-9-] (SRC-4). */
export const cleanId = (raw) => raw.replace(/[^A-Za-z0-9-]/g, '');

/** Length in Unicode code points (UNI-1): the string iterator walks code points, so an
 * emoji outside the BMP is 1 and a lone surrogate is 1. Never use str.length here. */
const codePoints = (text) => Array.from(text);

const nonEmptyString = (value) => (typeof value === 'string' && value !== '' ? value : null);

/** Whether a stored message is a candidate (D-1, SEL-1..3): a user message whose string
 * content has a character that String.prototype.trim keeps. */
function isCandidate(message) {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return false;
  if (message.role !== 'user' || typeof message.content !== 'string') return false;
  return message.content.trim() !== ''; // ECMAScript whitespace only: blank
}

/** A candidate's code points and fields. Only the latest `limit` candidates get here: the
 * code points of a 66 MB conversation's every message would cost time and memory for nothing. */
function candidateOf(message) {
  return {
    chars: codePoints(message.content),
    content: message.content,
    messageId: nonEmptyString(message.id), // RES-4
    createdAt: nonEmptyString(message.timestamp) ?? nonEmptyString(message.createdAt), // RES-5, never reformatted
  };
}

function item(candidate, chars) {
  return {
    messageId: candidate.messageId,
    createdAt: candidate.createdAt,
    content: chars.length === candidate.chars.length ? candidate.content : chars.join(''),
    contentChars: chars.length,
    originalChars: candidate.chars.length,
    truncated: chars.length < candidate.chars.length,
  };
}

/** The success object for the stored messages under limit and maxChars (D-2, D-4). */
export function listUserInputs(conversationId, messages, limit, maxChars) {
  const found = messages.filter(isCandidate);
  const window = found.slice(-limit).map(candidateOf); // SEL-6: the latest `limit` candidates
  const newestFirst = [];
  let remaining = maxChars;
  for (const candidate of window.reverse()) { // BUD-1: newest to oldest
    if (remaining === 0) break; // BUD-3: never an empty item
    if (candidate.chars.length <= remaining) {
      newestFirst.push(item(candidate, candidate.chars));
      remaining -= candidate.chars.length;
      continue;
    }
    newestFirst.push(item(candidate, candidate.chars.slice(0, remaining))); // BUD-2: cut, then stop
    break;
  }
  const items = newestFirst.reverse(); // SEL-7: oldest to newest
  const returnedInFull = items.filter((i) => !i.truncated).length;
  return {
    ok: true,
    conversationId,
    requestedLimit: limit,
    maxChars,
    totalChars: items.reduce((sum, i) => sum + i.contentChars, 0), // BUD-4
    returnedCount: items.length,
    hasMore: returnedInFull < found.length, // RES-3: older, truncated or skipped candidates
    items,
  };
}

/** The cleaned ID to read: the explicit one, else the source conversation (D-7). */
export function targetConversation(explicit, source) {
  if (explicit !== undefined) {
    const cleaned = cleanId(explicit);
    if (!cleaned) {
      // SRC-5: never fall back to the source conversation here.
      throw new ToolError('invalid_conversation_id', 'conversationId is empty after removing characters outside [A-Za-z0-9-]');
    }
    return cleaned;
  }
  const cleaned = cleanId(source ?? '');
  if (!cleaned) {
    throw new ToolError('missing_source_conversation', 'no conversationId was given and no source conversation is bound');
  }
  return cleaned;
}

// ---------------------------------------------------------------------------------------
// The store: <sessions dir>/<id>.json, read-only
// ---------------------------------------------------------------------------------------

const notFound = (id) => new ToolError('conversation_not_found', `no conversation '${id}' in the sessions directory`);
const unreadable = (why) => new ToolError('conversation_unreadable', `the conversation file cannot be used: ${why}`);

// fatal: invalid UTF-8 throws instead of becoming U+FFFD. A leading BOM is dropped by the
// decoder itself (ignoreBOM defaults to false), which is what D-8 asks for.
const utf8 = new TextDecoder('utf-8', { fatal: true });
const REREAD_WINDOW_MS = 250;
const MAX_PAUSE_MS = 16;
// Results of unchanged files are kept, so a repeated call costs a stat, not a read of the
// whole conversation (the kit's advisory budgets PERF-2, PERF-3, PERF-6). A file changed less
// than SETTLE_MS ago is never kept: on a file system with coarse timestamps two writes within
// one tick could leave the same times behind (REG-2).
const SETTLE_MS = 2000;
const CACHE_SIZE = 64;

/** The messages of a conversation file's bytes (D-8, STO-1..3). */
export function parseConversation(bytes) {
  let document;
  try {
    document = JSON.parse(utf8.decode(bytes));
  } catch (error) {
    throw unreadable(`not valid UTF-8 JSON (${error.message})`);
  }
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw unreadable('it does not hold a JSON object');
  }
  const { messages } = document;
  if (messages === undefined || messages === null) return []; // no messages yet
  if (!Array.isArray(messages)) throw unreadable('its messages field is not an array');
  return messages;
}

/** Read-only access to one cc-web sessions directory. */
export class SessionStore {
  constructor(sessionsDir) {
    this.sessionsDir = sessionsDir;
    this.results = new Map(); // version key -> success object, oldest first
  }

  /** What identifies this version of <id>.json (its real path, device, inode, size, mtime and
   * ctime, to the nanosecond), and when it last changed; null when it is not a readable file.
   * Any write, rename or link change moves one of them, so a changed file never hits. */
  async version(id) {
    try {
      const real = await this.resolve(id);
      const info = await fs.stat(real, { bigint: true });
      if (!info.isFile()) return null;
      const changedNs = info.mtimeNs > info.ctimeNs ? info.mtimeNs : info.ctimeNs;
      return { key: [real, info.dev, info.ino, info.size, info.mtimeNs, info.ctimeNs].join('|'), changedNs };
    } catch {
      return null; // not found or unreadable: the read below says which, never from a cache
    }
  }

  cached(key) {
    const result = this.results.get(key);
    return result === undefined ? undefined : structuredClone(result);
  }

  remember(key, result) {
    this.results.delete(key);
    this.results.set(key, structuredClone(result));
    if (this.results.size > CACHE_SIZE) this.results.delete(this.results.keys().next().value);
  }

  /** The real path of <id>.json when it is inside the sessions directory (SRC-7). */
  async resolve(id) {
    let root;
    let real;
    try {
      root = await fs.realpath(this.sessionsDir);
      real = await fs.realpath(path.join(root, `${id}.json`));
    } catch {
      throw notFound(id); // missing, name too long, a link loop: no such conversation
    }
    const relative = path.relative(root, real);
    const outside = relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
    if (!relative || outside) {
      throw notFound(id); // a link that leads outside: never read it
    }
    return real;
  }

  /**
   * D-14 (STO-5): cc-web saves a session by truncating and rewriting it, so a read can catch
   * a half-written file. One that does not parse, or whose file changed while it was read,
   * is read again, with short pauses, until REREAD_WINDOW_MS have passed since the first read
   * (the contract asks for at least 200 ms).
   */
  async readMessages(id) {
    const started = Date.now();
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.readOnce(id);
      } catch (error) {
        const torn = error instanceof ToolError && error.code === 'conversation_unreadable' && error.torn;
        if (!torn || Date.now() - started >= REREAD_WINDOW_MS) throw error;
        await new Promise((done) => setTimeout(done, Math.min(2 ** (attempt - 1), MAX_PAUSE_MS)));
      }
    }
  }

  async readOnce(id) {
    const real = await this.resolve(id);
    let handle;
    try {
      // O_NOFOLLOW: a link swapped in after realpath is not followed. O_NONBLOCK: a FIFO
      // does not hang the open; it is rejected as not a regular file below.
      handle = await fs.open(real, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK);
    } catch (error) {
      if (['ENOENT', 'ELOOP', 'ENAMETOOLONG', 'ENOTDIR', 'EISDIR'].includes(error.code)) throw notFound(id);
      throw unreadable(error.code ?? error.message); // EACCES and the like
    }
    try {
      const before = await handle.stat();
      if (!before.isFile()) throw notFound(id); // SRC-6: a directory or a device
      const bytes = await handle.readFile();
      const after = await fs.stat(real).catch(() => null);
      const changed = !after || after.ino !== before.ino || after.size !== before.size || bytes.length !== before.size;
      try {
        if (changed) throw unreadable('the file changed while it was read');
        return parseConversation(bytes);
      } catch (error) {
        if (error instanceof ToolError) error.torn = true; // worth another read (readMessages)
        throw error;
      }
    } catch (error) {
      if (error instanceof ToolError) throw error;
      throw unreadable(error.code ?? error.message);
    } finally {
      await handle.close();
    }
  }
}

/**
 * One tool call: raw arguments + source conversation ID (uncleaned, or undefined) ->
 * { result, isError }. Checks run in the contract's order: arguments, ID, file (D-6).
 */
export async function callTool(store, rawArguments, source) {
  try {
    const args = parseArguments(rawArguments);
    if (!args.ok) throw new ToolError('invalid_arguments', args.message, args.field);
    const id = targetConversation(args.conversationId, source);
    const version = await store.version(id);
    const key = version && [id, args.limit, args.maxChars, version.key].join('|');
    const hit = key && store.cached(key);
    if (hit) return { result: hit, isError: false };
    const messages = await store.readMessages(id);
    const result = listUserInputs(id, messages, args.limit, args.maxChars);
    const settled = version && Date.now() - Number(version.changedNs / 1000000n) > SETTLE_MS;
    if (settled && (await store.version(id))?.key === version.key) store.remember(key, result); // unchanged while read
    return { result, isError: false };
  } catch (error) {
    if (error instanceof ToolError) return { result: error.toObject(), isError: true };
    throw error;
  }
}
