"""Plan fields: FieldSpecs from a caller's schema, and repairs of the fields a small model proposes.

A caller (an analyst, a benchmark's gold schema) may give fields as FieldSpecs, dicts or a plain
{name: description} mapping (types guessed from the name); a model's proposal gets snake_case names,
placeholders limited to metadata columns, and a template in the question's language when it left
one out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mdqa_kernel.plan.ir import FIELD_TYPES, FieldSpec
from mdqa_kernel.plan.rules import QuestionFacts, listed_beside_symbols, measure_in
from mdqa_kernel.plan.vocabulary import Term, Vocabulary
from mdqa_kernel.text.labels import glossary_label, is_topic, normalize_label, same_line_item
from mdqa_kernel.text.words import FACT_VERBS, KNOWN_SETS

_NAME_TYPES = (("_pct", "percent"), ("_ratio", "number"), ("_date", "date"), ("_mmdd", "text"),
               ("_disclosed", "boolean"), ("_count", "integer"), ("_name", "text"), ("_address", "text"))  # fmt: skip


# A count: the only kind of quantity a small model may type "integer" and be right. Anything else it
# types integer ("每股社会贡献值" = 3.64) would reject every printed decimal, so it is read as a number.
_COUNT_WORDS = re.compile(
    r"(?:人|次|个|家|户|票|名|股东|员工|职工|董事|高管|会议)数|数量|次数|人次|\bcount\b|\bnumber of\b|headcount",
    re.IGNORECASE,
)
_AMOUNT_WORDS = re.compile(r"每股|每10股|金额|总额|\bper share\b|\bamount\b", re.IGNORECASE)
_LIST_WORDS = re.compile(r"列表|清单|\blist\b", re.IGNORECASE)
_NAME_TAIL = re.compile(r"(?:机构|事务所|名称|地址|地点)$")
_RANKED_LEAD = re.compile(r"^[^的]{0,12}?(?:最多|最高|最大|最少|最低|最常见|最常用)的(?=..)")
_YES_NO = re.compile(r"\s*(?:是否|whether\b)", re.IGNORECASE)


def fields_from_schema(schema: Any) -> list[FieldSpec]:
    """FieldSpecs from FieldSpec objects, dicts, or {name: description} (types guessed from names)."""
    if isinstance(schema, Mapping):
        out = []
        for name, desc in schema.items():
            ftype = next((t for suffix, t in _NAME_TYPES if name.endswith(suffix)), "number")
            if name.startswith(("is_", "has_")) or name.endswith(("_assured", "_standard")):
                ftype = "boolean"
            d = str(desc).strip() or name
            if _YES_NO.match(d):  # "是否为四大会计师事务所客户": a yes/no fact whatever the name says
                ftype = "boolean"
            if _LIST_WORDS.search(d):  # "年度股东大会表决方式列表" is a list of names, not a number
                ftype = "list_text"
            out.append(FieldSpec(name=name, type=ftype, description=d, question="{symbol} {year}: " + d))
        return out
    return [s if isinstance(s, FieldSpec) else FieldSpec.model_validate(dict(s)) for s in schema]


def _slug(name: str, index: int) -> str:
    s = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    return s if s and s[0].isalpha() else f"field_{index + 1}"


# Words that name the company rather than a value read from its document.
IDENTITY_WORDS = ("symbol", "ticker", "stock code", "company", "股票代码", "证券代码", "公司", "代码")
_TEMPLATES = {
    "zh": {"number": "{{symbol}}在{{year}}年的{p}是多少？", "date": "{{symbol}}在{{year}}年的{p}是哪一天？",
           "boolean": "{{symbol}}的{{year}}年度文件是否{p}？", "text": "{{symbol}}在{{year}}年的{p}是什么？"},
    "en": {"number": "What was the {p} of {{symbol}} in fiscal year {{year}}?",
           "date": "What was the date of the {p} of {{symbol}} for fiscal year {{year}}?",
           "boolean": "For {{symbol}}, fiscal year {{year}}: {p}? (yes or no)",
           "text": "What was the {p} of {{symbol}} in fiscal year {{year}}?"},
}  # fmt: skip


def _singular(word: str) -> str:
    return word[:-3] + "y" if word.endswith("ies") else word.rstrip("s")


# A value compared across years is read per year; its growth or change is computed by the plan.
_CHANGE_TAIL = re.compile(
    r"(?:的)?(?:同比)?(?:增长率|增长|增速|增幅|变化率|变化|变动)$|\s+(?:growth(?:\s+(?:rates?|percentages?))?|change)$",
    re.I,
)


def level_phrase(phrase: str) -> str:
    """'税前每股股利增长率' → '税前每股股利', 'revenue growth' → 'revenue' (unchanged if nothing is left)."""
    stripped = _CHANGE_TAIL.sub("", phrase).strip()
    return stripped or phrase


_RATIO_WORDS = re.compile(r"率|比例|比率|占比|\b(?:ratio|margin|rate|percentage)s?\b", re.IGNORECASE)


def level_raw(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A model's {phrase, name, type} for a value compared across years, as the value itself: the phrase
    without its growth ("revenue growth" -> "revenue"), and a percent that was the growth's, not the
    value's, read as a number where the glossary knows the value as an amount (revenue; a 资本充足率
    stays a percent)."""
    phrase = str(raw.get("phrase") or "")
    level = level_phrase(phrase)
    out = {**raw, "phrase": level}
    # Only a value the glossary knows: the percent type of an unknown one ("资本增长率" -> "资本") is what
    # leads the table reader to the ratio a report prints (资本充足率, as a reference answer reads it).
    known_amount = glossary_label(level) is not None and not _RATIO_WORDS.search(level)
    if level != phrase and raw.get("type") == "percent" and known_amount:
        out["type"] = "number"
    return out


