"""Every tool's answer against the output schema the server publishes, through the SDK's own
client: it validates a non-error result's structured content against the tool's
`outputSchema` and raises when it does not match. On a failure-rich EKS and Slurm recording,
with results trimmed by the budget (`fit`), and after the output boundary's redaction."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp import Client, types
from mcp_support import ROOT, recorded_toolset, with_client
from typer.testing import CliRunner

from agent.cli import app
from agent.mcp import server
from agent.mcp.tools import call_result, tool_definitions
from agent.toolset import ToolResult, Toolset
from agent.toolset.outputs import CheckToolOutput
from agent.toolset.spec import CHECK_PREFIX
from tools.recorded.model import load_recorded

CLUSTERS = ROOT / "evals" / "clusters"
RECORDINGS = [CLUSTERS / "demo-eks.json", CLUSTERS / "cluster-failed-lifecycle-script.json"]
OPERATION_READS = {"ListClusterOperations", "DescribeClusterOperation"}
XID = "NVRM: Xid (PCI:0000:a8:00): 79, pid=1, name=python, GPU has fallen off the bus."


async def _call_every_tool(
    client: Client, cluster: str, region: str
) -> tuple[list[types.Tool], dict[str, Any]]:
    """Every listed tool called once (triage twice, for compare_triage), in a workflow's order;
    the client validates each answer as it arrives."""
    tools = (await client.list_tools()).tools
    results: dict[str, Any] = {}

    async def call(name: str, arguments: dict[str, Any]) -> Any:
        results[name] = await client.call_tool(name, arguments)
        return results[name]

    triage = (await call("triage", {})).structured_content
    nodes = [r for g in triage["problem_groups"] for r in g["resources"] if r.startswith("i-")]
    node = nodes[0] if nodes else "i-00000000000000001"
    await call("list_checks", {})
    await call("list_findings", {"status": ["FAIL", "WARN", "PASS", "INFO"]})
    await call("explain_signal", {"text": f"{XID}\n{node} {region} {cluster}"})
    await call("read_reference", {"section": "G"})
    for tool in tools:
        if tool.name.startswith(CHECK_PREFIX):
            await call(tool.name, {})
    await call(
        "suggest_command",
        {
            "command": f"aws sagemaker batch-reboot-cluster-nodes --cluster-name {cluster} "
            f"--node-ids {node} --region {region}",
            "purpose": "Reboot the failing node.",
            "section": "G.2",
        },
    )
    await call("verify_suggestion", {})
    await call("draft_support_ticket", {})
    await call("triage", {})
    await call("compare_triage", {})
    await call("use_cluster", {"cluster": "other", "region": "us-east-1"})  # a replay: refused
    return tools, results


def _validated(recording: Path) -> tuple[list[types.Tool], dict[str, Any]]:
    toolset = recorded_toolset(recording)
    target = toolset.session.target
    assert target is not None

    async def body(client: Client) -> tuple[list[types.Tool], dict[str, Any]]:
        return await _call_every_tool(client, target.cluster, target.region)

    return with_client(toolset, body)


def _check_schema_errors(tool: types.Tool, content: Any) -> list[str]:
    assert tool.output_schema is not None, tool.name
    validator = Draft202012Validator(tool.output_schema)
    return [error.message for error in validator.iter_errors(content)]


@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda p: p.stem)
def test_every_tool_answers_what_its_output_schema_says(recording: Path) -> None:
    tools, results = _validated(recording)
    assert set(results) == {tool.name for tool in tools}, "every listed tool was called"
    for tool in tools:
        result = results[tool.name]
        if tool.name == "use_cluster":
            assert result.is_error  # a replay opens no other cluster; an error has no schema
            continue
        assert not result.is_error, (tool.name, result.content)
        # The client validated it already (it raises otherwise); say so independently.
        assert _check_schema_errors(tool, result.structured_content) == [], tool.name
    assert results["explain_signal"].structured_content["matches"][0]["section"] == "G.2"
    assert results["verify_suggestion"].structured_content["verdicts"]
    assert results["compare_triage"].structured_content["after_triage"] == 2


def test_answers_redacted_at_the_boundary_still_match(monkeypatch: pytest.MonkeyPatch) -> None:
    """The output boundary replaces the environment's credentials in every string of the
    structured content; the shape, and so the schema, holds. Here the "credential" is the
    cluster's name, so that most answers have something replaced."""
    monkeypatch.setenv("AWS_SESSION_TOKEN", "ml-cluster-eks")
    tools, results = _validated(CLUSTERS / "demo-eks.json")
    by_name = {tool.name: tool for tool in tools}
    answers = {name: r.structured_content for name, r in results.items() if not r.is_error}
    assert "ml-cluster-eks" not in json.dumps(answers)
    assert answers["triage"]["cluster"]["name"] == "<redacted>"
    for name, content in answers.items():
        assert _check_schema_errors(by_name[name], content) == [], name


