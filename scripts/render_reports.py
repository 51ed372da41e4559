#!/usr/bin/env python3
"""Render a run's JUnit, Cucumber and Markdown reports with the viewers CI teams use, and screenshot them.

    .venv/bin/python scripts/render_reports.py OUT_DIR [--junit junit.xml] [--cucumber cucumber.json]
        [--markdown report.md] [--node-modules DIR] [--screenshots]
    .venv/bin/python scripts/render_reports.py OUT_DIR --mutant utf16_units --tags AC-1,AC-7 --screenshots

With ``--mutant NAME`` it first makes a failing run: ``ccweb-conformance run`` against the
reference with that mutant of tests/mutants applied (served over stdio, only the scenarios of
``--tags`` when given), writing ``OUT_DIR/junit.xml``, ``OUT_DIR/cucumber.json`` and
``OUT_DIR/report.md``. Then, each only when installed (none is a dependency of the kit; a
missing one is named with how to get it, and skipped):

- ``junit2html`` (``pip install junit2html``, e.g. into a throwaway venv on PATH): ``OUT_DIR/junit2html.html``;
- ``xunit-viewer`` (``npm install xunit-viewer`` in a scratch folder, named by ``--node-modules``):
  ``OUT_DIR/xunit-viewer.html``;
- ``multiple-cucumber-html-reporter`` (npm, the same folder): ``OUT_DIR/cucumber-html/index.html``;
- ``markdown_py`` (``pip install markdown``, the same venv): the Markdown report as GitHub shows a
  step summary, approximately (tables, folded ``<details>``, GitHub's fonts and colours from
  ``scripts/github-markdown.css``): ``OUT_DIR/markdown.html``;
- with ``--screenshots``, Chromium (``chromium`` or ``chromium-browser``, Debian's package): a PNG
  of each page, made smaller by ``pngquant`` when it is installed (Debian's package too).

Exit 0 when every installed tool rendered (missing ones are skipped), 1 when one failed.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN_TIMEOUT_S = 600
TOOL_TIMEOUT_S = 180
CHROMIUM_FLAGS = (
    "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking"
    " --disable-component-update --disable-sync --hide-scrollbars --virtual-time-budget=8000 --window-size=1100,900"
)
MARKDOWN_CSS = Path(__file__).resolve().parent / "github-markdown.css"
PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>step summary</title><style>{css}</style></head>
<body><main class="markdown-body">{body}</main></body></html>
"""


def failing_run(mutant: str, out: Path, tags: str | None) -> None:
    """``ccweb-conformance run`` against the reference with ``mutant`` applied: junit.xml, cucumber.json and
    report.md."""
    python = os.path.relpath(sys.executable, ROOT)  # relative, from the checkout: no machine path in the pictures
    server = f"{shlex.quote(python)} tests/mutants/run.py serve mutant {mutant} --sessions-dir {{sessions_dir}}"
    command = [str(Path(sys.executable).parent / "ccweb-conformance"), "run", "--stdio", server]
    command += ["--junitxml", str(out / "junit.xml"), "--cucumberjson", str(out / "cucumber.json")]
    command += ["--markdown", str(out / "report.md"), *(["--tags", tags] if tags else [])]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False)
    print(f"failing run with mutant {mutant}: exit {done.returncode} (1 expected)")


def _run(name: str, command: list[str], cwd: Path | None = None) -> bool:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=TOOL_TIMEOUT_S, check=False)
    if done.returncode != 0:
        print(f"{name}: failed (exit {done.returncode}): {(done.stderr or done.stdout).strip()[-500:]}")
    return done.returncode == 0