_COMPANY_LEAD = re.compile(
    r"^(?:(?:该|各|每家)?公司的?|(?:the |each )?compan(?:y|ies)['’]s?\s+)(?=..)", re.IGNORECASE
)


def field_from_phrase(
    index: int, raw: Mapping[str, Any], columns: list[str], language: str, forced_type: str | None
) -> FieldSpec | None:
    """A FieldSpec from a model's {phrase, name, type}; None when it names the company or a column.

    The template is written here, not by the model: small models echo template syntax back.
    """
    phrase = " ".join(str(raw.get("phrase") or "").split()).strip("？?。.，, ")
    # "各种召开方式组合": the kinds and their combination are what the question counts; each document
    # prints its 召开方式. "最常见的召开方式", "审验客户数量最多的第三方审验机构": each document prints the
    # 召开方式 / 第三方审验机构; which one is most common or has the most clients is the aggregation's to find
    phrase = re.sub(r"(?<=..)组合$", "", re.sub(r"^(?:各种|各类|每种|所有)(?=..)", "", phrase))
    phrase = _RANKED_LEAD.sub("", phrase)
    # "更换了办公地点": what each document prints is the 办公地点; the change is found by comparing years
    phrase = re.sub(r"^(?:更换了?|变更了?|更改了?)(?=..)", "", phrase)
    # "公司营业总成本", "the company's net income": the company is whose value it is, no part of the label
    # the glossary knows (reports print "营业总成本"); "公司治理" or "公司数量" keep their 公司
    bare = _COMPANY_LEAD.sub("", phrase)
    if bare != phrase and glossary_label(bare) is not None:
        phrase = bare
    name = _slug(str(raw.get("name") or ""), index)
    low = phrase.lower()
    if (
        not phrase
        or name in columns
        or low in columns
        or any(_singular(low).endswith(w) for w in IDENTITY_WORDS)
    ):
        return None
    ftype = forced_type if forced_type in FIELD_TYPES else str(raw.get("type") or "text")
    ftype = ftype if ftype in FIELD_TYPES else "text"
    if ftype in ("integer", "number", "percent") and forced_type is None and _NAME_TAIL.search(phrase):
        ftype = "text"  # "第三方审验机构" names a firm, whatever the model typed (it read "数量" as a count)
    if ftype == "integer" and forced_type != "integer" and not _COUNT_WORDS.search(phrase):
        ftype = "number"
    if ftype == "percent" and forced_type != "percent" and _AMOUNT_WORDS.search(phrase):
        ftype = "number"  # "税前每股股利" is an amount per share (1.738 元), whatever the model typed
    kind = {"integer": "number", "percent": "number", "list_text": "text"}.get(ftype, ftype)
    template = _TEMPLATES["zh" if language == "zh" else "en"][kind].format(p=phrase)
    return FieldSpec(name=name, type=ftype, description=phrase, question=template)


def field_from_term(index: int, term: Term, language: str) -> FieldSpec | None:
    """A field for a label the documents print: a heading becomes a disclosure flag ("是否披露安全生产").
    None when the label names the company rather than a value."""
    ftype = term.type if term.type in FIELD_TYPES else "text"
    spec = field_from_phrase(
        index, {"phrase": term.text, "name": term.text, "type": ftype}, [], language, None
    )
    if spec is None:
        return None
    update: dict[str, Any] = {"name": _slug(term.text if term.text.isascii() else "", index)}
    if ftype == "boolean":
        update["description"] = (
            f"是否披露{term.text}" if language == "zh" else f"whether the document discloses {term.text}"
        )
    return spec.model_copy(update=update)


