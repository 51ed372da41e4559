"""The reference over stdio, after writing the names of its environment to the file ``$RECORD_TO`` (one JSON line)."""

from __future__ import annotations

import json
import os
import sys

from ccweb_reference.cli import main

if __name__ == "__main__":
    with open(os.environ["RECORD_TO"], "a", encoding="utf-8") as record:
        record.write(json.dumps(sorted(os.environ)) + "\n")
    sys.exit(main())
