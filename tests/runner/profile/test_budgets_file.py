"""One budget file: the profile's advisory budgets and the bench's reference goals, both in performance.yaml."""

from __future__ import annotations

import re

from paths import REPO

import ccweb_spec

BENCH = REPO / "bench" / "bench_reference.py"


def test_the_file_is_loaded_once() -> None:
    assert ccweb_spec.performance() is ccweb_spec.performance()


def test_each_reference_goal_is_at_least_as_strict_as_the_budgets_it_tightens() -> None:
    document = ccweb_spec.performance()
    limits = {budget["id"]: budget["limit"] for budget in document["budgets"]}
    pairs = [(g["name"], g["limit"], b) for g in document["reference_goals"] for b in g.get("tightens", [])]
    assert pairs == [
        ("memory_multiple", 2, "PERF-4"),
        ("read_fraction", 0.01, "PERF-3"),
        ("small_stdio_ms", 2, "PERF-1"),
        ("small_stdio_ms", 2, "PERF-2"),
    ]
    assert [(name, limit, budget) for name, limit, budget in pairs if limit > limits[budget]] == []


def test_the_bench_reads_exactly_the_goals_of_the_file_and_no_file_of_its_own() -> None:
    source = BENCH.read_text(encoding="utf-8")
    read = set(re.findall(r"""goal\[["']([a-z_]+)["']\]""", source))
    assert read == {g["name"] for g in ccweb_spec.performance()["reference_goals"]}
    assert not (REPO / "bench" / "targets.yaml").exists()
    assert "yaml.safe_load" not in source
