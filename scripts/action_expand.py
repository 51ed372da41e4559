"""Expand environment variables in an input of the Action (action.yml) as a shell step would.

``python action_expand.py command TEXT`` prints ``TEXT`` with ``$NAME`` and ``${NAME}`` replaced by
the variable's value, reading quotes as a shell does: nothing is expanded inside single quotes or
after a backslash, and a value is quoted so that the runner's own split (``shlex``) keeps it as the
shell would (whitespace of an unquoted value still splits words; quote characters in it stay
literal). ``value`` mode is for a path: no quote is special, only ``\\$`` keeps a dollar.

An unset variable expands to nothing, as in a shell step (bash without ``-u``); its name is said on
stderr. Nothing else of the shell is done: no command substitution, no ``${NAME:-word}``, no glob.
It runs on the kit's own Python, outside the kit (a ``kit-version`` of any age works with it).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping

__all__ = ["expand_command", "expand_value"]

_NAME = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_UNQUOTED_SPECIAL = frozenset("\\'\"")
_DOUBLE_QUOTED_SPECIAL = frozenset('\\"')


def _lookup(match: re.Match[str], environ: Mapping[str, str], unset: list[str]) -> str:
    name = match[1] or match[2]
    if name not in environ:
        unset.append(name)
    return environ.get(name, "")


def _escaped(value: str, special: frozenset[str]) -> str:
    return "".join("\\" + char if char in special else char for char in value)


def expand_command(text: str, environ: Mapping[str, str], unset: list[str] | None = None) -> str:
    """``text`` (a command the runner splits with ``shlex``) with its variables expanded as bash would."""
    missing = unset if unset is not None else []
    out: list[str] = []
    quote = ""
    index = 0
    while index < len(text):
        char = text[index]
        if quote == "'":
            out.append(char)
            quote = "" if char == "'" else quote
        elif char == "\\" and index + 1 < len(text):
            following = text[index + 1]
            out.append("$" if following == "$" else char + following)  # shlex keeps "\$" inside double quotes
            index += 2
            continue
        elif char in "'\"" and quote in ("", char):
            quote = "" if quote else char  # opens a quote, or closes the double quote it matches
            out.append(char)
        elif char == "$" and (match := _NAME.match(text, index)) is not None:
            value = _lookup(match, environ, missing)
            out.append(_escaped(value, _DOUBLE_QUOTED_SPECIAL if quote == '"' else _UNQUOTED_SPECIAL))
            index = match.end()
            continue
        else:
            out.append(char)
        index += 1
    return "".join(out)


def expand_value(text: str, environ: Mapping[str, str], unset: list[str] | None = None) -> str:
    """``text`` (one value, never split) with ``$NAME`` and ``${NAME}`` expanded; ``\\$`` is a dollar."""
    missing = unset if unset is not None else []
    parts = re.split(r"(\\\$)", text)
    return "".join("$" if part == "\\$" else _NAME.sub(lambda m: _lookup(m, environ, missing), part) for part in parts)


def main(argv: list[str]) -> int:
    """``command|value TEXT INPUT``: print the expansion (no newline), warn about unset variables."""
    if len(argv) != 3 or argv[0] not in ("command", "value"):
        print("usage: action_expand.py command|value TEXT INPUT-NAME", file=sys.stderr)
        return 2
    mode, text, input_name = argv
    unset: list[str] = []
    expand = expand_command if mode == "command" else expand_value
    sys.stdout.write(expand(text, os.environ, unset))
    for name in dict.fromkeys(unset):
        print(f"::warning title=ccweb conformance::{input_name}: ${name} is not set; it expands to nothing, "
              "as in a shell step", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
