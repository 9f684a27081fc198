"""bash-agent: AGORA's evaluation harness as a system — an LLM with one bash tool over the documents
as text, run through mini-swe-agent (the agent loop AGORA evaluates every model with).

Each question is one episode: the question's documents are written as text files into a throwaway
folder (one folder per document type, one file per document, pages marked "=== page N ==="), and
every command the model writes runs in the project's sandbox (`aggregate.sandbox.run_shell`:
bubblewrap, the folder read-only at /sandbox/in, a fresh scratch /tmp per command, no network,
rlimits, killed at its deadline). The workspace, the project tree and the host are never visible.
The model is our LLM layer (any backend; calls cached, journaled and counted under stage "agent").

The episode ends when the model replies with its final answer inside <answer>…</answer> (before any
command's output has come back, a reply with a command runs the command: an answer written blind is
not final; a reply without the tag and without exactly one ```bash block is a format error; three in
a row end the episode), or when a budget runs out: turns (model calls), wall seconds, or the model's context.
The answer is the tag's content; a missing or malformed tag scores zero, as in AGORA.

Budgets: AGORA allows 200 turns and 3,600 s per question. On two shared cores a turn of a 1.5B
model costs tens of seconds, so the grid's default is reduced (`bash-agent@30`: 30 turns,
SECONDS_PER_TURN each); `bash-agent@200` is the paper's budget. The label always says which.

Failures are labelled with AGORA's five codes by rules over the trajectory (`agora_failure`).
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mdqa_kernel.aggregate.isolation import IN_DIR, SandboxError, SandboxLimits
from mdqa_kernel.aggregate.sandbox import run_shell
from mdqa_kernel.benchmarks.systems.base import (
    LLM,
    QuestionInput,
    StageError,
    SystemConfig,
    SystemOutput,
    approx_tokens,
    document_pages,
)

STAGE = "agent"
PAPER_TURNS, PAPER_SECONDS = 200, 3600  # AGORA's budget per question
SECONDS_PER_TURN = 40  # the reduced budget's wall allowance per turn (a 1.5B model on 2 cores)
OUTPUT_HEAD, OUTPUT_TAIL = 2500, 1000  # characters of a command's output the model sees
COMMAND_LIMITS = SandboxLimits(
    timeout_s=30.0, memory_mb=1024, max_output_mb=16, scratch_mb=64, max_processes=64
)
MAX_FORMAT_ERRORS = 3  # in a row; then the episode ends ("instruction not followed")
# One model call is not interruptible (llama.cpp in process), so the wall budget is kept by predicting each
# call before it starts: seconds per token measured on this episode's earlier calls, a generated token
# counted as GEN_WEIGHT prompt tokens (decoding is that much slower than prompt evaluation on a CPU), only
# the prompt's new tokens counted (the backend reuses the evaluated prefix). A reply is cut to what fits;
# under MIN_REPLY_TOKENS the episode ends as TimeExceeded (AGORA: resources exhausted).
GEN_WEIGHT = 8
MIN_REPLY_TOKENS = 48
TRAJECTORY_CHARS = 1500  # per message kept in the output notes
ACTION_REGEX = r"```(?:bash|sh)?[ \t]*\n(.*?)\n?```"
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.S | re.I)
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_UNSAFE = re.compile(r"[^\w.\-]+")
_READER = re.compile(r"\b(?:grep|egrep|rg|cat|sed|awk|head|tail|less|more|python3?|cut|nl|strings)\b")

SYSTEM_TEMPLATE = """\
You answer questions about a collection of documents by running bash commands.
The documents are plain-text files under {{docs_dir}}: one folder per document type, one file per
document, pages marked "=== page N ===". Useful commands: ls, grep -n, sed -n 'A,Bp', head, wc, awk, python3.

Each reply contains EXACTLY ONE of:
- one bash command in a code block:
```bash
grep -n "revenue" {{docs_dir}}/*/*.txt | head -20
```
- or, when you know the answer, the final answer inside <answer></answer> and no code block.

