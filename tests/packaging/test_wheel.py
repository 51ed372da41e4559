"""The kit as a wheel: built with ``python -m build``, installed into a fresh venv outside the repository.

Installation: a venv without pip outside the repository; the wheel is installed into it with
``pip --python VENV install --no-deps``. Its third-party dependencies (mcp, pytest-bdd, ...) are
made visible through one ``.pth`` line naming this environment's site-packages, which saves a
download of about 30 s. A ``.pth`` line only adds that folder to ``sys.path``: the ``.pth`` files
inside it (this checkout's editable install) are not run, so every ``ccweb_*`` module, the spec
data and the features come from the wheel, which the first test proves.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest
from paths import REPO

from ccweb_conformance.suite.scenario_index import feature_scenarios

TOP_LEVEL_OUTPUTS = {".git", ".venv", ".packages", "build", "dist", "reports"}
ANYWHERE_OUTPUTS = shutil.ignore_patterns("__pycache__", "*.egg-info", ".*_cache", ".hypothesis", "node_modules")


def not_sources(folder: str, names: list[str]) -> set[str]:
    """What copying the checkout leaves out: build outputs, caches, environments."""
    top = TOP_LEVEL_OUTPUTS if Path(folder) == REPO else set()
    return set(ANYWHERE_OUTPUTS(folder, names)) | (top & set(names))


PACKAGES = ("ccweb_spec", "ccweb_features", "ccweb_reference", "ccweb_conformance")


def clean_environment() -> dict[str, str]:
    """This environment without anything that could point Python at the repository."""
    return {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "NO_COLOR"}}


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run a command from outside the repository with a clean environment."""
    return subprocess.run(
        command, cwd=cwd, env=clean_environment(), capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv outside the repository with the freshly built wheel installed; returns its bin folder."""
    root = tmp_path_factory.mktemp("wheel")
    source, dist, environment = root / "source", root / "dist", root / "venv"
    shutil.copytree(REPO, source, ignore=not_sources, symlinks=True)
    built = run([sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(source)], cwd=root)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    wheels = sorted(dist.glob("*.whl"))
    assert [w.name for w in wheels] == ["ccweb_list_user_inputs_kit-0.1.0-py3-none-any.whl"]
    venv.EnvBuilder(with_pip=False).create(environment)
    python = environment / "bin" / "python"
    site = run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=root)
    (Path(site.stdout.strip()) / "_kit_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", str(wheels[0])]
    result = run(pip, cwd=root)
    assert result.returncode == 0, result.stderr[-2000:]
    return environment / "bin"


@pytest.fixture
def elsewhere(tmp_path: Path) -> Path:
    """A working directory outside the repository."""
    assert not tmp_path.is_relative_to(REPO)
    return tmp_path


def test_the_kit_and_its_data_come_from_the_wheel(installed: Path, elsewhere: Path):
    probe = (
        "import importlib, os, sys, sysconfig, ccweb_spec\n"
        "from ccweb_conformance.suite.scenario_index import feature_scenarios\n"
        f"for name in {PACKAGES!r}:\n"
        "    print(importlib.import_module(name).__file__)\n"
        "print(ccweb_spec.spec_files().joinpath('requirements.yaml'))\n"
        "print(len(feature_scenarios()))\n"
        "print(sysconfig.get_path('purelib'))\n"
        "print([p for p in sys.path if os.path.abspath(p or '.').startswith(sys.argv[1])])\n"
    )
    result = run([str(installed / "python"), "-c", probe, str(REPO)], cwd=elsewhere)
    assert result.returncode == 0, result.stderr
    *modules, data, scenarios, site, inside_repo = result.stdout.splitlines()
    assert Path(site).is_relative_to(installed.parent)
    assert modules == [str(Path(site) / name / "__init__.py") for name in PACKAGES]
    assert data == str(Path(site) / "ccweb_spec" / "requirements.yaml")
    assert int(scenarios) == len(feature_scenarios())
    dependencies = sysconfig.get_path("purelib")
    assert [p for p in ast.literal_eval(inside_repo) if p != dependencies] == []


def test_every_package_of_the_checkout_is_in_the_wheel(installed: Path):
    site = next(installed.parent.glob("lib/python*/site-packages"))
    in_checkout = {
        ".".join(init.relative_to(REPO / folder).parts[:-1])
        for folder in ("spec", "features", "reference", "conformance")
        for init in (REPO / folder).rglob("__init__.py")
    }
    in_wheel = {
        ".".join(init.relative_to(site).parts[:-1]) for name in PACKAGES for init in (site / name).rglob("__init__.py")
    }
    assert in_wheel == in_checkout


def test_run_against_the_bundled_reference(installed: Path, elsewhere: Path):
    result = run([str(installed / "ccweb-conformance"), "run", "--tags", "AC-1"], cwd=elsewhere)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert result.stdout.splitlines()[-1].startswith("6 passed, 0 failed in ")


def test_reference_help(installed: Path, elsewhere: Path):
    result = run([str(installed / "ccweb-reference"), "--help"], cwd=elsewhere)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.startswith("usage: ccweb-reference ")


def test_spec_renders_the_committed_copy(installed: Path, elsewhere: Path):
    result = run([str(installed / "ccweb-conformance"), "spec"], cwd=elsewhere)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (REPO / "docs" / "SPEC.md").read_text(encoding="utf-8")


def test_export_from_the_installed_kit_writes_the_harness_and_names_its_guides(installed: Path, elsewhere: Path):
    """``export`` outside the repository: the cases, the Node harness beside them (the kit's own copy), and
    ``export --help`` naming the installed CASES.md and CASES.zh-CN.md, which exist."""
    kit = str(installed / "ccweb-conformance")
    helped = run([kit, "export", "--help"], cwd=elsewhere)
    assert (helped.returncode, helped.stderr) == (0, "")
    site = next(installed.parent.glob("lib/python*/site-packages"))
    guides = [site / "ccweb_conformance" / "harness" / name for name in ("CASES.md", "CASES.zh-CN.md")]
    for guide in guides:
        assert f"  {guide}\n" in helped.stdout
        source = REPO / "conformance" / "ccweb_conformance" / "harness" / guide.name
        assert guide.read_text(encoding="utf-8") == source.read_text(encoding="utf-8")
    (elsewhere / "contract").mkdir()
    exported = run([kit, "export", "--output", "contract/cases.json"], cwd=elsewhere)
    assert exported.returncode == 0, exported.stderr[-2000:]
    assert sorted(p.name for p in (elsewhere / "contract").iterdir()) == ["cases.json", "contract-cases.js"]
    harness = (elsewhere / "contract" / "contract-cases.js").read_bytes()
    assert harness == (REPO / "examples" / "node-server" / "contract" / "contract-cases.js").read_bytes()
    committed = (REPO / "examples" / "node-server" / "contract" / "cases.json").read_text(encoding="utf-8")
    assert (elsewhere / "contract" / "cases.json").read_text(encoding="utf-8") == committed
