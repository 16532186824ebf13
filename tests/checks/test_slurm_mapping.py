"""§ H.3: the Slurm name <-> instance map (its sources, the DescribeClusterNode cap), the
table and one-sided nodes, and the unhealthy instance ids the probe planner uses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cluster_simulator.node_samples import slurm as samples
from tools.checks.slurm_mapping import CHECK_ID, TABLE_ROWS, TEXT_ROWS, judge_node_map
from tools.findings import Priority, Status
from tools.parsers.slurm_config import ResourceConfig
from tools.triage.data import slurm_reads
from tools.triage.data.sagemaker_model import ClusterNode
from tools.triage.data.slurm_reads import (
    FROM_DESCRIBE,
    FROM_LIST,
    FROM_RESOURCE_CONFIG,
    SlurmNodeMap,
)

from ._slurm_data import (
    CONTROLLER,
    NodeReadFaults,
    SlurmData,
    hp_node,
    probe_outputs,
    problems,
    run,
)

A, B, C, D = (f"i-0aaaaaaaaaaaaaaa{i}" for i in range(1, 5))


def build_node_map(
    slurm_names: list[str] | None,
    hyperpod_nodes: list[dict[str, Any]],
    describe: Callable[[str], dict[str, Any]],
    resource_config: ResourceConfig | None,
    **options: Any,
) -> SlurmNodeMap:
    # The map takes parsed nodes; the cases stay literal ListClusterNodes /
    # DescribeClusterNode answers.
    return slurm_reads.build_node_map(
        slurm_names,
        slurm_reads.HyperPodNodes(tuple(ClusterNode.from_api(n) for n in hyperpod_nodes)),
        lambda node_id: ClusterNode.from_api(describe(node_id)),
        resource_config,
        **options,
    )


def sinfo_of(*names: str) -> str:
    return samples.sinfo([(n, "idle", "") for n in names])


def test_sources_in_order_each_recorded() -> None:
    config = samples.resource_config(
        [("workers", "ml.p5.48xlarge", [(C, "10.1.5.23")]), ("controller", "ml.c5", [])]
    )
    data = SlurmData(
        probe_outputs(
            sinfo=sinfo_of("ip-10-1-5-21", "ip-10-1-5-22", "ip-10-1-5-23"),
            resource_config=config,
        ),
        [
            hp_node(A, "10.1.5.21"),
            hp_node(B, "10.1.5.22", hostname=False),
            hp_node(C, "10.1.5.23", hostname=False),
        ],
        details={B: {"PrivatePrimaryIp": "10.1.5.22"}, C: {}},
    )
    node_map = data.slurm_node_map()
    sources = {r.slurm_name: (r.instance_id, r.source) for r in node_map.rows}
    assert sources == {
        "ip-10-1-5-21": (A, FROM_LIST),
        "ip-10-1-5-22": (B, FROM_DESCRIBE),
        "ip-10-1-5-23": (C, FROM_RESOURCE_CONFIG),
    }
    assert data.described == [B, C]
    assert node_map.instance_of("ip-10-1-5-22") == B
    assert node_map.name_of(C) == "ip-10-1-5-23"
    assert data.slurm_node_map() is node_map  # memoised


def test_describe_is_capped_and_skipped_when_nothing_is_unmatched() -> None:
    many = [hp_node(f"i-0bbbbbbbbbbbbb{i:03d}", f"10.1.9.{i}", hostname=False) for i in range(40)]
    node_map = build_node_map(["ip-10-1-200-1"], many, lambda _id: {}, None, describe_cap=5)
    assert (node_map.described, node_map.undescribed) == (5, 35)
    assert "at most 5 DescribeClusterNode calls" in node_map.notes[0]
    calls: list[str] = []

    def describe(node_id: str) -> dict[str, str]:
        calls.append(node_id)
        return {}

    matched = build_node_map(["ip-10-1-5-21"], [hp_node(A, "10.1.5.21"), *many], describe, None)
    assert calls == []
    assert matched.described == 0
    build_node_map(None, many, describe, None)  # sinfo unreadable: nothing to match against
    assert calls == []


def test_denied_describe_and_list_are_recorded_not_raised() -> None:
    data = SlurmData(
        probe_outputs(sinfo=sinfo_of("ip-10-1-5-22")),
        [hp_node(B, "10.1.5.22", hostname=False)],
        faults=NodeReadFaults(describe_denied=True),
    )
    node_map = data.slurm_node_map()
    assert node_map.undescribed == 1
    assert "DescribeClusterNode" in node_map.notes[0]
    denied = SlurmData(
        probe_outputs(sinfo=sinfo_of("ip-10-1-5-22")), faults=NodeReadFaults(list_denied=True)
    )
    assert "ListClusterNodes" in denied.slurm_node_map().hyperpod_problem
    [table] = run(CHECK_ID, denied)
    assert table.status is Status.INFO  # no orphan WARN when HyperPod's list is unknown


def test_table_and_one_sided_nodes() -> None:
    data = SlurmData(
        probe_outputs(sinfo=sinfo_of("ip-10-1-5-21", "ip-10-1-5-99")),
        [
            hp_node(A, "10.1.5.21"),
            hp_node(B, "10.1.5.22"),
            hp_node(CONTROLLER, "10.1.0.10", group="controller-machine"),
            hp_node(D, "10.1.4.4", group="login-nodes"),
        ],
    )
    table, not_in_slurm, orphan = run(CHECK_ID, data)
    assert table.status is Status.INFO
    assert table.section == "H.3"
    assert "ip-10-1-5-21 = i-0aaaaaaaaaaaaaaa1 [workers]" in table.message
    assert "ListClusterNodes PrivateDnsHostname: 4" in table.message
    assert len(table.evidence["rows"]) == 5
    assert (not_in_slurm.status, not_in_slurm.priority) == (Status.WARN, Priority.P1)
    assert not_in_slurm.resources == [B]
    assert "sinfo does not list ip-10-1-5-22" in not_in_slurm.message
    assert (orphan.status, orphan.priority) == (Status.WARN, Priority.P2)
    assert "ip-10-1-5-99 has no HyperPod instance" in orphan.message


def test_table_is_truncated_and_focus_filters() -> None:
    names = [f"ip-10-1-8-{i}" for i in range(60)]
    nodes = [hp_node(f"i-0ccccccccccccc{i:03d}", f"10.1.8.{i}") for i in range(60)]
    node_map = build_node_map(names, nodes, lambda _id: {}, None)
    [table] = judge_node_map(node_map)
    assert f"first {TEXT_ROWS} shown, and 50 more; {TABLE_ROWS} in the evidence" in table.message
    assert len(table.evidence["rows"]) == TABLE_ROWS
    assert (table.evidence["rows_total"], table.evidence["rows_not_shown"]) == (60, 10)
    assert len(table.resources) == TEXT_ROWS
    [focused] = judge_node_map(node_map, focus="i-0ccccccccccccc007")
    assert "(1 row)" in focused.message
    [unknown] = judge_node_map(node_map, focus="i-0ffffffffffffffff")
    assert "no known Slurm node name" in unknown.message


def test_a_20000_node_table_stays_bounded_odd_rows_first() -> None:
    count = 20_000
    names = [f"ip-10-2-{i // 250}-{i % 250}" for i in range(count)]
    nodes = [hp_node(f"i-0e{i:015x}", f"10.2.{i // 250}.{i % 250}") for i in range(count)]
    nodes.append(hp_node("i-0fffffffffffffff0", "10.3.0.1"))  # HyperPod only: not in sinfo
    node_map = build_node_map([*names, "ip-10-9-9-9"], nodes, lambda _id: {}, None)
    findings = judge_node_map(node_map)
    table = findings[0]
    rows = table.evidence["rows"]
    assert len(rows) == TABLE_ROWS
    assert table.evidence["rows_total"] == count + 2
    assert table.evidence["rows_not_shown"] == count + 2 - TABLE_ROWS
    # The rows only one side knows come first, in the message and in the evidence.
    odd = {r["slurm_name"] or r["instance_id"] for r in rows[:2]}
    assert odd == {"ip-10-3-0-1", "ip-10-9-9-9"}
    assert f"({count + 2} rows, first {TEXT_ROWS} shown, and {count + 2 - TEXT_ROWS} more" in (
        table.message
    )
    assert len(table.message) < 2_000
    assert len(table.model_dump_json()) < 20_000


def test_many_missing_nodes_are_grouped() -> None:
    nodes = [hp_node(f"i-0dddddddddddd{i:03d}", f"10.1.7.{i}") for i in range(25)]
    node_map = build_node_map(["ip-10-1-7-0"], nodes, lambda _id: {}, None)
    findings = problems(judge_node_map(node_map))
    [grouped] = findings
    assert grouped.evidence["count"] == 24
    assert grouped.message.startswith("24 HyperPod compute nodes are not Slurm nodes")


def test_unhealthy_instance_ids_feed_the_probe_plan() -> None:
    data = SlurmData(
        probe_outputs(
            sinfo=samples.sinfo(
                [
                    ("ip-10-1-5-21", "down*", "Node unexpectedly rebooted"),
                    ("ip-10-1-5-22", "drained", "x"),
                    ("ip-10-1-5-23", "idle", ""),
                    ("ip-10-1-5-24", "fail", "y"),  # no instance behind it: adds nothing
                ]
            )
        ),
        [hp_node(A, "10.1.5.21"), hp_node(B, "10.1.5.22"), hp_node(C, "10.1.5.23")],
    )
    assert data.slurm_unhealthy_instance_ids() == [A, B]
    assert data.failing_instance_ids() == [A, B]
    assert SlurmData(None).failing_instance_ids() == []  # no probes: nothing from Slurm
    unreadable = SlurmData(probe_outputs(sinfo=None), [hp_node(A, "10.1.5.21")])
    assert unreadable.slurm_unhealthy_instance_ids() == []
