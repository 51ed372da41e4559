"""Binds every feature of ``ccweb_features`` to the step definitions."""

from importlib.resources import files
from pathlib import Path

from ccweb_conformance.suite import step_lookup
from ccweb_conformance.suite.bdd import bind_features
from ccweb_conformance.suite.steps.batch_steps import *  # noqa: F403
from ccweb_conformance.suite.steps.concurrency_steps import *  # noqa: F403
from ccweb_conformance.suite.steps.era_steps import *  # noqa: F403
from ccweb_conformance.suite.steps.given_steps import *  # noqa: F403
from ccweb_conformance.suite.steps.parallel_steps import *  # noqa: F403
from ccweb_conformance.suite.steps.realism_steps import *  # noqa: F403
from ccweb_conformance.suite.steps.then_steps import *  # noqa: F403
from ccweb_conformance.suite.steps.when_steps import *  # noqa: F403

step_lookup.install()
bind_features(globals(), Path(str(files("ccweb_features"))))
