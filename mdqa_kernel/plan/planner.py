"""Planner: question + the collection's metadata schema -> a validated Plan, with a small local model.

A 1.5B model cannot write a whole Plan in one shot, so planning is a few small constrained steps,
each a tiny JSON schema enforced by the LLM layer (stage "plan" in the accounting):

  (c) fields   keep the caller's fields (e.g. a gold schema), or ask which values are read
               (phrase, name, type); the per-document template is written by rule
  (a) family   choose the aggregation family from a fixed enum (few-shot examples in plan/hints.yaml),
               then checked against cue phrases (family_mode "model+rules"; "model" and "rules" too)
  (b) params   fill that family's parameters (field names are enums of the plan's fields)

Deterministic rules (`planner_rules`) read years, k, ties, direction, thresholds and document types
from the question; they become the plan's filters and overrule or fill model parameters, and every
part records where it came from (`PlanResult.trace`). Domain hints the paper found missing ("annual
reports state only the current auditor") are data in plan/hints.yaml: their notes go into the
prompts and their effects into the rules. The final plan is validated (Plan model, the collection's
columns, and a dry run of the aggregation on a synthetic frame); a failure is sent back to the model
with the error, a bounded number of times. The dry run calls the aggregation function the caller
passes (`dry_run=aggregate`): the plan is the stage to the left of aggregate and does not import it;
without one, plans are checked against the model and the columns only.

    planner = Planner(LLMClient(LLMConfig.from_env(), ws), dry_run=aggregate)
    result = planner.propose(question, metadata=collection.documents, schema_fields=fields)
    result.plan, result.trace.sources
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

import polars as pl

from mdqa_kernel.errors import MdqaError
from mdqa_kernel.plan.aggregation import Aggregation, CodeOp
from mdqa_kernel.plan.families import FAMILIES, FamilyError, compile_family, param_schema
from mdqa_kernel.plan.fields import (
    checklist_fields,
    event_dates_field,
    field_from_phrase,
    fields_from_schema,
    formula_fields,
    ground_fields,
    level_raw,
    located_field,
    people_count_field,
    people_names_field,
    predicate_fields,
    ranked_by_listed_value,
    shown_field,
)
from mdqa_kernel.plan.formula import checklist_items, formula_operands
from mdqa_kernel.plan.ir import FIELD_TYPES, FieldSpec, Plan, PlanValidationError
from mdqa_kernel.plan.rules import (
    Hints,
    QuestionFacts,
    cue_families,
    load_hints,
    measure_in,
    read_question,
)
from mdqa_kernel.plan.schema import (
    DryRun,
    DryRunError,
    MetadataSchema,
    dry_run,
    metadata_filters,
    metadata_schema,
)
from mdqa_kernel.plan.vocabulary import Vocabulary

__all__ = [
    "FAMILIES",
    "MetadataSchema",
    "PlanResult",
    "PlanTrace",
    "Planner",
    "PlannerError",
    "fields_from_schema",
    "plan",
]

STAGE = "plan"
FAMILY_MODES = ("model+rules", "model", "rules")
PARAM_GUIDES = {
    "topk": "field: the field to rank by; direction: highest or lowest (earliest date = lowest); k: how many.",
    "threshold_filter": "fields: the fields the condition tests; condition and value (e.g. contains + a city, "
    "greater_than + a number, is_true for yes/no facts); combine: all or any; on: growth when the "
    "condition is about growth between two years, else value.",
    "growth": "fields: the fields whose growth is ranked; weights: one weight per field when the question "
    "combines several growth rates (else [1]); direction and k of the ranking.",
    "change": "kind: value_changed (a name or text differs between the two years), date_moved (a date is "
    "earlier or later by more than threshold days), largest_shift (rank by how far a date moved), "
    "gap_between_dates (days between two date fields of the same document), flags_improved (yes/no "
    "facts that went from no to yes); fields: the fields compared.",
    "range_std": "field; stat: range or std; between_years: true when the question asks how the statistic "
    "changed from one year to another.",
    "outlier": "fields; method: k_times_mean or mean_k_sigma; k: the multiplier; on: growth when the "
    "question is about changes between years.",
    "weighted_score": "formula: the score as arithmetic over field names with + - * / and numbers; "
    "direction and k of the ranking.",
    "group_compare": "field: the value compared; by: the field that splits companies into groups; stat.",
}
PARAM_GUIDES["count"] = PARAM_GUIDES["threshold_filter"]


def used_fields(
    fields: list[FieldSpec], aggregation: Aggregation | None, trace: PlanTrace
) -> list[FieldSpec]:
    """The proposed fields some step or the output reads. A field nothing reads cannot change the
    answer, yet extracting it costs an LLM call per document whenever the table reader cannot read
    it (a small model proposes such fields: "中国A股市场", "前三"). Kept when the answer is a whole
    table or free text, or when free code does not say which columns it reads."""
    if aggregation is None or aggregation.output.form in ("table", "text"):
        return fields
    if any(isinstance(step, CodeOp) and not step.reads for step in aggregation.steps):
        return fields
    read = set(aggregation.fields_read()) | {aggregation.output.value, aggregation.output.entity}
    kept = [f for f in fields if f.name in read]
    if not kept:
        return fields
    trace.unused_fields = [f.name for f in fields if f.name not in read]
    return kept


class PlannerError(MdqaError):
    """No valid plan after the bounded retries; `result` holds the trace of every attempt."""

    def __init__(self, message: str, result: PlanResult | None = None) -> None:
        super().__init__(message)
        self.result = result


class StructuredLLM(Protocol):
    def structured(self, prompt: Any, schema: dict[str, Any], *, stage: str = ...) -> Any: ...


# -- results --------------------------------------------------------------------------------------


@dataclass
class PlanTrace:
    """Where every part of a plan came from, and what each LLM step answered."""

    family: str | None = None
    family_source: str = "model"
    model_family: str | None = None
    cue_families: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    fields_source: str = "caller"
    filters_source: str = "rule"
    facts: dict[str, Any] = field(default_factory=dict)
    hints: list[str] = field(default_factory=list)
    attempts: list[dict[str, Any]] = field(default_factory=list)
    unused_fields: list[str] = field(default_factory=list)  # proposed, read by no step: not extracted
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class PlanResult:
    question: str
    plan: Plan | None
    trace: PlanTrace
    error: str | None = None

    @property
    def valid(self) -> bool:
        return self.plan is not None


# -- the planner -------------------------------------------------------------------------------------


def figure_plan(
    question: str, metadata: pl.DataFrame, derived: frozenset[str] = frozenset()
) -> tuple[str, Plan] | None:
    """A question one company's statement figures answer, planned without a model: a figure or metric
    (`plan.analyst`), a yes/no judgement the figures decide (`plan.judgement`) or the largest of listed
    figures (`plan.choice`); (family, plan), or None when none of them reads the question completely.
    The line items in `derived` are computed from others, as when a first reading found no printed line
    for them (`analyst.derivable`: gross profit as revenue less cost of revenue)."""
    from mdqa_kernel.plan.analyst import statement_plan
    from mdqa_kernel.plan.choice import choice_plan
    from mdqa_kernel.plan.judgement import judgement_plan

    planners = (("statement", statement_plan), ("judgement", judgement_plan), ("choice", choice_plan))
    for family, planner in planners:
        plan = planner(question, metadata, derived)
        if plan is not None:
            return family, plan
    return None


def _statement_route(question: str, metadata: pl.DataFrame) -> PlanResult | None:
    """The first route: `figure_plan`, traced as "<family> planner"; None when it reads nothing."""
    found = figure_plan(question, metadata)
    if found is None:
        return None
    family, plan = found
    source = f"{family} planner"
    return PlanResult(question, plan, PlanTrace(family=family, family_source=source, fields_source=source))


class Planner:
    """Runs the constrained planning steps with one LLM (an LLMClient, or any object with
    `structured(prompt, schema_dict, stage=...)`, or a callable `(messages, schema) -> dict`).

    `dry_run`: the function that runs an aggregation over a rows frame (`aggregate.aggregate`, as
    ask() passes it); each candidate plan is run on a synthetic frame before it is accepted, and a
    failure goes back to the model like any other. None: no dry run."""

    def __init__(
        self,
        llm: StructuredLLM | Callable[..., Any],
        *,
        hints: Hints | None = None,
        max_retries: int = 1,
        family_mode: str = "model+rules",
        dry_run: DryRun | None = None,
        statements: bool = True,
    ) -> None:
        if family_mode not in FAMILY_MODES:
            raise ValueError(f"family_mode must be one of {FAMILY_MODES}, got {family_mode!r}")
        self.llm = llm
        self.hints = hints or load_hints()
        self.max_retries = max_retries
        self.family_mode = family_mode
        self.dry_run = dry_run
        self.statements = statements

    # -- public -------------------------------------------------------------------------------
    def propose(
        self,
        question: str,
        *,
        metadata: pl.DataFrame | MetadataSchema | None = None,
        schema_fields: Sequence[FieldSpec | Mapping[str, Any]] | Mapping[str, str] | None = None,
        family: str | None = None,
        vocabulary: Vocabulary | None = None,
    ) -> PlanResult:
        """Plan a question; never raises for a model failure (the result says why it is invalid).

        A question about one company's statements ("What is Acme's FY2023 inventory turnover?") that
        `plan.analyst` reads completely, a judgement `plan.judgement` reads ("Does Acme have an
        improving gross margin profile as of FY2023?") or a which-of question `plan.choice` reads, is
        planned there, without a model (`statements=False`, given
        fields or a given family turn that route off); the rest goes to the model.

        `vocabulary`: the labels the collection's documents print (`Vocabulary.of(collection)`); the
        fields the model proposes are grounded in it and the labels the question names are added."""
        t0 = time.perf_counter()
        if self.statements and family is None and not schema_fields and isinstance(metadata, pl.DataFrame):
            statement = _statement_route(question, metadata)
            if statement is not None:
                statement.trace.seconds = time.perf_counter() - t0
                return statement
        meta = metadata_schema(metadata)
        facts = read_question(
            question,
            years=[int(y) for y in meta.values.get("year", [])] or None,
            doctypes=[str(d) for d in meta.values.get("doctype", [])],
            hints=self.hints,
        )
        trace = PlanTrace(facts=_facts_summary(facts), hints=[h.id for h in facts.hints])
        try:
            fields = self._fields(question, schema_fields, meta, facts, trace, vocabulary)
            plan = self._plan_with_retries(question, fields, meta, facts, trace, family)
            return PlanResult(question, plan, trace)
        except PlannerError as e:
            return PlanResult(question, None, trace, str(e))
        finally:
            trace.seconds = time.perf_counter() - t0

    def plan(self, question: str, **kwargs: Any) -> Plan:
        """Like `propose`, but returns the Plan or raises PlannerError."""
        result = self.propose(question, **kwargs)
        if result.plan is None:
            raise PlannerError(f"no valid plan for {question!r}: {result.error}", result)
        return result.plan

    # -- steps ------------------------------------------------------------------------------
    def _plan_with_retries(
        self, question: str, fields: list[FieldSpec], meta: MetadataSchema, facts: QuestionFacts,
        trace: PlanTrace, family: str | None,
    ) -> Plan:  # fmt: skip
        if family is not None:
            trace.family, trace.family_source = family, "caller"
        else:
            self._choose_family(question, facts, trace)
        last_error = ""
        for round_ in range(2):  # a second round re-asks the family when its parameters never compile
            messages = self._param_messages(question, trace.family, fields, facts)
            for _ in range(self.max_retries + 1):
                params = self._ask(messages, param_schema(trace.family, fields), "params", trace)
                trace.params = params
                try:
                    return self._build(question, fields, meta, facts, trace, params)
                except (FamilyError, PlanValidationError, DryRunError) as e:
                    last_error = str(e)
                    trace.attempts[-1]["error"] = last_error
                    messages = [*messages, {"role": "assistant", "content": json.dumps(params, ensure_ascii=False)},
                                {"role": "user", "content": f"That did not work: {last_error}. "
                                 "Reply again with corrected JSON."}]  # fmt: skip
            if round_ == 0 and trace.family_source in ("model", "rule>model"):
                try:
                    trace.family = self._ask_family(
                        question, facts, trace, rejected=(trace.family, last_error)
                    )
                except PlannerError as e:
                    raise PlannerError(f"family {trace.family}: {last_error} (then: {e})") from None
                trace.family_source = "model-retry"
            else:
                break
        raise PlannerError(f"family {trace.family}: {last_error}")

    def _build(
        self, question: str, fields: list[FieldSpec], meta: MetadataSchema, facts: QuestionFacts,
        trace: PlanTrace, params: dict[str, Any],
    ) -> Plan:  # fmt: skip
        compiled = compile_family(trace.family or "", params, facts, fields, set(meta.columns))
        # the family's provenance beside what grounding the fields recorded (kept, added, dropped)
        trace.sources = {k: v for k, v in trace.sources.items() if k == "grounding"} | compiled.sources
        if trace.fields_source != "caller":  # also grounded ones: a printed label can be unused too
            fields = used_fields(fields, compiled.aggregation, trace)
        plan = Plan(
            question=question,
            filters=metadata_filters(facts, meta),
            fields=fields,
            aggregation=compiled.aggregation,
        )
        plan.validate_against(meta.columns)
        if self.dry_run is not None:
            dry_run(plan, meta, facts, self.dry_run)
        return plan

    def _choose_family(self, question: str, facts: QuestionFacts, trace: PlanTrace) -> None:
        """The model's family, checked against the cue phrases of plan/hints.yaml.

        family_mode "model+rules" (default): a cue of a family wins over the model (the trace says
        "rule>model"); "model": the model alone; "rules": cues alone, the model is not asked unless
        no cue matches.
        """
        cues = cue_families(question, self.hints)
        trace.cue_families = cues
        if self.family_mode == "rules" and cues:
            trace.family, trace.family_source = cues[0], "rule"
            return
        trace.model_family = self._ask_family(question, facts, trace, rejected=None)
        trace.family, trace.family_source = trace.model_family, "model"
        if self.family_mode == "model+rules" and cues and cues[0] != trace.model_family:
            trace.family, trace.family_source = cues[0], "rule>model"

    def _ask_family(
        self, question: str, facts: QuestionFacts, trace: PlanTrace, rejected: tuple[str, str] | None
    ) -> str:
        lines = [f"- {name}: {desc}" for name, desc in self.hints.families.items()]
        shots = [
            f"Q: {ex['q']}\n"
            + json.dumps({"phrase": ex.get("phrase", ""), "family": ex["family"]}, ensure_ascii=False)
            for ex in self.hints.examples
        ]
        notes = "".join(f"\nNote: {h.note}" for h in facts.hints)
        prompt = (
            "Choose the aggregation family that answers the question over a table with one row per "
            "document (company and year).\nFamilies:\n" + "\n".join(lines)
            + "\n\nExamples:\n" + "\n\n".join(shots) + "\n" + notes
            + f"\n\nQ: {question}\n"
        )  # fmt: skip
        choices = list(FAMILIES)
        if rejected is not None:
            prompt += f"\n(The family {rejected[0]} did not work: {rejected[1]}. Choose another.)"
            choices = [f for f in choices if f != rejected[0]]
        # Copying the deciding phrase first ("最高的三家", "how many") makes the small model attend to it.
        schema = {"title": "family_choice", "type": "object",
                  "properties": {"phrase": {"type": "string", "maxLength": 40},
                                 "family": {"type": "string", "enum": choices}},
                  "required": ["phrase", "family"]}  # fmt: skip
        answer = self._ask([{"role": "user", "content": prompt}], schema, "family", trace)
        family = answer.get("family")
        if family not in choices:
            raise PlannerError(f"the model chose no known family ({family!r})")
        return family

    def _param_messages(
        self, question: str, family: str | None, fields: list[FieldSpec], facts: QuestionFacts
    ) -> list[dict[str, str]]:
        field_lines = [f"- {f.name}: {f.type} — {f.description}" for f in fields]
        notes = "".join(f"\nNote: {h.note}" for h in facts.hints)
        known = {k: v for k, v in _facts_summary(facts).items() if v not in (None, [], False)}
        prompt = (
            f"Question: {question}\nAggregation family: {family} — {self.hints.families.get(family or '', '')}\n"
            "Fields of the table (one row per document; columns symbol and year are always there):\n"
            + "\n".join(field_lines)
            + f"\nParameters: {PARAM_GUIDES.get(family or '', '')}"
            + notes
            + f"\nRead from the question: {json.dumps(known, ensure_ascii=False)}"
            + "\nFill the parameters as JSON."
        )
        return [{"role": "user", "content": prompt}]

    def _ask(
        self, messages: list[dict[str, str]], schema: dict[str, Any], step: str, trace: PlanTrace
    ) -> dict:
        t0 = time.perf_counter()
        record: dict[str, Any] = {"step": step}
        trace.attempts.append(record)
        try:
            answer = _call(self.llm, messages, schema)
        except Exception as e:  # a backend failure is a planning failure with its reason, not a crash
            record["error"] = f"{type(e).__name__}: {e}"
            raise PlannerError(f"LLM call for {step} failed: {e}") from e
        finally:
            record["seconds"] = round(time.perf_counter() - t0, 3)
        data = answer.model_dump() if hasattr(answer, "model_dump") else dict(answer)
        record["answer"] = data
        return data

    def _fields(
        self, question: str, given: Any, meta: MetadataSchema, facts: QuestionFacts, trace: PlanTrace,
        vocabulary: Vocabulary | None = None,
    ) -> list[FieldSpec]:  # fmt: skip
        if given:
            trace.fields_source = "caller"
            return fields_from_schema(given)
        items = checklist_items(question)
        if items:  # a checklist score: its items are the fields, read as yes/no; no model call needed
            trace.fields_source = f"rule (checklist of {len(items)} items)"
            return checklist_fields(items, question, facts.language)
        operands = formula_operands(question) if len(facts.years) < 2 else []
        if operands:  # "捐赠效率=社会捐赠额÷每股社会贡献值": the formula names what is read
            trace.fields_source = f"rule (formula over {len(operands)} values)"
            return formula_fields(operands, facts.language)
        dates = event_dates_field(question, facts.language)
        if dates is not None:  # "各月份召开股东大会的公司": the meetings' dates, counted by month
            trace.fields_source = "rule (event dates)"
            return [dates]
        people = people_count_field(question, facts.language)
        if people is not None:  # "女性高管最多的三家公司": ranked by a count of people
            trace.fields_source = "rule (people count)"
            names = people_names_field(question, facts.language)
            if names is not None:  # "…和这些公司的所有女性高管名字": the people themselves, shown
                trace.fields_source += " + their names shown"
                return [people, names]
            return [people]
        lists = _counts_or_lists(question, self.hints)
        where = located_field(facts.located[0], facts.language) if lists and facts.located else None
        if where is not None:  # "办公地址在深圳的公司": the address, tested for the place
            trace.fields_source = "rule (located value)"
            return [where]
        flags = predicate_fields(question, facts.language) if lists else []
        if flags:  # "经第三方机构审验的公司": one yes/no fact per document (and per fact named)
            trace.fields_source = f"rule ({len(flags)} yes/no fact{'s' if len(flags) > 1 else ''})"
            shown = shown_field(facts.shown, vocabulary, facts.language) if facts.shown else None
            if shown is not None:  # "…的公司股票代码和审验机构名称": each company with its 审验机构
                trace.fields_source += f" + the {shown.description} shown"
                return [*flags, shown]
            return flags
        ranked = ranked_by_listed_value(question, facts, vocabulary)
        if ranked is not None:  # "…symbols and exact debt-to-assets ratios for the top three companies…"
            trace.fields_source = "rule (the value listed beside each symbol is the value ranked)"
            return [ranked]
        trace.fields_source = "model"
        named = [t for t in vocabulary.matches(question) if t.norm not in meta.columns] if vocabulary else []
        try:
            proposed = self._propose_fields(question, meta, facts, trace)
        except PlannerError:
            if not named:
                raise
            proposed = []
        if vocabulary is None:
            return proposed
        return ground_fields(proposed, named, vocabulary, facts.language, trace, measure_in(question))

    def _propose_fields(
        self, question: str, meta: MetadataSchema, facts: QuestionFacts, trace: PlanTrace
    ) -> list[FieldSpec]:
        """Ask only for what a small model does well (the words naming each value, a name, a type);
        the per-document question template is written by rule in the question's language."""
        notes = "".join(f"\nNote: {h.note}" for h in facts.hints)
        prompt = (
            "The question below is answered from a table with one row per document (company and year); the "
            f"columns {', '.join(meta.columns)} are already known. Which VALUES must be read from each "
            "document to fill the other columns? For each: phrase = the words of the question that name the "
            "value (never the company, ticker or stock code), name = short snake_case English name, type = "
            + ", ".join(FIELD_TYPES)
            + "."
            + notes
            + "\nExample: 'Which three banks had the lowest cost-to-income ratio in 2020? Give their codes.' -> "
            '{"values": [{"phrase": "cost-to-income ratio", "name": "cost_to_income_ratio", "type": "percent"}]}'
            + f"\nQuestion: {question}"
        )
        item = {"type": "object", "required": ["phrase", "name", "type"], "properties": {
            "phrase": {"type": "string", "maxLength": 60}, "name": {"type": "string", "maxLength": 40},
            "type": {"type": "string", "enum": list(FIELD_TYPES)}}}  # fmt: skip
        schema = {"title": "fields", "type": "object", "required": ["values"],
                  "properties": {"values": {"type": "array", "items": item, "minItems": 1, "maxItems": 4}}}  # fmt: skip
        messages = [{"role": "user", "content": prompt}]
        for _ in range(self.max_retries + 1):
            answer = self._ask(messages, schema, "fields", trace)
            out: list[FieldSpec] = []
            rejected: list[str] = []
            for i, raw in enumerate(answer["values"]):
                if len(facts.years) >= 2 and raw.get("phrase"):
                    raw = level_raw(raw)
                spec = field_from_phrase(i, raw, meta.columns, facts.language, facts.effect("field_type"))
                if spec is None:
                    rejected.append(str(raw.get("phrase") or raw.get("name")))
                elif spec.name not in {s.name for s in out}:
                    out.append(spec)
            if out:
                return out
            # Small models like to name what the answer lists (the ticker) instead of what is read.
            error = (
                f"{', '.join(rejected)} name the company, which is already known. Which value are the "
                "companies ranked, counted or compared by? Give that value"
            )
            trace.attempts[-1]["error"] = error
            messages = [*messages, {"role": "assistant", "content": json.dumps(answer, ensure_ascii=False)},
                        {"role": "user", "content": f"That did not work: {error}. Reply again with corrected JSON."}]  # fmt: skip
        # Last resort, recorded as such: the value a ranking question names ("ranked by total assets").
        phrase = measure_in(question)
        spec = field_from_phrase(0, {"phrase": phrase, "name": phrase, "type": "number"}, meta.columns,
                                 facts.language, facts.effect("field_type")) if phrase else None  # fmt: skip
        if spec is None:
            raise PlannerError("the model proposed no usable field (only the company identifiers)")
        trace.fields_source = "rule (the model named only the company)"
        return [spec]


# -- helpers ---------------------------------------------------------------------------------------


def _call(llm: Any, messages: list[dict[str, str]], schema: dict[str, Any]) -> Any:
    if hasattr(llm, "structured"):
        return llm.structured(messages, schema, stage=STAGE)
    return llm(messages, schema)


def _counts_or_lists(question: str, hints: Hints) -> bool:
    """The question counts or lists the companies that meet a condition, and ranks by nothing."""
    cues = cue_families(question, hints)
    return bool(cues) and set(cues) <= {"count", "threshold_filter"} and measure_in(question) is None


def _facts_summary(facts: QuestionFacts) -> dict[str, Any]:
    keys = ("years", "doctypes", "k", "direction", "dense", "ties", "wants_value", "threshold", "multiplier",
            "stat", "between_years", "later", "combine", "growth_words")  # fmt: skip
    return {k: getattr(facts, k) for k in keys}


def plan(
    question: str,
    collection: Any = None,
    *,
    llm: Any = None,
    schema_fields: Any = None,
    metadata: pl.DataFrame | MetadataSchema | None = None,
    **kwargs: Any,
) -> Plan:
    """One-call planning: metadata from `collection.documents` unless given; LLM from the environment;
    without given fields, the proposed ones are grounded in the collection's printed labels. `kwargs`
    go to the Planner (`dry_run=aggregate` to check each plan on a synthetic frame)."""
    if llm is None:
        from mdqa_kernel.llm import LLMClient, LLMConfig

        ws = getattr(collection, "workspace", None)
        llm = LLMClient(LLMConfig.from_env(), ws)
    if metadata is None and collection is not None:
        metadata = collection.documents
    vocabulary = Vocabulary.of(collection) if collection is not None and not schema_fields else None
    return Planner(llm, **kwargs).plan(
        question, metadata=metadata, schema_fields=schema_fields, vocabulary=vocabulary
    )
