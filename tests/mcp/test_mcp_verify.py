"""`verify_suggestion` over MCP, through the SDK's own client: read-only, and stale once the
recording after the fix is the latest state known (issue 25)."""

from __future__ import annotations

from typing import Any

from mcp import Client
from mcp_support import ROOT, with_client

from agent.state import ConversationState
from agent.toolset import Toolset
from agent.toolset.cluster import ClusterSession
from tools.recorded.model import load_recorded
from tools.target import TriageTarget
from tools.triage.node_sources import NodeOptions

CLUSTERS = ROOT / "evals" / "clusters"
SG = "sg-0a1b2c3d4e5f60001"
FIX = (
    f"aws ec2 authorize-security-group-egress --group-id {SG} --region us-west-2 "
    f"--ip-permissions 'IpProtocol=-1,UserIdGroupPairs=[{{GroupId={SG}}}]'"
)


def _toolset(*names: str) -> Toolset:
    recordings = [load_recorded(CLUSTERS / f"{name}.json") for name in names]
    target = TriageTarget(cluster=recordings[0].cluster, region=recordings[0].region)
    session = ClusterSession(target=target, recordings=recordings, options=NodeOptions())
    return Toolset(session, ConversationState(cluster=target.cluster, region=target.region))


def _verified(toolset: Toolset) -> tuple[Any, Any]:
    async def body(client: Client) -> tuple[Any, Any]:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        await client.call_tool("triage", {})
        await client.call_tool(
            "suggest_command", {"command": FIX, "purpose": "Fix.", "section": "A"}
        )
        return tools["verify_suggestion"], await client.call_tool(
            "verify_suggestion", {"number": 1}
        )

    return with_client(toolset, body)


def test_verify_suggestion_is_read_only_and_keeps_a_valid_suggestion_valid() -> None:
    tool, result = _verified(_toolset("sg-outbound-self-missing"))
    assert tool.annotations.read_only_hint is True
    assert tool.annotations.destructive_hint is False
    assert not result.is_error
    (verdict,) = result.structured_content["verdicts"]
    assert verdict["verdict"] == "valid"
    assert result.content[0].text.startswith("[1] valid: aws ec2 authorize-security-group-egress")


def test_verify_suggestion_says_stale_and_what_changed() -> None:
    _, result = _verified(_toolset("sg-outbound-self-missing", "healthy-eks"))
    (verdict,) = result.structured_content["verdicts"]
    assert verdict["verdict"] == "stale"
    assert f"changed: efa-security-groups reported FAIL on {SG}; it now reports INFO" in (
        result.content[0].text
    )


def test_verify_suggestion_without_a_pending_suggestion_is_an_error_result() -> None:
    async def body(client: Client) -> Any:
        return await client.call_tool("verify_suggestion", {})

    result = with_client(_toolset("sg-outbound-self-missing"), body)
    assert result.is_error
    assert "nothing to verify" in result.content[0].text
