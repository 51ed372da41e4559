"""Step definitions for the features.

pytest-bdd registers each step as a fixture in the module that defines it; a star import
(these modules have no ``__all__``) brings those fixtures into the test module.
"""

from ccweb_conformance.steps.given import *  # noqa: F403
from ccweb_conformance.steps.then import *  # noqa: F403
from ccweb_conformance.steps.when import *  # noqa: F403
