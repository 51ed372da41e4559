// The contract's cases in node:test: copy this one file into your project, point it at your
// tool function, and the whole contract of ccweb_list_user_inputs runs in your own suite.
//
//   import { contractCases } from './contract-cases.js';
//   contractCases(new URL('./cases.json', import.meta.url), (sessionsDir, sourceId, args) => myTool(sessionsDir, sourceId, args));
//
// cases.json comes from `ccweb-conformance export` (the kit's features, recorded against its
// reference). How a case runs is written in the kit's docs/CASES.md; in short: each case gets
// a fresh folder, its steps write files and links there, and each call's result must match
// what the case expects (extra fields allowed, key order free, a lone surrogate may come back
// as U+FFFD), and must change no file.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const FORMAT = 1;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** D-3: compare with every lone surrogate read as U+FFFD, on both sides. */
const fffd = (value) => {
  if (typeof value === 'string') return value.replace(LONE_SURROGATE, '\uFFFD');
  if (Array.isArray(value)) return value.map(fffd);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fffd(v)]));
  }
  return value;
};

const show = (value) => JSON.stringify(value);

/** Where `got` differs from `expected`: missing or different contract fields (extra ones are fine). */
export function differences(expected, got, at = '$') {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) return [`${at}: expected an object, got ${show(got)}`];
    return Object.entries(expected).flatMap(([key, value]) => (key in got
      ? differences(value, got[key], `${at}.${key}`)
      : [`${at}.${key}: missing`]));
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(got) || got.length !== expected.length) {
      return [`${at}: expected ${expected.length} elements, got ${show(got)}`];
    }
    return expected.flatMap((value, i) => differences(value, got[i], `${at}[${i}]`));
  }
  return Object.is(expected, got) || expected === got ? [] : [`${at}: expected ${show(expected)}, got ${show(got)}`];
}

/** What is wrong with one call's result, or [] when it conforms. */
export function callProblems(expect, got) {
  if ('result' in expect) return differences(fffd(expect.result), fffd(got));
  const error = got?.ok === false ? got.error : undefined;
  if (error === null || typeof error !== 'object') {
    return [`$: expected an error object with code "${expect.error}", got ${show(got)}`];
  }
  const problems = [];
  if (typeof error.message !== 'string' || error.message === '') {
    problems.push(`$.error.message: expected a non-empty string, got ${show(error.message)}`);
  }
  if (error.code !== expect.error) problems.push(`$.error.code: expected "${expect.error}", got ${show(error.code)}`);
  if (expect.field && !expect.field.includes(error.field)) {
    problems.push(`$.error.field: expected one of ${show(expect.field)}, got ${show(error.field)}`);
  }
  return problems;
}

// The harness's own file work (steps, snapshots, the case folder) is synchronous: it is a few
// small files per case, and kept off libuv's four-thread pool, which the function under test
// needs when every case runs at once.
function applyStep(root, step) {
  const target = path.join(root, step.path);
  switch (step.op) {
    case 'mkdir': return fs.mkdirSync(target);
    case 'write': {
      const before = step.keepMtime ? fs.statSync(target) : null;
      fs.writeFileSync(target, 'utf8' in step ? Buffer.from(step.utf8, 'utf8') : Buffer.from(step.base64, 'base64'));
      return before && fs.utimesSync(target, before.atime, before.mtime); // same size and time, new bytes (REG-2)
    }
    case 'symlink': return fs.symlinkSync(step.target, target);
    case 'chmod': return fs.chmodSync(target, step.mode);
    case 'remove': return fs.rmSync(target, { recursive: true, force: false });
    default: throw new Error(`unknown operation ${step.op}: update contract-cases.js`);
  }
}

