"""The catalogue: every mutant and variant of the reference, gathered from the area modules.

The area modules mirror ``features/ccweb_features/``: ``ac07_unicode.py`` holds the mutants
killed by scenarios of ``ac07_unicode.feature``, and so on; ``variants.py`` the allowed
variants. ``registry.py`` defines what a mutant and a variant are; ``patching.py`` how they
change the reference. Importing this module registers them all.
"""

from __future__ import annotations

from mutants import (  # noqa: F401 (imported to register their entries)
    ac01_tool_definition,
    ac02_which_conversation,
    ac03_latest_fifteen,
    ac04_exclusions,
    ac05_guided_form,
    ac06_limits_and_budget,
    ac07_unicode,
    ac08_exact_results,
    ac09_read_only,
    ac10_regression,
    arguments,
    concurrency,
    errors,
    fuzz,
    placement,
    protocol,
    store,
    variants,
)
from mutants.registry import MUTANTS, VARIANTS, Mutant, Variant, scenario_matches

__all__ = ["MUTANTS", "VARIANTS", "Mutant", "Variant", "scenario_matches"]