def test_answers_trimmed_to_the_budget_still_match(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tiny budgets: lists lose items from their end and `<list>_not_shown` counts them; the
    counters are declared in the schema."""
    from agent.toolset import results as results_module
    from agent.toolset import ticket_tool, toolset

    monkeypatch.setattr(results_module, "TRIAGE_RESULT_CHARS", 700)
    monkeypatch.setattr(results_module, "CHECK_RESULT_CHARS", 450)
    monkeypatch.setattr(toolset, "DEFAULT_RESULT_CHARS", 900)
    monkeypatch.setattr(ticket_tool, "DEFAULT_RESULT_CHARS", 900)
    tools, results = _validated(CLUSTERS / "demo-eks.json")
    by_name = {tool.name: tool for tool in tools}
    trimmed = {
        name: sorted(k for k in result.structured_content if k.endswith("_not_shown"))
        for name, result in results.items()
        if not result.is_error
    }
    ticket = results["draft_support_ticket"].structured_content["ticket"]
    assert trimmed["triage"], "the triage result was trimmed"
    assert trimmed["list_findings"] == ["findings_not_shown"]
    assert trimmed["explain_signal"] == ["matches_not_shown"]
    assert any(trimmed[name] for name in trimmed if name.startswith(CHECK_PREFIX))
    assert any(key.endswith("_not_shown") for key in ticket)
    for name, result in results.items():
        if not result.is_error:
            assert _check_schema_errors(by_name[name], result.structured_content) == [], name


def _old_recording(tmp_path: Path) -> Path:
    """healthy-eks as a version before the cluster-operation reads wrote it (as
    tests/scenarios/test_old_recordings.py builds it): unstamped, two reads missing."""
    recording = load_recorded(CLUSTERS / "healthy-eks.json")
    aws = [c for c in recording.aws if c.operation not in OPERATION_READS]
    assert len(aws) < len(recording.aws)
    old = recording.model_copy(update={"aws": aws, "tool_version": None})
    path = tmp_path / "old.json"
    path.write_text(old.model_dump_json(), encoding="utf-8")
    return path


def _masked_archive(tmp_path: Path) -> Path:
    """`ticket --recorded demo-eks.json --mask -o DIR`: the archive `mcp --recorded` serves."""
    out = tmp_path / "ticket"
    result = CliRunner().invoke(
        app, ["ticket", "--recorded", str(CLUSTERS / "demo-eks.json"), "--mask", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    (archive,) = out.glob("ticket-*.tar.gz")
    return archive


@pytest.mark.parametrize("made", [_old_recording, _masked_archive], ids=["old", "masked"])
def test_answers_from_an_old_recording_or_a_masked_archive_still_match(
    made: Callable[[Path], Path], tmp_path: Path
) -> None:
    """The other recordings a server replays: one that predates this version (the triage
    says so under `old_recording`) and a masked ticket archive (placeholders for names)."""
    tools, results = _validated(made(tmp_path))
    by_name = {tool.name: tool for tool in tools}
    triage = results["triage"].structured_content
    if made is _old_recording:
        assert "old_recording" in triage
    else:
        assert triage["cluster"]["name"] == "<CLUSTER_1>"
    for name, result in results.items():
        if not result.is_error:
            assert _check_schema_errors(by_name[name], result.structured_content) == [], name


def test_the_client_would_refuse_an_answer_off_its_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    """The validation the tests above rely on is real: an answer the schema does not allow
    is refused by the client."""

    def off_schema(result: ToolResult, *, full_text: bool = False) -> types.CallToolResult:
        answer = call_result(result, full_text=full_text)
        return answer.model_copy(update={"structured_content": {"unexpected": True}})

    monkeypatch.setattr(server, "call_result", off_schema)

    async def body(client: Client) -> str:
        await client.list_tools()
        try:
            await client.call_tool("list_checks", {})
        except RuntimeError as exc:
            return str(exc)
        return "accepted"

    assert "Invalid structured content" in with_client(recorded_toolset(), body)


def test_output_schemas_are_valid_object_schemas_shared_by_the_checks() -> None:
    toolset: Toolset = recorded_toolset()
    tools = tool_definitions(toolset)
    check_specs = [s for s in toolset.specs() if s.name.startswith(CHECK_PREFIX)]
    assert len(check_specs) > 40
    # One object for every check tool: built once, from one model.
    shared = check_specs[0].output_schema()
    assert all(spec.output_schema() is shared for spec in check_specs)
    assert set(shared["properties"]) == set(CheckToolOutput.model_fields)
    listed = {t.name: t.output_schema for t in tools}
    assert all(listed[spec.name] == shared for spec in check_specs)
    for tool in tools:
        schema = tool.output_schema
        assert schema is not None, tool.name
        assert schema["type"] == "object", tool.name
        Draft202012Validator.check_schema(schema)
        assert "title" not in schema, tool.name
