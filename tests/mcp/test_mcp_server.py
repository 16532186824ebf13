"""The MCP server in-process, driven by the SDK's own client: tools, results, errors,
resources and prompts."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_support import dumped, recorded_toolset, text_of, with_client

from agent.mcp.resources import CATALOG_URI, section_uri
from agent.mcp.tools import call_result, tool_definitions
from agent.state import ConversationState
from agent.toolset import ToolResult, Toolset
from agent.toolset.cluster import ClusterSession
from agent.toolset.failures import Failure, FailureKind
from agent.toolset.outputs import ReferenceOutput
from agent.toolset.spec import check_tool_name
from tools.registry import all_checks
from tools.sections import TOP_LEVEL_IDS
from tools.target import TriageTarget


def test_every_tool_is_listed_read_only_with_its_typed_schema() -> None:
    toolset = recorded_toolset()

    async def body(client: Client) -> list[Any]:
        return (await client.list_tools()).tools

    tools = with_client(toolset, body)
    by_name = {tool.name: tool for tool in tools}
    specs = {spec.name: spec for spec in toolset.specs()}
    assert list(by_name) == list(specs), "the server serves the toolset, in its order"
    missing = [c.id for c in all_checks() if check_tool_name(c.id) not in by_name]
    assert not missing
    for name in ("triage", "explain_signal", "read_reference", "compare_triage"):
        assert name in by_name
    assert "suggest_command" in by_name
    for name, tool in by_name.items():
        annotations = tool.annotations
        assert annotations is not None, name
        assert annotations.read_only_hint is True, name
        assert annotations.destructive_hint is False, name
        assert annotations.idempotent_hint is True, name
        assert annotations.open_world_hint is False, f"{name}: a replay reads a closed world"
        assert tool.title, name
        schema = tool.input_schema
        assert schema["type"] == "object", name
        assert isinstance(schema.get("properties"), dict), name
        assert schema.get("additionalProperties") is False, f"{name}: unknown arguments refused"
        assert schema == specs[name].schema()["input_schema"], f"{name}: not the toolset's schema"
        assert tool.description == specs[name].description


def test_checks_reading_a_live_cluster_are_open_world() -> None:
    session = ClusterSession(target=TriageTarget(cluster="ml-cluster", region="us-west-2"))
    tools = {t.name: t for t in tool_definitions(Toolset(session, ConversationState()))}
    hints = {name: t.annotations.open_world_hint for name, t in tools.items() if t.annotations}
    assert hints["triage"] is True
    assert hints["check_efa_security_groups"] is True
    assert hints["explain_signal"] is False
    assert hints["read_reference"] is False
    assert hints["suggest_command"] is False


def test_triage_on_a_recording_returns_findings_as_structured_content() -> None:
    async def body(client: Client) -> Any:
        return await client.call_tool("triage", {})

    result = with_client(recorded_toolset(), body)
    assert result.is_error is False
    payload = result.structured_content
    assert payload["cluster"]["name"] == "ml-cluster-eks"
    assert payload["counts"]["FAIL"] == 5
    efa = [g for g in payload["problem_groups"] if g["section"] == "A"]
    assert efa, payload["problem_groups"]
    assert efa[0]["status"] == "FAIL"
    assert "sg-0a1b2c3d4e5f60001" in efa[0]["resources"]
    assert any("§ A" in line for line in efa[0]["lines"])
    text = result.content[0].text
    assert text.startswith("Triage 1 of ml-cluster-eks (us-west-2, EKS, recorded): FAIL 5")
    assert "sg-0a1b2c3d4e5f60001" in text
    assert len(text) < len(json.dumps(payload)), "the text is a summary, not the payload again"


def test_a_check_and_the_workflow_state_carry_across_calls() -> None:
    async def body(client: Client) -> tuple[Any, Any, Any]:
        check = await client.call_tool("check_efa_security_groups", {})
        await client.call_tool("triage", {})
        await client.call_tool("triage", {"instance_id": "i-00000000000000003"})
        compared = await client.call_tool("compare_triage", {})
        findings = await client.call_tool("list_findings", {"section": "G"})
        return check, compared, findings

    check, compared, findings = with_client(recorded_toolset(), body)
    assert check.structured_content["check"] == "efa-security-groups"
    assert check.structured_content["problems"]
    assert compared.is_error is False
    assert compared.structured_content["after_triage"] == 2
    assert findings.structured_content["total_matching"] >= 1


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("triage", {"instance_id": "not-an-instance"}, "invalid input: instance_id"),
        ("triage", {"cluster": "someone-else"}, "invalid input: cluster"),
        ("read_reference", {"section": "Z"}, "invalid input: section"),
        ("read_reference", {}, "invalid input: section"),
        ("suggest_command", {"command": "", "purpose": "x"}, "invalid input: command"),
        ("check_node_disk", {"instance_id": 42}, "invalid input: instance_id"),
        ("no_such_tool", {}, "unknown tool"),
        ("compare_triage", {}, "needs two triages"),
    ],
)
def test_bad_arguments_get_an_error_result_and_the_server_keeps_serving(
    name: str, arguments: dict[str, Any], expected: str
) -> None:
    async def body(client: Client) -> tuple[Any, Any]:
        bad = await client.call_tool(name, arguments)
        after = await client.call_tool("read_reference", {"section": "K"})
        return bad, after

    bad, after = with_client(recorded_toolset(), body)
    assert bad.is_error is True
    # Some clients drop the structured content of an error: the text says it all.
    assert expected in bad.content[0].text
    assert bad.structured_content["error"]
    assert after.is_error is False
    assert after.structured_content["section"] == "K"


def test_use_cluster_cannot_open_a_second_cluster() -> None:
    async def body(client: Client) -> Any:
        return await client.call_tool(
            "use_cluster", {"cluster": "another-cluster", "region": "us-east-1"}
        )

    result = with_client(recorded_toolset(), body)
    assert result.is_error is True
    assert "recorded cluster" in result.content[0].text


def test_suggest_command_only_renders() -> None:
    command = (
        "aws sagemaker batch-reboot-cluster-nodes --cluster-name ml-cluster-eks "
        "--node-ids i-00000000000000003 --region us-west-2"
    )

    async def body(client: Client) -> tuple[Any, Any]:
        before = await client.call_tool("suggest_command", {"command": command, "purpose": "x"})
        await client.call_tool("triage", {})
        after = await client.call_tool(
            "suggest_command", {"command": command, "purpose": "Reboot the node.", "section": "G"}
        )
        return before, after

    before, after = with_client(recorded_toolset(), body)
    assert before.is_error is True
    assert "call triage first" in before.content[0].text
    assert after.is_error is False
    assert after.structured_content["suggestion"]["kind"] == "reboot"
    assert after.structured_content["suggestion"]["mutating"] is True
    assert after.content[0].text.startswith("**Suggested command (run yourself)**")


def test_every_reference_section_is_a_resource_and_reads_as_markdown() -> None:
    async def body(client: Client) -> tuple[Any, Any, Any, Any]:
        listed = (await client.list_resources()).resources
        templates = (await client.list_resource_templates()).resource_templates
        section = await client.read_resource(section_uri("A"))
        subsection = await client.read_resource(section_uri("G.1.a"))
        return listed, templates, section, subsection

    listed, templates, section, subsection = with_client(recorded_toolset(), body)
    uris = [str(r.uri) for r in listed]
    assert uris == [section_uri(s) for s in TOP_LEVEL_IDS] + [CATALOG_URI]
    assert uris[0] == "hyperpod-debug://references/node-diagnostics-detail/A"
    assert all(r.mime_type == "text/markdown" for r in listed)
    assert templates[0].uri_template.endswith("/node-diagnostics-detail/{section}")
    text = text_of(section.contents[0])
    assert text.startswith("## A EFA and security groups")
    assert "**What it means.**" in text
    assert text_of(subsection.contents[0]).startswith("#### G.1.a Row remapping")


def test_the_catalogue_is_a_resource_and_an_unknown_uri_is_an_error() -> None:
    async def body(client: Client) -> str:
        catalogue = await client.read_resource(CATALOG_URI)
        with pytest.raises(MCPError, match="no resource"):
            await client.read_resource("hyperpod-debug://references/node-diagnostics-detail/Z")
        return text_of(catalogue.contents[0])

    catalogue = with_client(recorded_toolset(), body)
    assert catalogue.startswith("# HyperPod node issue catalogue")


def test_the_workflow_prompt_carries_the_rules() -> None:
    async def body(client: Client) -> tuple[list[str], str]:
        names = [p.name for p in (await client.list_prompts()).prompts]
        prompt = await client.get_prompt("workflow", {"symptom": "NCCL hangs at init"})
        (message,) = prompt.messages
        assert message.role == "user"
        return names, text_of(message)

    names, text = with_client(recorded_toolset(), body)
    assert names == ["workflow", "iac_policy", "suggested_command_format"]
    for step in ("**Collect.**", "**Triage first, always.**", "**Read the sections.**"):
        assert step in text
    for step in ("**Propose.**", "**Stop for approval.**", "**Check the result.**"):
        assert step in text
    # Over MCP nothing re-triages for the model: it does, then compares.
    assert "call `triage` again with the\n   same scope, then `compare_triage`" in text
    assert "the software re-runs triage" not in text
    assert "`suggest_command`" in text
    assert "# Infrastructure as code" in text
    assert "Cluster: `ml-cluster-eks` in `us-west-2`" in text
    assert "a recorded cluster replayed from a file" in text
    assert "NCCL hangs at init" in text
    assert not [line for line in text.splitlines() if line != line.rstrip()]


def test_the_iac_and_suggestion_prompts_render_from_the_agents_templates() -> None:
    async def body(client: Client) -> tuple[str, str]:
        iac = await client.get_prompt("iac_policy", {"language": "zh"})
        suggested = await client.get_prompt("suggested_command_format")
        with pytest.raises(MCPError, match="language must be en or zh"):
            await client.get_prompt("iac_policy", {"language": "fr"})
        with pytest.raises(MCPError, match="unknown prompt"):
            await client.get_prompt("no_such_prompt")
        return text_of(iac.messages[0]), text_of(suggested.messages[0])

    iac, suggested = with_client(recorded_toolset(), body)
    assert "Terraform" in iac
    assert "基础设施即代码" in iac
    assert "**Suggested command (run yourself)**" in suggested
    assert "--cluster-name ml-cluster-eks" in suggested
    assert "- Blast radius: " in suggested


def test_the_server_introduces_itself() -> None:
    async def body(client: Client) -> tuple[Any, Any]:
        return client.server_info, client.session.instructions

    info, instructions = with_client(recorded_toolset(), body)
    assert info is not None
    assert info.name == "hyperpod-debug"
    assert "ml-cluster-eks in us-west-2, a recorded cluster" in instructions
    assert "suggest_command" in instructions


def test_the_tool_list_stays_affordable() -> None:
    tools = tool_definitions(recorded_toolset())
    # What a client sends its model with every request (a tool's name, description and input
    # schema; the output schema is for the client, to validate structured content with):
    # hold it near the agent's own list.
    read = [{k: v for k, v in dumped(t).items() if k != "outputSchema"} for t in tools]
    size = len(json.dumps(read))
    assert size < 45_000, size
    # The whole listing: the check tools repeat one shared output schema (docs/mcp.md).
    whole = len(json.dumps([dumped(t) for t in tools]))
    assert whole < 160_000, whole


def test_full_text_appends_the_payload_and_errors_say_it_all_in_text() -> None:
    spec = recorded_toolset().spec("read_reference")
    assert spec is not None
    chunk = ReferenceOutput(
        section="A", title="EFA", text="x" * 10, total_chars=10, next_offset=None
    )
    payload = chunk.payload()
    short = call_result(ToolResult.answer(spec, chunk))
    full = call_result(ToolResult.answer(spec, chunk), full_text=True)
    assert text_of(short.content[0]) == "§ A EFA: characters 0-10 of 10 in `text`."
    assert text_of(full.content[0]).endswith("\n\n" + json.dumps(payload, separators=(",", ":")))
    assert full.structured_content == short.structured_content == payload
    error = ToolResult.failed("triage", Failure(FailureKind.NO_CLUSTER, "no cluster", "ask"))
    assert text_of(call_result(error, full_text=True).content[0]) == "error: no cluster\nnext: ask"
