"""The runner's code lines per layer, docstrings, comments and blank lines excluded (issue 44's "Done when").

    .venv/bin/python bench/code_lines.py                 # the working tree
    .venv/bin/python bench/code_lines.py --rev 9f9bbe6   # a commit, read with git (nothing checked out)

Prints one line per layer of ``conformance/ccweb_conformance`` (a folder, or ``base`` for its top-level modules) and
the total. A line counts when it holds code: a docstring (a module's, class's or function's first string) does not.
"""

from __future__ import annotations

import argparse
import ast
import io
import subprocess
import tokenize
from collections import Counter
from pathlib import Path

PACKAGE = "conformance/ccweb_conformance"


def code_lines(source: str) -> int:
    """Lines holding a token other than a comment, a docstring or white space."""
    tree = ast.parse(source)
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docstrings.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    lines: set[int] = set()
    skipped = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skipped:
            lines.update(n for n in range(token.start[0], token.end[0] + 1) if n not in docstrings)
    return len(lines)


def sources(rev: str | None) -> dict[str, str]:
    """Every module of the runner's package: path -> text, from the working tree or from ``rev``."""
    if rev is None:
        return {str(p): p.read_text(encoding="utf-8") for p in Path(PACKAGE).rglob("*.py")}
    names = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", rev, PACKAGE], capture_output=True, text=True, check=True
    ).stdout.split()
    return {
        n: subprocess.run(["git", "show", f"{rev}:{n}"], capture_output=True, text=True, check=True).stdout
        for n in names
        if n.endswith(".py")
    }


def layer(path: str) -> str:
    """The layer a module belongs to: its folder under the package, else ``base``."""
    parts = Path(path).relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else "base"


def main() -> None:
    """Print the lines per layer and the total."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", help="a git commit to count instead of the working tree")
    counts: Counter[str] = Counter()
    for path, text in sources(parser.parse_args().rev).items():
        counts[layer(path)] += code_lines(text)
    for name, lines in sorted(counts.items()):
        print(f"{name:10} {lines:6,}")
    print(f"{'total':10} {sum(counts.values()):6,}")


if __name__ == "__main__":
    main()
