"""`mdqa plan check`: load and validate a plan file.

Only click is imported at module level, so `mdqa --help` stays instant."""

from __future__ import annotations

import click

from mdqa_kernel.cli.common import fail


@click.group("plan")
def plan_group() -> None:
    """Plans: the typed description of one question (filters, fields, aggregation)."""


@plan_group.command("check")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--columns", default=None, help="comma-separated metadata columns to validate templates against"
)
@click.option("--json", "as_json", is_flag=True, help="print the normalised plan as JSON")
def plan_check(path: str, columns: str | None, as_json: bool) -> None:
    """Load and validate a plan file (.yaml/.json); errors name the offending key."""
    from mdqa_kernel.plan.ir import Plan, PlanValidationError

    try:
        plan = Plan.load(path)
        if columns:
            plan.validate_against([c.strip() for c in columns.split(",") if c.strip()])
    except PlanValidationError as e:
        fail(str(e))
        return
    if as_json:
        click.echo(plan.to_json())
        return
    click.echo(f"ok: {len(plan.fields)} field(s), {len(plan.filters)} filter(s)")
    click.echo(plan.fields_frame())
