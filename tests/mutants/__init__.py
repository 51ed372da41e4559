"""Deliberately broken (mutants) and allowed-variant (variants) versions of the reference.

``catalogue`` holds them as data; ``run.py`` applies one and runs the conformance suite
against it (or serves it over stdio). The design (its section on a good suite): every mutant must be caught by a
named scenario, and every variant must pass.
"""
