"""The tool layer on bundled recorded clusters: typed inputs, bounded results, errors as
values, one fetch shared by every tool of a conversation."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from agent.state import ConversationState
from agent.toolset import Toolset
from agent.toolset.budget import TRIAGE_RESULT_CHARS, estimate_tokens
from agent.toolset.cluster import ClusterSession
from agent.toolset.results import triage_payload
from agent.toolset.spec import check_tool_name
from tools.findings import Finding, Priority, Status
from tools.registry import all_checks
from tools.triage.report import ClusterIdentity, TriageReport

from ._support import count_aws_calls, toolset_for

XID_NODE = "i-00000000000000003"
POINTER = "references/node-diagnostics-detail.md"
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def _properties(schema: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = schema.get("properties", {})
    return props


def test_every_check_is_a_tool_with_a_valid_name_and_described_fields() -> None:
    toolset = toolset_for("demo-eks")
    names = {spec.name for spec in toolset.specs()}
    for check in all_checks():
        assert check_tool_name(check.id) in names
    for schema, tool in zip(toolset.schemas(), toolset.specs(), strict=True):
        assert TOOL_NAME.match(schema["name"]), schema["name"]
        assert schema["description"].strip()
        assert schema["input_schema"] == tool.input_schema()
        assert tool.input_schema()["type"] == "object"
        for field, spec in _properties(tool.input_schema()).items():
            assert spec.get("description"), f"{schema['name']}.{field} has no description"
    expected = {
        "triage",
        "list_checks",
        "list_findings",
        "explain_signal",
        "read_reference",
        "compare_triage",
        "suggest_command",
        "draft_support_ticket",
        "use_cluster",
    }
    assert expected <= names


def test_no_tool_can_run_a_command() -> None:
    toolset = toolset_for("demo-eks")
    takes_a_command = [
        spec.name for spec in toolset.specs() if "command" in _properties(spec.input_schema())
    ]
    # Only suggest_command takes a command, and it only renders it.
    assert takes_a_command == ["suggest_command"]


def test_unknown_tool_and_bad_input_are_error_results() -> None:
    toolset = toolset_for("demo-eks")
    unknown = toolset.call("rm_rf", {})
    assert unknown.is_error
    assert "unknown tool" in unknown.payload["error"]
    bad = toolset.call("triage", {"instance_id": "i-nope; reboot"})
    assert bad.is_error
    assert "instance_id" in bad.payload["error"]
    extra = toolset.call("check_efa_security_groups", {"instance_id": XID_NODE})
    assert extra.is_error  # a cluster-scope check takes no instance
    not_a_dict = toolset.call("triage", ["not", "an", "object"])
    assert not_a_dict.is_error


def test_triage_result_carries_verbatim_report_lines() -> None:
    toolset = toolset_for("demo-eks")
    result = toolset.call("triage", {})
    assert not result.is_error
    groups = result.payload["problem_groups"]
    lines = [line for g in groups for line in g["lines"]]
    assert any(
        line.startswith("[FAIL] P0")
        and line.endswith("→ references/node-diagnostics-detail.md § G.2")
        for line in lines
    )
    assert groups[0]["status"] == "FAIL"
    assert result.payload["counts"]["FAIL"] >= 4
    assert toolset.state.orchestrator == "eks"


def test_checks_in_one_conversation_share_one_fetch(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = count_aws_calls(monkeypatch)
    toolset = toolset_for("demo-eks")
    toolset.call("triage", {})
    after_triage = len(calls)
    for name in ("check_efa_security_groups", "check_vpc_dns", "check_cluster_nodes"):
        assert not toolset.call(name, {}).is_error
    toolset.call("check_gpu_xid", {"instance_id": XID_NODE})
    assert len(calls) == after_triage


def test_a_retriage_reads_the_cluster_afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = count_aws_calls(monkeypatch)
    toolset = toolset_for("demo-eks")
    toolset.call("triage", {})
    first = len(calls)
    toolset.session.refresh()
    toolset.call("triage", {})
    assert len(calls) == 2 * first


def test_a_node_check_judges_the_named_node_only() -> None:
    toolset = toolset_for("demo-eks")
    result = toolset.call("check_cluster_nodes", {"instance_id": "i-00000000000000001"})
    assert not result.is_error
    text = json.dumps(result.payload)
    assert "i-00000000000000001" in text
    assert XID_NODE not in text
    assert result.payload["focus_node"] == "i-00000000000000001"


def test_check_for_the_other_orchestrator_says_why_it_did_not_run() -> None:
    result = toolset_for("demo-eks").call("check_slurm_nodes", {})
    assert not result.is_error
    assert "Slurm clusters only" in result.payload["skipped"][0]["reason"]


def test_read_reference_is_bounded_and_pages() -> None:
    toolset = toolset_for("demo-eks")
    first = toolset.call("read_reference", {"section": "G"})
    assert not first.is_error
    assert len(first.payload["text"]) <= 8_000
    if first.payload["next_offset"] is not None:
        second = toolset.call(
            "read_reference", {"section": "G", "offset": first.payload["next_offset"]}
        )
        assert second.payload["text"]
        assert second.payload["text"] != first.payload["text"]
    missing = toolset.call("read_reference", {"section": "Z"})
    assert missing.is_error


def test_list_findings_pages_through_the_latest_triage() -> None:
    toolset = toolset_for("demo-eks")
    assert toolset.call("list_findings", {}).is_error  # no triage yet: says to triage
    toolset.call("triage", {})
    page = toolset.call("list_findings", {"status": ["PASS"], "limit": 5}).payload
    assert len(page["findings"]) == 5
    assert page["total_matching"] > 5
    assert page["next_offset"] == 5
    xid = toolset.call("list_findings", {"section": "G", "instance_id": XID_NODE}).payload
    assert xid["findings"]
    assert all(XID_NODE in f["resources"] for f in xid["findings"])


def test_explain_signal_ranks_sections_and_notes_ids() -> None:
    toolset = toolset_for("demo-eks")
    pasted = "NVRM: Xid (PCI:0000:a8:00): 79, GPU has fallen off the bus on i-0123456789abcdef0"
    result = toolset.call("explain_signal", {"text": pasted})
    assert not result.is_error
    assert result.payload["matches"][0]["section"].startswith("G")
    assert "i-0123456789abcdef0" in toolset.state.instance_ids
    assert 79 in toolset.state.xids
    flags = [bool(m.get("guess")) for m in result.payload["matches"]]
    assert not flags[0]
    assert flags == sorted(flags)  # wording guesses, if any, only after the real matches


def test_explain_signal_marks_a_wording_guess_for_the_model() -> None:
    toolset = toolset_for("demo-eks")
    vague = "our training job is stuck and nothing moves, all ranks waiting in the collective"
    matches = toolset.call("explain_signal", {"text": vague}).payload["matches"]
    guesses = [m for m in matches if m.get("guess")]
    assert guesses, matches
    assert all(m["why"].startswith("No signature matched") for m in guesses)


def test_compare_triage_after_a_fix_shows_what_cleared() -> None:
    toolset = toolset_for("sg-outbound-self-missing", "healthy-eks")
    assert toolset.call("compare_triage", {}).is_error  # needs two triages
    toolset.call("triage", {})
    toolset.session.refresh()
    toolset.call("triage", {})
    payload = toolset.call("compare_triage", {}).payload
    assert payload["counts"]["cleared"] >= 1
    assert any("§ A" in line for line in payload["cleared"])
    assert payload["counts"]["remaining"] == 0
    assert payload["counts"]["new"] == 0


def test_without_a_cluster_triage_asks_for_one() -> None:
    toolset = Toolset(ClusterSession(), ConversationState())
    result = toolset.call("triage", {})
    assert result.is_error
    assert "cluster name" in result.payload["error"]
    assert "use_cluster" in result.payload["error"]
    # A person is told the same thing without the words meant for the model.
    assert result.failure is not None
    assert "use_cluster" not in result.failure.user_text()
    assert "ask the user" not in result.failure.user_text()


def test_use_cluster_is_refused_on_a_recording_and_validates_input() -> None:
    recorded = toolset_for("demo-eks")
    assert recorded.call("use_cluster", {"cluster": "other", "region": "us-east-1"}).is_error
    empty = Toolset(ClusterSession(), ConversationState())
    assert empty.call("use_cluster", {"cluster": "bad name!", "region": "us-east-1"}).is_error
    assert empty.call("use_cluster", {"cluster": "ok", "region": "mars-1"}).is_error
    assert empty.session.target is None
    # Opening a live cluster (and refusing a second one) is in test_use_cluster_live.py.


def test_access_denied_cluster_is_an_error_result_with_next_step() -> None:
    toolset = toolset_for("ec2-access-denied")
    result = toolset.call("check_efa_security_groups", {})
    assert not result.is_error  # AccessDenied on EC2 is a skip inside the check's answer
    skipped = result.payload["skipped"]
    assert skipped
    assert "Missing IAM permission" in skipped[0]["reason"]


def _huge_report(nodes: int) -> TriageReport:
    findings = [
        Finding(
            check="cluster-nodes",
            status=Status.FAIL,
            priority=Priority.P0,
            section="F",
            message=f"Node i-{n:017x} (gpu-workers) has status Failure: a long message " * 3,
            resources=[f"i-{n:017x}"],
        )
        for n in range(nodes)
    ] + [
        Finding(
            check=f"check-{k}",
            status=Status.WARN,
            priority=Priority.P1,
            section="G.2",
            message=f"warning {k} on many nodes " * 10,
            resources=[f"i-{n:017x}" for n in range(200)],
        )
        for k in range(60)
    ]
    return TriageReport(
        cluster=ClusterIdentity(name="big", region="us-west-2", orchestrator="eks"),
        findings=findings,
    )


def test_the_triage_result_for_20000_nodes_stays_under_4000_tokens() -> None:
    payload = triage_payload(_huge_report(20_000), number=1)
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    assert len(text) <= TRIAGE_RESULT_CHARS
    assert estimate_tokens(text) < 4_000
    first = payload["problem_groups"][0]
    assert first["count"] == 20_000
    assert first["resources_total"] == 20_000
    assert payload.get("problem_groups_not_shown", 0) > 0  # dropped groups are counted