def ranked_by_listed_value(
    question: str, facts: QuestionFacts, vocabulary: Vocabulary | None
) -> FieldSpec | None:
    """The field of a one-year top-k question that lists one printed value beside each symbol and
    ranks by it or by words no document prints ("the most diversified revenue streams", "the highest
    financial leverage"). The model named such a ranking's value by a printed line item it had heard
    of ("revenues" for diversified revenue), so the listed value decides. None when the
    ranking names another printed value (then both are read, as the model proposes)."""
    listed = listed_beside_symbols(question)
    if listed is None or vocabulary is None or facts.k is None or len(facts.years) >= 2:
        return None
    term = vocabulary.ground(listed)
    if term is None or term.type not in ("number", "percent"):
        return None
    measure = measure_in(question)
    other = vocabulary.ground(measure) if measure else None
    if other is not None and not same_line_item(other.norm, term.norm):
        return None
    return field_from_term(0, term, facts.language)


def ground_fields(
    proposed: list[FieldSpec], named: list[Term], vocabulary: Vocabulary, language: str, trace: Any,
    measure: str | None = None,
) -> list[FieldSpec]:  # fmt: skip
    """Keep the model's fields the documents print (or a synonym of), add the printed labels the
    question names, and drop what nothing printed supports, unless that leaves nothing. A field
    naming the value the question ranks by (`measure`, "出席股份比例") is kept even when no label
    prints it as such (a notice states it in a sentence): without it the ranking has no value.

    The trace records which fields were kept, added and dropped, so a reviewer sees why."""
    kept: list[FieldSpec] = []
    covered: list[Term] = []  # the printed labels the kept fields read
    dropped: list[str] = []
    decorated: list[str] = []
    # the ranked value as the glossary knows it ("第一大股东持股比例"), for a model phrase naming it short
    ranked = glossary_label(measure) if measure else None
    for spec in proposed:
        term = vocabulary.ground(spec.description)
        if term is None and _names_measure(spec.description, measure):
            kept.append(spec)
            continue
        if term is None and ranked and not any(_names_measure(k.description, measure) for k in kept):
            # "…第一大股东持股比例前三的公司股票代码和持股比率": the model named the value by the question's
            # last words ("持股比率"), which no document prints; the ranking says which value it is
            again = field_from_phrase(
                0, {"phrase": ranked, "name": spec.name, "type": spec.type}, [], language, None
            )
            if again is not None:
                decorated.append(f"{spec.description} → {ranked} (the value ranked by)")
                kept.append(again)
                continue
        if term is None:
            dropped.append(spec.description)
            continue
        if spec.type in ("text", "list_text") and term.type in ("number", "percent"):
            # "exact net profit amounts" typed a list by the model (the plural): the report prints one amount
            spec = spec.model_copy(update={"type": term.type})
        elif spec.type == "percent" and term.type == "number":
            # "operating profit" typed a percent by the model, printed as an amount: read the amount
            spec = spec.model_copy(update={"type": "number"})
        printed = undecorated(spec.description, term)
        if printed != spec.description:
            decorated.append(f"{spec.description} → {printed}")
            spec = spec.model_copy(update={"description": printed})
        kept.append(spec)
        covered.append(term)
    added = [t for t in named if not any(_overlaps(t, c) for c in covered)]
    out = list(kept)
    for term in added:
        spec = field_from_term(len(out), term, language)
        if spec is None:
            continue
        taken = {s.name for s in out}
        if spec.name in taken:  # two labels with the same slug: number the later one
            spec = spec.model_copy(
                update={
                    "name": next(f"{spec.name}_{i}" for i in range(2, 99) if f"{spec.name}_{i}" not in taken)
                }
            )
        out.append(spec)
    if not out:
        trace.fields_source = "model (no field grounded in the documents' labels)"
        return proposed
    trace.fields_source = "model+vocabulary"
    trace.sources["grounding"] = (
        f"kept {[s.description for s in kept]}, added from the question {[t.text for t in added]}, "
        f"dropped (not printed in the documents) {dropped}"
        + (f", read under the printed label {decorated}" if decorated else "")
    )
    return out


# Words a model adds around a printed label ("exact operating revenue amounts") that name no other value.
_DECORATION = re.compile(
    r"(?:exact|precise|specific|actual|reported|the|amounts?|values?|figures?|numbers?|percentages?|具体|的|金额|数额|数值)+"
)


