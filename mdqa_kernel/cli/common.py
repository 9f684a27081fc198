"""What every command module of the CLI shares: the one-line error exit, the root group that turns
mdqa's own errors into it, and registry-backed choices.

Only click (and the dependency-free errors module) is imported here, so that `mdqa --help` stays instant.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from mdqa_kernel.errors import MdqaError


def fail(message: str, code: int = 2) -> None:
    """Print a one-line error with its fix and exit, instead of a traceback."""
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


class MdqaGroup(click.Group):
    """The root group: an MdqaError that a command did not handle itself (its message already says what
    to change) ends the run with one line; any other exception is a bug and keeps its traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except MdqaError as e:
            fail(f"{type(e).__name__}: {e}", code=1)
            return None


class RegistryChoice(click.Choice):
    """A `click.Choice` over the names of a `Registry` ("module:ATTRIBUTE"), read when first needed:
    a plug-in's name is accepted, and building the command line imports no stage."""

    def __init__(self, registry: str) -> None:
        super().__init__((), case_sensitive=True)
        self.registry = registry

    @property  # type: ignore[override]
    def choices(self) -> tuple[str, ...]:
        module, _, attribute = self.registry.partition(":")
        return tuple(getattr(importlib.import_module(module), attribute).choices())

    @choices.setter
    def choices(self, _value: object) -> None:  # click.Choice.__init__ assigns the static list
        pass


BACKEND_CHOICE = "mdqa_kernel.llm.config:BACKENDS"
READER_CHOICE = "mdqa_kernel.readers.base:READERS"
EXECUTOR_CHOICE = "mdqa_kernel.extract.executors:EXECUTORS"


def executor_options(command: Any) -> Any:
    """`--executor` and `--ray-address`, as `collection build` and `extract` take them."""
    command = click.option(
        "--ray-address",
        default=None,
        help="a running Ray cluster ('auto', 'ray://head:10001'); with --executor ray",
    )(command)
    return click.option(
        "--executor",
        "executor_kind",
        type=RegistryChoice(EXECUTOR_CHOICE),
        default="local",
        show_default=True,
        help="local: processes on this machine; ray: Ray tasks (a local Ray instance of --jobs CPUs, or --ray-address)",
    )(command)


def check_ray_address(executor_kind: str, ray_address: str | None) -> None:
    if ray_address and executor_kind != "ray":
        raise click.UsageError("--ray-address needs --executor ray")
