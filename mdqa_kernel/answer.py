"""Answer: turn an aggregation result frame into the final answer, in the question's language.

Deterministic first: one template per output form (entities in order, entity with value, a number
with its unit, a count, tiers of tied values, a table), so the same result always gives the same
text. Numbers keep at least two decimals and are never rounded to fewer significant digits than
that (MuDABench's judge compares integer digits and the first decimal). An optional LLM `polish`
may rephrase the text but must keep every number and identifier; otherwise it is rejected and the
deterministic text stays. The answer carries its lineage: result row → (doc_id, field) cells →
page and snippet when an evidence `cells` frame is given.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from typing import Any

import polars as pl
from pydantic import BaseModel, Field

from mdqa_kernel.aggregate.run import AggregateResult
from mdqa_kernel.plan.aggregation import Aggregation, Output
from mdqa_kernel.text.language import Language, detect_language

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


class LineageItem(BaseModel):
    row: int
    entity: str | None = None
    doc_id: str
    field: str
    value: Any = None
    status: str | None = None
    page: int | None = None
    snippet: str | None = None


class Answer(BaseModel):
    text: str
    language: Language
    form: str
    values: list[Any] = Field(default_factory=list, description="entities / numbers shown, in order")
    records: list[dict[str, Any]] = Field(default_factory=list, description="the result frame as records")
    lineage: list[LineageItem] = Field(default_factory=list)
    polished: bool = False
    polish_note: str | None = None


def format_number(value: Any, *, decimals: int | None = None, percent: bool = False) -> str:
    """Integers as integers; other numbers with ≥2 decimals and up to 4 significant ones kept.

    `percent` multiplies a fraction by 100 (the caller adds the '%').
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if not isinstance(value, (int, float)):
        return str(value)
    if percent:
        value = value * 100
    if isinstance(value, int):
        return str(value)
    if decimals is not None:
        return f"{value:.{decimals}f}"
    # keep at least 2 decimals; for small magnitudes keep 4 significant digits so 0.008416 is not 0.01
    places = 2 if abs(value) >= 1 or value == 0 else max(2, 3 - math.floor(math.log10(abs(value))))
    text = f"{value:.{max(places, 4)}f}"
    whole, frac = text.split(".")
    frac = frac.rstrip("0").ljust(2, "0")
    return f"{whole}.{frac}"


def _with_unit(num: str, out: Output, language: Language) -> str:
    unit = "%" if out.percent else (out.unit or "")
    if not unit or num == "—":
        return num
    sep = "" if unit in ("%", "元", "亿元", "万元", "家", "人", "次", "天", "个") or language == "zh" else " "
    return f"{num}{sep}{unit}"


def _fmt(value: Any, out: Output, language: Language) -> str:
    return _with_unit(format_number(value, decimals=out.decimals, percent=out.percent), out, language)


def _also(value: Any, out: Output, language: Language) -> str:
    if isinstance(value, pl.Series):
        value = value.to_list()
    if isinstance(value, (list, tuple)):  # a list read beside the value: names, as the report prints them
        return _join([str(v) for v in value], language) if value else "—"
    # a growth in percent reads as a reference writes it ("0.84%", not "0.8416%")
    shown = format_number(value, decimals=2 if out.also_percent else None, percent=out.also_percent)
    return f"{shown}%" if out.also_percent and shown != "—" else shown


def render_answer(
    question: str,
    aggregation: Aggregation,
    result: AggregateResult | pl.DataFrame,
    language: Language | None = None,
    *,
    cells: pl.DataFrame | None = None,
) -> Answer:
    """The deterministic answer for `result` (an AggregateResult, or a bare frame without lineage)."""
    language = language or detect_language(question)
    frame = result.frame if isinstance(result, AggregateResult) else result
    out = aggregation.output
    text, values = _TEMPLATES[out.form](frame, out, language)
    lineage = _lineage_items(result, out, cells) if isinstance(result, AggregateResult) else []
    records = [{k: _jsonable(v) for k, v in r.items()} for r in frame.head(1000).iter_rows(named=True)]
    return Answer(
        text=text, language=language, form=out.form, values=values, records=records, lineage=lineage
    )


