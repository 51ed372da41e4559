// The contract's cases in node:test: copy this one file into your project, point it at your
// tool function, and the whole contract of ccweb_list_user_inputs runs in your own suite.
//
//   import { contractCases } from './contract-cases.js';
//   contractCases(new URL('./cases.json', import.meta.url), (sessionsDir, sourceId, args) => myTool(sessionsDir, sourceId, args));
//
// cases.json comes from `ccweb-conformance export` (the kit's features, recorded against its
// reference). How a case runs is written in CASES.md, shipped with the kit (`ccweb-conformance export --help`
// names its path); in short: each case gets
// a fresh folder, its steps write files and links there, and each call's result must match
// what the case expects (extra fields allowed, key order free, a lone surrogate may come back
// as U+FFFD), and must change nothing: no byte, size, time (exact, in nanoseconds), inode or mode of
// any entry, and no entry created even for the length of the call (the folders are watched).
//
// Each case has a time bound (30 s, or $CCWEB_CASE_TIMEOUT_MS, or the `timeoutMs` option): a call
// still unanswered then fails its case, and a run in which a call hung ends once its tests are
// done, whatever the hung function left running. A stopped run (SIGINT, SIGTERM, SIGHUP, to the
// process or its whole process group, as `timeout` and CI cancels send) removes every case folder.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const FORMAT = 2;
const DEFAULT_CASE_TIMEOUT_MS = 30_000;
const HUNG_EXIT_GRACE_MS = 1_000;
const BACKSTOP_MS = 30_000;
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

/** A `write`: the bytes in place (the same inode) or, with `replace`, through a new file renamed over it;
 * then the modification time, always a whole second (so it is restored exactly: a `Date` or a number of
 * seconds carries no nanoseconds): the old one with `keepMtime`, else `ageSeconds` before the current second. */
function writeFile(target, step) {
  const data = 'utf8' in step ? Buffer.from(step.utf8, 'utf8') : Buffer.from(step.base64, 'base64');
  const before = step.keepMtime ? fs.statSync(target, { bigint: true }) : null;
  if (step.replace) {
    const temporary = `${target}.ccweb-replace`;
    fs.writeFileSync(temporary, data);
    fs.renameSync(temporary, target);
  } else {
    fs.writeFileSync(target, data);
  }
  if (before) {
    const seconds = (ns) => Number(ns / 1_000_000_000n) + Number(ns % 1_000_000_000n) / 1e9;
    fs.utimesSync(target, seconds(before.atimeNs), seconds(before.mtimeNs));
    const after = fs.statSync(target, { bigint: true });
    if (after.mtimeNs !== before.mtimeNs) throw new Error(`${step.path}: could not restore its modification time exactly`);
  } else {
    const then = Math.floor(Date.now() / 1000) - (step.ageSeconds ?? 0);
    fs.utimesSync(target, then, then);
  }
}

function applyStep(root, step) {
  const target = path.join(root, step.path);
  switch (step.op) {
    case 'mkdir': return fs.mkdirSync(target);
    case 'write': return writeFile(target, step);
    case 'symlink': return fs.symlinkSync(step.target, target);
    case 'chmod': return fs.chmodSync(target, step.mode);
    case 'remove': return fs.rmSync(target, { recursive: true, force: false });
    default: throw new Error(`unknown operation ${step.op}: update contract-cases.js`);
  }
}

/** The SHA-256 of a file's bytes, or '-' when nobody may read it (its times still show any write). */
function digest(file) {
  try {
    return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
  } catch (error) {
    if (error.code === 'EACCES' || error.code === 'EPERM') return '-';
    throw error;
  }
}

/** Every entry under root, each with what a call may not change (RO-1, RO-2): kind, size, the exact
 * modification and change times in nanoseconds, inode, mode, the bytes' SHA-256, a link's target. */
function snapshot(root) {
  const entries = new Map();
  const walk = (folder) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      const key = path.relative(root, full);
      const stat = fs.lstatSync(full, { bigint: true });
      const times = `size ${stat.size} mtimeNs ${stat.mtimeNs} ctimeNs ${stat.ctimeNs} inode ${stat.ino} mode ${stat.mode}`;
      if (entry.isSymbolicLink()) entries.set(key, `link to ${fs.readlinkSync(full)}, ${times}`);
      else if (entry.isDirectory()) { entries.set(key, `folder, ${times}`); walk(full); }
      else entries.set(key, `file, ${times} sha256 ${digest(full)}`);
    }
  };
  walk(root);
  return entries;
}

/** What changed between two snapshots, one entry each: `name: before -> after`. */
function changes(before, after) {
  const found = [];
  for (const [key, was] of before) {
    const now = after.get(key);
    if (now === undefined) found.push(`${key}: removed`);
    else if (now !== was) found.push(`${key}: ${was} -> ${now}`);
  }
  for (const key of after.keys()) if (!before.has(key)) found.push(`${key}: created`);
  return found;
}