def render_markdown(markdown: Path, out: Path) -> tuple[Path | None, bool]:
    """The Markdown report as an HTML page styled like GitHub's (None when skipped or failed), and whether the
    converter, when installed, succeeded."""
    converter = shutil.which("markdown_py")
    if converter is None:
        print("markdown_py: not installed (pip install markdown, in a throwaway venv): skipped")
        return None, True
    done = subprocess.run(
        [converter, "-x", "extra", "-o", "html", str(markdown)],
        capture_output=True, text=True, timeout=TOOL_TIMEOUT_S, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        print(f"markdown_py: failed (exit {done.returncode}): {done.stderr.strip()[-500:]}")
        return None, False
    page = out / "markdown.html"
    css = MARKDOWN_CSS.read_text(encoding="utf-8")
    page.write_text(PAGE.format(css=css, body=done.stdout), encoding="utf-8")
    return page, True


def render(junit: Path, cucumber: Path, out: Path, node_modules: Path | None) -> tuple[list[Path], bool]:
    """Every page the installed tools wrote, and whether all of them succeeded."""
    pages: list[Path] = []
    ok = True
    if shutil.which("junit2html"):
        page = out / "junit2html.html"
        ok &= _run("junit2html", ["junit2html", str(junit), str(page)])
        pages.append(page)
    else:
        print("junit2html: not installed (pip install junit2html, in a throwaway venv): skipped")
    modules = node_modules / "node_modules" if node_modules else None
    viewer = modules / ".bin" / "xunit-viewer" if modules else None
    if viewer and viewer.exists():
        page = out / "xunit-viewer.html"
        ok &= _run("xunit-viewer", [str(viewer), "-r", str(junit), "-o", str(page)])
        pages.append(page)
    else:
        print("xunit-viewer: not found (npm install xunit-viewer in a folder, then --node-modules FOLDER): skipped")
    reporter = modules / "multiple-cucumber-html-reporter" if modules else None
    if reporter and reporter.exists() and shutil.which("node"):
        with tempfile.TemporaryDirectory() as json_dir:
            shutil.copy(cucumber, Path(json_dir) / "cucumber.json")
            where = {"jsonDir": json_dir, "reportPath": str(out / "cucumber-html")}
            script = f"require({json.dumps(str(reporter))}).generate({json.dumps(where)})"
            ok &= _run("multiple-cucumber-html-reporter", ["node", "-e", script])
        pages.append(out / "cucumber-html" / "index.html")
        pages += failed_feature_pages(cucumber, out / "cucumber-html" / "features")
    else:
        print("multiple-cucumber-html-reporter: not found (npm install it beside xunit-viewer, and node): skipped")
    return pages, ok


def failed_feature_pages(cucumber: Path, folder: Path) -> list[Path]:
    """The reporter's page of the first feature with a failed step (its scenarios and steps), if any."""
    features = json.loads(cucumber.read_text(encoding="utf-8"))
    for feature in features:
        steps = [s for e in feature.get("elements", []) for s in e.get("steps", [])]
        if any(s.get("result", {}).get("status") == "failed" for s in steps):
            return sorted(folder.glob(f"*-{feature['id']}.html"))[:1]
    return []


def smaller(shot: Path) -> None:
    """The PNG quantised in place by pngquant when it is installed (a screenshot shrinks to a third or less)."""
    quantiser = shutil.which("pngquant")
    if quantiser is not None:
        options = ["--force", "--skip-if-larger", "--quality", "60-85", "--output", str(shot)]
        _run("pngquant", [quantiser, *options, str(shot)])


def screenshots(pages: list[Path]) -> bool:
    """A PNG beside each page, by headless Chromium."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        print("chromium: not installed: no screenshots")
        return True
    ok = True
    for page in pages:
        with tempfile.TemporaryDirectory() as profile:
            shot = page.with_suffix(".png")
            command = [browser, *CHROMIUM_FLAGS.split(), f"--user-data-dir={profile}", f"--screenshot={shot}"]
            ok &= _run("chromium", [*command, page.as_uri()])
            if shot.exists():
                smaller(shot)
            print(f"screenshot: {shot}")
    return ok


def main(argv: list[str] | None = None) -> int:
    """Make the failing run if asked, render, screenshot; 0 when every installed tool succeeded."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("out", type=Path)
    parser.add_argument("--junit", type=Path)
    parser.add_argument("--cucumber", type=Path)
    parser.add_argument("--markdown", type=Path, help="the Markdown report (default: OUT_DIR/report.md, if any)")
    parser.add_argument("--mutant", help="make a failing run first, with this mutant of tests/mutants")
    parser.add_argument("--tags", help="with --mutant: only these scenarios (e.g. AC-1,AC-7)")
    parser.add_argument(
        "--node-modules", type=Path, help="the folder where xunit-viewer and the reporter are installed"
    )
    parser.add_argument("--screenshots", action="store_true")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.mutant:
        failing_run(args.mutant, args.out, args.tags)
    junit = args.junit or args.out / "junit.xml"
    cucumber = args.cucumber or args.out / "cucumber.json"
    if not junit.exists() or not cucumber.exists():
        print(f"render_reports: no reports to render ({junit}, {cucumber}): give --junit/--cucumber or --mutant")
        return 2
    pages, ok = render(junit, cucumber, args.out, args.node_modules)
    markdown = args.markdown or args.out / "report.md"
    if markdown.exists():
        page, rendered = render_markdown(markdown, args.out)
        ok &= rendered
        pages += [page] if page is not None else []
    for page in pages:
        print(f"rendered: {page}")
    if args.screenshots:
        ok &= screenshots(pages)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
