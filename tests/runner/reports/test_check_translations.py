"""Every check sentence and expected-value description the code can raise has a Chinese entry.

The sentences are found in the source: the first argument of every ``fail(...)`` and ``wrong_error(...)``, the ``what``
of every ``_check(outcome, what, ...)``, and every string ``expected=`` of a ``fail``; f-string
fields become sample values. Each must translate (locales/checks.zh-CN.yaml) into text with
Chinese in it, its sample values carried over.
"""

from __future__ import annotations

import ast
import re
from importlib.resources import files
from pathlib import Path

import pytest

from ccweb_conformance.i18n import translated

PACKAGE = Path(str(files("ccweb_conformance")))
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def _sample(node: ast.expr) -> str | None:
    """A sample text for a string expression: literal parts kept, each field a distinct token."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for index, value in enumerate(node.values):
            parts.append(value.value if isinstance(value, ast.Constant) else f"V{index}V")
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _sample(node.left)
        return None if left is None else f"{left}TAILV"
    return None


def _sentences() -> dict[str, set[tuple[str, str]]]:
    found: dict[str, set[tuple[str, str]]] = {"checks": set(), "expected": set()}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = ast.unparse(node.func)
            where = f"{path.relative_to(PACKAGE)}:{node.lineno}"
            argument = None
            if name in ("fail", "wrong_error"):
                argument = node.args[0]
            elif name == "_check" and len(node.args) > 1:
                argument = node.args[1]
            sample = _sample(argument) if argument is not None else None
            if sample is not None and re.search(r"[a-z]{3}", re.sub(r"V\d+V|TAILV", "", sample)):
                found["checks"].add((sample, where))
            for keyword in node.keywords if name == "fail" else []:
                sample = _sample(keyword.value) if keyword.arg == "expected" else None
                if sample is not None and re.search(r"[a-z]{3}", sample):
                    found["expected"].add((sample, where))
    return found


@pytest.fixture(scope="module")
def sentences() -> dict[str, set[tuple[str, str]]]:
    """The scan, once, when a test of this module runs (not at collection, which every worker repeats)."""
    return _sentences()


def test_the_scan_finds_the_checks(sentences: dict[str, set[tuple[str, str]]]) -> None:
    samples = {s for s, _ in sentences["checks"]}
    assert "items differ" in samples
    assert "expected the error V1V" in samples
    assert len(sentences["checks"]) >= 40


@pytest.mark.parametrize("kind", ["checks", "expected"])
def test_every_sentence_has_a_chinese_entry(kind: str, sentences: dict[str, set[tuple[str, str]]]) -> None:
    missing = []
    for sample, where in sorted(sentences[kind]):
        chinese = translated(sample, "zh-CN", kind)
        tokens = re.findall(r"V\d+V|TAILV", sample)
        if chinese == sample or not CJK.search(chinese) or any(t not in chinese for t in tokens):
            missing.append(f"{where}: {sample!r}")
    assert missing == [], "add these to conformance/ccweb_conformance/locales/checks.zh-CN.yaml"


def test_english_stays_as_it_is():
    assert translated("items differ", "en") == "items differ"
    assert translated("a sentence nobody wrote", "zh-CN") == "a sentence nobody wrote"


@pytest.mark.parametrize(
    ("english", "chinese"),
    [
        ("in-process reference server", "进程内参考服务端"),
        ("stdio server 'node server.js'", "stdio 服务端 'node server.js'"),
        (
            "HTTP server 'node server.js --port 8123' at http://127.0.0.1:8123/mcp",
            "HTTP 服务端 'node server.js --port 8123'，地址 http://127.0.0.1:8123/mcp",  # noqa: RUF001 (Chinese punctuation)
        ),
        ("HTTP server at http://127.0.0.1:8123/mcp", "地址为 http://127.0.0.1:8123/mcp 的 HTTP 服务端"),
    ],
)
def test_every_kind_of_target_is_named_in_chinese(english, chinese):
    """The console's target line names what ran in Chinese; the command and URL are carried as they are."""
    assert translated(english, "zh-CN", "targets") == chinese
    assert translated(english, "en", "targets") == english
