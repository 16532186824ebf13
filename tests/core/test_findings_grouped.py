"""The same INFO / PASS line on three or more nodes is folded into one finding naming how
many nodes and the first few ids, with every id kept in its resources; one or two nodes,
other reasons, other checks and every FAIL or WARN keep their own lines."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from evals.grading import replay
from tools.findings import EVIDENCE_ITEMS, Finding, Priority, Status, fail, info, passed, warn
from tools.recorded.model import RecordedCluster
from tools.triage.grouping import GROUP_FROM, group_repeated
from tools.triage.render import render_text

LABEL = "gpu-workers, ml.p5.48xlarge"
NODES = [f"i-0{i:016x}" for i in range(60)]
DEMO = Path(__file__).resolve().parents[2] / "evals" / "clusters" / "demo-eks.json"


def unread(node: str, reason: str = "the probe did not run", **evidence: Any) -> Finding:
    """A "could not read" line as tools/checks/_node_reads.py `unreadable` makes it."""
    return info(
        "node-disk",
        "I.1",
        f"Could not read disk usage on {node} ({LABEL}): {reason}",
        resources=[node],
        probe="disk_usage",
        problem=reason,
        **evidence,
    )


def test_one_or_two_nodes_keep_their_own_lines() -> None:
    assert GROUP_FROM == 3
    for count in (1, 2):
        findings = [unread(node) for node in NODES[:count]]
        assert group_repeated(findings) == findings


def test_three_nodes_become_one_finding_naming_them() -> None:
    [folded] = group_repeated([unread(node) for node in NODES[:3]])
    assert folded.status is Status.INFO
    assert (folded.check, folded.section) == ("node-disk", "I.1")
    assert folded.message == (
        f"Could not read disk usage on 3 nodes ({LABEL}; {NODES[0]}, {NODES[1]}, {NODES[2]}): "
        "the probe did not run"
    )
    assert folded.resources == NODES[:3]
    assert folded.evidence == {
        "probe": "disk_usage",
        "problem": "the probe did not run",
        "node_count": 3,
    }


def test_many_nodes_name_the_first_few_and_count_the_rest() -> None:
    [folded] = group_repeated([unread(node) for node in NODES[:16]])
    assert folded.message == (
        f"Could not read disk usage on 16 nodes ({LABEL}; {NODES[0]}, {NODES[1]}, {NODES[2]} "
        "and 13 more): the probe did not run"
    )
    assert folded.resources == NODES[:16]
    assert folded.evidence["node_count"] == 16


def test_every_id_is_kept_bounded_with_a_total() -> None:
    [folded] = group_repeated([unread(node) for node in NODES])
    assert "60 nodes" in folded.message
    assert "and 57 more" in folded.message
    assert folded.resources == NODES[:EVIDENCE_ITEMS]
    assert folded.evidence["resources_total"] == 60
    assert folded.evidence["resources_not_shown"] == 60 - EVIDENCE_ITEMS
    assert folded.evidence["node_count"] == 60


def test_different_reasons_are_not_merged() -> None:
    timed_out = "the probe timed out (exit 137) before it finished"
    findings = [
        *(unread(node) for node in NODES[:4]),
        *(unread(node, timed_out) for node in NODES[4:8]),
        unread(NODES[8], "the probe exited with code 1"),
    ]
    ran, timed, exited = group_repeated(findings)
    assert ran.message.endswith(": the probe did not run")
    assert ran.resources == NODES[:4]
    assert timed.message.endswith(f"and 1 more): {timed_out}")
    assert timed.resources == NODES[4:8]
    assert exited is findings[8]


def test_different_checks_and_labels_are_not_merged() -> None:
    other_check = [f.model_copy(update={"check": "node-shm"}) for f in map(unread, NODES[3:6])]
    other_label = [
        info(
            "node-disk",
            "I.1",
            f"Could not read disk usage on {node} (cpu-workers, ml.m5.2xlarge): "
            "the probe did not run",
            resources=[node],
        )
        for node in NODES[6:8]
    ]
    folded = group_repeated([*map(unread, NODES[:3]), *other_check, *other_label])
    assert [f.check for f in folded] == ["node-disk", "node-shm", "node-disk", "node-disk"]
    assert [len(f.resources) for f in folded] == [3, 3, 1, 1]
    assert folded[2:] == other_label


def test_fail_and_warn_lines_are_never_merged() -> None:
    fails = [
        fail(
            "gpu-xid",
            Priority.P0,
            "G.2",
            f"{node} (ml.p5.48xlarge): hardware Xid 79",
            resources=[node],
        )
        for node in NODES[:5]
    ]
    warns = [
        warn(
            "efa-software",
            Priority.P1,
            "H",
            f"{node} (ml.p5.48xlarge): no EFA installer",
            resources=[node],
        )
        for node in NODES[:5]
    ]
    assert group_repeated([*fails, *warns]) == [*fails, *warns]


def test_the_folded_line_takes_the_place_of_the_first() -> None:
    before = passed("cluster-status", "F", "Cluster is InService")
    between = info("node-disk", "I.1", "Probed 4 nodes")
    after = fail("cluster-nodes", Priority.P0, "F", "Node down", resources=[NODES[0]])
    lines = [before, unread(NODES[0]), between, unread(NODES[1]), unread(NODES[2]), after]
    result = group_repeated(lines)
    assert result[0] is before
    assert result[1].resources == NODES[:3]
    assert result[2:] == [between, after]


def test_evidence_that_differs_is_kept_as_the_first_nodes_example() -> None:
    findings = [
        unread(node, exit_code=None, output=f"partial {n}") for n, node in enumerate(NODES[:3])
    ]
    [folded] = group_repeated(findings)
    assert folded.evidence["exit_code"] is None  # the same on every node
    assert folded.evidence["example"] == {"instance": NODES[0], "output": "partial 0"}


def test_healthy_lines_fold_too_and_unlabelled_ones_read_well() -> None:
    healthy = [
        passed("gpu-dcgm", "G.1", f"{node} (ml.p5.48xlarge): DCGM health Healthy", resources=[node])
        for node in NODES[:4]
    ]
    versions = [
        info("node-versions", "L", f"{node} versions: kernel 5.15", resources=[node])
        for node in NODES[:3]
    ]
    dcgm, kernel = group_repeated([*healthy, *versions])
    assert dcgm.status is Status.PASS
    assert dcgm.message == (
        f"4 nodes (ml.p5.48xlarge; {NODES[0]}, {NODES[1]}, {NODES[2]} and 1 more): "
        "DCGM health Healthy"
    )
    assert kernel.message == f"3 nodes ({NODES[0]}, {NODES[1]}, {NODES[2]}) versions: kernel 5.15"


def test_lines_that_do_not_name_one_node_once_are_left_alone() -> None:
    mapping = [
        info("k8s-node-mapping", "F.2", f"Kubernetes node hyperpod-{n} ↔ {n}", resources=[n])
        for n in NODES[:3]
    ]
    unnamed = [
        info("node-disk", "I.1", "Could not read disk usage", resources=[n]) for n in NODES[:3]
    ]
    subnets = [
        info("subnet-free-ips", "B", f"Subnet {s} has 10 free IPs", resources=[s])
        for s in ("subnet-1", "subnet-2", "subnet-3")
    ]
    two_nodes = [
        info("node-disk", "I.1", f"Could not read {n}", resources=[n, NODES[59]]) for n in NODES[:3]
    ]
    findings = [*mapping, *unnamed, *subnets, *two_nodes]
    assert group_repeated(findings) == findings


def grown(extra: int) -> RecordedCluster:
    """demo-eks with `extra` more failing GPU nodes whose probes were never recorded (a
    planned node without outputs replays as every probe not having run)."""
    raw: dict[str, Any] = json.loads(DEMO.read_text())
    raw.pop("expect", None)
    listing = next(c for c in raw["aws"] if c["operation"] == "ListClusterNodes")
    nodes: list[dict[str, Any]] = listing["response"]["ClusterNodeSummaries"]
    failing = next(n for n in nodes if n["InstanceStatus"]["Status"] == "Failure")
    for index in range(extra):
        node = copy.deepcopy(failing)
        node["InstanceId"] = f"i-0f{index:015x}"
        node.pop("PrivateDnsHostname", None)
        nodes.append(node)
    return RecordedCluster.model_validate(raw)


def test_sixteen_unprobed_nodes_keep_the_report_small() -> None:
    report = replay(grown(16))
    text = render_text(report)
    size = len(json.dumps(report.to_json(), indent=2, ensure_ascii=False).encode())
    # Ungrouped, this report was about 230 KB of JSON and 485 lines of text.
    assert size < 100_000
    assert len(text.splitlines()) < 200
    unreadable = [f for f in report.findings if f.message.startswith("Could not read")]
    # One line per check and output, never one per node.
    shapes = {(f.check, f.message.split(" on ")[0]) for f in unreadable}
    assert len(unreadable) == len(shapes)
    disk = next(f for f in unreadable if f.message.startswith("Could not read disk usage"))
    assert disk.evidence["node_count"] == 15  # the failing node's probes were recorded
    assert disk.resources == [f"i-0f{i:015x}" for i in range(15)]
    assert "15 nodes (gpu-workers, ml.p5.48xlarge; i-0f000000000000000," in disk.message
    # Every failing node keeps its own FAIL line.
    down = [f for f in report.findings if f.check == "cluster-nodes" and f.status is Status.FAIL]
    assert len(down) == 17
