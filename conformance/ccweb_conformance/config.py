"""The config file: ``ccweb-conformance.toml``, or ``[tool.ccweb-conformance]`` in ``pyproject.toml``.

Looked for in the current directory (``ccweb-conformance.toml`` first). Keys are the long
option names without dashes (``stdio``, ``sessions-dir``, ``header = ["Authorization: ..."]``),
the same names as the GitHub Action's inputs (``keyword`` for ``-k``; the old key ``k`` is still
read, with a deprecation note); values become the defaults the command line overrides. An unknown key or a value of the
wrong type is a usage error naming the file and the key.

Only the kit's own file and section are read, and at most :data:`MAX_CONFIG_BYTES` of either:
a larger ``ccweb-conformance.toml`` is a usage error; a larger ``pyproject.toml`` is skipped with
a note. A ``pyproject.toml`` whose text has no ``ccweb-conformance`` table or key
(:data:`KIT_SECTION`, a plain text search before any parsing) is another project's and is not
parsed at all: its own TOML errors are not the kit's business.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from ccweb_conformance.errors import UsageError
from ccweb_conformance.options import TableRow, path_word, table

__all__ = ["CONFIG_FILE", "find_config", "load_config"]

CONFIG_FILE = "ccweb-conformance.toml"
TABLE = "ccweb-conformance"
MAX_CONFIG_BYTES = 1 << 20
"""The most of a config file read (1 MiB; a config is a few hundred bytes, a pyproject.toml a few KiB)."""
KIT_SECTION = re.compile(
    rb"""(?m)^[ \t]*(?:\[+[ \t]*)?(?:tool[ \t]*\.[ \t]*)?["']?ccweb-conformance["']?[ \t]*[\].=]"""
)
"""The kit's table or key in a pyproject.toml: ``[tool.ccweb-conformance]``, ``tool.ccweb-conformance.x =``,
or ``ccweb-conformance = {...}`` under ``[tool]`` (a dependency named ``ccweb-conformance`` does not match)."""


def config_rows() -> dict[str, TableRow]:
    """The options a config file may set, by key: the Action's input names (``keyword``, ``sessions-dir``)."""
    return {row.spec.key: row for row in table() if row.spec.config_commands != ()}


def old_keys() -> dict[str, TableRow]:
    """Keys an option had before, still read with a deprecation note (``k``: now ``keyword``)."""
    return {old: row for row in config_rows().values() for old in row.spec.old_keys}


def _kit_text(path: Path, name: str) -> bytes | None:
    """The text of ``path`` when it holds the kit's config, else None (a note when a pyproject.toml is skipped)."""
    if not path.is_file():  # a named pipe would block the read: never a config file
        return None
    try:
        with path.open("rb") as stream:
            data = stream.read(MAX_CONFIG_BYTES + 1)  # one byte more tells a file over the limit
    except OSError as error:
        raise UsageError(f"{path}: cannot read the config file ({error.strerror or error})") from None
    if len(data) > MAX_CONFIG_BYTES:
        if name == CONFIG_FILE:
            raise UsageError(f"{path}: larger than {MAX_CONFIG_BYTES:,} bytes, which no config file is")
        print(
            f"ccweb-conformance: note: {path} is larger than {MAX_CONFIG_BYTES:,} bytes; "
            f"not read for [tool.{TABLE}]",
            file=sys.stderr,
        )
        return None
    if name != CONFIG_FILE and KIT_SECTION.search(data) is None:
        return None  # another project's file: never parsed
    return data


def find_config(folder: Path) -> tuple[Path, dict[str, Any]] | None:
    """The config file in ``folder`` and its table, or None when there is none."""
    for name in (CONFIG_FILE, "pyproject.toml"):
        path = folder / name
        data = _kit_text(path, name)
        if data is None:
            continue
        import tomllib  # noqa: PLC0415 (only with a config file to read: most runs have none)

        try:
            document = tomllib.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise UsageError(f"{path}: cannot read the config file ({error})") from None
        values = document if name == CONFIG_FILE else document.get("tool", {}).get(TABLE)
        if values is not None:
            if not isinstance(values, dict):
                raise UsageError(f"{path}: [tool.{TABLE}] must be a table")
            return path, values
    return None


def _typed(where: str, row: TableRow, raw: Any) -> Any:
    """The value of one key, checked as the command line checks its type and choices (ArgumentTypeError escapes)."""
    if row.spec.convert is not None:
        if isinstance(raw, bool) or not isinstance(raw, str | int):
            raise UsageError(f"{where} must be a string")
        return row.spec.convert(str(raw))
    if row.is_flag:
        if not isinstance(raw, bool):
            raise UsageError(f"{where} must be true or false")
        return raw
    if row.is_repeatable:
        if isinstance(raw, str):
            raw = [raw]
        if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
            raise UsageError(f"{where} must be a string or a list of strings")
        return list(raw)
    base = next(a for a in getattr(row.kind, "__args__", (row.kind,)) if a is not type(None))
    if base in (int, float):
        if isinstance(raw, bool) or not isinstance(raw, int | float) or (base is int and not isinstance(raw, int)):
            raise UsageError(f"{where} must be a number")
        return base(raw)
    return _text(where, row, base, raw)


def _text(where: str, row: TableRow, base: Any, raw: Any) -> Any:
    """A string or path value: one of the choices if the option has them, a path not empty."""
    if not isinstance(raw, str):
        raise UsageError(f"{where} must be a string")
    if row.spec.choices and raw not in row.spec.choices:
        raise UsageError(f"{where} must be one of {', '.join(row.spec.choices)}, not {raw!r}")
    return path_word(raw) if base is Path else raw


def load_config(folder: Path, command: str) -> tuple[Path | None, dict[str, Any]]:
    """The config file in ``folder`` (None when there is none) and its option values, by field name."""
    found = find_config(folder)
    if found is None:
        return None, {}
    path, values = found
    rows, renamed = config_rows(), old_keys()
    converted: dict[str, Any] = {}
    for key, raw in values.items():
        row = rows.get(key) or renamed.get(key)
        if row is None:
            raise UsageError(f"{path}: unknown key {key!r} (known: {', '.join(sorted(rows))})")
        if key in renamed:
            if row.spec.key in values:
                raise UsageError(f"{path}: {key!r} and {row.spec.key!r} name the same option; keep {row.spec.key!r}")
            print(
                f"ccweb-conformance: note: {path}: the key {key!r} is deprecated; name it {row.spec.key!r}, "
                "as the GitHub Action's input is named",
                file=sys.stderr,
            )
        try:
            value = _typed(f"{path}: {key}", row, raw)  # and its bounds, as the command line checks them
        except argparse.ArgumentTypeError as error:  # a word the option's converter refuses
            raise UsageError(f"{path}: {key}: {error}") from None
        problem = None if row.spec.bounds is None else row.spec.bounds.problem(value)
        if problem is not None:
            raise UsageError(f"{path}: {key} {problem}")
        if row.spec.read_by(command):
            converted[row.name] = value
    return path, converted
