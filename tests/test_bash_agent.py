"""The bash-agent system (AGORA's harness through mini-swe-agent): the sandbox that holds its commands,
the answer tag, the budgets, the failure codes, and one real episode with the tiny local model.

The scripted chat models below stand in for an LLM only to drive the loop's orchestration (which
turn ends how); the commands they write run for real in the sandbox, on real files.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from mdqa_kernel.aggregate.isolation import isolation_available
from mdqa_kernel.benchmarks.systems import bash_agent, get_system, table2_configs
from mdqa_kernel.benchmarks.systems.base import QuestionInput, StageError, SystemConfig

needs_bwrap = pytest.mark.skipif(
    not isolation_available(), reason="bubblewrap cannot isolate here (make sysdeps)"
)

PAGES = {
    "d1": ["Acme Corp annual report 2023", "Total revenue was 1,234 million yuan in 2023."],
    "d2": ["Beta Ltd annual report 2023", "Total revenue was 567 million yuan in 2023."],
}


def question(text: str = "What was Acme's total revenue in 2023?", n_ctx: int = 8192) -> QuestionInput:
    docs = pl.DataFrame({"doc_id": ["d1", "d2"], "symbol": ["ACME", "BETA"], "year": [2023, 2023],
                         "doctype": ["annual report", "annual report"]})  # fmt: skip

    def chunks(doc_id: str) -> pl.DataFrame:
        texts = PAGES[doc_id]
        return pl.DataFrame({"chunk_id": [f"{doc_id}-{i}" for i in range(len(texts))],
                             "page": list(range(1, len(texts) + 1)), "text": texts,
                             "kind": ["text"] * len(texts)})  # fmt: skip

    return QuestionInput("q1", "test", text, "en", docs, chunks, n_ctx=n_ctx, max_tokens=256)


class ScriptedChat:
    """Replies from a script, in order (the last one repeated); records the messages it was sent."""

    def __init__(self, replies: list[str]) -> None:
        self.replies, self.sent = replies, []

    def chat(self, messages: list[dict[str, str]], *, stage: str = "default", **_: Any) -> str:
        assert stage == "agent"
        self.sent.append(messages)
        return self.replies[min(len(self.sent) - 1, len(self.replies) - 1)]

    def complete(self, prompt: str, **_: Any) -> str:  # the LLM protocol's other methods: unused
        raise AssertionError("the bash agent chats")

    def structured(self, prompt: Any, schema: Any, **_: Any) -> Any:
        raise AssertionError("the bash agent chats")


def block(command: str) -> str:
    return f"Let me look.\n```bash\n{command}\n```"


@pytest.fixture
def docs(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "docs"
    root.mkdir()
    bash_agent.write_documents(question(), root)
    yield root


def test_documents_are_text_files_per_type_with_page_marks(docs: Path) -> None:
    files = sorted(p.relative_to(docs).as_posix() for p in docs.rglob("*.txt"))
    assert files == ["annual_report/ACME_2023.txt", "annual_report/BETA_2023.txt"]
    text = (docs / "annual_report/ACME_2023.txt").read_text()
    assert "=== page 2 ===\nTotal revenue was 1,234 million yuan" in text


@needs_bwrap
def test_commands_run_contained(docs: Path, tmp_path: Path) -> None:
    env = bash_agent.SandboxEnvironment(docs, bash_agent.COMMAND_LIMITS.__class__(timeout_s=3.0))
    seen = env.execute({"command": "grep -rn revenue /sandbox/in | sort"})
    assert seen["returncode"] == 0 and "ACME_2023.txt:4:Total revenue was 1,234" in seen["output"]
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret")
    for command in (f"cat {secret}", f"cat {Path(__file__).resolve()}", "cat /etc/hostname"):
        out = env.execute({"command": command})
        assert out["returncode"] != 0 and "host secret" not in out["output"], command
    wrote = env.execute({"command": "echo x > /sandbox/in/new.txt"})
    assert wrote["returncode"] != 0 and not (docs / "new.txt").exists()
    net = env.execute({"command": "exec 3<>/dev/tcp/127.0.0.1/22 && echo connected"})
    assert "connected" not in net["output"]
    slow = env.execute({"command": "sleep 30"})
    assert slow["exception_info"] == "timeout" and "stopped after 3 s" in slow["output"]
    env.execute({"command": "echo kept > /tmp/note.txt"})
    assert env.execute({"command": "cat /tmp/note.txt"})["returncode"] != 0  # fresh scratch per command


def test_long_outputs_keep_head_and_tail() -> None:
    text = "".join(f"line {i}\n" for i in range(2000))
    cut = bash_agent.cut_output(text)
    assert cut.startswith("line 0\n") and cut.endswith("line 1999\n") and "characters left out" in cut
    assert len(cut) < bash_agent.OUTPUT_HEAD + bash_agent.OUTPUT_TAIL + 100


def test_answer_tag() -> None:
    assert bash_agent.parse_answer("so <answer> 1,234 million </answer>") == "1,234 million"
    assert bash_agent.parse_answer("<ANSWER>a</ANSWER> then <answer>b</answer>") == "b"
    for bad in ("the answer is 1,234", "<answer>1,234", "<answer></answer>", "answer: <answer/>"):
        assert bash_agent.parse_answer(bad) is None, bad


@needs_bwrap
def test_episode_reads_the_documents_and_answers_in_the_tag() -> None:
    llm = ScriptedChat(
        [block("grep -rn 'revenue' /sandbox/in"), "It is 1,234 million.\n<answer>1,234 million yuan</answer>"]
    )
    out = get_system("bash-agent")(SystemConfig("bash-agent", k=5), question(), llm)
    assert out.answer == "1,234 million yuan" and not out.failures
    notes = out.notes
    assert (notes["exit_status"], notes["turns"], notes["commands"]) == ("Submitted", 2, 1)
    assert notes["docs_inspected"] == notes["docs_total"] == 2 and notes["answer_numbers_unseen"] == []
    assert notes["budget_turns"] == 5 and notes["reduced_budget"] is True
    observation = llm.sent[1][-1]["content"]  # the second call saw the command's real output
    assert "<returncode>0</returncode>" in observation and "Total revenue was 1,234 million" in observation
    assert [m["role"] for m in notes["trajectory"]] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "exit",
    ]
    assert bash_agent.agora_failure(notes, correct=True) is None
    assert bash_agent.agora_failure(notes, correct=False) == "evidence misidentified"


@needs_bwrap
def test_answers_before_reading_everything_or_with_unseen_numbers_are_labelled() -> None:
    llm = ScriptedChat(
        [block("grep -n revenue /sandbox/in/annual_report/BETA_2023.txt"), "<answer>999 million</answer>"]
    )
    out = get_system("bash-agent")(SystemConfig("bash-agent", k=5), question(), llm)
    assert out.notes["docs_inspected"] == 1 and out.notes["answer_numbers_unseen"] == ["999"]
    assert bash_agent.agora_failure(out.notes, correct=False) == "incomplete inspection"
    llm = ScriptedChat([block("cat /sandbox/in/*/*.txt"), "<answer>999 million</answer>"])
    out = get_system("bash-agent")(SystemConfig("bash-agent", k=5), question(), llm)
    assert bash_agent.agora_failure(out.notes, correct=False) == "hallucination"


@needs_bwrap
def test_budgets_end_the_episode_without_an_answer() -> None:
    llm = ScriptedChat([block("ls /sandbox/in")])  # never answers
    out = get_system("bash-agent")(SystemConfig("bash-agent", k=3), question(), llm)
    assert out.answer is None and out.notes["exit_status"] == "LimitsExceeded" and out.notes["turns"] == 3
    assert bash_agent.agora_failure(out.notes, correct=False) == "resources exhausted"
    assert out.failures and out.failures[0]["stage"] == "agent"
    # The context is a budget too: a trajectory that no longer fits ends the episode before the call.
    llm = ScriptedChat([block("cat /sandbox/in/*/*.txt; seq 1 3000")])
    out = get_system("bash-agent")(SystemConfig("bash-agent", k=50), question(n_ctx=2048), llm)
    assert out.notes["exit_status"] == "ContextExhausted" and out.notes["turns"] < 50


def test_replies_without_a_command_or_a_tag_are_instruction_not_followed() -> None:
    llm = ScriptedChat(["The revenue is 1,234 million."])  # no tag, no command, three times
    out = get_system("bash-agent")(SystemConfig("bash-agent", k=10), question(), llm)
    assert out.answer is None and out.notes["exit_status"] == "RepeatedFormatError"
    assert bash_agent.agora_failure(out.notes, correct=False) == "instruction not followed"
    assert "exactly one ```bash code block" in llm.sent[1][-1]["content"]


def test_budget_of_the_config() -> None:
    assert bash_agent.Budget.of(SystemConfig("bash-agent", k=200)) == bash_agent.Budget(200, 3600)
    small = bash_agent.Budget.of(SystemConfig("bash-agent", k=30))
    assert small.turns == 30 and small.seconds == 30 * bash_agent.SECONDS_PER_TURN
    labels = [c.label for c in table2_configs(["bash-agent", "bash-agent@200"], noise=False)]
    assert labels == ["bash-agent turns=30", "bash-agent turns=200"]
    assert all(c.system != "bash-agent" for c in table2_configs())  # opt-in: not a Table 2 column


def test_a_client_without_chat_is_a_stage_error() -> None:
    class CompleteOnly:
        def complete(self, prompt: str, **_: Any) -> str:
            return ""

        def structured(self, prompt: Any, schema: Any, **_: Any) -> Any:
            return None

    with pytest.raises(StageError, match="no chat"):
        get_system("bash-agent")(SystemConfig("bash-agent", k=3), question(), CompleteOnly())


@pytest.mark.llm
@needs_bwrap
def test_episode_with_the_tiny_local_model(tmp_path: Path) -> None:
    """A real episode: the 0.5B model may answer wrongly or not at all; what is checked is that the
    trajectory, the tag parsing and the budget hold with a real model's replies."""
    from mdqa_kernel.llm import LLMClient, LLMConfig

    config = LLMConfig(backend="local-tiny", n_threads=1, n_ctx=4096, max_tokens=160, temperature=0.0)
    with LLMClient(config, tmp_path / "ws") as client:
        out = get_system("bash-agent")(SystemConfig("bash-agent", k=4), question(n_ctx=4096), client)
        calls = client.calls()
    notes = out.notes
    assert 1 <= notes["turns"] <= 4 and calls.height == notes["turns"]
    assert set(calls["stage"].to_list()) == {"agent"}
    assert notes["exit_status"] in {
        "Submitted",
        "LimitsExceeded",
        "RepeatedFormatError",
        "ContextExhausted",
        "TimeExceeded",
    }
    assert (out.answer is not None) == (notes["exit_status"] == "Submitted")
    replies = [m for m in notes["trajectory"] if m["role"] == "assistant"]
    assert replies and notes["trajectory"][-1]["role"] == "exit"
    assert bash_agent.agora_failure(notes, correct=False) in bash_agent.AGORA_CODES


