"""The wheel carries what mdqa finds through mdqa_kernel.resources (widget front end, notebooks,
examples), so a plain `pip install .` works outside the checkout; the package list in pyproject.toml
names every package of mdqa_kernel."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from mdqa_kernel import resources
from mdqa_kernel.errors import MdqaError

from .conftest import REPO

ASSET_FOLDERS = {"widgets": "widgets", "notebooks": "notebooks", "examples": "examples"}
SHIPPED = [  # what the code asks for by name
    "widgets/rows_review.js",
    "widgets/rows_review.css",
    "notebooks/00_quickstart.ipynb",
    "notebooks/benchmarks/mudabench.ipynb",
    "examples/mudabench/simple.json",
    "examples/mudabench/complex.json",
    "examples/mudabench/LICENSE",
    "examples/plans/capital_adequacy_top3.yaml",
    "examples/realdocs/plan.yaml",
]


def _setuptools_config() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]


def test_pyproject_lists_every_package_of_mdqa_kernel() -> None:
    listed = set(_setuptools_config()["packages"])
    # setuptools treats a data folder (text/data holds JSON, no __init__.py) as a package too and
    # warns when it is not listed
    on_disk = {
        ".".join(p.parent.relative_to(REPO).parts)
        for p in (REPO / "mdqa_kernel").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and (p.suffix in {".py", ".json", ".yaml", ".typed"})
    }
    assert on_disk - listed == set(), "add these packages to [tool.setuptools] packages in pyproject.toml"
    assert {p for p in listed if not p.startswith("mdqa_kernel._assets")} == on_disk


def test_asset_packages_map_to_the_top_level_folders() -> None:
    config = _setuptools_config()
    for name, top in ASSET_FOLDERS.items():
        assert config["package-dir"][f"mdqa_kernel._assets.{name}"] == top
    assets = [p for p in config["packages"] if p.startswith("mdqa_kernel._assets.")]
    for package in assets:
        name, *sub = package.split(".")[2:]
        folder = REPO / ASSET_FOLDERS[name] / Path(*sub)
        files = [f for pattern in config["package-data"].get(package, []) for f in folder.glob(pattern)]
        holds_others = any(p.startswith(f"{package}.") for p in assets)
        assert files or holds_others, f"{package} ships nothing"  # a stale entry


def test_resources_resolve_in_the_checkout() -> None:
    assert resources.checkout_root() == REPO
    assert resources.widget_asset("rows_review.js") == REPO / "widgets" / "rows_review.js"
    assert resources.notebook("benchmarks/parse.ipynb").is_file()
    assert resources.example("mudabench").is_dir()


def test_a_missing_resource_names_what_and_where() -> None:
    with pytest.raises(resources.ResourceMissingError, match=r"nope\.js") as err:
        resources.widget_asset("nope.js")
    assert isinstance(err.value, MdqaError) and isinstance(err.value, FileNotFoundError)
    with pytest.raises(resources.ResourceMissingError, match="no folder 'data'"):
        resources.folder("data")


_CHECK_INSTALLED = """
import sys
from pathlib import Path
import mdqa_kernel
from mdqa_kernel import resources
target = Path(sys.argv[1]).resolve()
assert Path(mdqa_kernel.__file__).resolve().is_relative_to(target), mdqa_kernel.__file__
assert resources.checkout_root() is None
for path in (resources.widget_asset("rows_review.js"), resources.notebook("00_quickstart.ipynb"),
             resources.notebook("benchmarks/mudabench.ipynb"), resources.example("plans/capital_adequacy_top3.yaml")):
    assert path.resolve().is_relative_to(target) and path.is_file(), path
