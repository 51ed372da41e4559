"""Step definitions for the features, one module per step keyword.

Each module registers its steps in the engine's registry (``engine/registry.py``) when first
imported; :func:`load` imports them all.
"""


def load() -> None:
    """Import every step module, so that the registry holds every step."""
    from ccweb_conformance.suite.steps import (  # noqa: F401, PLC0415 (imported for their registrations)
        batch_steps,
        concurrency_steps,
        era_steps,
        given_steps,
        lifecycle_steps,
        parallel_steps,
        realism_steps,
        then_steps,
        when_steps,
    )
