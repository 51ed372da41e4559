"""``npm test`` in the Node example runs the exported cases with node:test, and fails readably on bugs.

The two bugs the issue names: lengths in UTF-16 units (``text.length``) and a budget spent per
item instead of in total. Each runs in a copy of the example (its node_modules linked).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from node_example import EXAMPLE, ensure_node_modules, require

SOURCE = "list-user-inputs.js"
BREAKS = {
    "utf16": ("const codePoints = (text) => Array.from(text);", "const codePoints = (text) => text.split('');"),
    "per-item budget": (
        "    if (remaining === 0) break; // BUD-3",
        "    remaining = maxChars;\n    if (remaining === 0) break; // BUD-3",
    ),
}


@pytest.fixture(scope="module")
def example() -> Path:
    require("node")
    ensure_node_modules()
    return EXAMPLE


def _npm_test(folder: Path) -> subprocess.CompletedProcess[str]:
    npm = require("npm")
    return subprocess.run([npm, "test"], cwd=folder, capture_output=True, text=True, timeout=300, check=False)


def test_npm_test_passes_every_exported_case(example):
    done = _npm_test(example)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "# fail 0" in done.stdout
    assert "# pass 0" not in done.stdout


@pytest.mark.parametrize("bug", sorted(BREAKS))
def test_npm_test_fails_with_the_case_requirement_expected_and_got(example, tmp_path, bug):
    copy = tmp_path / "node-server"
    shutil.copytree(example, copy, ignore=shutil.ignore_patterns("node_modules"))
    (copy / "node_modules").symlink_to(example / "node_modules")
    old, new = BREAKS[bug]
    source = (copy / SOURCE).read_text(encoding="utf-8")
    assert source.count(old) == 1, f"{SOURCE} changed: update BREAKS[{bug!r}]"
    (copy / SOURCE).write_text(source.replace(old, new), encoding="utf-8")
    done = _npm_test(copy)
    assert done.returncode == 1
    if bug == "utf16":
        assert "ac07_unicode.feature::Characters outside the BMP count as one [😀-1]" in done.stdout
        assert "requirements UNI-1" in done.stdout
        assert "$.items[0].contentChars: expected 1, got 2" in done.stdout
    else:
        case = "ac06_limits_and_budget.feature::Inputs that fit are returned whole, newest first, within the budget"
        assert case in done.stdout
        assert "requirements BUD-1, BUD-4" in done.stdout
        assert "$.totalChars: expected 5, got 8" in done.stdout


HANGING_TEST = """
import {{ contractCases }} from '{harness}';
contractCases(new URL('{cases}', 'file://'), () => new Promise(() => setInterval(() => {{}}, 1000)));
"""


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_signal_mid_run_leaves_no_case_folder(example, tmp_path, signal_name):
    """Stopped while its calls hang, the harness removes every case folder it made, then dies of the signal."""
    parent = tmp_path / "cases-parent"
    parent.mkdir()
    script = tmp_path / "hang.test.mjs"
    script.write_text(
        HANGING_TEST.format(
            harness=(example / "contract" / "contract-cases.js").as_uri(), cases=example / "contract" / "cases.json"
        ),
        encoding="utf-8",
    )
    node = require("node")
    process = subprocess.Popen(
        [node, str(script)], env={**os.environ, "CCWEB_CASES_TMPDIR": str(parent)},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while len(list(parent.glob("*/ccweb-case-*"))) < 5 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        assert len(list(parent.glob("*/ccweb-case-*"))) >= 5, "the cases never started"
        process.send_signal(getattr(signal, signal_name))
        returncode = process.wait(timeout=30)
    finally:
        process.kill()
        process.wait(timeout=30)
    assert returncode == -getattr(signal, signal_name)
    assert sorted(parent.iterdir()) == []


def _hanging_script(example: Path, tmp_path: Path) -> Path:
    script = tmp_path / "hang.test.mjs"
    script.write_text(
        HANGING_TEST.format(
            harness=(example / "contract" / "contract-cases.js").as_uri(), cases=example / "contract" / "cases.json"
        ),
        encoding="utf-8",
    )
    return script


def _processes_naming(text: str) -> list[str]:
    """Command lines of live processes that name ``text`` (a watchdog left behind would)."""
    import psutil  # noqa: PLC0415

    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        cmdline = " ".join(process.info["cmdline"] or [])
        if text in cmdline and process.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(cmdline)
    return found


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGINT"])
def test_a_signal_to_the_process_group_of_node_test_leaves_no_case_folder(example, tmp_path, signal_name):
    """``node --test`` stopped as ``timeout`` and CI cancels stop it (the signal to its whole process group), three
    times: every case folder is gone and every process ended within 20 s (before: 185 folders left 3 runs in 5)."""
    node = require("node")
    script = _hanging_script(example, tmp_path)
    for attempt in range(3):
        parent = tmp_path / f"cases-parent-{attempt}"
        parent.mkdir()
        process = subprocess.Popen(
            [node, "--test", str(script)], env={**os.environ, "CCWEB_CASES_TMPDIR": str(parent)},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while not list(parent.glob("*/ccweb-case-*")) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert list(parent.glob("*/ccweb-case-*")), "the cases never started"
            time.sleep(0.5)
            os.killpg(process.pid, getattr(signal, signal_name))
            process.wait(timeout=30)
            deadline = time.monotonic() + 20
            while (list(parent.iterdir()) or _processes_naming(str(parent))) and time.monotonic() < deadline:
                time.sleep(0.1)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        assert sorted(parent.iterdir()) == [], f"attempt {attempt}"
        assert _processes_naming(str(parent)) == []


def test_a_hanging_function_fails_each_case_at_its_time_bound_and_the_run_ends(example, tmp_path):
    """Every call hangs (and leaves a timer running): with a 500 ms case bound, ``node --test`` ends, every case
    failed saying so, no folder left (before: it never ended; the time it takes is printed, not asserted)."""
    node = require("node")
    parent = tmp_path / "cases-parent"
    parent.mkdir()
    env = {**os.environ, "CCWEB_CASES_TMPDIR": str(parent), "CCWEB_CASE_TIMEOUT_MS": "500"}
    started = time.monotonic()
    done = subprocess.run(
        [node, "--test", str(_hanging_script(example, tmp_path))], env=env, capture_output=True, text=True,
        timeout=600, check=False,  # a safety net: the cases' bounds run one by one, a busy machine stretches them
    )  # fmt: skip
    elapsed = time.monotonic() - started
    print(f"a hanging function: node --test ended after {elapsed:.1f} s")
    cases = len(json.loads((example / "contract" / "cases.json").read_text(encoding="utf-8"))["cases"])
    assert done.returncode == 1
    assert f"# fail {cases}\n" in done.stdout
    assert done.stdout.count("no answer within the case's time bound of 500 ms") == cases
    assert sorted(parent.iterdir()) == []


DISHONEST_TEST = """
import fs from 'node:fs';
import path from 'node:path';
import {{ contractCases }} from '{harness}';
import {{ callTool, SessionStore }} from '{tool}';

