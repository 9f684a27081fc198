"""The `mdqa` command line: plain text for people, JSON with --json for scripts.

Each stage registers its commands below; the heavy imports happen inside the commands so that
`mdqa --help` stays instant.
"""

from __future__ import annotations

import sys

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mdqa")
def main() -> None:
    """mdqa: analytical questions over document collections."""


def fail(message: str, code: int = 2) -> None:
    """Print a one-line error with its fix and exit, instead of a traceback."""
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


# -- commands are registered per stage below (collection, render, llm, extract, ask, reproduce) --
