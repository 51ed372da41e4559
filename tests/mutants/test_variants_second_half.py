"""No false failures, the second half of the variants (``test_variants.py`` says how they run)."""

from __future__ import annotations

from typing import Any

import pytest

from mutants.catalogue import VARIANTS
from mutants.run import half, run_batch, selected_params
from mutants.verdicts import assert_passes

pytestmark = pytest.mark.slow

NAMES = half(list(VARIANTS), 1)


@pytest.fixture(scope="module")
def variant_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    names = selected_params(request, "test_variant_passes") or NAMES
    return run_batch("variant", names, tmp_path_factory.mktemp("variants"))


@pytest.mark.parametrize("name", NAMES)
def test_variant_passes(name: str, variant_runs: dict[str, dict[str, Any]]) -> None:
    assert_passes(name, variant_runs[name])