const stores = new Map();
const right = async (sessionsDir, sourceId, args) => {{
  if (!stores.has(sessionsDir)) stores.set(sessionsDir, new SessionStore(sessionsDir));
  return (await callTool(stores.get(sessionsDir), args, sourceId ?? undefined)).result;
}};
const files = (dir) => fs.readdirSync(dir).filter((name) => name.endsWith('.json')).map((name) => path.join(dir, name));
const BAD = {{
  // chmod to the same mode: only the change time moves
  ctime: (dir) => files(dir).forEach((file) => fs.chmodSync(file, fs.statSync(file).mode)),
  // the same bytes saved by rename, the modification time put back: a new inode
  inode: (dir) => files(dir).forEach((file) => {{
    const before = fs.statSync(file);
    fs.writeFileSync(`${{file}}.tmp`, fs.readFileSync(file));
    fs.renameSync(`${{file}}.tmp`, file);
    fs.utimesSync(file, before.atime, before.mtime);
  }}),
  // a lock file that lives only during the call
  lock: (dir) => {{ fs.writeFileSync(path.join(dir, 'x.lock'), ''); fs.rmSync(path.join(dir, 'x.lock')); }},
}};
const bad = BAD[process.env.BAD];
const readOnly = (kase) => kase.requirements.some((r) => r === 'RO-1' || r === 'RO-2');
contractCases(new URL('{cases}', 'file://'), async (sessionsDir, sourceId, args) => {{
  const result = await right(sessionsDir, sourceId, args);
  bad(sessionsDir);
  return result;
}}, {{ only: readOnly }});
"""


@pytest.mark.parametrize("bad", ["ctime", "inode", "lock"])
def test_a_function_that_moves_ctime_or_inode_or_makes_a_lock_file_fails_every_read_only_case(example, tmp_path, bad):
    """Right results, the bytes, size, mode and mtime unchanged: every case claiming RO-1 or RO-2 fails, saying
    what moved (before, the Node harness compared size, mtime and mode only, and all of these passed)."""
    script = tmp_path / "dishonest.test.mjs"
    script.write_text(
        DISHONEST_TEST.format(
            harness=(example / "contract" / "contract-cases.js").as_uri(),
            tool=(example / "list-user-inputs.js").as_uri(),
            cases=example / "contract" / "cases.json",
        ),
        encoding="utf-8",
    )
    parent = tmp_path / "cases-parent"
    parent.mkdir()
    done = subprocess.run(
        [require("node"), "--test", str(script)], env={**os.environ, "BAD": bad, "CCWEB_CASES_TMPDIR": str(parent)},
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    document = json.loads((example / "contract" / "cases.json").read_text(encoding="utf-8"))
    claiming = [c for c in document["cases"] if {"RO-1", "RO-2"} & set(c["requirements"])]
    assert len(claiming) == 7
    assert done.returncode == 1
    assert f"# fail {len(claiming)}\n" in done.stdout
    assert "# pass 0\n" in done.stdout
    moved = {"ctime": "ctimeNs ", "inode": "inode ", "lock": "x.lock: created and removed during the call"}[bad]
    assert done.stdout.count("the call changed the files (RO-1, RO-2)") >= len(claiming)
    assert moved in done.stdout
    assert sorted(parent.iterdir()) == []


SIZE_AND_MTIME_CACHE_TEST = """
import fs from 'node:fs';
import path from 'node:path';
import {{ contractCases }} from '{harness}';
import {{ callTool, SessionStore }} from '{tool}';

