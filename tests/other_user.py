"""Running a command as a user no other process has, for limits and permissions root would ignore.

Root's processes are exempt from RLIMIT_NPROC and root may rename over anyone's file in a sticky
folder (CAP_FOWNER). ``setpriv`` starts the command as uid/gid 54321 with only the right to read and
search every file (this virtual environment's interpreter may live in root's home, mode 0700),
kept across exec as ambient capabilities; ``no_setuid_fixup`` lets ``access()`` (``shutil.which``)
see them too. Neither capability overrides a limit or the sticky bit.
"""

from __future__ import annotations

import os
import shutil

import pytest

OTHER_UID = 54321
_CAPS = "+dac_override,+dac_read_search"


def as_other_user() -> list[str]:
    """The ``setpriv`` prefix that runs a command as OTHER_UID; skips the test when not root or without setpriv."""
    if os.geteuid() != 0:
        pytest.skip("needs root to start a command as another user")
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: no other user to run as")
    return [
        "setpriv", f"--reuid={OTHER_UID}", f"--regid={OTHER_UID}", "--clear-groups",
        "--securebits=+no_setuid_fixup", f"--inh-caps={_CAPS}", f"--ambient-caps={_CAPS}",
    ]  # fmt: skip
