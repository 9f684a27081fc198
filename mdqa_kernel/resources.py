"""The files mdqa ships beside its code: the widget front end, the notebooks, the examples.

They live in the repository's top-level folders widgets/, notebooks/ and examples/ (a fixed layout),
and git holds them once. A wheel (`pip install .`, `pip install mdqa`) carries them as package data
under mdqa_kernel/_assets/<folder>/: pyproject.toml maps the packages `mdqa_kernel._assets.widgets`,
`…notebooks` and `…examples` to those folders (setuptools package-dir), so building the wheel copies
them in. A source checkout (`pip install -e .`, or PYTHONPATH pointing at it) has no _assets folder:
there the top-level folders are read in place. Callers ask for a file by name and never build a
path from the repository.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from mdqa_kernel.errors import MdqaError

FOLDERS = ("widgets", "notebooks", "examples")


class ResourceMissingError(MdqaError, FileNotFoundError):
    """A file mdqa ships (widget front end, notebook, example) is not where the install put it."""


def checkout_root() -> Path | None:
    """The source checkout mdqa runs from (editable install or PYTHONPATH), None for an installed wheel."""
    root = Path(__file__).resolve().parents[1]
    return root if (root / "pyproject.toml").is_file() and (root / "mdqa_kernel").is_dir() else None


def folder(name: str) -> Path:
    """One of the shipped folders (widgets, notebooks, examples): the wheel's copy or the checkout's."""
    if name not in FOLDERS:
        raise ResourceMissingError(f"mdqa ships no folder {name!r}; the folders are {', '.join(FOLDERS)}")
    packaged = files("mdqa_kernel") / "_assets" / name
    if isinstance(packaged, Path) and packaged.is_dir():  # a wheel installs unzipped: a real folder
        return packaged
    root = checkout_root()
    if root is not None and (root / name).is_dir():
        return root / name
    raise ResourceMissingError(
        f"mdqa's {name}/ folder is missing: neither {packaged} (installed package data) nor a source "
        "checkout holds it; reinstall mdqa (pip install .) or run from its checkout"
    )


def _file(kind: str, name: str, relpath: str) -> Path:
    path = folder(kind) / relpath
    if not path.exists():
        raise ResourceMissingError(
            f"{name} {relpath!r} is not among mdqa's {kind} ({folder(kind)}); check the name, or "
            "reinstall mdqa if the file was removed"
        )
    return path


def widget_asset(name: str) -> Path:
    """A widget front-end file (widgets/rows_review.js, .css)."""
    return _file("widgets", "widget front end", name)


def notebook(name: str) -> Path:
    """A notebook: a tutorial (`00_quickstart.ipynb`) or a benchmark (`benchmarks/parse.ipynb`)."""
    return _file("notebooks", "notebook", name)


def example(relpath: str) -> Path:
    """A file or folder under examples/ (example plans, the vendored MuDABench files)."""
    return _file("examples", "example", relpath)