// The REG-2 bug: a result cached on the file's size and modification time (a rewrite of the same size and
// time is never seen). Five runs of the case: the harness must restore the time exactly every time.
const cache = new Map();
const cached = async (sessionsDir, sourceId, args) => {{
  const file = path.join(sessionsDir, `${{args?.conversationId}}.json`);
  const stat = fs.statSync(file, {{ throwIfNoEntry: false }});
  const key = stat && `${{file}} ${{stat.size}} ${{stat.mtimeMs}}`;
  if (key && cache.has(key)) return cache.get(key);
  const result = (await callTool(new SessionStore(sessionsDir), args, sourceId ?? undefined)).result;
  if (key) cache.set(key, result);
  return result;
}};
const sameSizeAndTime = (kase) => kase.id === '{case}';
for (let run = 0; run < 5; run += 1) contractCases(new URL('{cases}', 'file://'), cached, {{ only: sameSizeAndTime }});
"""


def test_a_cache_keyed_on_size_and_mtime_fails_the_same_size_and_time_case_every_time(example, tmp_path):
    """Before, the harness restored mtime through a `Date` (millisecond rounding): caught in 4-5 runs of 10."""
    script = tmp_path / "cache.test.mjs"
    script.write_text(
        SIZE_AND_MTIME_CACHE_TEST.format(
            harness=(example / "contract" / "contract-cases.js").as_uri(),
            tool=(example / "list-user-inputs.js").as_uri(),
            cases=example / "contract" / "cases.json",
            case="ac10_regression.feature::A rewrite of the same size and time is visible too",
        ),
        encoding="utf-8",
    )
    node = require("node")
    done = subprocess.run([node, "--test", str(script)], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1
    assert "# fail 5\n" in done.stdout
    assert '$.items[0].content: expected "bbbb", got "aaaa"' in done.stdout
