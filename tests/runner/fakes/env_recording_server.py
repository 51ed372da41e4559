"""A conforming stdio server, after writing the names of its environment to the file ``$RECORD_TO`` (one JSON line).

The server is ``bench/fast_server.py`` (the reference's ``call_tool`` without the MCP SDK): what the test reads
is each spawned process's environment, and a run spawns one per source binding, so each start costs about
0.15 s of CPU instead of the SDK reference's 1 s.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

FAST_SERVER = Path(__file__).resolve().parents[3] / "bench" / "fast_server.py"


def serve() -> int:
    """Load ``bench/fast_server.py`` and serve stdin with it."""
    spec = importlib.util.spec_from_file_location("fast_server", FAST_SERVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    code: int = module.main()
    return code


if __name__ == "__main__":
    with open(os.environ["RECORD_TO"], "a", encoding="utf-8") as record:
        record.write(json.dumps(sorted(os.environ)) + "\n")
    sys.exit(serve())
