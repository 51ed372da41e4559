"""The conformance suite as a pytest module: every feature, bound to the step definitions."""
