"""The auditor where the audit report is signed: a text field that asks for the auditor.

A 10-K names its auditor in the signature block of the report ("/s/ Ernst & Young LLP" under "Report of
Independent Registered Public Accounting Firm", or "KPMG LLP" on its own line above "We have served as
the Company's auditor since 1994."); a Chinese annual report signs it with the firm's name beside its
certified accountants ("致同会计师事务所（特殊普通合伙）  中国注册会计师：张三"). These readings need no
model: the signature is the firm's own.
"""

from __future__ import annotations

import re
import unicodedata

from mdqa_kernel.readers.base import FieldLike
from mdqa_kernel.readers.confidence import (
    FIRM_UNDER_REPORT,
    FORMER_FACTOR,
    SIGNED_ELSEWHERE,
    SIGNED_REPORT,
    SIGNED_ZH,
)
from mdqa_kernel.readers.table.candidates import Candidate, line_bbox, line_span
from mdqa_kernel.text.layout import Line

# A field that asks for the firm that audits the accounts, not its opinion, fees, tenure or partner.
_AUDITOR_FIELD = re.compile(
    r"auditor|accounting\s+firm|audit\s+firm|审计机构|会计师事务所|审计师|审计单位", re.I
)
_NOT_THE_FIRM = re.compile(
    r"opinion|\bfees?\b|tenure|\bsince\b|partner|ratif|\bvotes?\b|意见|费用|报酬|年限|签字|姓名", re.I
)
_LEGAL_FORM = r"(?:LLP|L\.L\.P\.|LLC|Ltd\.?|Limited|P\.C\.|& Co\.?)"
_SIGNED = re.compile(rf"^\s*/s/\s*(?P<firm>[A-Z][\w'.&,\- ]{{1,60}}?\s{_LEGAL_FORM})\s*$")
_FIRM_ALONE = re.compile(
    rf"^\s*(?P<firm>(?:[A-Z][\w'.-]*|&)(?:\s+(?:[A-Z][\w'.-]*|&)){{0,5}}\s{_LEGAL_FORM})\s*$"
)
_REPORT = re.compile(
    r"report\s+of\s+independent\s+registered\s+public\s+accounting\s+firm|independent\s+auditors?'?s?\s+report"
    r"|served\s+as\s+the\s+company's\s+auditor|in\s+our\s+opinion,\s+the\s+(?:consolidated\s+)?financial",
    re.I,
)
_FIRM_ZH = re.compile(
    r"(?P<firm>[\u4e00-\u9fff]{2,24}?会计师事务所(?:[（(](?:特殊)?普通合伙[）)]|有限(?:责任)?公司)?)"
)
_CPA_ZH = re.compile(r"中国注册会计师")
_SPLIT_CAPS = re.compile(r"\b([A-Z]) (?=[A-Z]{2,}\b)")  # small caps extracted as "D ELOITTE"


def asks_auditor(field: FieldLike) -> bool:
    """True when a text field asks for the auditor ("Independent registered public accounting firm",
    "审计机构", "境内会计师事务所名称"), not for its opinion, fees, tenure or signing partner."""
    words = f"{field.name.replace('_', ' ')} {field.description}"
    return field.type == "text" and bool(_AUDITOR_FIELD.search(words)) and not _NOT_THE_FIRM.search(words)


def auditor_signature(lines_by_page: dict[int, list[Line]]) -> list[Candidate]:
    """The firm that signs the audit report, once per signature found."""
    out: list[Candidate] = []
    pages = sorted(lines_by_page)
    report_pages = {p for p in pages if any(_REPORT.search(line.text) for line in lines_by_page[p])}
    for page in pages:
        lines = lines_by_page[page]
        in_report = page in report_pages or page - 1 in report_pages  # the signature may turn the page
        cpa_page = any(_CPA_ZH.search(line.text.replace(" ", "")) for line in lines)
        for line in lines:
            text = _SPLIT_CAPS.sub(r"\1", unicodedata.normalize("NFKC", line.text))
            signed = _SIGNED.match(text)
            if signed:
                score = SIGNED_REPORT if in_report else SIGNED_ELSEWHERE
                out.append(_candidate(page, line, signed["firm"], score * _tenure(lines, line)))
                continue
            alone = _FIRM_ALONE.match(text) if page in report_pages else None
            if alone:
                out.append(_candidate(page, line, alone["firm"], FIRM_UNDER_REPORT * _tenure(lines, line)))
                continue
            if cpa_page:
                compact = line.text.replace(
                    " ", ""
                )  # as printed: "（特殊普通合伙）" keeps its full-width brackets
                zh = _FIRM_ZH.search(compact)
                if zh and len(compact) <= 60:  # a signature line, not a sentence
                    out.append(_candidate(page, line, zh["firm"], SIGNED_ZH))
    return _as_printed_in_prose(out, lines_by_page)


# The report's last words say whether its firm audits the company now ("We have served as the Company's
# auditor since 2019.") or did before ("We served as the Company's auditor from 2008 to 2018."): the
# predecessor's report on earlier years is no answer for the auditor.
_FORMER = re.compile(r"\bserved\s+as\s+the\s+company's\s+auditor\s+from\b|\bwe\s+served\s+as\b", re.I)


def _tenure(lines: list[Line], line: Line) -> float:
    """1, or FORMER_FACTOR when the lines around a signature say its firm was the company's auditor before."""
    at = lines.index(line)
    near = " ".join(x.text for x in lines[max(0, at - 3) : at + 4])
    return FORMER_FACTOR if _FORMER.search(unicodedata.normalize("NFKC", near).replace("’", "'")) else 1.0


def _candidate(page: int, line: Line, firm: str, score: float) -> Candidate:
    return Candidate("signature", page, firm.strip(), line.text, score, line_bbox(line), line_span(line))


def _as_printed_in_prose(out: list[Candidate], lines_by_page: dict[int, list[Line]]) -> list[Candidate]:
    """A signature in capitals ("DELOITTE & TOUCHE LLP") under the name as prose prints it elsewhere in
    the document ("Deloitte & Touche LLP"), when it does."""
    for cand in out:
        if not cand.raw.isupper():
            continue
        pattern = re.compile(re.escape(cand.raw).replace(r"\ ", r"\s+"), re.I)
        for lines in lines_by_page.values():
            printed = next(
                (
                    m.group(0)
                    for line in lines
                    for m in pattern.finditer(line.text)
                    if not m.group(0).isupper()
                ),
                None,
            )
            if printed:
                cand.raw = printed
                break
    return out