def _col(frame: pl.DataFrame, name: str | None) -> list[Any]:
    return frame[name].to_list() if name and name in frame.columns else []


def _ents(frame: pl.DataFrame, name: str | None) -> list[str]:
    """Identifiers as text; a list value (a combination such as two voting methods) joined by 、."""
    return ["、".join(map(str, e)) if isinstance(e, list) else format_number(e) for e in _col(frame, name)]


def _subject(out: Output, language: Language, default_zh: str, default_en: str) -> str:
    return out.subject or (default_zh if language == "zh" else default_en)


def _join(items: list[str], language: Language) -> str:
    return ("、" if language == "zh" else ", ").join(items)


def _counted(subject: str, frame: pl.DataFrame, out: Output, language: Language) -> str:
    if not out.show_count:
        return subject
    n = frame.height
    shares = _col(frame, out.share) if out.share else []
    if shares and shares[0] is not None:  # "采用比例": the share of all companies the list holds
        pct = format_number(shares[0], decimals=2, percent=True)
        return (
            f"{subject}（共{n}家，占{pct}%）"
            if language == "zh"
            else f"{subject} ({n} in total, {pct}% of all)"
        )
    return f"{subject}（共{n}家）" if language == "zh" else f"{subject} ({n} in total)"


def _entities(frame: pl.DataFrame, out: Output, language: Language) -> tuple[str, list[Any]]:
    ents = _ents(frame, out.entity)
    subject = _counted(_subject(out, language, "结果", "The result"), frame, out, language)
    if not ents:
        return (f"{subject}：无。" if language == "zh" else f"{subject}: none."), []
    if language == "zh":
        return f"{subject}为：{_join(ents, language)}。", ents
    return f"{subject}: {_join(ents, language)}.", ents


def _entity_values(frame: pl.DataFrame, out: Output, language: Language) -> tuple[str, list[Any]]:
    ents, vals = _ents(frame, out.entity), _col(frame, out.value)
    subject = _counted(_subject(out, language, "结果", "The result"), frame, out, language)
    if not ents:
        return (f"{subject}：无。" if language == "zh" else f"{subject}: none."), []
    members = _col(frame, "members")  # value counts: the companies behind each count
    if members:
        sep = "：" if language == "zh" else ": "
        vals = [f"{_fmt(v, out, language)}{sep}{_join([str(x) for x in m or []], language)}"
                for v, m in zip(vals, members, strict=True)]  # fmt: skip
    else:
        vals = [_fmt(v, out, language) for v in vals]
    if out.value in out.labels:  # a labelled value ("2022年=大信…；2023年=中喜…", a change)
        vals = [f"{out.labels[out.value]}={v}" for v in vals]
    shown = [c for c in out.also if c in frame.columns]
    if shown:  # a score's inputs beside it: "601398（5263111.11；纳税总额=16578800.00、每股社会贡献值=3.15）"
        extra = [
            _join([f"{out.labels.get(c, c)}={_also(frame[c][i], out, language)}" for c in shown], language)
            for i in range(len(vals))
        ]
        vals = [f"{v}{'；' if language == 'zh' else '; '}{x}" for v, x in zip(vals, extra, strict=True)]
    if language == "zh":  # member lists use 、 inside, so value counts are separated by ；
        items = [f"{e}（{v}）" for e, v in zip(ents, vals, strict=True)]
        return f"{subject}为：{('；' if members else '、').join(items)}。", ents
    items = [f"{e} ({v})" for e, v in zip(ents, vals, strict=True)]
    return f"{subject}: {('; ' if members else ', ').join(items)}.", ents