Every command runs in a new shell with no network; files written under /tmp do not persist; a command
is stopped after {{timeout}} s; long outputs are cut in the middle."""

INSTANCE_TEMPLATE = """\
Question: {{task}}

Documents ({{n_docs}}): file | company | year | type
{{listing}}

You have at most {{step_limit}} replies. Finish with <answer>your answer</answer>."""

OBSERVATION_TEMPLATE = """\
<returncode>{{output.returncode}}</returncode>
<output>
{{output.output}}</output>"""

FORMAT_ERROR = (
    "Your reply had {{actions|length}} bash code blocks and no <answer></answer>. Reply with exactly one "
    "```bash code block, or with your final answer inside <answer></answer>."
)


@dataclass(frozen=True)
class Budget:
    turns: int
    seconds: int

    @classmethod
    def of(cls, config: SystemConfig) -> Budget:
        """`k` is the turn budget; the wall budget follows (the paper's at 200 turns)."""
        turns = max(1, int(config.k))
        if turns >= PAPER_TURNS:
            return cls(turns, PAPER_SECONDS)
        return cls(turns, min(PAPER_SECONDS, turns * SECONDS_PER_TURN))


def _safe(text: Any) -> str:
    return _UNSAFE.sub("_", str(text)).strip("_") or "unknown"


def write_documents(q: QuestionInput, root: Path) -> list[dict[str, Any]]:
    """The question's documents as text under `root/<doctype>/<symbol>_<year>.txt`, readable by the
    sandbox's unprivileged uid. Returns one row per document: doc_id, path (inside the sandbox)."""
    rows: list[dict[str, Any]] = []
    used: set[str] = set()
    for doc in q.documents.iter_rows(named=True):
        folder = _safe(doc.get("doctype"))
        name = f"{_safe(doc.get('symbol'))}_{_safe(doc.get('year'))}"
        rel = f"{folder}/{name}.txt"
        if rel in used:
            rel = f"{folder}/{name}_{_safe(doc['doc_id'])}.txt"
        used.add(rel)
        pages = document_pages(q, doc["doc_id"])
        body = "".join(f"=== page {p} ===\n{text}\n" for p, text in pages.iter_rows())
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
        rows.append({**doc, "path": f"{IN_DIR}/{rel}", "file": Path(rel).name})
    for dirpath, _dirs, files in os.walk(root):
        os.chmod(dirpath, 0o755)
        for f in files:
            os.chmod(Path(dirpath) / f, 0o644)
    return rows


def _mini_swe_agent() -> Any:
    """Import mini-swe-agent quietly, its global config folder in a temporary place (it creates one
    at import and prints a banner otherwise)."""
    os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")
    os.environ.setdefault("MSWEA_GLOBAL_CONFIG_DIR", str(Path(tempfile.gettempdir()) / "mdqa-mini-swe-agent"))
    try:
        import minisweagent.agents.default as default
    except ImportError as e:
        raise StageError(
            STAGE,
            f"mini-swe-agent is not installed ({e}); run `make install`, or "
            "`pip install --no-deps mini-swe-agent==2.4.6` (its core needs are mdqa's dependencies)",
        ) from e
    return default


def cut_output(text: str) -> str:
    """The head and tail of a long output, with how much was left out in between."""
    if len(text) <= OUTPUT_HEAD + OUTPUT_TAIL:
        return text
    left = len(text) - OUTPUT_HEAD - OUTPUT_TAIL
    return f"{text[:OUTPUT_HEAD]}\n[… {left} characters left out …]\n{text[-OUTPUT_TAIL:]}"


class SandboxEnvironment:
    """mini-swe-agent's Environment protocol over `run_shell`: the documents folder read-only."""

    def __init__(self, docs: Path, limits: SandboxLimits = COMMAND_LIMITS) -> None:
        self.docs, self.limits = docs, limits
        self.config = {"docs_dir": IN_DIR, "timeout": int(limits.timeout_s)}
        self.commands = 0
        self.seconds = 0.0

    def execute(self, action: dict[str, Any], cwd: str = "", *, timeout: int | None = None) -> dict[str, Any]:
        self.commands += 1
        try:
            res = run_shell(str(action.get("command", "")), self.docs, limits=self.limits)
        except SandboxError as e:  # isolation unavailable: the episode cannot go on safely
            raise StageError(STAGE, str(e)) from e
        self.seconds += res.seconds
        note = f"\n[stopped after {self.limits.timeout_s:g} s]" if res.timed_out else ""
        return {"output": cut_output(res.output) + note, "returncode": res.returncode,
                "exception_info": "timeout" if res.timed_out else ""}  # fmt: skip

    def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
        return {**self.config, **kwargs}

    def serialize(self) -> dict[str, Any]:
        return {"info": {"environment": {**self.config, "isolation": "bubblewrap (mdqa sandbox)"}}}


class LayerModel:
    """mini-swe-agent's Model protocol over our LLM layer: chat messages in, one action or the
    final answer out. The context is checked before each call (a trajectory longer than the model's
    context ends the episode as resources exhausted, instead of a backend error)."""

    def __init__(
        self,
        llm: LLM,
        n_ctx: int,
        max_tokens: int,
        clock: Any = time.monotonic,
        deadline: float | None = None,
    ) -> None:
        chat = getattr(llm, "chat", None)
        if chat is None:
            raise StageError(STAGE, "the LLM client has no chat(); use mdqa_kernel.llm.LLMClient")
        self.chat, self.n_ctx, self.max_tokens = chat, n_ctx, max_tokens
        self.config = {"n_ctx": n_ctx, "max_tokens": max_tokens}
        self.clock, self.deadline = clock, deadline
        self.pace = CallPace()

    def query(self, messages: list[dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
        from minisweagent.exceptions import LimitsExceeded, Submitted
        from minisweagent.models.utils.actions_text import parse_regex_actions

        plain = [{"role": m["role"], "content": str(m.get("content", ""))} for m in messages
                 if m.get("role") in ("system", "user", "assistant")]  # fmt: skip
        used = sum(approx_tokens(m["content"]) + 4 for m in plain)
        if used + self.max_tokens > self.n_ctx:
            raise LimitsExceeded(
                _exit("ContextExhausted", f"{used} prompt tokens + {self.max_tokens} > {self.n_ctx}")
            )
        limit = self._reply_budget(used)
        started = self.clock()
        # The limit is passed only when it cuts the reply: an unchanged call keeps its cache key.
        text = self.chat(plain, stage=STAGE, **({"max_tokens": limit} if limit < self.max_tokens else {}))
        self.pace.observe(used, approx_tokens(text), self.clock() - started)
        message = {"role": "assistant", "content": text, "extra": {"cost": 0.0}}
        answer = parse_answer(text)
        # An answer is final once the model has seen a command's output. Before that, a reply with a
        # command and an answer runs the command (the answer was written blind); after it, an answer
        # ends the episode even beside a command (small models repeat "command + answer" verbatim
        # and would otherwise loop until the budget ends).
        if answer is not None and (_observed(messages) or not re.search(ACTION_REGEX, text, re.S)):
            raise Submitted(message, _exit("Submitted", answer, submission=answer))
        message["extra"]["actions"] = parse_regex_actions(
            text, action_regex=ACTION_REGEX, format_error_template=FORMAT_ERROR
        )
        return message

    def _reply_budget(self, prompt_tokens: int) -> int:
        """The reply's token limit that keeps the call inside the wall budget (see GEN_WEIGHT)."""
        from minisweagent.exceptions import LimitsExceeded

        if self.deadline is None:
            return self.max_tokens
        left = self.deadline - self.clock()
        fits = self.pace.reply_tokens(prompt_tokens, left, self.max_tokens)
        if left <= 0 or fits < min(MIN_REPLY_TOKENS, self.max_tokens):
            guess = self.pace.seconds(prompt_tokens, self.max_tokens)
            raise LimitsExceeded(
                _exit("TimeExceeded", f"{max(left, 0):.0f} s left; the next call needs about {guess:.0f} s")
            )
        return fits

    def format_message(self, **kwargs: Any) -> dict[str, Any]:
        return dict(kwargs)

    def format_observation_messages(
        self,
        message: dict[str, Any],
        outputs: list[dict[str, Any]],
        template_vars: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        from minisweagent.models.utils.actions_text import format_observation_messages

        return format_observation_messages(outputs, observation_template=OBSERVATION_TEMPLATE,
                                           template_vars=template_vars)  # fmt: skip

    def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
        return {**self.config, **kwargs}

    def serialize(self) -> dict[str, Any]:
        return {"info": {"model": self.config}}


class CallPace:
    """Seconds per (weighted) token of the model calls seen so far: the slowest call's rate, so a
    prediction errs towards stopping early rather than overrunning the budget."""

    def __init__(self) -> None:
        self.rate: float | None = None  # seconds per weighted token; unknown before the first call
        self.seen = 0  # prompt tokens already evaluated (the backend reuses them)

    def _weighted(self, prompt_tokens: int, reply_tokens: int) -> int:
        return max(1, prompt_tokens - self.seen) + GEN_WEIGHT * reply_tokens

    def observe(self, prompt_tokens: int, reply_tokens: int, seconds: float) -> None:
        rate = seconds / self._weighted(prompt_tokens, reply_tokens)
        self.rate = rate if self.rate is None else max(self.rate, rate)
        self.seen = prompt_tokens + reply_tokens

    def seconds(self, prompt_tokens: int, reply_tokens: int) -> float:
        return 0.0 if self.rate is None else self.rate * self._weighted(prompt_tokens, reply_tokens)

    def reply_tokens(self, prompt_tokens: int, left: float, most: int) -> int:
        """The longest reply (at most `most` tokens) whose call is predicted to end within `left` s."""
        if self.rate is None:
            return most  # the first call (the shortest prompt) sets the pace
        spare = left / self.rate - max(1, prompt_tokens - self.seen)
        return max(0, min(most, int(spare // GEN_WEIGHT)))


def _observed(messages: list[dict[str, Any]]) -> bool:
    """Whether a command's output has come back in the conversation."""
    return any(m.get("role") == "user" and "raw_output" in m.get("extra", {}) for m in messages)


def _exit(status: str, content: str, submission: str = "") -> dict[str, Any]:
    return {"role": "exit", "content": content, "extra": {"exit_status": status, "submission": submission}}


def parse_answer(text: str) -> str | None:
    """The content of the last well-formed <answer>…</answer> tag, or None (AGORA: scores zero)."""
    found = _ANSWER.findall(text or "")
    if not found:
        return None
    answer = found[-1].strip()
    return answer or None


def run(config: SystemConfig, q: QuestionInput, llm: LLM) -> SystemOutput:
    budget = Budget.of(config)
    default = _mini_swe_agent()
    root = Path(tempfile.mkdtemp(prefix="mdqa-agent-docs-"))
    try:
        docs = write_documents(q, root)
        env = SandboxEnvironment(root)
        model = LayerModel(llm, q.n_ctx, q.max_tokens, deadline=time.monotonic() + budget.seconds)
        agent = default.DefaultAgent(
            model, env, system_template=SYSTEM_TEMPLATE, instance_template=INSTANCE_TEMPLATE,
            step_limit=budget.turns, cost_limit=0.0, wall_time_limit_seconds=budget.seconds,
            max_consecutive_format_errors=MAX_FORMAT_ERRORS,
        )  # fmt: skip
        listing = "\n".join(
            f"{d['path']} | {d.get('symbol')} | {d.get('year')} | {d.get('doctype')}" for d in docs
        )
        started = time.monotonic()
        try:
            result = agent.run(q.question, n_docs=len(docs), listing=listing)
        except StageError:
            raise
        except Exception as e:  # a backend failure mid-episode: the trajectory so far is the record
            raise StageError(STAGE, f"{type(e).__name__}: {e}") from e
        seconds = time.monotonic() - started
    finally:
        shutil.rmtree(root, ignore_errors=True)
    status = str(result.get("exit_status", ""))
    answer = (
        parse_answer(f"<answer>{result.get('submission', '')}</answer>") if status == "Submitted" else None
    )
    out = SystemOutput(answer=answer)
    out.notes = {
        "budget_turns": budget.turns,
        "budget_seconds": budget.seconds,
        "reduced_budget": budget.turns < PAPER_TURNS,
        "exit_status": status,
        "turns": agent.n_calls,
        "commands": env.commands,
        "command_seconds": round(env.seconds, 2),
        "episode_seconds": round(seconds, 2),
        **trajectory_signals(agent.messages, docs, answer),
        "trajectory": [_short(m) for m in agent.messages],
    }
    if answer is None:
        out.fail(STAGE, f"no answer: {status or 'ended'} after {agent.n_calls} turns")
    return out


def _short(message: dict[str, Any]) -> dict[str, Any]:
    content = str(message.get("content", ""))
    return {"role": message.get("role"), "content": content[:TRAJECTORY_CHARS],
            "returncode": message.get("extra", {}).get("returncode")}  # fmt: skip


def _numbers(text: str) -> set[str]:
    """Numbers as written without grouping, sign or trailing decimal zeros ("1,234.50" → "1234.5")."""
    found = set()
    for n in _NUMBER.findall(text):
        n = n.replace(",", "").lstrip("-")
        found.add(n.rstrip("0").rstrip(".") if "." in n else n)
    return found


def _reads(command: str, path: str) -> bool:
    """Whether a command reads the file at `path` through a glob or a folder it names ("cat
    /sandbox/in/*/*.txt", "grep -r revenue /sandbox/in"); listing a folder (ls, find) reads nothing."""
    if not _READER.search(command):
        return False
    for token in command.replace(";", " ").replace("|", " ").split():
        token = token.strip("'\"")
        if not token.startswith(IN_DIR):
            continue
        if fnmatch.fnmatchcase(path, token) or path.startswith(token.rstrip("/") + "/"):
            return True
    return False


def trajectory_signals(
    messages: Iterable[dict[str, Any]], docs: list[dict[str, Any]], answer: str | None
) -> dict[str, Any]:
    """What the failure rules look at: which documents a command or its output named (inspected),
    and the answer's numbers that no command output ever showed."""
    commands, observations = [], []
    for m in messages:
        extra = m.get("extra", {})
        if m.get("role") == "assistant":
            commands += [str(a.get("command", "")) for a in extra.get("actions", [])]
        elif m.get("role") == "user" and "raw_output" in extra:
            observations.append(str(extra.get("raw_output", "")))
    seen_text = "\n".join(commands + observations)
    inspected = [d["doc_id"] for d in docs
                 if d["file"] in seen_text or any(_reads(c, d["path"]) for c in commands)]  # fmt: skip
    shown = _numbers("\n".join(observations))
    unseen = sorted(_numbers(answer or "") - shown)
    return {"docs_total": len(docs), "docs_inspected": len(inspected),
            "answer_numbers_unseen": unseen[:20]}  # fmt: skip


AGORA_CODES = (
    "resources exhausted",
    "instruction not followed",
    "incomplete inspection",
    "hallucination",
    "evidence misidentified",
)


def agora_failure(notes: dict[str, Any], correct: bool | None) -> str | None:
    """AGORA's failure code of a bash-agent episode, by rules over its trajectory (first that holds):
    a budget ran out → resources exhausted; no well-formed answer tag → instruction not followed;
    an answer given before every document was looked at → incomplete inspection; numbers in the
    answer that no command output showed → hallucination; else (every document looked at, the numbers
    seen, the answer judged wrong) → evidence misidentified. None for a correct answer."""
    if correct:
        return None
    status = str(notes.get("exit_status", ""))
    if status in ("LimitsExceeded", "TimeExceeded", "ContextExhausted"):
        return "resources exhausted"
    if status != "Submitted":
        return "instruction not followed"
    if int(notes.get("docs_inspected", 0)) < int(notes.get("docs_total", 0)):
        return "incomplete inspection"
    if notes.get("answer_numbers_unseen"):
        return "hallucination"
    return "evidence misidentified"