const CLOCK_MARGIN_NS = 12_000_000n; // more than one tick of the coarse clock Linux stamps files with
const CLOCK_WAIT_MS = 50;

/** Wait (at most CLOCK_WAIT_MS) until the clock is past the newest time in the snapshot by a clock tick, so
 * that a change during the call moves a time whichever tick it lands in. */
async function waitForTheClock(entries) {
  let newest = 0n;
  for (const text of entries.values()) {
    for (const [, ns] of text.matchAll(/[mc]timeNs (\d+)/g)) if (BigInt(ns) > newest) newest = BigInt(ns);
  }
  const deadline = Date.now() + CLOCK_WAIT_MS;
  while (BigInt(Date.now()) * 1_000_000n <= newest + CLOCK_MARGIN_NS && Date.now() < deadline) {
    await new Promise((resolve) => { setTimeout(resolve, 1); });
  }
}

/** Watch every folder under root (fs.watch: inotify on Linux, kqueue or FSEvents elsewhere) until the returned
 * function is called; it returns the names of entries that something created, changed or removed meanwhile. */
function watchFolders(root, entries) {
  const seen = new Set();
  const folders = [root, ...[...entries].filter(([, text]) => text.startsWith('folder')).map(([key]) => path.join(root, key))];
  const watchers = [];
  for (const folder of folders) {
    try {
      const watcher = fs.watch(folder, { persistent: false }, (_event, name) => {
        seen.add(name ? path.relative(root, path.join(folder, String(name))) : path.relative(root, folder) || '.');
      });
      watcher.on('error', () => {});
      watchers.push(watcher);
    } catch { /* a platform without a watcher: the snapshots and the folders' times still compare */ }
  }
  return async () => {
    // Events of the call are queued by the kernel when it returns; one turn of the event loop reads them.
    await new Promise((resolve) => { setTimeout(resolve, 5); });
    await new Promise((resolve) => { setImmediate(resolve); });
    for (const watcher of watchers) watcher.close();
    return [...seen].sort();
  };
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

// Removes the run's folder once the harness's process has ended, however it ended: it waits for the
// end of its stdin, a pipe only the harness holds, which closes when the harness's process is gone.
const WATCHDOG = `
const fs = require('node:fs');
const remove = () => fs.rmSync(process.argv[1], { recursive: true, force: true });
process.stdin.on('error', remove).on('end', remove).resume();
`;

/** The run's own folder, made on first use, holding its case folders; removed by a watchdog process
 * when this one ends, even when no handler of this process could run. */
function runFolder() {
  if (parent) return parent;
  parent = fs.mkdtempSync(path.join(casesParent(), 'ccweb-cases-'));
  const watchdog = spawn(process.execPath, ['-e', WATCHDOG, parent], {
    detached: true, // its own process group: a signal to the harness's group does not end it
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  watchdog.on('error', () => {}); // no watchdog: the handlers below still remove the folders
  watchdog.stdin.on('error', () => {});
  watchdog.unref();
  watchdog.stdin.unref(); // it keeps neither the event loop nor the process alive
  return parent;
}

/** Remove every case folder still in use: on exit, and on SIGINT, SIGTERM or SIGHUP (the process then
 * dies of the signal as it would have), so a stopped run leaves no folder behind.
 *
 * Under `node --test` a signal to the process group (what `timeout` and CI cancels send) also ends
 * the runner at once, and node:test's own code in the test process then dies writing into the
 * closed pipe (exit 7), often before any handler here runs: 185 folders were left 3 runs in 5. The
 * watchdog (:func:`runFolder`) removes them then. The handlers run before node:test's; once the
 * folders are gone every handler of the signal is removed, so its default action ends the process. */
function installCleanup() {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  const removeAll = () => {
    for (const root of liveRoots) fs.rmSync(root, { recursive: true, force: true });
    liveRoots.clear();
    if (parent) fs.rmSync(parent, { recursive: true, force: true });
  };
  process.on('exit', removeAll);
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  let stopping = false;
  const onSignal = (signal) => {
    if (stopping) return; // already removing: the first signal decides how the process ends
    stopping = true;
    removeAll();
    for (const name of signals) process.removeAllListeners(name);
    process.kill(process.pid, signal);
  };
  for (const signal of signals) process.prependListener(signal, onSignal);
}

/** The case time bound: the `timeoutMs` option, else $CCWEB_CASE_TIMEOUT_MS, else 30 s. */
function caseTimeout(timeoutMs) {
  const value = Number(timeoutMs ?? process.env.CCWEB_CASE_TIMEOUT_MS ?? DEFAULT_CASE_TIMEOUT_MS);
  if (!(value > 0 && Number.isFinite(value))) throw new Error(`the case time bound must be a positive number of ms, got ${timeoutMs ?? process.env.CCWEB_CASE_TIMEOUT_MS}`);
  return value;
}

let hungCalls = 0;
const HUNG = Symbol('hung');

/** `promise`, or HUNG if it has not settled within `ms`. */
function within(promise, ms) {
  let timer;
  const bound = new Promise((resolve) => { timer = setTimeout(resolve, ms, HUNG); });
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}

/** Replay one case against `call` in a fresh folder of its own; the problems found ([] when it passes).
 * A call still unanswered when the case's time bound (`timeoutMs`) is spent fails the case there. */
export async function replayCase(kase, call, sessionsFolder = 'sessions', { timeoutMs } = {}) {
  runFolder();
  installCleanup();
  const bound = caseTimeout(timeoutMs);
  const deadline = Date.now() + bound;
  const root = fs.mkdtempSync(path.join(parent, 'ccweb-case-'));
  liveRoots.add(root);
  const problems = [];
  try {
    // The sessions folder is reached through a link, as the runner's is: "inside" is judged on its resolved path (D-7).
    fs.mkdirSync(path.join(root, `${sessionsFolder}-data`));
    fs.symlinkSync(`${sessionsFolder}-data`, path.join(root, sessionsFolder));
    for (const [number, step] of kase.steps.entries()) {
      if (step.op !== 'call') { applyStep(root, step); continue; }
      const before = snapshot(root);
      await waitForTheClock(before);
      const stopWatching = watchFolders(root, before);
      const sent = `call ${show(step.arguments ?? null)} with source ${show(step.source)}`;
      try {
        const pending = Promise.resolve().then(() => call(path.join(root, sessionsFolder), step.source, step.arguments));
        const got = await within(pending, Math.max(0, deadline - Date.now()));
        if (got === HUNG) {
          hungCalls += 1;
          pending.catch(() => {}); // it may still fail later: nobody is listening then
          problems.push(`step ${number} (${sent}): no answer within the case's time bound of ${bound} ms`);
          await stopWatching();
          break;
        }
        problems.push(...callProblems(step.expect, got).map((p) => `step ${number} (${sent}): ${p}`));
      } catch (error) {
        problems.push(`step ${number} (${sent}): the function threw ${error?.stack ?? error}`);
      }
      const seen = await stopWatching();
      const after = snapshot(root);
      const changed = changes(before, after);
      changed.push(...seen.filter((name) => !before.has(name) && !after.has(name)).map((name) => `${name}: created and removed during the call`));
      if (changed.length) problems.push(`step ${number} (${sent}): the call changed the files (RO-1, RO-2): ${changed.join('; ')}`);
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
    liveRoots.delete(root);
  }
  return problems;
}

/** Register one node:test test per function-level case of the export at `casesFile`. Options: `only`
 * (a filter of cases) and `timeoutMs` (each case's time bound; default $CCWEB_CASE_TIMEOUT_MS or 30 s). */
export function contractCases(casesFile, call, { only, timeoutMs } = {}) {
  const document = JSON.parse(fs.readFileSync(casesFile, 'utf8'));
  if (document.format !== FORMAT) throw new Error(`cases format ${document.format}, this harness reads ${FORMAT}`);
  // Each case has a folder of its own, so every case runs at once: the function's waits overlap
  // (an unreadable file is read again for a quarter of a second, D-14), and the run takes about
  // as long as its slowest case.
  const concurrency = Math.max(1, document.cases.length);
  const bound = caseTimeout(timeoutMs);
  // A call that hung may have left timers or sockets that keep the process alive for ever: once
  // every test of the file is done, such a run ends (its failures already reported).
  after(() => {
    if (hungCalls) setTimeout(() => process.exit(), HUNG_EXIT_GRACE_MS).unref();
  });
  describe(`ccweb_list_user_inputs contract ${document.contractVersion} (kit ${document.kitVersion})`, { concurrency }, () => {
    for (const kase of document.cases) {
      if (only && !only(kase)) continue;
      // node:test's own timeout is only a backstop: the case's bound above fails a hung call with a message.
      // Every case runs at once, so on a loaded machine a case's own file work can wait seconds for its turn.
      test(`${kase.id} [${kase.requirements.join(' ')}]`, { timeout: bound + BACKSTOP_MS }, async () => {
        const problems = await replayCase(kase, call, document.sessionsDir, { timeoutMs: bound });
        if (problems.length) assert.fail(`${kase.id}\n  requirements ${kase.requirements.join(', ')}\n  ${problems.join('\n  ')}`);
      });
    }
  });
  return document;
}
