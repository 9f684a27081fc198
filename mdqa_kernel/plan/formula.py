"""Formulas and checklists a question defines, matched to plan fields.

A scoring question states its arithmetic in words: "纳税效率=纳税总额÷每股社会贡献值", "ESG质量得分=
（第三方审验+GRI标准+披露不足）÷3", or "综合质量得分等于披露完整性得分乘以百分之六十加上规范性得分乘以百分之
四十" where 披露完整性得分 is itself "已披露的项数除以总项数（包括环境披露、股东保护……八个方面）". A 1.5B model
cannot be trusted to turn that into an expression, so the rules here do: verbal arithmetic becomes
symbols, each sub-score is replaced by its own definition, a "count of items ÷ total" over an
enumerated list becomes the sum of the items over their number, and every remaining term is matched
to a field. The items of such a checklist ("有明确的正式披露加一分") are also what the plan must read:
one yes/no field each (`checklist_items`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

from mdqa_kernel.text.labels import phrase_variants
from mdqa_kernel.text.numerals import COUNT_CHARS, NUMERAL_CHARS, cn_number

_OPS = {
    "÷": "/",
    "／": "/",
    "×": "*",
    "＊": "*",
    "＋": "+",
    "－": "-",
    "+": "+",
    "-": "-",
    "*": "*",
    "/": "/",
}
_FORMULA = re.compile(r"[=＝]\s*([^，,。;；]+)")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_WEIGHT = re.compile(r"([^，,。（(、；;]+?)\s*(?:权重|weight(?:ed)?(?: of)?)\s*(\d+(?:\.\d+)?)\s*%", re.I)


def _clean(text: str) -> str:
    return re.sub(r"[\s。.，,、:：（）()]+", "", text).lower()


def _in_order(short: str, long: str) -> bool:
    """Every character of `short` appears in `long` in the same order ("披露不足" in "是否披露公司存在的不足")."""
    rest = iter(long)
    return all(ch in rest for ch in short)


def match_field(term: str, fields: Sequence[tuple[str, str]], cutoff: float = 0.6) -> str | None:
    """The field (name, description) a phrase of the question names: by description, then by name."""
    t = _clean(term)
    for suffix in ("增长率", "增速", "growth", "rate"):
        t = t.removesuffix(suffix) if t != suffix else t
    if not t:
        return None
    # a disclosure topic under the reports' own titles ("员工保护" is "是否披露职工权益保护")
    names = [t, *(_clean(v) for v in phrase_variants(term) if _clean(v) != t)]
    best = max(((_match(n, fields), i) for i, n in enumerate(names)), key=lambda x: (x[0][1], -x[1]))[0]
    return best[0] if best[1] >= cutoff else None


def _match(t: str, fields: Sequence[tuple[str, str]]) -> tuple[str | None, float]:
    best, score = None, 0.0
    for name, desc in fields:
        d = _clean(desc)
        cand = [d, _clean(name.removeprefix("value_").replace("_", " "))]
        if "披露" in t and "披露" in d:  # "不足披露" names "是否披露不足": the verb is no part of the topic
            cand.append(d.replace("是否披露", "").replace("披露", ""))
        s = max(
            1.0 if t == c or (c and (t in c or c in t)) else max(
                SequenceMatcher(None, t, c).ratio(), 0.7 if len(t) >= 3 and _in_order(t, c) else 0.0
            )
            for c in cand
            if c
        )  # fmt: skip
        if s > score:
            best, score = name, s
    return best, score


def _first_formula(question: str, fields: Sequence[tuple[str, str]]) -> str | None:
    """The first '= …' clause whose every term is a field or a number ('纳税效率=纳税总额÷每股社会贡献值');
    parentheses are kept, and a closing one that only ends the sentence's own parenthesis
    ('（纳税效率=A÷B）') is dropped."""
    for m in _FORMULA.finditer(question):
        out = _compile(m.group(1), fields)
        if out is not None:
            return out
    return None


def weights_in(question: str, fields: Sequence[tuple[str, str]]) -> dict[str, float]:
    """'资本充足率增长率权重40%' -> {field: 0.4} for every weight whose phrase names a field."""
    out: dict[str, float] = {}
    for m in _WEIGHT.finditer(question):
        name = match_field(m.group(1), fields)
        if name is not None:
            out[name] = float(m.group(2)) / 100
    return out


# -- verbal arithmetic ------------------------------------------------------------------------------

_PERCENT_WORDS = re.compile(rf"百分之([{NUMERAL_CHARS}\d.]+)")
_VERBAL = ((re.compile(r"(?<!大于)(?<!小于)(?<!不)等于"), "="), (re.compile(r"乘以"), "×"), (re.compile(r"除以"), "÷"),
           (re.compile(r"加上"), "＋"), (re.compile(r"减去"), "－"))  # fmt: skip


def verbal_to_symbols(text: str) -> str:
    """'A等于B乘以百分之六十加上C' -> 'A=B×60%＋C' (only for reading formulas; the question is kept)."""

    def percent(m: re.Match[str]) -> str:
        n = cn_number(m.group(1))
        return m.group(0) if n is None else f"{n:g}%"

    text = _PERCENT_WORDS.sub(percent, text)
    for pattern, symbol in _VERBAL:
        text = pattern.sub(symbol, text)
    return text


# -- definitions and checklists ---------------------------------------------------------------------

_OPEN, _CLOSE, _STOP = "（(", "）)", "，,。;；"
_LHS = re.compile(r"([^，,。;；：:（(=＝]{1,24})$")
_ITEM = r"[^、，,。；;（）()：:]{1,16}"
_ENUMERATION = re.compile(
    rf"(?:包括|包含|在|即)(?P<items>{_ITEM}(?:、{_ITEM})+?)(?:这|等|共)?"
    rf"(?P<n>\d+|[{COUNT_CHARS}]+)(?:个|项)(?:方面|维度|指标|细分项|部分)"
)
_COUNT_RATIO = re.compile(r"数\s*÷\s*[^÷]*数")  # "已披露的项数÷总项数": items counted over their number
_ONE_POINT = re.compile(r"[记计加得]\s*(?:为)?\s*(?:1|一)\s*分")
_ITEM_PREFIX = re.compile(r"^(?:是否)?(?:遵循了?|采用了?|参照了?|经过|经|有)?")
_SCORE_NAME = re.compile(r"(?:得分|分数|分值|总分)$")
_HUNDRED = re.compile(r"百分制|满分\s*100\s*分|100\s*分制")


def enumerations(text: str) -> list[tuple[int, int, list[str]]]:
    """(start, end, items) of every counted list: "包括A、B、C三个方面", "在A、B这2个维度中". A list
    whose stated count differs from its items is not taken (the split is then not trusted)."""
    out = []
    for m in _ENUMERATION.finditer(text):
        items = [re.sub(r"(?:这|等|共)$", "", i.strip()) for i in m.group("items").split("、")]
        if cn_number(m.group("n")) == len(items):
            out.append((m.start(), m.end(), items))
    return out


def item_core(item: str) -> str:
    """'是否遵循GRI标准' -> 'GRI标准', '是否有第三方审验' -> '第三方审验'."""
    core = _ITEM_PREFIX.sub("", item.strip())
    return core if len(core) >= 2 else item.strip()


def definitions(text: str) -> list[tuple[str, str]]:
    """Every 'name=expression' of the (symbolised) question, the expression running to the end of
    its clause; a counted list inside it stays part of it (its commas do not end the clause)."""
    out = []
    for m in re.finditer(r"[=＝]", text):
        lhs = _LHS.search(text[: m.start()])
        depth, end = 0, len(text)
        for i in range(m.end(), len(text)):
            ch = text[i]
            if ch in _OPEN:
                depth += 1
            elif ch in _CLOSE:
                if depth == 0:
                    end = i
                    break
                depth -= 1
            elif ch in _STOP and depth == 0:
                end = i
                break
        if lhs:
            out.append((lhs.group(1).strip(), text[m.end() : end].strip()))
    return out


def _checklist_rhs(rhs: str) -> str:
    """'已披露的项数÷总项数（包括A、B两个方面，…）' -> '（A＋B）÷2×100'."""
    lists = enumerations(rhs)
    if len(lists) == 1 and _COUNT_RATIO.search(rhs[: lists[0][0]]):
        items = [item_core(i) for i in lists[0][2]]
        # a share of the items, in points out of 100 as such scores are reported (7 of 8 -> 87.5)
        return "（" + "＋".join(items) + f"）÷{len(items)}×100"
    return rhs


def _same_name(a: str, b: str) -> bool:
    a, b = _clean(a), _clean(b)
    return (
        bool(a) and bool(b) and (a == b or (len(b) >= 3 and a.endswith(b)) or (len(a) >= 3 and b.endswith(a)))
    )


def _expand(rhs: str, defs: list[tuple[str, str]], seen: frozenset[str]) -> str:
    """Sub-scores replaced by their own (expanded) definitions, in parentheses."""
    parts = re.split(r"([÷／×＊＋－+\-*/（）()])", _checklist_rhs(rhs))
    out = []
    for part in parts:
        word = part.strip()
        sub = next((d for d in defs if d[0] not in seen and word and _same_name(word, d[0])), None)
        out.append(f"（{_expand(sub[1], defs, seen | {sub[0]})}）" if sub else part)
    return "".join(out)


def _compile(rhs: str, fields: Sequence[tuple[str, str]]) -> str | None:
    """Symbols and field names for an expression whose every term is a field or a number."""
    tokens = [t.strip() for t in re.split(r"([÷／×＊＋－+\-*/（）()])", rhs) if t.strip()]
    out: list[str] = []
    depth = terms = 0
    for tok in tokens:
        if tok in _OPS:
            out.append(_OPS[tok])
        elif tok in "（(":
            depth += 1
            out.append("(")
        elif tok in "）)":
            if depth == 0:
                break  # the end of the sentence's parenthesis, not the formula's
            depth -= 1
            out.append(")")
        elif _NUMBER.fullmatch(tok):
            out.append(tok)
        elif re.fullmatch(r"\d+(?:\.\d+)?%", tok):
            out.append(f"{float(tok[:-1]) / 100:g}")
        elif (name := match_field(tok, fields)) is not None:
            out.append(name)
            terms += 1
        else:
            return None
    if depth == 0 and terms >= 1 and len(out) >= 3 and out[-1] not in _OPS.values():
        return " ".join(out)
    return None


def formula_in(question: str, fields: Sequence[tuple[str, str]]) -> str | None:
    """The question's scoring formula over `fields`: '纳税效率=纳税总额÷每股社会贡献值' -> 'value_tax_total /
    value_social_...', with sub-scores and counted checklists expanded and '百分制' scaled to 100.
    The top-level definition (the one no other definition uses), last first, is preferred."""
    defs = definitions(verbal_to_symbols(question))
    for lhs, rhs in _top_level(defs):  # never a sub-score alone: that would rank by a part of the score
        out = _compile(_expand(rhs, defs, frozenset({lhs})), fields)
        if out is not None:
            return _on_hundred(out, question)
    return None if len(defs) > 1 else _first_formula(question, fields)


def formula_parts(question: str, fields: Sequence[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """(column, the question's name, expression) for each sub-score the top-level score uses, then
    ("score", its name, its expression over those columns), so every figure the question defines
    can be shown; empty when the score has no sub-scores or a term names no field."""
    defs = definitions(verbal_to_symbols(question))
    for lhs, rhs in _top_level(defs):
        subs = [d for d in defs if d[0] != lhs and any(_same_name(w, d[0]) for w in _words(rhs))]
        named = [(f"sub_{i + 1}", d[0]) for i, d in enumerate(subs)]
        parts = [
            (n, d[0], _compile(_expand(d[1], defs, frozenset({d[0]})), fields))
            for (n, _), d in zip(named, subs, strict=True)
        ]
        top = _compile(_checklist_rhs(rhs), [*named, *fields]) if subs else None
        if top is not None and all(e is not None for _n, _l, e in parts):
            exprs = [(n, label, e) for n, label, e in parts if e is not None]
            scaled = any("* 100" in e for _n, _l, e in exprs)  # its parts are already in points
            return [*exprs, ("score", lhs, top if scaled else _on_hundred(top, question))]
    return []


def formula_operands(question: str) -> list[str]:
    """The values the question's own scoring formula is computed from, in order ("捐赠效率=社会捐赠额÷
    每股社会贡献值" -> ["社会捐赠额", "每股社会贡献值"]), sub-scores expanded; empty when the question
    defines no formula, or a term is a count of items (a checklist, read by `checklist_items`)."""
    defs = definitions(verbal_to_symbols(question))
    for lhs, rhs in _top_level(defs):
        words = _words(_expand(rhs, defs, frozenset({lhs})))
        names = [w for w in words if not _NUMBER.fullmatch(w.rstrip("%"))]
        if not names or any(len(w) < 2 or "项数" in w or _SCORE_NAME.search(w) for w in names):
            continue
        return _distinct(names)
    return []


def _distinct(words: list[str]) -> list[str]:
    """The words in order, each once (compared without punctuation, spaces and case)."""
    out: list[str] = []
    for w in words:
        if not any(_clean(w) == _clean(o) for o in out):
            out.append(w)
    return out


def _top_level(defs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Definitions no other definition uses, the last first."""
    used = {d[0] for d in defs for e in defs if e is not d and any(_same_name(w, d[0]) for w in _words(e[1]))}
    return [d for d in reversed(defs) if d[0] not in used]


def _on_hundred(expr: str, question: str) -> str:
    """Scaled to 100 when the question says "百分制", unless its parts already are (a share of items)."""
    return f"({expr}) * 100" if _HUNDRED.search(question) and "* 100" not in expr else expr


def _words(rhs: str) -> list[str]:
    return [w.strip() for w in re.split(r"[÷／×＊＋－+\-*/（）()]", _checklist_rhs(rhs)) if w.strip()]


def checklist_items(question: str) -> list[str]:
    """The yes/no items a checklist score counts, in order ("有第三方审验记1分", "任意一个方面有明确的正式
    披露加一分"): the counted lists and the terms of the formulas that are not themselves scores.
    Empty when the question scores no items."""
    if not _ONE_POINT.search(question):
        return []
    text = verbal_to_symbols(question)
    found: list[str] = [item_core(i) for _s, _e, items in enumerations(text) for i in items]
    defs = definitions(text)
    for _lhs, rhs in defs:
        for word in _words(rhs):
            if (
                len(word) >= 2
                and not _NUMBER.fullmatch(word.rstrip("%"))
                and not _SCORE_NAME.search(word)
                and "数" not in word
                and not any(_same_name(word, d[0]) for d in defs)
            ):
                found.append(item_core(word))
    out = _distinct(found)
    return out if len(out) >= 2 else []