def _groups(frame: pl.DataFrame, out: Output, language: Language) -> tuple[str, list[Any]]:
    """Tiers of equal values (ties together), in result order: "并列第1档：A、B（11）；第2档：…"."""
    ents, vals = _ents(frame, out.entity), _col(frame, out.value)
    tiers: list[tuple[Any, list[str]]] = []
    for e, v in zip(ents, vals, strict=True):
        if tiers and tiers[-1][0] == v:
            tiers[-1][1].append(e)
        else:
            tiers.append((v, [e]))
    parts = []
    for i, (v, members) in enumerate(tiers, start=1):
        if language == "zh":
            label = f"{'并列' if len(members) > 1 else ''}第{i}档"
            parts.append(f"{label}：{_join(members, language)}（{_fmt(v, out, language)}）")
        else:
            parts.append(
                f"tier {i}{' (tied)' if len(members) > 1 else ''}: {_join(members, language)} ({_fmt(v, out, language)})"
            )
    subject = _subject(out, language, "结果", "The result")
    body = ("；" if language == "zh" else "; ").join(parts) or ("无" if language == "zh" else "none")
    return (f"{subject}为：{body}。" if language == "zh" else f"{subject}: {body}."), ents


def _number(frame: pl.DataFrame, out: Output, language: Language) -> tuple[str, list[Any]]:
    name = out.value or next((c for c in frame.columns if frame.schema[c].is_numeric()), None)
    vals = _col(frame, name)
    value = vals[0] if vals else None
    subject = _subject(out, language, "结果", "The result")
    shown = _fmt(value, out, language)
    return (f"{subject}为{shown}。" if language == "zh" else f"{subject} is {shown}."), [value]


def _count(frame: pl.DataFrame, out: Output, language: Language) -> tuple[str, list[Any]]:
    name = out.value or ("count" if "count" in frame.columns else None)
    value = _col(frame, name)[0] if name else frame.height
    subject = _subject(out, language, "符合条件的公司", "Matching companies")
    unit = out.unit if out.unit is not None else ("家" if language == "zh" else "")
    if language == "zh":
        return f"{subject}共有{value}{unit}。", [value]
    return f"{subject}: {value}{(' ' + unit) if unit else ''}.", [value]


def _boolean(frame: pl.DataFrame, out: Output, language: Language) -> tuple[str, list[Any]]:
    vals = _col(frame, out.value)
    if vals and vals[0] is None:  # an input was not read: the verdict is unknown, never "no"
        subject = _subject(out, language, "结论", "Answer")
        return (
            f"{subject}：无法判断（数据缺失）。"
            if language == "zh"
            else f"{subject}: not known (a figure is missing)."
        ), [None]
    value = bool(vals[0]) if vals else frame.height > 0
    subject = _subject(out, language, "结论", "Answer")
    word = ("是" if value else "否") if language == "zh" else ("yes" if value else "no")
    shown = [c for c in out.also if c in frame.columns]
    if shown and frame.height:  # the figures that decide it: "Yes. Boeing's gross margin …: FY2021 4.8%, …"
        figures = _join(
            [f"{out.labels.get(c, c)} {_also(frame[c][0], out, language)}" for c in shown], language
        )
        if language == "zh":
            return f"{word}。{subject}：{figures}。", [value]
        return f"{word.capitalize()}. {subject}: {figures}.", [value]
    return (f"{subject}：{word}。" if language == "zh" else f"{subject}: {word}."), [value]


def _amount(value: Any, out: Output, language: Language) -> str:
    """A statement figure as the statement prints it: whole amounts with thousands separators (1,350)."""
    if out.also_percent or not isinstance(value, (int, float)) or isinstance(value, bool):
        return _also(value, out, language)
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.{2 if out.decimals is None else out.decimals}f}"


