"""The IaC paragraph appears once per answer, after the blocks, and only when a suggestion
of that turn changes infrastructure (issue 24, item 8): never under each block, never for
``kubectl cordon`` / ``drain`` / ``uncordon`` alone. ``iac_warning`` stays on each
infrastructure suggestion for the JSON contract. The scripted model plays the turns; the
commands come from data/iac_scope.txt as strings and are never run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.loop import Agent, AgentSettings
from agent.providers.scripted import ScriptedProvider
from agent.safety.suggest import iac_warning

from ._support import toolset_for

DATA = Path(__file__).with_name("data") / "iac_scope.txt"
ROWS = [
    tuple(part.strip() for part in line.split("|", 1))
    for line in DATA.read_text("utf-8").splitlines()
    if line.strip() and not line.startswith("#")
]
INFRA = [c for iac, c in ROWS if iac == "yes" and c.startswith("aws ec2 ")]
NODE = [
    c
    for iac, c in ROWS
    if iac == "no" and c.startswith("kubectl ") and c.split()[1] in ("cordon", "drain", "uncordon")
]


def _fenced(commands: list[str]) -> str:
    return "Run these, in order:\n\n" + "\n\n".join(f"```bash\n{c}\n```" for c in commands)


def _agent(turns: list[dict[str, Any]]) -> Agent:
    toolset = toolset_for("sg-outbound-self-missing")
    provider = ScriptedProvider.from_turns(turns)
    return Agent(provider, toolset, settings=AgentSettings(today="2026-12-01"))


def _shown(agent: Agent, message: str) -> tuple[str, Any]:
    emitted: list[str] = []
    result = agent.ask(message, emit=emitted.append)
    return "\n\n".join(emitted), result


def test_one_paragraph_after_the_last_block_for_several_infrastructure_changes() -> None:
    commands = [INFRA[0], NODE[0], INFRA[1], NODE[1]]
    agent = _agent([{"text": _fenced(commands)}])
    shown, result = _shown(agent, "fix it")
    warning = iac_warning("en")
    for text in (shown, result.answer):
        assert text.count("Terraform or Pulumi? If they are") == 1
        # After every block: the last blast-radius line comes before the paragraph.
        assert text.rindex("- Blast radius") < text.index(warning.split("?")[0])
    by_command = {s.command: s for s in result.suggested_commands}
    # The recording holds no read of these made-up groups: their owner is unknown ("not
    # recorded", said before the question), so the question stays (tests/conversation/
    # test_iac_owner.py covers the owners it can state).
    assert by_command[INFRA[0]].iac_warning is not None
    assert by_command[INFRA[0]].iac_warning.endswith(warning)
    assert by_command[INFRA[1]].iac_warning is not None
    assert by_command[INFRA[1]].iac_warning.endswith(warning)
    assert by_command[NODE[0]].iac_warning is None
    assert by_command[NODE[1]].iac_warning is None


def test_no_paragraph_for_cordon_drain_uncordon() -> None:
    assert len(NODE) >= 3
    agent = _agent([{"text": _fenced(NODE)}])
    shown, result = _shown(agent, "isolate the node")
    assert len(result.suggested_commands) == len(NODE)
    assert shown.count("- Blast radius") == len(NODE)
    for text in (shown, result.answer):
        assert "Terraform" not in text
        assert "drift" not in text


def test_a_tool_made_block_and_a_text_block_share_one_paragraph_in_chinese() -> None:
    agent = _agent(
        [
            {"tool_calls": [{"name": "triage", "input": {}}]},
            {
                "tool_calls": [
                    {"name": "suggest_command", "input": {"command": INFRA[0], "purpose": "p"}}
                ]
            },
            {"text": _fenced([NODE[0]])},
        ]
    )
    shown, result = _shown(agent, "节点的 NCCL 作业卡住了，请帮忙看看")
    warning = iac_warning("zh")
    for text in (shown, result.answer):
        assert text.count(warning.split("？")[0]) == 1
        assert text.rindex("- 影响范围") < text.index(warning.split("？")[0])
