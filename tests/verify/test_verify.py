"""Suggestions pinned to their evidence, and `verify`: stale where the re-read state changed,
valid where it did not (issue 25)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from chat.resume_support import AFTER, BEFORE, SG, SG_FIX, saved_conversation
from conversation._support import toolset_for
from typer.testing import CliRunner

from agent.cli import app
from agent.safety.model import Precondition
from agent.turn import TurnResult
from agent.verify import age_note, is_old, verify_suggestions

XID_NODE = "i-00000000000000001"
REBOOT = (
    "aws sagemaker batch-reboot-cluster-nodes --cluster-name ml-cluster-eks "
    f"--node-ids {XID_NODE} --region us-west-2"
)


def _sg_suggestion_file(tmp_path: Path) -> Path:
    """An `ask --format json` output holding the security-group fix, made after a triage of
    the cluster with the outbound self rule missing."""
    toolset = toolset_for("sg-outbound-self-missing")
    toolset.call("triage", {})
    made = toolset.call("suggest_command", {"command": SG_FIX, "purpose": "Fix.", "section": "A"})
    assert not made.is_error
    path = tmp_path / "ask.json"
    path.write_text(
        json.dumps(TurnResult(answer="", suggested_commands=toolset.state.pending).to_json())
    )
    return path


def test_a_suggestion_carries_the_findings_it_rests_on_and_its_preconditions() -> None:
    toolset = toolset_for("sg-outbound-self-missing")
    toolset.call("triage", {})
    made = toolset.call("suggest_command", {"command": SG_FIX, "purpose": "Fix.", "section": "A"})
    suggestion = toolset.state.pending[0]
    assert made.payload["suggestion"]["evidence"][0]["check"] == "efa-security-groups"
    (evidence,) = suggestion.evidence
    assert evidence.status == "FAIL"
    assert SG in evidence.resources
    assert evidence.observed["missing_self_rules"] == {SG: ["outbound"]}
    assert evidence.read_at == toolset.state.latest_time
    assert evidence.triage == 1
    assert [(p.kind, p.check, p.resource, p.expected) for p in suggestion.preconditions] == [
        ("finding", "efa-security-groups", SG, "FAIL")
    ]


def test_verify_turns_the_fix_stale_once_the_recording_after_it_is_read(tmp_path: Path) -> None:
    path = _sg_suggestion_file(tmp_path)
    runner = CliRunner()
    same = runner.invoke(app, ["verify", str(path), "--recorded", str(BEFORE)])
    assert same.exit_code == 0, same.output
    assert "[1] still valid" in same.output
    assert f"efa-security-groups still reports FAIL on {SG}" in same.output
    after = runner.invoke(app, ["verify", str(path), "1", "--recorded", str(AFTER)])
    assert after.exit_code == 1, after.output
    assert "[1] STALE" in after.output
    assert f"efa-security-groups reported FAIL on {SG}; it now reports INFO" in after.output
    assert "evidence read" in after.output


def test_verify_json_shape(tmp_path: Path) -> None:
    path = _sg_suggestion_file(tmp_path)
    result = CliRunner().invoke(
        app, ["verify", str(path), "--recorded", str(AFTER), "--format", "json"]
    )
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data["all_valid"] is False
    (verdict,) = data["verdicts"]
    assert set(verdict) == {
        "number",
        "command",
        "kind",
        "verdict",
        "evidence_read_at",
        "evidence_age_seconds",
        "checked_at",
        "results",
    }
    assert verdict["verdict"] == "stale"
    assert verdict["kind"] == "config"
    (checked,) = verdict["results"]
    assert checked["outcome"] == "changed"
    assert (checked["then"], checked["now"]) == ("FAIL", "INFO")
    assert checked["precondition"]["check"] == "efa-security-groups"


def test_a_saved_chat_transcript_is_verified_on_the_last_recording_it_replayed(
    tmp_path: Path,
) -> None:
    saved = saved_conversation(tmp_path)  # replayed BEFORE then AFTER: the latest state known
    stale = CliRunner().invoke(app, ["verify", str(saved)])
    assert stale.exit_code == 1, stale.output
    assert "[1] STALE" in stale.output
    same = CliRunner().invoke(app, ["verify", str(saved), "--recorded", str(BEFORE)])
    assert same.exit_code == 0, same.output
    assert "[1] still valid" in same.output


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "cannot read"),
        ("not json at all\n", "not a hyperpod-debug transcript"),
        ('{"version": 1}\n', "transcript"),
    ],
)
def test_an_unreadable_input_is_exit_2_with_one_line(
    tmp_path: Path, content: str | None, expected: str
) -> None:
    path = tmp_path / "input.jsonl"
    if content is not None:
        path.write_text(content)
    result = CliRunner().invoke(app, ["verify", str(path), "--recorded", str(BEFORE)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error:")
    assert expected in lines[0]


def test_a_number_out_of_range_is_a_usage_error(tmp_path: Path) -> None:
    path = _sg_suggestion_file(tmp_path)
    result = CliRunner().invoke(app, ["verify", str(path), "2", "--recorded", str(BEFORE)])
    assert result.exit_code == 2
    assert "no suggestion 2: there are 1" in result.output


def test_a_node_suggestion_rests_on_the_node_findings_and_its_listed_status() -> None:
    toolset = toolset_for("gpu-xid79-missing-gpu")
    toolset.call("triage", {})
    toolset.call("suggest_command", {"command": REBOOT, "purpose": "Reboot.", "section": "G"})
    (suggestion,) = toolset.state.pending
    assert suggestion.kind == "reboot"
    # Both FAIL findings on the node (the GPU count and the Xid), and nothing else.
    assert len(suggestion.evidence) == 2
    assert all(e.status == "FAIL" and XID_NODE in e.resources for e in suggestion.evidence)
    kinds = {(p.kind, p.resource) for p in suggestion.preconditions}
    assert ("node-status", XID_NODE) in kinds
    assert ("finding", XID_NODE) in kinds
    status = next(p for p in suggestion.preconditions if p.kind == "node-status")
    assert status.expected == "Running"

    (valid,) = toolset.verify()
    assert valid.verdict == "valid", [r.detail for r in valid.results]

    # The node listed with another status than the one pinned: stale, saying both.
    moved = suggestion.model_copy(
        update={
            "preconditions": [
                status.model_copy(update={"expected": "Failure"}),
            ]
        }
    )
    data, checked_at = toolset.session.fresh_data()
    (stale,) = verify_suggestions([(1, moved)], data, checked_at=checked_at)
    assert stale.verdict == "stale"
    assert stale.results[0].detail == f"{XID_NODE} was Failure; it is now Running"


def test_a_check_this_version_lacks_is_unchecked_not_valid() -> None:
    toolset = toolset_for("sg-outbound-self-missing")
    toolset.call("triage", {})
    toolset.call("suggest_command", {"command": SG_FIX, "purpose": "Fix.", "section": "A"})
    odd = toolset.state.pending[0].model_copy(
        update={
            "preconditions": [
                Precondition(kind="finding", check="no-such-check", resource=SG, expected="FAIL")
            ]
        }
    )
    data, checked_at = toolset.session.fresh_data()
    (verdict,) = verify_suggestions([(1, odd)], data, checked_at=checked_at)
    assert verdict.verdict == "unchecked"
    assert verdict.results[0].outcome == "unknown"


def test_evidence_age_is_said_after_a_few_minutes_and_stale_past_the_threshold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    toolset = toolset_for("sg-outbound-self-missing")
    toolset.call("triage", {})
    toolset.call("suggest_command", {"command": SG_FIX, "purpose": "Fix.", "section": "A"})
    suggestion = toolset.state.pending[0]
    read = toolset.state.latest_time
    assert read is not None
    assert age_note(suggestion, read + timedelta(minutes=2)) is None
    assert age_note(suggestion, read + timedelta(minutes=12)) == "triage 1, read 12 min ago"
    late = age_note(suggestion, read + timedelta(minutes=63))
    assert late == "triage 1, read 1 h ago — stale unless verified (/verify)"
    monkeypatch.setenv("HYPERPOD_DEBUG_STALE_MINUTES", "10")
    assert is_old(suggestion, read + timedelta(minutes=12))
    assert not is_old(suggestion, datetime.now(UTC) - timedelta(minutes=20))


def test_chat_verify_and_the_approval_step_name_the_suggestion(tmp_path: Path) -> None:
    from chat.resume_support import AFTER_FIX, FIRST_TURN, script

    turns = script(tmp_path / "s.json", [*FIRST_TURN, *AFTER_FIX])
    lines = ["my NCCL job hangs", "/verify", "/verify 9", "/done", "/quit"]
    result = CliRunner().invoke(
        app,
        [
            "chat",
            "--no-color",
            "--provider",
            "scripted",
            "--script",
            str(turns),
            "--recorded",
            str(BEFORE),
            "--recorded",
            str(AFTER),
            "--transcript",
            str(tmp_path / "t.jsonl"),
        ],
        input="\n".join(lines) + "\n",
    )
    assert result.exit_code == 0, result.output
    out = result.output
    # A replay verifies against the last recording given: the fix is no longer needed.
    assert "[1] STALE" in out
    assert "it now reports INFO" in out
    assert "no pending suggestion 9: pending are 1" in out
    assert "Applied, as you report:\n  [1] config: aws ec2 authorize-security-group-egress" in out
    events = [json.loads(line) for line in (tmp_path / "t.jsonl").read_text().splitlines()]
    (retriage,) = [e for e in events if e.get("type") == "retriage"]
    (approved,) = retriage["approved"]
    assert approved["command"] == SG_FIX
    assert approved["evidence"][0]["check"] == "efa-security-groups"
    assert approved["preconditions"][0]["resource"] == SG
