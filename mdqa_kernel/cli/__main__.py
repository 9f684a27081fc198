"""`python -m mdqa_kernel.cli`: the same as the `mdqa` command."""

from mdqa_kernel.cli.main import main

main(prog_name="mdqa")
