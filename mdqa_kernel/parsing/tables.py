"""Tables on demand: pdfplumber's table finder for one page, cached in the workspace.

pdfplumber is ~40× slower than the pypdfium2 pass, so it never runs over whole documents: a reader
asks for the tables of the one page its retrieval pointed at. The result is cached as a parquet file
per (sha256, page), so each page's tables are computed once per workspace.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.store import Workspace, sha256_file

TABLES_VERSION = "plumber-1"
Box = tuple[float, float, float, float]  # x0, top, x1, bottom (top measured from the page top)

CELLS_SCHEMA = {
    "table": pl.Int32,
    "row": pl.Int32,
    "col": pl.Int32,
    "text": pl.String,
    "x0": pl.Float64,
    "top": pl.Float64,
    "x1": pl.Float64,
    "bottom": pl.Float64,
    "header": pl.Boolean,
    "bbox_json": pl.String,  # the table's bbox, repeated per cell, so the cache is one file per page
}
_NUMBER = re.compile(r"^[(\-−–]?[$¥€£]?\d[\d,]*(?:\.\d+)?%?\)?$")
_YEAR = re.compile(r"^(19|20)\d\d$")


class TableExtractionError(MdqaError):
    """Tables could not be extracted from the requested page."""


@dataclass
class Table:
    """One table: cell text (None for a merged or empty cell slot), cell boxes, leading header rows."""

    page: int
    index: int
    bbox: Box
    cells: list[list[str | None]]
    cell_boxes: list[list[Box | None]] = field(default_factory=list)
    header_rows: int = 0

    @property
    def header(self) -> list[list[str | None]]:
        return self.cells[: self.header_rows]

    @property
    def body(self) -> list[list[str | None]]:
        return self.cells[self.header_rows :]

    def to_frame(self) -> pl.DataFrame:
        """Body rows as strings; columns named after the joined header cells (col_<i> where blank)."""
        width = max((len(r) for r in self.cells), default=0)
        names: list[str] = []
        for c in range(width):
            parts = [r[c] for r in self.header if c < len(r) and r[c]]
            base = " ".join(p.replace("\n", " ") for p in parts) or f"col_{c}"
            names.append(base if base not in names else f"{base}_{c}")
        rows = [[(r[c] if c < len(r) else None) for c in range(width)] for r in self.body]
        return pl.DataFrame(rows, schema=dict.fromkeys(names, pl.String), orient="row")


def _count_header_rows(cells: list[list[str | None]]) -> int:
    """Leading rows with no number other than a year are headers (at most 3, never the whole table)."""
    n = 0
    for row in cells[:3]:
        values = [(c or "").replace("\n", " ").strip() for c in row[1:]]
        if any(_NUMBER.match(v) and not _YEAR.match(v) for v in values if v):
            break
        n += 1
    return n if n < len(cells) else 0


def _find_tables(path: Path, page: int) -> list[Table]:
    import pdfplumber  # slow import; only needed here

    try:
        with pdfplumber.open(path) as pdf:
            if not 1 <= page <= len(pdf.pages):
                raise TableExtractionError(f"{path} has {len(pdf.pages)} pages; page {page} does not exist")
            found = pdf.pages[page - 1].find_tables()
            tables = []
            for k, t in enumerate(found):
                cells = t.extract()
                boxes = [[tuple(c) if c is not None else None for c in row.cells] for row in t.rows]
                tables.append(Table(page, k, tuple(t.bbox), cells, boxes, _count_header_rows(cells)))  # type: ignore[arg-type]
            return tables
    except TableExtractionError:
        raise
    except Exception as e:
        raise TableExtractionError(f"{path}, page {page}: pdfplumber failed ({type(e).__name__}: {e})") from e


def _to_frame(tables: list[Table]) -> pl.DataFrame:
    rows = []
    for t in tables:
        for r, (row, boxes) in enumerate(zip(t.cells, t.cell_boxes, strict=False)):
            for c, text in enumerate(row):
                box = boxes[c] if c < len(boxes) and boxes[c] is not None else (None, None, None, None)
                rows.append((t.index, r, c, text, *box, r < t.header_rows, json.dumps(list(t.bbox))))
    return pl.DataFrame(rows, schema=CELLS_SCHEMA, orient="row")


def _from_frame(df: pl.DataFrame, page: int, bboxes: dict[int, Box]) -> list[Table]:
    tables = []
    for (index,), part in df.sort("table", "row", "col").group_by("table", maintain_order=True):
        n_rows = int(part["row"].max()) + 1  # type: ignore[arg-type]
        cells: list[list[str | None]] = [[] for _ in range(n_rows)]
        boxes: list[list[Box | None]] = [[] for _ in range(n_rows)]
        for r, text, x0, top, x1, bottom in part.select(
            "row", "text", "x0", "top", "x1", "bottom"
        ).iter_rows():
            cells[r].append(text)
            boxes[r].append(None if x0 is None else (x0, top, x1, bottom))
        header = int(part.filter(pl.col("header"))["row"].n_unique())
        tables.append(Table(page, int(index), bboxes[int(index)], cells, boxes, header))  # type: ignore[arg-type]
    return tables


def extract_tables(
    path: str | Path, page: int, *, workspace: Workspace | None = None, sha256: str | None = None
) -> list[Table]:
    """The tables pdfplumber finds on `page` (1-based). With a workspace the result is cached per
    (file sha256, page); raises TableExtractionError for a missing page or an unreadable file."""
    path = Path(path)
    if workspace is None:
        return _find_tables(path, page)
    sha = sha256 or sha256_file(path)
    rel = f"parquet/tables/{sha[:2]}/{sha}-{TABLES_VERSION}/p{page:05d}.parquet"
    if (workspace.path / rel).exists():
        df = workspace.read_parquet(rel)
        return _from_frame(df.drop("bbox_json"), page, _bboxes(df))
    tables = _find_tables(path, page)
    workspace.write_parquet(_to_frame(tables), rel)
    return tables


def _bboxes(df: pl.DataFrame) -> dict[int, Box]:
    pairs = df.select("table", "bbox_json").unique("table").iter_rows()
    return {int(i): tuple(json.loads(b)) for i, b in pairs}  # type: ignore[misc]
