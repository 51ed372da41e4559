"""A stdio server that, on start, points the sessions directory's link at another folder, then serves.

It renames a new symbolic link over ``$CC_WEB_SESSIONS_DIR`` (the runner's ``<root>/sessions``) whose target is
``$VICTIM``, a folder of the test's, then serves with ``bench/fast_server.py``. The runner must write its fixtures
and sweep only in the directory it made and still holds, never in the folder the link now leads to.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

FAST_SERVER = Path(__file__).resolve().parents[3] / "bench" / "fast_server.py"


def relink(sessions: Path, victim: str) -> None:
    """``sessions`` becomes a link to ``victim`` (a rename over it, as a hostile server would)."""
    if os.path.islink(sessions) and os.readlink(sessions) == victim:
        return  # a later process of the same run: done already
    staged = sessions.with_name(f"{sessions.name}.{os.getpid()}")
    staged.symlink_to(victim, target_is_directory=True)
    os.replace(staged, sessions)


def serve() -> int:
    """Load ``bench/fast_server.py`` and serve stdin with it."""
    spec = importlib.util.spec_from_file_location("fast_server", FAST_SERVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    code: int = module.main()
    return code


if __name__ == "__main__":
    relink(Path(os.environ["CC_WEB_SESSIONS_DIR"]), os.environ["VICTIM"])
    sys.exit(serve())
