#!/usr/bin/env python3
"""The kit at the oldest (or newest) versions its pyproject.toml allows: installs, and passes over stdio and HTTP.

pip installs the newest versions, so a lower bound in ``[project].dependencies`` is never
tried unless something tries it. This script pins every direct dependency to its lower bound
(``name>=X`` and ``name>=X,<Y`` become ``name==X``; ``name==X`` stays), installs the kit from
this checkout into a fresh virtual environment under those constraints (their own
dependencies as pip resolves them), checks that a malformed ``-k`` gives the same one-line
usage error (exit 2) as at any other pytest, and runs ``ccweb-conformance run`` there against
the bundled reference over stdio and over HTTP. With ``--newest`` it installs without constraints
and with ``--upgrade``, so every dependency is at the newest version its range and the index
allow (the versions are printed). ``--with REQ`` (repeatable) adds a requirement installed
beside the kit, e.g. ``--with fastmcp`` or ``--with mcp==2.2.0``, to show the kit installs and
passes beside a team's own pins. Every step has a time bound; the temporary environment is
removed on every path. Exit 0 when both runs passed, 1 otherwise.

    .venv/bin/python scripts/oldest_dependencies.py          # from the repository root
    .venv/bin/python scripts/oldest_dependencies.py --newest --with fastmcp
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
INSTALL_TIMEOUT_S = 600
RUN_TIMEOUT_S = 300
HTTP_COMMAND = "ccweb-reference --sessions-dir {sessions_dir} --http --port {port}"


def lower_bounds(pyproject: Path) -> dict[str, str]:
    """Each direct dependency's lowest allowed version, by name; those without one are left out."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    bounds = {}
    for line in project["dependencies"]:
        requirement = Requirement(line)
        floors = [s.version for s in requirement.specifier if s.operator in (">=", "==")]
        if floors:
            bounds[requirement.name] = max(floors, key=Version)
    return bounds


def _run(command: list[str], timeout: float, **options: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False, **options)  # type: ignore[call-overload, no-any-return]


def _installed(python: Path) -> dict[str, str]:
    listing = _run([str(python), "-m", "pip", "list", "--format", "json"], 60)
    return {canonicalize_name(p["name"]): p["version"] for p in json.loads(listing.stdout)}


USAGE_ERRORS = {
    ("run", "--co", "-k", "a and ("): "-k 'a and (': expected not OR left parenthesis OR identifier; got end of input",
    ("list", "-k", "a b"): "-k 'a b': expected end of input; got identifier",
}
"""Selections every supported pytest must reject with the same line (8.4 raised its own ParseError)."""


def _usage_errors(env_bin: Path, work: Path) -> bool:
    """Each of :data:`USAGE_ERRORS` exits 2 with exactly its one line on stderr."""
    good = True
    for arguments, message in USAGE_ERRORS.items():
        done = _run([str(env_bin / "ccweb-conformance"), *arguments], RUN_TIMEOUT_S, cwd=work)
        expected = (2, "", f"ccweb-conformance: error: {message}\n")
        ok = (done.returncode, done.stdout, done.stderr) == expected
        print(f"  {' '.join(arguments)}: exit {done.returncode}{'' if ok else ', not the expected one line'}")
        if not ok:
            print(done.stdout[-4000:], done.stderr[-4000:], sep="\n", file=sys.stderr)
        good = good and ok
    return good


def _conformance(env_bin: Path, work: Path, label: str, *target: str) -> bool:
    report = work / f"{label}.json"
    done = _run(
        [str(env_bin / "ccweb-conformance"), "run", *target, "--json", str(report)],
        RUN_TIMEOUT_S,
        cwd=work,
        env={"PATH": f"{env_bin}:/usr/bin:/bin", "LANG": "C.UTF-8"},
    )
    summary = done.stdout.strip().splitlines()[-3:] if done.stdout.strip() else []
    counts = json.loads(report.read_text(encoding="utf-8"))["counts"] if report.exists() else None
    print(f"  {label}: exit {done.returncode}, counts {counts}")
    for line in summary:
        print(f"    {line}")
    if done.returncode != 0:
        print(done.stdout[-4000:], done.stderr[-4000:], sep="\n", file=sys.stderr)
    return done.returncode == 0


def main() -> int:
    """Install at the lower bounds, show what was installed, run the suite over stdio and HTTP."""
    parser = argparse.ArgumentParser(prog="oldest_dependencies", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--newest", action="store_true", help="install the newest allowed versions instead")
    parser.add_argument(
        "--with",
        dest="extra",
        action="append",
        default=[],
        metavar="REQ",
        help="a requirement installed beside the kit (repeatable)",
    )
    args = parser.parse_args()
    bounds = {} if args.newest else lower_bounds(ROOT / "pyproject.toml")
    extra = [str(Requirement(line)) for line in args.extra]
    pinned = {canonicalize_name(Requirement(line).name) for line in extra}
    bounds = {name: version for name, version in bounds.items() if canonicalize_name(name) not in pinned}
    with tempfile.TemporaryDirectory(prefix="ccweb-oldest-") as folder:
        work = Path(folder)
        constraints = work / "constraints.txt"
        constraints.write_text("".join(f"{name}=={version}\n" for name, version in bounds.items()), encoding="utf-8")
        venv = work / "venv"
        python = venv / "bin" / "python"
        steps = [
            [sys.executable, "-m", "venv", str(venv)],
            [str(python), "-m", "pip", "install", "-q", "--upgrade", "-c", str(constraints), str(ROOT), *extra],
        ]
        for step in steps:
            done = _run(step, INSTALL_TIMEOUT_S)
            if done.returncode != 0:
                print(f"oldest_dependencies: {' '.join(step[:4])} failed:\n{done.stderr[-4000:]}", file=sys.stderr)
                return 1
        installed = _installed(python)
        names = [
            Requirement(line).name
            for line in tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["dependencies"]
        ] + [Requirement(line).name for line in extra]
        print(f"the kit's direct dependencies at their {'newest' if args.newest else 'lower bounds'}:")
        for name in names:
            print(f"  {name} {installed.get(canonicalize_name(name), 'missing')}")
        wrong = []
        for name, version in bounds.items():
            got = installed.get(canonicalize_name(name), "missing")
            if got == "missing" or Version(got) != Version(version):
                wrong.append(f"{name}: {got}, not {version}")
        if wrong:
            print(f"oldest_dependencies: not installed at the bound: {'; '.join(wrong)}", file=sys.stderr)
            return 1
        env_bin = venv / "bin"
        print("malformed selections (one-line usage errors):")
        usage = _usage_errors(env_bin, work)
        print("ccweb-conformance run against the bundled reference:")
        passed = [
            usage,
            _conformance(env_bin, work, "stdio"),
            _conformance(env_bin, work, "http", "--http-cmd", HTTP_COMMAND, "--url", "http://127.0.0.1:{port}/mcp"),
        ]
    return 0 if all(passed) else 1


def _main() -> int:
    try:
        return main()
    except subprocess.TimeoutExpired as expired:  # the child was killed; the temporary folder is gone
        print(f"oldest_dependencies: {expired.cmd[0]} ... took longer than {expired.timeout:g} s", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(_main())
