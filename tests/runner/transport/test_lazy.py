"""A deferred import finishes before a signal that arrived during it is raised."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ccweb_conformance.errors import RunInterrupted
from ccweb_conformance.transport import signals
from ccweb_conformance.transport.lazy import deferred_import

SIGNALS_ITSELF = """\
import os, signal, time
first = 1
os.kill(os.getpid(), signal.SIGTERM)
time.sleep(0.05)  # the handler runs here: unshielded, the import would stop before 'last'
last = 2
"""


def test_a_signal_during_a_deferred_import_is_raised_once_the_module_is_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "ccweb_test_signalled_module.py").write_text(SIGNALS_ITSELF, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "ccweb_test_signalled_module", raising=False)
    with pytest.raises(RunInterrupted) as raised, signals.interrupts() as state:
        deferred_import("ccweb_test_signalled_module")
    module = sys.modules.pop("ccweb_test_signalled_module")
    assert (module.first, module.last) == (1, 2)
    assert (raised.value.name, state.signum, state.raised) == ("SIGTERM", 15, True)
