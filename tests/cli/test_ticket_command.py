"""`hyperpod-debug ticket`: a complete, redacted support bundle from a recorded cluster."""

from __future__ import annotations

import json
import os
import tarfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from agent.ticket import build_ticket, parse_since
from tools.recorded.model import RecordedCluster, dump_recorded, load_recorded
from tools.target import TriageTarget
from tools.triage.open_cluster import DataSource, open_cluster, recording_time
from tools.triage.runner import run_triage

from ._cli_support import assert_clean_exit, run

ROOT = Path(__file__).resolve().parents[2]
CLUSTERS = ROOT / "evals" / "clusters"
FILES = {"summary.md", "triage.txt", "triage.json"}


def ticket(tmp_path: Path, name: str, *args: str) -> tuple[Path, list[str]]:
    out = tmp_path / "out"
    result = run("ticket", "--recorded", str(CLUSTERS / f"{name}.json"), "-o", str(out), *args)
    assert_clean_exit(result, 0)
    return out, result.output.splitlines()


def archive_of(out: Path) -> Path:
    archives = list(out.glob("ticket-*.tar.gz"))
    assert len(archives) == 1, archives
    return archives[0]


def archive_texts(path: Path) -> dict[str, str]:
    with tarfile.open(path, "r:gz") as archive:
        texts = {}
        for member in archive.getmembers():
            handle = archive.extractfile(member)
            assert handle is not None
            texts[member.name] = handle.read().decode("utf-8")
        return texts


# -- the bundle is complete ----------------------------------------------------------------


def test_xid79_bundle_has_every_required_field(tmp_path: Path) -> None:
    out, printed = ticket(tmp_path, "gpu-xid79-missing-gpu")
    archive = archive_of(out)
    assert printed == [str(out / f) for f in ("summary.md", "triage.txt", "triage.json")] + [
        str(archive)
    ]
    assert archive.name.startswith("ticket-ml-cluster-eks-")
    assert archive.name.endswith("Z.tar.gz")
    summary = (out / "summary.md").read_text()
    assert "arn:aws:sagemaker:us-west-2:111122223333:cluster/a1b2c3d4e5f6" in summary
    assert "| Region | `us-west-2` |" in summary
    assert "| Orchestrator | EKS |" in summary
    assert "`i-00000000000000001`" in summary
    assert "Xid numbers: 79" in summary
    assert "GPU has fallen off the bus" in summary
    assert "Unable to determine the device handle for GPU0000:86:00.0: Unknown Error" in summary
    assert "[FAIL] P0" in summary
    assert "§ G.2" in summary
    # The node log bundle, with the real names filled in, for the user to run.
    assert "**Run yourself**" in summary
    assert "sudo nvidia-bug-report.sh" in summary
    assert "journalctl -k -b" in summary
    assert "aws sagemaker describe-cluster --cluster-name ml-cluster-eks --region us-west-2" in (
        summary
    )
    assert "ClusterNodeSummaries[?InstanceId=='i-00000000000000001']" in summary
    assert "sagemaker-cluster:a1b2c3d4e5f6_" in summary
    assert "<INSTANCE_ID>" not in summary
    report = json.loads((out / "triage.json").read_text())
    assert report["cluster"]["arn"].endswith(":cluster/a1b2c3d4e5f6")
    assert any(f["check"] == "gpu-xid" and f["status"] == "FAIL" for f in report["findings"])
    assert (out / "triage.txt").read_text().startswith("HyperPod triage: ml-cluster-eks")


def test_archive_holds_the_same_redacted_files(tmp_path: Path) -> None:
    out, _ = ticket(tmp_path, "gpu-xid79-missing-gpu")
    archive = archive_of(out)
    folder = archive.name.removesuffix(".tar.gz")
    texts = archive_texts(archive)
    # The reports, and the replayable case (tests/cli/test_ticket_archive.py).
    replay = {"recording.json", "manifest.json"}
    assert set(texts) == {f"{folder}/{name}" for name in FILES | replay}
    for name in FILES:
        assert texts[f"{folder}/{name}"] == (out / name).read_text()


