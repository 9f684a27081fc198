"""The span a quarterly report's statement title names, for column headers that name only "this period"
or "the prior period".

A Chinese quarterly report heads its income and cash flow statements "本期发生额 | 上期发生额"; which span
that is, the quarter or the year to date, only the statement's title says ("合并年初到报告期末利润表",
"合并第三季度利润表"). Without it the column is known to be the current or the prior year's, not which
of the two spans a field asks for.
"""

from __future__ import annotations

import re
import unicodedata

from mdqa_kernel.text.layout import Line
from mdqa_kernel.text.periods import ReportPeriod, parse_period

# a statement's title: short, naming one of the primary statements
_STATEMENT = re.compile(r"资产负债表|利润表|损益表|现金流量表|(?:所有者|股东)权益变动表")
_YTD = re.compile(r"年初[至到]报告期末|前三季度|上半年|1\s*[-－—–~至]\s*(?:6|9)\s*月")
_QUARTER = re.compile(r"本报告期|第?[一二三四1-4]季度|(?:4|7|10)\s*[-－—–~至]\s*(?:6|9|12)\s*月")
# what a header is given to say the span: words `parse_period` reads as that span
_SPAN_WORDS = {"ytd": "年初至报告期末", "quarter": "three months"}
_TITLE_LOOKUP = 80  # lines above a row searched for its statement's title


def title_span(text: str) -> str | None:
    """ "ytd" or "quarter" for a statement title naming its span, "" for one naming none ("合并利润表"),
    None for a line that is no statement title."""
    t = re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))
    if len(t) > 40 or "。" in t or not _STATEMENT.search(t):
        return None
    if _YTD.search(t):
        return "ytd"
    return "quarter" if _QUARTER.search(t) else ""


def with_statement_span(
    headers: list[str], lines: list[Line], row_index: int, report: ReportPeriod
) -> list[str]:
    """The headers of a quarterly report's row, each one that names the current or prior period and no
    span ("本期发生额", "上期金额") given the span its statement's title names, the nearest title above the
    row on its page. Balance columns ("期末余额") and headers naming a span or a date are left as they are."""
    if not report.quarterly or not headers:
        return headers
    periods = [parse_period(h) for h in headers]
    bare = [
        p.offset is not None
        and not (p.span or p.months or p.point or p.opening or p.change or p.year or p.end or p.quarter)
        for p in periods
    ]
    if not any(bare):
        return headers
    span = _statement_span(lines, row_index)
    if not span:
        return headers
    return [f"{h} {_SPAN_WORDS[span]}" if b else h for h, b in zip(headers, bare, strict=True)]


def _statement_span(lines: list[Line], row_index: int) -> str:
    for j in range(row_index - 1, max(row_index - _TITLE_LOOKUP, -1), -1):
        span = title_span(lines[j].text)
        if span is not None:
            return span
    return ""
