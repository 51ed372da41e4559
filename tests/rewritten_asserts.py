"""The test modules' asserts rewritten once, by the xdist controller, before its workers start.

pytest rewrites the asserts of every test module and conftest it imports and keeps the result in a pyc of its own
beside the source (``__pycache__/NAME.<tag>-pytest-<version>.pyc``), unless bytecode is not to be written
(``PYTHONDONTWRITEBYTECODE``): then every worker rewrites every module again, and from a fresh clone the workers
rewrite the same modules at the same time anyway. Written here first, each worker reads them: pytest checks each
pyc against its source's hash and rewrites a module whose pyc is missing or stale, so a test runs the same code
either way. pytest has no public call for this; if its private one is not there, or fails on a file, the workers
rewrite as before.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

PATTERNS = ("test_*.py", "conftest.py")
"""What pytest rewrites in a folder it collects (the default ``python_files``, and the conftests)."""


def collected_files(config: pytest.Config) -> list[Path]:
    """The test modules and conftests under the paths the session collects (its arguments, else ``testpaths``)."""
    found: list[Path] = []
    for arg in config.args:
        path = Path(arg.split("::", 1)[0])
        path = path if path.is_absolute() else config.invocation_params.dir / path
        if path.is_dir():
            found += sorted(f for pattern in PATTERNS for f in path.rglob(pattern) if "__pycache__" not in f.parts)
        elif path.suffix == ".py" and path.is_file():
            found.append(path)
    return found


def write_rewritten(config: pytest.Config) -> int:
    """Write the rewritten pyc of each file the session collects that has no current one; how many were written."""
    try:
        rewrite = importlib.import_module("_pytest.assertion.rewrite")
        state = config.stash[rewrite.assertstate_key]
    except (ImportError, AttributeError, KeyError):
        return 0
    written = 0
    for source in collected_files(config):
        pyc = rewrite.get_cache_dir(source) / f"{source.name[:-3]}{rewrite.PYC_TAIL}"
        try:
            if rewrite._read_pyc(source, pyc) is not None or not rewrite.try_makedirs(pyc.parent):
                continue
            source_hash, code = rewrite._rewrite_test(source, config)
            written += bool(rewrite._write_pyc(state, code, source_hash, pyc))
        except (AttributeError, TypeError, OSError, SyntaxError, ValueError):
            continue  # the worker that imports it rewrites it, and reports what is wrong with it
    return written