from mdqa_kernel.readers.oracle import load_gold
assert "mdqa_kernel.benchmarks.mudabench" not in sys.modules
assert load_gold("mudabench:simple")  # through the entry point
from mdqa_kernel.benchmarks import mudabench
assert mudabench.load_split("simple").questions.height > 0
from mdqa_kernel.benchmarks.reproduce import listing
assert all(item["exists"] for item in listing())
from mdqa_kernel.notebook import example_path
assert example_path("realdocs/plan.yaml").is_file()
import mdqa_kernel.notebook.widget  # reads the front end when the widget class is defined
print("installed resources ok")
"""


def _copy_source(dest: Path) -> Path:
    """The files a build reads, copied out of the checkout (a build writes build/ and egg-info)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    dest.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, dest / name)
    for name in ("mdqa_kernel", *ASSET_FOLDERS.values()):
        shutil.copytree(REPO / name, dest / name, ignore=ignore)
    return dest


def _recent_setuptools() -> bool:
    """Whether this environment can build the wheel itself (the SPDX `license` string needs 77)."""
    try:
        major = int(importlib.metadata.version("setuptools").split(".")[0])
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return False
    return major >= 77


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the wheel built from a copy of the checkout, the folder it is installed into with --target)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = _copy_source(tmp / "src")
    wheels = tmp / "wheels"
    isolation = ["--no-build-isolation"] if _recent_setuptools() else []  # else pip fetches one
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, "wheel", "--no-deps", *isolation, "-w", str(wheels), str(src)], check=True)
    (wheel,) = wheels.glob("mdqa-*.whl")
    target = tmp / "site"
    subprocess.run([*pip, "install", "--no-deps", "--target", str(target), str(wheel)], check=True)
    return wheel, target


def _outside(installed: tuple[Path, Path], tmp_path: Path, timeout: float = 300) -> dict:
    """subprocess.run options: a folder outside the checkout, the installed copy first on the path."""
    env = {**os.environ, "PYTHONPATH": str(installed[1])}
    return {"cwd": tmp_path, "env": env, "capture_output": True, "text": True, "timeout": timeout}


@pytest.mark.slow
def test_wheel_ships_the_resources_and_runs_outside_the_checkout(
    installed: tuple[Path, Path], tmp_path: Path
) -> None:
    wheel, target = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    for rel in SHIPPED:
        assert f"mdqa_kernel/_assets/{rel}" in names, rel
    notebooks = {p.relative_to(REPO).as_posix() for p in (REPO / "notebooks").rglob("*.ipynb")}
    assert {f"mdqa_kernel/_assets/{n}" for n in notebooks} <= names  # every tutorial and benchmark

    run = _outside(installed, tmp_path)
    checked = subprocess.run([sys.executable, "-c", _CHECK_INSTALLED, str(target)], **run)
    assert checked.returncode == 0, checked.stderr
    assert "installed resources ok" in checked.stdout
    helped = subprocess.run([sys.executable, "-m", "mdqa_kernel.cli", "demo", "--help"], **run)
    assert helped.returncode == 0 and "--questions" in helped.stdout, helped.stderr
    script = subprocess.run(
        [str(target / "bin" / "mdqa"), "reproduce", "--list"], **run
    )  # the console script
    assert script.returncode == 0 and str(target) in script.stdout, script.stderr


@pytest.mark.slow
@pytest.mark.llm
def test_installed_demo_runs_outside_the_checkout(installed: tuple[Path, Path], tmp_path: Path) -> None:
    """What `pip install . && mdqa demo` (and `make demo`) does in a fresh folder: the quickstart notebook end to
    end, offline, with the local model (about a minute). The one run of the demo in the suite: running it again
    in-process would test the same job twice."""
    out = tmp_path / "demo-check"
    args = [sys.executable, "-m", "mdqa_kernel.cli", "demo", "--out", str(out), "--questions", "1"]
    result = subprocess.run(args, **_outside(installed, tmp_path, timeout=900))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "not the original filings" in result.stdout
    assert "judged correct: 1/1" in result.stdout
    assert (out / "quickstart.ipynb").stat().st_size > 10_000
    assert "<html" in (out / "quickstart.html").read_text("utf-8")[:2000].lower()
