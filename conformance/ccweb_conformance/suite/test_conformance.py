"""Binds every step of the registry and every feature of ``ccweb_features`` into pytest."""

from importlib.resources import files
from pathlib import Path

from ccweb_conformance.engine.registry import STEPS
from ccweb_conformance.suite import steps
from ccweb_conformance.suite.bdd import bind_features
from ccweb_conformance.suite.bdd_steps import bind_steps

steps.load()
bind_steps(STEPS)
bind_features(globals(), Path(str(files("ccweb_features"))))
