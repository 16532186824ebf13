"""A state-changing command the model writes in its text is pinned to the triage it rests on
as it streams, and its block says how old that triage is, like a block made through
suggest_command (agent.safety.gate.Evidence)."""

from __future__ import annotations

from datetime import timedelta

from agent.loop import Agent
from agent.providers.scripted import ScriptedProvider

from ._support import toolset_for

SG = "sg-0a1b2c3d4e5f60001"
SG_FIX = (
    f"aws ec2 authorize-security-group-egress --group-id {SG} --region us-west-2 "
    f"--ip-permissions 'IpProtocol=-1,UserIdGroupPairs=[{{GroupId={SG}}}]'"
)
IN_TEXT = f"Add the rule (§ A):\n\n```bash\n{SG_FIX}\n```\n"


def _agent() -> Agent:
    provider = ScriptedProvider.from_turns(
        [
            {"tool_calls": [{"name": "triage"}]},
            {"text": "The egress rule is missing (§ A)."},
            {"text": IN_TEXT},
        ]
    )
    return Agent(provider, toolset_for("sg-outbound-self-missing"))


def test_a_command_in_text_shows_the_age_of_its_triage_as_it_streams() -> None:
    agent = _agent()
    agent.ask("NCCL hangs at init")
    agent.state.triage_times[-1] -= timedelta(minutes=20)  # the user came back later
    shown: list[str] = []

    result = agent.ask("how do I fix it?", emit=shown.append)

    streamed = "".join(shown)
    assert SG_FIX in streamed
    assert "triage 1, read 20 min ago" in streamed
    (suggestion,) = result.suggested_commands
    assert suggestion.source == "text"
    assert [e.triage for e in suggestion.evidence] == [1]
    assert SG in suggestion.evidence[0].resources


def test_a_fresh_triage_adds_no_age_line() -> None:
    agent = _agent()
    agent.ask("NCCL hangs at init")
    shown: list[str] = []

    agent.ask("how do I fix it?", emit=shown.append)

    assert SG_FIX in "".join(shown)
    assert "ago" not in "".join(shown)