@needs_bwrap
def test_an_answer_written_beside_a_command_waits_for_its_output() -> None:
    llm = ScriptedChat(
        [
            block("grep -rn revenue /sandbox/in") + "\n<answer>100,000</answer>",
            "<answer>1,234.0 million</answer>",
        ]
    )
    out = get_system("bash-agent")(SystemConfig("bash-agent", k=5), question(), llm)
    assert out.answer == "1,234.0 million" and out.notes["turns"] == 2 and out.notes["commands"] == 1
    assert out.notes["answer_numbers_unseen"] == []  # 1,234.0 is the 1,234 the grep showed


def test_listing_a_folder_is_not_reading_its_documents() -> None:
    path = "/sandbox/in/annual_report/ACME_2023.txt"
    assert bash_agent._reads("grep -rn revenue /sandbox/in", path)
    assert bash_agent._reads("cat '/sandbox/in/*/*.txt' | head", path)
    assert not bash_agent._reads("ls -R /sandbox/in", path)
    assert not bash_agent._reads("grep -n x /sandbox/in/annual_report/BETA_2023.txt", path)


@needs_bwrap
def test_an_answer_after_seeing_an_output_is_final_even_beside_a_command() -> None:
    repeat = block("grep -rn revenue /sandbox/in") + "\n<answer>1,234 million</answer>"
    llm = ScriptedChat([repeat])  # the same reply every turn, as a small model at temperature 0 does
    out = get_system("bash-agent")(SystemConfig("bash-agent", k=30), question(), llm)
    assert out.answer == "1,234 million" and out.notes["exit_status"] == "Submitted"
    assert (out.notes["turns"], out.notes["commands"]) == (
        2,
        1,
    )  # the first command ran; the second reply ended it


