"""The `mdqa` command line: one module per command group (`main` holds the root group)."""

from __future__ import annotations

from mdqa_kernel.cli.main import main

__all__ = ["main"]
