"""Run the conformance CLI against a reference broken only in an unusual combination.

    python tests/runner/fakes/fuzz_mutant.py run --in-process [--fuzz N --seed S ...]

The mutant is :func:`has_more_mutant.has_more_wrong`: everything is the reference's answer but
``hasMore`` when ``limit`` equals the number of candidates and the newest one is truncated.
"""

from __future__ import annotations

import sys

from has_more_mutant import has_more_wrong

from ccweb_conformance.cli import main
from ccweb_reference import tool

if __name__ == "__main__":
    tool.list_user_inputs = has_more_wrong  # type: ignore[assignment]  # the server's tool.call_tool uses it
    sys.exit(main(sys.argv[1:]))