def test_call_pace_learns_the_slowest_rate_and_counts_only_new_prompt_tokens() -> None:
    pace = bash_agent.CallPace()
    assert pace.reply_tokens(500, 1.0, 256) == 256  # nothing measured yet: the first call sets the pace
    pace.observe(500, 100, 13.0)  # 500 + 8 × 100 weighted tokens in 13 s: 0.01 s each
    assert pace.rate == pytest.approx(0.01)
    # the next prompt repeats the 600 tokens already evaluated and adds 400: 400 + 8 × 256 = 2,448
    assert pace.seconds(1000, 256) == pytest.approx(24.48)
    assert pace.reply_tokens(1000, 24.48, 256) == 256
    assert pace.reply_tokens(1000, 12.0, 256) == 100  # (1,200 - 400) // 8
    pace.observe(1000, 50, 4.0)  # a faster call does not lower the (cautious) rate
    assert pace.rate == pytest.approx(0.01)


class TimedChat(ScriptedChat):
    """A scripted model on a fake clock: each call takes 0.01 s per prompt token and 0.08 s per reply token."""

    def __init__(self, replies: list[str], clock: list[float]) -> None:
        super().__init__(replies)
        self.clock, self.limits = clock, []

    def chat(self, messages: list[dict[str, str]], *, stage: str = "default", **params: Any) -> str:
        reply = super().chat(messages, stage=stage)
        self.limits.append(params.get("max_tokens"))
        prompt = sum(bash_agent.approx_tokens(m["content"]) for m in messages)
        self.clock[0] += 0.01 * prompt + 0.08 * bash_agent.approx_tokens(reply)
        return reply


