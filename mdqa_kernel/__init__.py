"""mdqa_kernel: the kernel-side library of mdqa, a notebook environment for analytical questions
over document collections (collection → plan → extract → rows → aggregate → answer)."""

from __future__ import annotations

__version__ = "0.1.0"


def load_ipython_extension(ipython: object) -> None:
    """`%load_ext mdqa_kernel`: register the %%collection / %%plan / %%extract / %%aggregate magics."""
    from mdqa_kernel.notebook.magics import load

    load(ipython)


def __getattr__(name: str) -> object:
    # `mdqa_kernel.ask(question, collection)` without importing the pipeline at package import time.
    if name == "ask":
        import importlib

        return importlib.import_module("mdqa_kernel.ask")
    raise AttributeError(f"module 'mdqa_kernel' has no attribute {name!r}")