def _choice(frame: pl.DataFrame, out: Output, language: Language) -> tuple[str, list[Any]]:
    """The `also` column with the largest (or smallest) value, by its label, and every value beside it:
    "Cash flow from operations. Nike's FY2023 figures: cash flow from operations 5,841; …". A figure
    that was not read leaves the choice unknown (the missing one could be the answer); a tie says so."""
    subject = _subject(out, language, "结论", "Answer")
    values = {c: (frame[c][0] if frame.height else None) for c in out.also}
    figures = _join(
        [f"{out.labels.get(c, c)} {_amount(v, out, language)}" for c, v in values.items()], language
    )
    if any(v is None for v in values.values()):
        if language == "zh":
            return f"{subject}：无法判断（数据缺失）。{figures}。", [None]
        return f"{subject}: not known (a figure is missing). {figures}.", [None]
    read = {c: float(v) for c, v in values.items() if v is not None}
    best = max(read.values()) if out.pick == "max" else min(read.values())
    chosen = [out.labels.get(c, c) for c, v in read.items() if v == best]
    named = _join(chosen, language)
    if language == "zh":
        return f"{named}{'（并列）' if len(chosen) > 1 else ''}。{subject}：{figures}。", chosen
    tie = " (a tie)" if len(chosen) > 1 else ""
    return f"{named[0].upper()}{named[1:]}{tie}. {subject}: {figures}.", chosen


def _table(frame: pl.DataFrame, out: Output, language: Language) -> tuple[str, list[Any]]:
    lines = []
    for rec in frame.head(50).iter_rows(named=True):
        parts = [
            f"{k}={_fmt(v, out, language) if isinstance(v, float) else format_number(v)}"
            for k, v in rec.items()
        ]
        lines.append("; ".join(parts))
    subject = _subject(out, language, "结果", "Result")
    head = f"{subject}：" if language == "zh" else f"{subject}:"
    return "\n".join([head, *lines]), _col(frame, out.entity)


def _text(frame: pl.DataFrame, out: Output, language: Language) -> tuple[str, list[Any]]:
    name = out.value or out.entity
    vals = [v for v in _col(frame, name)]
    shown = [("、".join(map(str, v)) if isinstance(v, list) else str(v)) for v in vals]
    subject = _subject(out, language, "结果", "The result")
    sep = "；" if language == "zh" else "; "
    return (
        f"{subject}为：{sep.join(shown)}。" if language == "zh" else f"{subject}: {sep.join(shown)}."
    ), vals


def _crosstab(frame: pl.DataFrame, out: Output, language: Language) -> tuple[str, list[Any]]:
    """Two yes/no facts against each other: "既A又B的公司（共7家）：…；仅A的公司：2家；仅B的公司：0家；
    两者均无的公司：5家". Companies whose facts were not read are counted apart, never as "no"."""
    a, b = out.also
    ents = _ents(frame, out.entity)
    pairs = list(zip(_col(frame, a), _col(frame, b), strict=True))
    both = [e for e, (x, y) in zip(ents, pairs, strict=True) if x is True and y is True]
    n = {cell: sum(1 for p in pairs if p == cell) for cell in ((True, False), (False, True), (False, False))}
    unread = [e for e, p in zip(ents, pairs, strict=True) if None in p]
    la, lb = (out.labels.get(c, c).removeprefix("是否") for c in (a, b))
    if language == "zh":
        parts = [f"既{la}又{lb}的公司（共{len(both)}家）：{_join(both, language) or '无'}",
                 f"仅{la}的公司：{n[True, False]}家", f"仅{lb}的公司：{n[False, True]}家",
                 f"两者均无的公司：{n[False, False]}家"]  # fmt: skip
        parts += [f"未能读出的公司：{len(unread)}家（{_join(unread, language)}）"] if unread else []
        return "；".join(parts) + "。", both
    parts = [f"both {la} and {lb} ({len(both)}): {_join(both, language) or 'none'}",
             f"only {la}: {n[True, False]}", f"only {lb}: {n[False, True]}", f"neither: {n[False, False]}"]  # fmt: skip
    parts += [f"not read: {len(unread)} ({_join(unread, language)})"] if unread else []
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + ".", both