def test_a_call_predicted_to_overrun_the_wall_budget_is_not_started() -> None:
    from minisweagent.exceptions import LimitsExceeded

    clock = [0.0]
    llm = TimedChat([block("grep -rn revenue /sandbox/in " + "x" * 400)], clock)
    model = bash_agent.LayerModel(llm, 65536, 256, clock=lambda: clock[0], deadline=100.0)
    system = [{"role": "system", "content": "s " * 300}, {"role": "user", "content": "q " * 100}]
    model.query(system)  # the first call: no pace yet, the full reply allowed
    assert llm.limits == [None] and 0 < clock[0] < 50
    # a long command output: about 10,000 new prompt tokens at 0.01 s each cannot fit the time left
    grown = [*system, {"role": "assistant", "content": "a " * 200}, {"role": "user", "content": "o " * 20000}]
    with pytest.raises(LimitsExceeded) as stop:
        model.query(grown)
    exit_message = stop.value.messages[0]
    assert exit_message["extra"]["exit_status"] == "TimeExceeded" and "s left" in exit_message["content"]
    assert len(llm.sent) == 1  # the overrunning call was never made
    assert bash_agent.agora_failure({"exit_status": "TimeExceeded"}, correct=False) == "resources exhausted"


def test_a_reply_is_cut_to_the_time_left() -> None:
    clock = [0.0]
    llm = TimedChat([block("ls /sandbox/in")], clock)
    model = bash_agent.LayerModel(llm, 8192, 256, clock=lambda: clock[0], deadline=60.0)
    model.query([{"role": "user", "content": "q " * 100}])
    clock[0] = 60.0 - 6.0  # six seconds left: room for a shorter reply only
    model.query([{"role": "user", "content": "q " * 100}, {"role": "user", "content": "o " * 50}])
    assert llm.limits[0] is None and bash_agent.MIN_REPLY_TOKENS <= llm.limits[1] < 256
