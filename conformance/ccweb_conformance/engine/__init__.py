"""The runner's own engine: one step registry, the ``-k`` expression, the scenario executor (no pytest)."""
