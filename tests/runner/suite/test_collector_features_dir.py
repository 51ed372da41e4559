"""Which feature files are the kit's: decided once per file name, the same answer as resolving each time."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from ccweb_conformance.suite import items as collector

KIT_FEATURE = Path(str(files("ccweb_features"))) / "protocol.feature"


def test_a_kit_feature_is_the_kits_and_a_copy_elsewhere_is_not(tmp_path: Path) -> None:
    copy = tmp_path / "protocol.feature"
    copy.write_bytes(KIT_FEATURE.read_bytes())
    link = tmp_path / "linked"
    link.symlink_to(KIT_FEATURE.parent, target_is_directory=True)
    assert collector._in_features_dir(str(KIT_FEATURE)) is True
    assert collector._in_features_dir(str(link / "protocol.feature")) is True  # resolved, as before
    assert collector._in_features_dir(str(copy)) is False


def test_each_file_name_is_resolved_once() -> None:
    collector._in_features_dir.cache_clear()
    for _ in range(3):
        collector._in_features_dir(str(KIT_FEATURE))
    info = collector._in_features_dir.cache_info()
    assert (info.misses, info.hits) == (1, 2)
