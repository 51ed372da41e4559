# ruff: noqa: RUF001, RUF002  (Chinese text: fullwidth punctuation is meant)
"""One terminology in Chinese: no English term of locales/terms.yaml stands in Chinese text.

Checked in every source of Chinese text (the messages, the hints, the requirements and
decisions that the Chinese spec is rendered from, the Chinese READMEs and docs) and in the Chinese
console output of a failing run (``test_failure_block_zh.py``, on the run it makes). An English
form may only follow its Chinese term as a gloss in full-width parentheses: 孤立代理项（lone surrogate）.
"""

from __future__ import annotations

import re

import yaml
from paths import REPO

import ccweb_spec
from ccweb_conformance.i18n import locale_messages, terms

CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
INLINE_CODE = re.compile(r"`[^`]*`")


def english_terms(text: str) -> list[str]:
    """The English forms of the terminology standing in ``text`` (glosses and code spans left out)."""
    text = INLINE_CODE.sub("", text)
    for term in terms():
        text = re.sub(re.escape(term.zh) + r"（[^）]*）", term.zh, text)
    found = []
    for term in terms():
        for form in sorted(term.forms, key=len, reverse=True):
            pattern = rf"(?<![A-Za-z_-]){re.escape(form)}(?![A-Za-z_-])"
            if re.search(pattern, text, flags=re.IGNORECASE):
                found.append(f"{form!r} (write {term.zh})")
                text = re.sub(pattern, "", text, flags=re.IGNORECASE)
    return found


def _chinese_lines(text: str) -> list[str]:
    """Lines holding Chinese, outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced and CJK.search(line):
            lines.append(line)
    return lines


def _sources() -> dict[str, str]:
    found: dict[str, str] = {f"zh-CN.yaml {key}": text for key, text in locale_messages("zh-CN").items()}
    hints = yaml.safe_load((REPO / "conformance" / "ccweb_conformance" / "reports" / "hints.yaml").read_text())
    found |= {f"hints.yaml {h['id']}": h["text_zh"] for h in hints["hints"]}
    for r in ccweb_spec.requirements():
        found[f"requirements.yaml {r.id}"] = r.statement_zh
    for g in ccweb_spec.groups():
        found[f"requirements.yaml group {g.id}"] = g.title_zh
    for d in ccweb_spec.decisions():
        found[f"decisions.yaml {d.id}"] = f"{d.title_zh} {d.statement_zh}"
    # docs/SPEC.zh-CN.md is rendered from the sources above (its English parts quote the features).
    for name in ("README.zh-CN.md", "conformance/ccweb_conformance/harness/CASES.zh-CN.md"):
        path = REPO / name
        if path.exists():
            found |= {f"{name}: {line[:40]}": line for line in _chinese_lines(path.read_text(encoding="utf-8"))}
    return found


def test_the_checker_finds_an_english_term_and_allows_a_gloss():
    assert english_terms("应按 code point 计数") == ["'code point' (write 码点)"]
    assert english_terms("孤立代理项（lone surrogate）计为 1") == []
    assert english_terms("用 `Array.from(text)` 数 code units") == ["'code units' (write UTF-16 码元)"]


def test_no_english_term_stands_in_chinese_text():
    offenders = {where: found for where, text in _sources().items() if text and (found := english_terms(text))}
    assert offenders == {}