def undecorated(description: str, term: Term) -> str:
    """The printed label itself when the model's phrase is that label plus decoration only.

    The table reader finds a row by the field's description and the glossary's synonyms of it; a
    decorated phrase matches neither ("exact operating revenue amounts" is no synonym of the printed
    "Total revenues"), so every document went to the LLM, which can misread them. A phrase
    with any other word ("每股社会贡献值" around the heading 社会贡献) is a different quantity: kept."""
    if term.type not in ("number", "percent"):
        return description
    phrase = normalize_label(description)
    if term.norm == phrase or term.norm not in phrase:
        return description
    rest = phrase.replace(term.norm, "", 1)
    return term.text if _DECORATION.fullmatch(rest) else description


def _names_measure(description: str, measure: str | None) -> bool:
    core = re.sub(r"\s+", "", description).lower()
    return bool(measure) and len(core) >= 2 and core in re.sub(r"\s+", "", measure or "").lower()


def _overlaps(a: Term, b: Term) -> bool:
    return a.norm in b.norm or b.norm in a.norm


# The group a checklist score may compare ("四大与非四大事务所客户"): a yes/no field the derived reader
# answers from the auditor line, when the question names one of its known sets (text.words.KNOWN_SETS).
_GROUP_FLAG = (
    "big4_client",
    {"zh": "是否为四大会计师事务所客户", "en": "whether the auditor is a Big Four firm"},
)


def checklist_fields(items: list[str], question: str, language: str) -> list[FieldSpec]:
    """One yes/no field per item a checklist score counts ("环境披露" -> "是否披露环境"), plus the flag
    that names the groups when the question compares Big Four clients with the others."""
    out = []
    for i, item in enumerate(items):
        core = item.replace("披露", "") if len(item.replace("披露", "")) >= 2 else item
        if language != "zh":
            desc = f"whether the document discloses {core}"
        elif core.startswith(("经", "遵循", "参照", "有")):
            desc = f"是否{core}"
        else:
            desc = f"是否披露{core}"
        out.append(_flag(f"item_{i + 1}", desc, language))
    name, descriptions = _GROUP_FLAG
    desc = descriptions["zh" if language == "zh" else "en"]
    if any(re.search(key, question, re.I) and re.search(key, desc, re.I) for key in KNOWN_SETS):
        out.append(_flag(name, desc, language))
    return out


def _flag(name: str, description: str, language: str) -> FieldSpec:
    template = _TEMPLATES["zh" if language == "zh" else "en"]["boolean"].format(
        p=description.removeprefix("是否")
    )
    return FieldSpec(name=name, type="boolean", description=description, question=template)


# "各月份召开股东大会的公司" / "which month held the most meetings": counted by the month of each event,
# so what is read is the list of the events' dates (exploded by month in the plan).
_BY_MONTH = re.compile(r"月份|哪个月|各月|每个月|\bwhich month\b|\bby month\b|\beach month\b", re.I)
_EVENTS = (re.compile(r"股东大会|董事会|监事会"), re.compile(r"(?:shareholder|board)\s+meetings?", re.I))


def event_dates_field(question: str, language: str) -> FieldSpec | None:
    """The dates of the events a by-month question counts; None when it counts no named event."""
    if not _BY_MONTH.search(question):
        return None
    event = next((m.group(0) for p in _EVENTS if (m := p.search(question))), None)
    if event is None:
        return None
    if language == "zh":
        desc, template = f"{event}召开日期", f"{{symbol}}在{{year}}年召开的每次{event}的日期是哪些？"
    else:
        desc, template = (
            f"dates of the {event}",
            f"On which dates did {{symbol}} hold {event} in fiscal year {{year}}?",
        )
    return FieldSpec(name="event_dates", type="list_text", description=desc, question=template)


# "女性高管最多的三家公司": companies ranked by how many of a kind of people they have, a count per
# document (read from "…中女性共3人"), whatever else the question asks to show.
_MOST_PEOPLE = re.compile(
    r"(?P<noun>(?:女性|男性|独立|外籍)?(?:高管|董事|监事|员工|职工|股东|高级管理人员))(?:人数)?(?:最多|最少)"
)


def people_count_field(question: str, language: str) -> FieldSpec | None:
    """The count a "most <people>" ranking orders by; None when the question ranks no people."""
    m = _MOST_PEOPLE.search(question) if language == "zh" else None
    if m is None:
        return None
    desc = f"{m.group('noun')}人数"
    return FieldSpec(
        name="people_count",
        type="integer",
        description=desc,
        question=f"{{symbol}}在{{year}}年的{desc}是多少？",
    )


