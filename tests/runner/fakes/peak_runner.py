"""Runs ``ccweb-conformance`` in this process, then writes its peak memory (VmHWM, kB) to $GATE_PEAK.

Usage: peak_runner.py ARGS... (the CLI's arguments). Exits with the CLI's exit code.
"""

import os
import sys
from pathlib import Path

from ccweb_conformance.cli import main


def peak_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    if os.environ.get("GATE_PEAK"):
        Path(os.environ["GATE_PEAK"]).write_text(str(peak_kb()))
    sys.exit(code)
