"""What every `mdqa` command module shares: the one-line error exit.

Kept apart from the root group so a command module imports it without importing the others.
"""

from __future__ import annotations

import sys

import click


def fail(message: str, code: int = 2) -> None:
    """Print a one-line error with its fix and exit, instead of a traceback."""
    click.echo(f"error: {message}", err=True)
    sys.exit(code)
