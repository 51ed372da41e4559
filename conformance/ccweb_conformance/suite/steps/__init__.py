"""Step definitions for the features, one module per step keyword.

pytest-bdd registers each step as a fixture in the module that defines it; a test module
brings them in with a star import of each module (they define no ``__all__``).
"""
