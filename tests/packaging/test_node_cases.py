"""``npm test`` in the Node example runs the exported cases with node:test, and fails readably on bugs.

The two bugs the issue names: lengths in UTF-16 units (``text.length``) and a budget spent per
item instead of in total. Each runs in a copy of the example (its node_modules linked).
"""

from __future__ import annotations

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
            harness=(example / "contract-cases.js").as_uri(), cases=example / "contract" / "cases.json"
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
        while len(list(parent.iterdir())) < 5 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        assert len(list(parent.iterdir())) >= 5, "the cases never started"
        process.send_signal(getattr(signal, signal_name))
        returncode = process.wait(timeout=30)
    finally:
        process.kill()
        process.wait(timeout=30)
    assert returncode == -getattr(signal, signal_name)
    assert sorted(parent.iterdir()) == []