# "…和这些公司的所有女性高管名字": the people behind a count, listed beside each company
_PEOPLE_NAMES = re.compile(
    r"(?P<noun>(?:女性|男性|独立|外籍)?(?:高管|董事|监事|员工|职工|高级管理人员))的?(?:名字|姓名|名单)"
)


def people_names_field(question: str, language: str) -> FieldSpec | None:
    """The names a question asks to list beside each company ("所有女性高管名字"), read as a list from
    the report's roster; None when it asks for none."""
    m = _PEOPLE_NAMES.search(question) if language == "zh" else None
    if m is None:
        return None
    noun = m.group("noun")
    return FieldSpec(
        name="people_names",
        type="list_text",
        description=f"{noun}姓名列表",
        question=f"{{symbol}}在{{year}}年的{noun}有哪些人？请列出姓名。",
    )


def formula_fields(operands: list[str], language: str) -> list[FieldSpec]:
    """One field per value the question's own formula uses (planner_formula.formula_operands): the
    formula names exactly what is read, so the model is not asked (it merged "社会捐赠额" into
    "每股社会贡献值" and the score divided a value by itself). A rate is typed a percent."""
    out = []
    for i, word in enumerate(operands):
        ftype = "percent" if re.search(r"(?:率|比例|比率)$|\brate$", word) else "number"
        spec = field_from_phrase(i, {"phrase": word, "name": word, "type": ftype}, [], language, None)
        if spec is not None and spec.name not in {s.name for s in out}:
            out.append(spec)
    return out


# "经第三方机构审验的公司", "有多少家公司的ESG报告参照了GRI《…》", "披露了环境和可持续发展信息的所有公司":
# a yes/no fact of each document whose object is a disclosure topic the readers know
# (labels.TOPIC_GROUPS), so each document is read as one flag rather than as a value.
_VERB = rf"(?:{FACT_VERBS})了?"
# The object ends where the next fact begins ("既参照GRI标准又经第三方机构审验的公司": two facts).
_AND = r"又|且|并且|同时|以及|和|与"
# "既采用GRI又审验的公司": an assurance is a fact without an object (it is the third-party one)
_BARE = r"审验|鉴证"
_END = r"的(?:所有|全部)?(?:公司|企业)|[？?。]|$"
_PREDICATE = re.compile(
    rf"(?P<verb>{_VERB})(?P<obj>[^，,。；;？?的]{{2,30}}?)(?=(?:{_END})|(?:{_AND})(?:{_VERB}|{_BARE}))"
    rf"|(?<=又|且)(?P<bare>{_BARE})(?=(?:{_END}))"
)


def predicate_fields(question: str, language: str) -> list[FieldSpec]:
    """The flags a count or list of companies is filtered by, when what they did is a known topic
    (one per fact: "既参照GRI标准又经第三方机构审验" is two); empty otherwise (the model then
    proposes the fields)."""
    if language != "zh":
        return []
    out: list[FieldSpec] = []
    for m in _PREDICATE.finditer(question):
        obj = m.group("obj").strip() if m.group("bare") is None else "第三方审验"
        if is_topic(obj):
            verb = (m.group("verb") or "经").removesuffix("了")
            name = "flag" if not out else f"flag_{len(out) + 1}"
            out.append(_flag(name, f"是否{verb}{obj}", language))
    return out


SHOWN = "shown"  # the name of the field a list shows beside each company


def shown_field(phrase: str, vocabulary: Vocabulary | None, language: str) -> FieldSpec | None:
    """The value a list of companies shows beside each code ("…的公司股票代码和审验机构名称"), read
    under the label the documents print for it ("审验机构：…") or the glossary knows; None otherwise
    (an "采用比例" or a "数量统计" is computed over the companies, not read from each)."""
    term = vocabulary.ground(phrase) if vocabulary is not None else None
    # a label inside a sentence ("…鉴证报告。审验机构：…") is no term: the glossary then names it
    label = term.text if term is not None and term.type == "text" else glossary_label(phrase)
    if label is None:
        return None
    return field_from_phrase(0, {"phrase": label, "name": SHOWN, "type": "text"}, [], language, None)


def located_field(name: str, language: str) -> FieldSpec | None:
    """The text value a place is looked for in ("办公地址在深圳" -> the 办公地址); the model named the
    place itself as a field ("深圳") and filtered on every field it proposed."""
    return field_from_phrase(0, {"phrase": name, "name": name, "type": "text"}, [], language, None)