def test_demo_bundle_names_nodes_groups_window_and_errors(tmp_path: Path) -> None:
    out, _ = ticket(tmp_path, "demo-eks")
    summary = (out / "summary.md").read_text()
    assert "| `i-00000000000000003` | `hyperpod-i-00000000000000003` | `gpu-workers` |" in summary
    assert "Instance groups: `gpu-workers`" in summary
    # Verbatim from the node's status message.
    assert "Node is unhealthy: GPU has fallen off the bus (Xid 79); pending replacement" in summary
    assert "- End: 2026-11-20T12:00:00Z" in summary
    assert "- Start: 2026-11-20T" in summary
    assert "findings' evidence" in summary
    assert "kubelet -u containerd" in summary
    assert "- [x] the failure window in UTC, start and end" in summary
    assert "- [ ] the S3 URI of the node log bundle" in summary


def test_healthy_slurm_bundle_asks_for_what_triage_cannot_tell(tmp_path: Path) -> None:
    out, _ = ticket(tmp_path, "healthy-slurm")
    summary = (out / "summary.md").read_text()
    assert "| Orchestrator | Slurm |" in summary
    assert "arn:aws:sagemaker:us-west-2:111122223333:cluster/f6e5d4c3b2a1" in summary
    assert "No FAIL or WARN finding names an instance" in summary
    assert "- Start: unknown" in summary
    assert "Triage found no P0 or P1 problem." in summary
    assert {p.name for p in out.iterdir()} >= FILES