_TEMPLATES: dict[str, Callable[[pl.DataFrame, Output, Language], tuple[str, list[Any]]]] = {
    "entities": _entities,
    "entity_values": _entity_values,
    "groups": _groups,
    "number": _number,
    "count": _count,
    "boolean": _boolean,
    "table": _table,
    "text": _text,
    "crosstab": _crosstab,
    "choice": _choice,
}


def _lineage_items(result: AggregateResult, out: Output, cells: pl.DataFrame | None) -> list[LineageItem]:
    lin = result.lineage
    if lin.height == 0:
        return []
    if out.entity and out.entity in result.frame.columns:
        col = pl.col(out.entity)
        if isinstance(result.frame.schema[out.entity], pl.List):
            col = col.cast(pl.List(pl.String)).list.join("、")
        ents = result.frame.select(
            pl.int_range(pl.len(), dtype=pl.UInt32).alias("row"), col.cast(pl.String).alias("entity")
        )
        lin = lin.join(ents, on="row", how="left")
    if cells is not None:
        keep = [c for c in ("doc_id", "field", "value", "status", "page", "snippet") if c in cells.columns]
        ev = cells.select(keep).unique(subset=["doc_id", "field"], keep="first")
        if "value" in ev.columns:
            ev = ev.with_columns(pl.col("value").cast(pl.String))
        lin = lin.join(ev, on=["doc_id", "field"], how="left")
    return [
        LineageItem(**{k: _jsonable(v) for k, v in r.items()}) for r in lin.head(10_000).iter_rows(named=True)
    ]


def _jsonable(value: Any) -> Any:
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    return value


# ----------------------------------------------------------------- optional LLM polish

POLISH_PROMPT = (
    "Rewrite the answer below as one fluent sentence in the same language ({language}). Keep every "
    "number, code and name exactly as written, in the same order. Add nothing else.\n\nAnswer: {text}\n"
)


def protected_tokens(answer: Answer) -> list[str]:
    """Numbers and identifiers the polish must keep verbatim, in order of appearance."""
    idents = sorted(
        (re.escape(str(v)) for v in answer.values if isinstance(v, str) and v), key=len, reverse=True
    )
    pattern = "|".join([*idents, r"-?\d+(?:\.\d+)?%?"])  # identifiers first: "600036" is one token
    return re.findall(pattern, answer.text)


def check_polish(original: Answer, polished_text: str) -> str | None:
    """None when `polished_text` keeps every number/identifier (same multiset, order for rankings)."""
    want = protected_tokens(original)
    got_numbers = _NUMBER.findall(polished_text)
    want_numbers = _NUMBER.findall(original.text)
    if sorted(got_numbers) != sorted(want_numbers):
        missing = [n for n in want_numbers if n not in got_numbers]
        extra = [n for n in got_numbers if n not in want_numbers]
        return f"numbers changed (missing {missing[:5]}, new {extra[:5]})"
    for token in want:
        if token not in polished_text:
            return f"identifier or value {token!r} is missing"
    idents = [str(v) for v in original.values if isinstance(v, str)]
    positions = [polished_text.find(i) for i in idents]
    if positions != sorted(positions):
        return "identifiers are no longer in the original order"
    return None


def polish(answer: Answer, llm: Callable[[str], str]) -> Answer:
    """Let an LLM rephrase the text; keep the deterministic text if anything protected changed."""
    prompt = POLISH_PROMPT.format(
        language="Chinese" if answer.language == "zh" else "English", text=answer.text
    )
    try:
        text = llm(prompt).strip()
    except Exception as exc:  # a failing LLM must never lose the answer
        return answer.model_copy(update={"polish_note": f"polish failed: {exc}"})
    problem = check_polish(answer, text) if text else "empty polish"
    if problem:
        return answer.model_copy(update={"polish_note": f"polish rejected: {problem}"})
    return answer.model_copy(update={"text": text, "polished": True, "polish_note": None})


__all__ = [
    "Answer", "LineageItem", "check_polish", "detect_language", "format_number", "polish",
    "protected_tokens", "render_answer",
]  # fmt: skip
