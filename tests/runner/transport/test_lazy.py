"""A deferred import finishes before a signal that arrived during it is raised."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ccweb_conformance.errors import RunInterrupted
from ccweb_conformance.transport import signals
from ccweb_conformance.transport.lazy import deferred_import, submodule_alone

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


def test_a_submodule_alone_skips_its_packages_init_which_later_finds_and_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "ccweb_test_heavy_package"
    package.mkdir()
    (package / "__init__.py").write_text("from .core import made\ninit_ran = True\n", encoding="utf-8")
    (package / "core.py").write_text("made = object()\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("ccweb_test_heavy_package", "ccweb_test_heavy_package.core"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    alone = submodule_alone("ccweb_test_heavy_package.core")
    seen = ("ccweb_test_heavy_package" in sys.modules, alone.__name__)
    import ccweb_test_heavy_package  # noqa: PLC0415 - the package's own import, after the submodule's

    assert (seen, ccweb_test_heavy_package.init_ran, ccweb_test_heavy_package.made is alone.made) == (
        (False, "ccweb_test_heavy_package.core"),
        True,
        True,
    )
    assert submodule_alone("ccweb_test_heavy_package.core") is alone


def test_a_submodule_alone_that_is_not_there_is_the_import_error_a_plain_import_raises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "ccweb_test_empty_package").mkdir()
    monkeypatch.syspath_prepend(str(tmp_path))
    names = []
    for missing in ("ccweb_no_such_package.core", "ccweb_test_empty_package.core"):
        with pytest.raises(ModuleNotFoundError) as raised:
            submodule_alone(missing)
        names.append(raised.value.name)
    assert names == ["ccweb_no_such_package", "ccweb_test_empty_package.core"]