/** Every entry under root with its bytes, link target and mode, as one text: a call must change none. */
function snapshot(root) {
  const entries = [];
  const walk = (folder) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      const key = path.relative(root, full);
      if (entry.isSymbolicLink()) entries.push(`${key} link:${fs.readlinkSync(full)}`);
      else if (entry.isDirectory()) { entries.push(`${key} dir`); walk(full); }
      else {
        const stat = fs.lstatSync(full);
        entries.push(`${key} file:${stat.size}:${stat.mtimeMs}:${stat.mode}`);
      }
    }
  };
  walk(root);
  return entries.join('\n');
}

const MEMORY_BACKED = '/dev/shm';

/** Where case folders go: $CCWEB_CASES_TMPDIR if set; else Linux's memory-backed /dev/shm when it is
 * writable (a folder costs microseconds there, against milliseconds on a busy disk: the disk made
 * 193 cases take seconds); else the system's temporary folder. */
function casesParent() {
  if (process.env.CCWEB_CASES_TMPDIR) return process.env.CCWEB_CASES_TMPDIR;
  try {
    fs.accessSync(MEMORY_BACKED, fs.constants.W_OK);
    return MEMORY_BACKED;
  } catch {
    return os.tmpdir();
  }
}

let parent;
const liveRoots = new Set();
let cleanupInstalled = false;

/** Remove every case folder still in use: on exit, and on SIGINT, SIGTERM or SIGHUP (the process then
 * dies of the signal as it would have), so a stopped run leaves no folder behind. */
function installCleanup() {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  const removeAll = () => {
    for (const root of liveRoots) fs.rmSync(root, { recursive: true, force: true });
    liveRoots.clear();
  };
  process.on('exit', removeAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      removeAll();
      process.kill(process.pid, signal);
    });
  }
}

/** Replay one case against `call` in a fresh folder of its own; the problems found ([] when it passes). */
export async function replayCase(kase, call, sessionsFolder = 'sessions') {
  parent ??= casesParent();
  installCleanup();
  const root = fs.mkdtempSync(path.join(parent, 'ccweb-case-'));
  liveRoots.add(root);
  const problems = [];
  try {
    fs.mkdirSync(path.join(root, sessionsFolder));
    for (const [number, step] of kase.steps.entries()) {
      if (step.op !== 'call') { applyStep(root, step); continue; }
      const before = snapshot(root);
      const sent = `call ${show(step.arguments ?? null)} with source ${show(step.source)}`;
      try {
        const got = await call(path.join(root, sessionsFolder), step.source, step.arguments);
        problems.push(...callProblems(step.expect, got).map((p) => `step ${number} (${sent}): ${p}`));
      } catch (error) {
        problems.push(`step ${number} (${sent}): the function threw ${error?.stack ?? error}`);
      }
      if (snapshot(root) !== before) problems.push(`step ${number} (${sent}): the call changed the files (RO-1, RO-2)`);
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    liveRoots.delete(root);
  }
  return problems;
}

/** Register one node:test test per function-level case of the export at `casesFile`. */
export function contractCases(casesFile, call, { only } = {}) {
  const document = JSON.parse(fs.readFileSync(casesFile, 'utf8'));
  if (document.format !== FORMAT) throw new Error(`cases format ${document.format}, this harness reads ${FORMAT}`);
  // Each case has a folder of its own, so every case runs at once: the function's waits overlap
  // (an unreadable file is read again for a quarter of a second, D-14), and the run takes about
  // as long as its slowest case.
  const concurrency = Math.max(1, document.cases.length);
  describe(`ccweb_list_user_inputs contract ${document.contractVersion} (kit ${document.kitVersion})`, { concurrency }, () => {
    for (const kase of document.cases) {
      if (only && !only(kase)) continue;
      test(`${kase.id} [${kase.requirements.join(' ')}]`, async () => {
        const problems = await replayCase(kase, call, document.sessionsDir);
        if (problems.length) assert.fail(`${kase.id}\n  requirements ${kase.requirements.join(', ')}\n  ${problems.join('\n  ')}`);
      });
    }
  });
  return document;
}
