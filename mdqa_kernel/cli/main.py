"""The `mdqa` command line: plain text for people, JSON with --json for scripts.

This module holds the root group; each command group lives in its own module of this package
(llm, plan, collection, render, extract, ask, demo) and `mdqa reproduce` in the benchmarks, and is
registered below. The command modules import only click at module level and do their heavy imports
inside the commands, so that `mdqa --help` stays instant.
"""

from __future__ import annotations

import click

from mdqa_kernel.benchmarks.reproduce_cli import reproduce_cmd
from mdqa_kernel.cli.ask import ask_cmd
from mdqa_kernel.cli.collection import collection_group
from mdqa_kernel.cli.common import MdqaGroup
from mdqa_kernel.cli.demo import demo
from mdqa_kernel.cli.extract import cells_cmd, extract_cmd
from mdqa_kernel.cli.llm import llm_group
from mdqa_kernel.cli.plan import plan_group
from mdqa_kernel.cli.render import render_group


@click.group(cls=MdqaGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="mdqa")
def main() -> None:
    """mdqa: analytical questions over document collections."""


for _command in (
    llm_group,
    plan_group,
    collection_group,
    demo,
    render_group,
    extract_cmd,
    cells_cmd,
    reproduce_cmd,
    ask_cmd,
):
    main.add_command(_command)