def test_node_and_since_focus_the_bundle(tmp_path: Path) -> None:
    node = "i-00000000000000002"
    out, _ = ticket(tmp_path, "healthy-slurm", "--node", node, "--since", "6h")
    summary = (out / "summary.md").read_text()
    assert f"`{node}`" in summary
    assert "focused on i-00000000000000002" in summary
    recorded = recording_time(load_recorded(CLUSTERS / "healthy-slurm.json"))
    start = (recorded - timedelta(hours=6)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert f"- Start: {start} (--since 6h before the triage)" in summary
    assert "journalctl -u slurmd" in summary
    assert f"--node {node} > triage.txt" in summary
    assert json.loads((out / "triage.json").read_text())["node"] == node


def test_since_accepts_iso_and_spans() -> None:
    assert parse_since("2d") == timedelta(days=2)
    assert parse_since("90m") == timedelta(minutes=90)
    assert parse_since("2026-11-20T10:00:00Z") == datetime(2026, 11, 20, 10, tzinfo=UTC)
    assert parse_since("2026-11-20T10:00:00") == datetime(2026, 11, 20, 10, tzinfo=UTC)
    for bad in ("yesterday", "0h", "6x", ""):
        with pytest.raises(ValueError, match="--since"):
            parse_since(bad)


# -- options and exit codes ----------------------------------------------------------------


@pytest.mark.parametrize("since", ["last tuesday", "2099-01-01T00:00:00Z"])
def test_bad_or_future_since_is_a_usage_error(tmp_path: Path, since: str) -> None:
    result = run(
        "ticket", "--recorded", str(CLUSTERS / "demo-eks.json"), "-o", str(tmp_path / "o"),
        "--since", since,
    )  # fmt: skip
    assert_clean_exit(result, 2)
    assert "--since" in result.output


def test_non_empty_directory_needs_force(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    args = ("ticket", "--recorded", str(CLUSTERS / "demo-eks.json"), "-o", str(out))
    refused = run(*args)
    assert_clean_exit(refused, 2)
    assert "--force" in refused.output
    assert len(refused.output.strip().splitlines()) == 1
    assert_clean_exit(run(*args, "--force"), 0)
    assert (out / "keep.txt").read_text() == "mine"
    assert (out / "summary.md").exists()


def test_output_that_is_a_file_or_unwritable_is_one_line(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    result = run("ticket", "--recorded", str(CLUSTERS / "demo-eks.json"), "-o", str(afile))
    assert_clean_exit(result, 2)
    assert len(result.output.strip().splitlines()) == 1
    result = run("ticket", "--recorded", str(CLUSTERS / "demo-eks.json"), "-o", str(afile / "sub"))
    assert_clean_exit(result, 2)
    assert result.output.startswith("error: cannot use --output")
    assert len(result.output.strip().splitlines()) == 1
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        result = run("ticket", "--recorded", str(CLUSTERS / "demo-eks.json"), "-o", str(locked))
        assert_clean_exit(result, 2)
        assert result.output.strip().startswith("error: ")
        assert len(result.output.strip().splitlines()) == 1
        result = run(
            "ticket", "--recorded", str(CLUSTERS / "demo-eks.json"), "-o", str(locked / "sub")
        )
        assert_clean_exit(result, 2)
        assert len(result.output.strip().splitlines()) == 1
    finally:
        locked.chmod(0o700)


def test_region_mismatch_and_missing_cluster_keep_the_triage_contract(tmp_path: Path) -> None:
    result = run(
        "ticket", "--recorded", str(CLUSTERS / "demo-eks.json"), "--region", "eu-west-1",
        "-o", str(tmp_path / "o"),
    )  # fmt: skip
    assert_clean_exit(result, 2)
    result = run(
        "ticket", "--recorded", str(CLUSTERS / "demo-eks.json"), "--cluster", "other",
        "-o", str(tmp_path / "o2"),
    )  # fmt: skip
    assert_clean_exit(result, 1)


# -- no planted secret survives -------------------------------------------------------------

SECRETS = (
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYPLANTEDKEY",
    "AKIAIOSFODNN7PLANTED",
    "Hunter2-planted-pw",
    "ghp_plantedTokenABCDEFGHIJKLMNOP123456",
)
PLANTED = (
    f"GPU has fallen off the bus; AWS_SECRET_ACCESS_KEY={SECRETS[0]} "
    f"aws_access_key_id={SECRETS[1]} password: {SECRETS[2]} token {SECRETS[3]}"
)


def _plant(recording: RecordedCluster) -> RecordedCluster:
    """The secrets go into the failed node's status message and an Error cluster event."""
    calls = []
    for call in recording.aws:
        response: Any = call.response
        if call.operation == "ListClusterNodes" and response:
            response = json.loads(json.dumps(response))
            for node in response["ClusterNodeSummaries"]:
                if node["InstanceStatus"]["Status"] != "Running":
                    node["InstanceStatus"]["Message"] = PLANTED
        if call.operation == "ListClusterEvents" and response and response.get("Events"):
            response = json.loads(json.dumps(response))
            event = response["Events"][-1]
            event.update(EventLevel="Error", Description=PLANTED)
        calls.append(call.model_copy(update={"response": response}))
    return recording.model_copy(update={"aws": calls})


def test_no_planted_secret_survives_in_any_file_or_the_archive(tmp_path: Path) -> None:
    planted = tmp_path / "planted.json"
    dump_recorded(_plant(load_recorded(CLUSTERS / "demo-eks.json")), planted)
    assert SECRETS[0] in planted.read_text()  # the plant took
    out = tmp_path / "out"
    assert_clean_exit(run("ticket", "--recorded", str(planted), "-o", str(out)), 0)
    texts = {p.name: p.read_text() for p in out.iterdir() if p.suffix != ".gz"}
    texts.update(archive_texts(archive_of(out)))
    assert len(texts) == 8  # three files, and the archive: them, the recording, the manifest
    summary = texts["summary.md"]
    assert "GPU has fallen off the bus; AWS_SECRET_ACCESS_KEY=<redacted>" in summary
    for name, text in texts.items():
        for secret in SECRETS:
            assert secret not in text, (name, secret)


# -- one builder for the command and the agent -----------------------------------------------


def test_agent_tool_and_command_share_the_builder() -> None:
    from agent.state import ConversationState
    from agent.toolset import Toolset
    from agent.toolset.cluster import ClusterSession

    recording = load_recorded(CLUSTERS / "gpu-xid79-missing-gpu.json")
    target = TriageTarget(cluster=recording.cluster, region=recording.region)
    state = ConversationState(cluster=target.cluster, region=target.region)
    toolset = Toolset(ClusterSession(target=target, recordings=[recording]), state)
    assert not toolset.call("triage", {}).is_error
    payload = toolset.call("draft_support_ticket", {}).payload
    fields = payload["ticket"]
    data = open_cluster(target, source=DataSource(recorded=recording))
    facts = build_ticket(run_triage(data), now=data.now)
    assert fields["cluster_arn"] == facts.cluster_arn
    assert fields["instance_ids"] == facts.instance_ids == ["i-00000000000000001"]
    assert fields["xids"] == facts.xids == [79]
    assert fields["failure_window_utc"] == facts.window()
    assert any(
        "nvidia-bug-report.sh" in c for c in payload["node_log_bundle"]["i-00000000000000001"]
    )
    assert "log_bundle_s3_uri" in payload["missing"]


def test_agent_ticket_payload_is_bounded() -> None:
    from agent.state import ConversationState
    from agent.toolset.budget import DEFAULT_RESULT_CHARS, dumps
    from agent.toolset.cluster import ClusterSession
    from agent.toolset.ticket_tool import draft_ticket

    recording = load_recorded(CLUSTERS / "demo-eks.json")
    target = TriageTarget(cluster=recording.cluster, region=recording.region)
    data = open_cluster(target, source=DataSource(recorded=recording))
    state = ConversationState(cluster=target.cluster, region=target.region)
    state.note_triage(run_triage(data))
    state.error_strings = [f"error {n}: " + "x" * 390 for n in range(200)]
    payload = draft_ticket(state, ClusterSession(target=target, recordings=[recording]))
    assert len(dumps(payload)) <= DEFAULT_RESULT_CHARS
    assert payload["ticket"]["error_strings_not_shown"] > 0


# -- --mask --------------------------------------------------------------------------------


def test_mask_hides_names_in_every_file_and_keeps_the_mapping_outside_the_archive(
    tmp_path: Path,
) -> None:
    from tools.masking import load_mapping, unmask

    recording = load_recorded(CLUSTERS / "demo-eks.json")
    account = "111122223333"  # the recording's account, inside every ARN
    assert account in (CLUSTERS / "demo-eks.json").read_text()
    out, printed = ticket(tmp_path, "demo-eks", "--mask")
    mapping_path = out / "mask-mapping.json"
    assert printed[-1] == str(mapping_path)
    archive = archive_of(out)
    assert "ml-cluster-eks" not in archive.name
    members = archive_texts(archive)
    assert not any(name.endswith("mask-mapping.json") for name in members)
    mapping = load_mapping(mapping_path)
    assert account in mapping.values()
    assert recording.cluster in mapping.values()
    for name in FILES:
        text = (out / name).read_text(encoding="utf-8")
        assert account not in text, name
        assert recording.cluster not in text, name
        assert "<CLUSTER_1>" in text or "<ACCOUNT_1>" in text, name
        assert members[f"{archive.name.removesuffix('.tar.gz')}/{name}"] == text
    # Read back: the real names return.
    restored = unmask((out / "summary.md").read_text(encoding="utf-8"), mapping)
    assert recording.cluster in restored


# -- who manages the cluster's resources (issue 25) ------------------------------------------


def test_the_summary_names_the_stack_that_owns_the_network(tmp_path: Path) -> None:
    out, _ = ticket(tmp_path, "sg-outbound-self-missing")
    summary = (out / "summary.md").read_text("utf-8")
    assert "## Who manages the cluster's resources" in summary
    assert (
        "- `sg-0a1b2c3d4e5f60001`: CloudFormation stack `hp-network` (logical id "
        "`EfaSecurityGroup`), confirmed by DescribeStackResource; last drift check: IN_SYNC, "
        "2026-11-18T12:00:00Z"
    ) in summary
    # The cluster in its own stack, never drift-checked (sagemaker:ListTags).
    assert (
        "cluster/a1b2c3d4e5f6`: CloudFormation stack `hp-cluster` (logical id `HyperPodCluster`"
        "), confirmed by DescribeStackResource; last drift check: NOT_CHECKED"
    ) in summary


def test_the_summary_says_unknown_for_an_untagged_cluster(tmp_path: Path) -> None:
    out, _ = ticket(tmp_path, "efa-second-sg")
    summary = (out / "summary.md").read_text("utf-8")
    assert "- `arn:aws:sagemaker:us-west-2:111122223333:cluster/f6e5d4c3b2a1`: unknown\n" in summary
    assert "- `vpc-0a1b2c3d4e5f60001`: unknown\n" in summary


def test_the_summary_says_likely_for_a_terraform_tag(tmp_path: Path) -> None:
    out, _ = ticket(tmp_path, "efa-second-sg")
    summary = (out / "summary.md").read_text("utf-8")
    assert "- `sg-0a1b2c3d4e5f60001`: likely Terraform (tag `ManagedBy=terraform`)" in summary
