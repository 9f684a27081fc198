"""Magics mirroring the stages: %%collection, %%plan, %%extract, %%aggregate.

Each also works as a line magic (`%extract rows --plan p --collection c`) when it needs no body.

Loaded by `%load_ext mdqa_kernel`. Each cell binds its result to NAME in the user namespace and shows a
compact view; the same steps are plain Python calls (see mdqa_kernel.notebook.cells) for scripts and
papermill. `$var` in a magic line or body is replaced by the notebook variable `var`, so papermill
parameters flow into cells. Errors print one short message with the fix (a UsageError), never a
traceback wall; the cell still fails, so a papermill run stops where the problem is.
"""

from __future__ import annotations

import argparse
import re
import shlex
from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.display import HTML, display

from mdqa_kernel.notebook import cells as notebook
from mdqa_kernel.text.yamlsafe import YamlLoadError, load_yaml

_VAR = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse would sys.exit() the kernel
        raise UsageError(f"{self.prog}: {message}\nusage: {self.format_usage().strip()}")


def _parser(prog: str) -> _Parser:
    return _Parser(prog=prog, add_help=False)


@magics_class
class MdqaMagics(Magics):
    """The mdqa cell magics; each is a thin shell over a function in mdqa_kernel.notebook.cells."""

    # -- helpers -----------------------------------------------------------------------------
    def _expand(self, text: str) -> str:
        """Replace $name by the notebook variable's value (papermill parameters)."""
        ns = self.shell.user_ns if self.shell is not None else {}

        def sub(m: re.Match[str]) -> str:
            name = m.group(1)
            if name not in ns:
                raise UsageError(
                    f"${name} is not defined in the notebook; set it in a cell above (or as a papermill parameter)"
                )
            return str(ns[name])

        return _VAR.sub(sub, text)

    def _args(self, prog: str, line: str, parser: _Parser) -> argparse.Namespace:
        try:
            return parser.parse_args(shlex.split(self._expand(line)))
        except ValueError as e:
            raise UsageError(f"{prog}: cannot read the magic line ({e})") from None

    def _yaml(self, prog: str, cell: str) -> Any:
        try:
            return (
                load_yaml(self._expand(cell), f"{prog} cell body", what=f"a {prog} body")
                if cell.strip()
                else {}
            )
        except YamlLoadError as e:  # bounded: no aliases, duplicate keys, huge or deep bodies
            raise UsageError(str(e)) from None

    def _lookup(self, name: str, what: str) -> Any:
        ns = self.shell.user_ns if self.shell is not None else {}
        if name not in ns:
            raise UsageError(f"no {what} named {name!r} in this notebook; run the cell that creates it first")
        return ns[name]

    def _bind(self, name: str, value: Any) -> None:
        if self.shell is not None:
            self.shell.user_ns[name] = value

    # -- magics ------------------------------------------------------------------------------
    @line_cell_magic
    def collection(self, line: str, cell: str | None = None) -> None:
        """Build (or reopen) a collection and bind it to NAME.

        Usage:  %%collection NAME
                pdf_dir: demo-output/corpus/pdfs
                metadata: demo-output/corpus/metadata.csv
                workspace: mdqa-workspace
        Body (YAML, all optional): pdf_dir, metadata, workspace, name, jobs, where: {column: value}.
        Without pdf_dir the collection `name` of `workspace` is reopened.
        """
        cell = cell or ""  # also usable as a line magic (%collection ...) when there is no body
        p = _parser("%%collection")
        p.add_argument("name")
        args = self._args("%%collection", line, p)
        spec = self._yaml("%%collection", cell)
        with notebook.friendly_errors():
            coll = notebook.collection(**notebook.mapping(spec, "%%collection body"))
        self._bind(args.name, coll)
        display(coll)

    @line_cell_magic
    def plan(self, line: str, cell: str | None = None) -> None:
        """Write a plan in YAML, or have the planner propose one, and bind it to NAME.

        Usage:  %%plan NAME                                       body: the plan in YAML
                %%plan NAME --ask "question" [--collection C]     body: empty, or the fields to read
        With --ask the planner writes the plan (from the metadata of collection C when given), and the
        cell shows it as YAML to copy into a %%plan cell and edit.
        """
        cell = cell or ""  # also usable as a line magic (%plan ...) when there is no body
        p = _parser("%%plan")
        p.add_argument("name")
        p.add_argument("--ask", default=None)
        p.add_argument("--collection", default=None)
        args = self._args("%%plan", line, p)
        with notebook.friendly_errors():
            if args.ask:
                coll = self._lookup(args.collection, "collection") if args.collection else None
                plan = notebook.propose_plan(
                    args.ask, coll, fields_yaml=self._expand(cell) if cell.strip() else None
                )
            else:
                plan = notebook.plan_from_yaml(self._expand(cell))
        self._bind(args.name, plan)
        display(plan)
        if args.ask:
            display(HTML(notebook.plan_edit_hint(args.name, plan)))

    @line_cell_magic
    def extract(self, line: str, cell: str | None = None) -> None:
        """Read every field of plan P from every document of collection C; bind the result to NAME.

        Usage:  %%extract NAME --plan P --collection C [--reader cascade] [--k 5] [--review]
        --reader: table, llm, cascade (default) or oracle; --k: chunks retrieved per field (llm,
        cascade); --review: open the rows review widget. Body (YAML, optional): more options of the
        extraction and the reader, e.g. `jobs: 2`, `threshold: 0.8`. A run resumes where the previous
        one stopped.
        """
        cell = cell or ""  # also usable as a line magic (%extract ...) when there is no body
        p = _parser("%%extract")
        p.add_argument("name")
        p.add_argument("--plan", required=True)
        p.add_argument("--collection", required=True)
        p.add_argument("--reader", default="cascade")
        p.add_argument("--k", type=int, default=None)
        p.add_argument("--review", action="store_true")
        args = self._args("%%extract", line, p)
        options = notebook.mapping(self._yaml("%%extract", cell), "%%extract body")
        plan = self._lookup(args.plan, "plan")
        coll = self._lookup(args.collection, "collection")
        with notebook.friendly_errors():
            result = notebook.extract(plan, coll, reader=args.reader, k=args.k, **options)
        self._bind(args.name, result)
        display(HTML(notebook.extraction_html(result)))
        if args.review:
            display(notebook.review(result))

    @line_cell_magic
    def aggregate(self, line: str, cell: str | None = None) -> None:
        """Aggregate the (corrected) rows R into an answer; bind it to NAME.

        Usage:  %%aggregate NAME --rows R [--plan P] [--question "..."]
        R: an extraction (its corrected rows) or a rows DataFrame. Body: YAML operations, or polars code
        that sets `result` (run in a sandbox); empty: the aggregation of plan P (default: R's plan).
        """
        cell = cell or ""  # also usable as a line magic (%aggregate ...) when there is no body
        p = _parser("%%aggregate")
        p.add_argument("name")
        p.add_argument("--rows", required=True)
        p.add_argument("--plan", default=None)
        p.add_argument("--question", default=None)
        args = self._args("%%aggregate", line, p)
        source = self._lookup(args.rows, "rows or extraction")
        plan = self._lookup(args.plan, "plan") if args.plan else getattr(source, "plan", None)
        body = self._expand(cell)
        with notebook.friendly_errors():
            outcome = notebook.aggregate_cell(source, body, plan=plan, question=args.question)
        self._bind(args.name, outcome)
        display(outcome)


def load(ipython: Any) -> None:
    ipython.register_magics(MdqaMagics)
