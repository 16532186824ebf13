"""§ K node-reachability: unreachable nodes FAIL P0 once; the probed nodes are listed."""

from __future__ import annotations

import pytest

from tools.checks.node_reachability import CHECK_ID, judge_reachability, node_reachability
from tools.findings import Priority, Status
from tools.probes.model import NodeProbes
from tools.probes.runner import ProbeRunner
from tools.sources import ProbesUnavailable

from ._node_data import GPU_NODE, GPU_NODE_2, assert_well_formed, node, node_data


def test_unreachable_node_fails_p0_with_reason_and_rerun_hint() -> None:
    nodes = [
        NodeProbes(instance_id="i-1", group="gpu"),
        NodeProbes(instance_id="i-2", group="gpu", unreachable="TargetNotConnected"),
    ]
    fail, summary = judge_reachability(nodes)
    assert (fail.status, fail.priority, fail.section) == (Status.FAIL, Priority.P0, "K")
    assert fail.check == CHECK_ID
    assert "TargetNotConnected" in fail.message
    assert "--node i-2" in fail.message
    assert "SSM agent" in fail.message
    assert fail.resources == ["i-2"]
    assert fail.evidence["reason"] == "TargetNotConnected"
    assert summary.status is Status.INFO
    assert summary.evidence == {"reached": ["i-1"], "unreachable": ["i-2"]}
    assert "i-1, i-2" in summary.message
    assert_well_formed([fail, summary])


def test_all_reachable_is_one_info() -> None:
    [summary] = judge_reachability([NodeProbes(instance_id="i-1")])
    assert summary.status is Status.INFO
    assert "unreachable" not in summary.message


def test_no_node_selected() -> None:
    [finding] = judge_reachability([])
    assert finding.status is Status.INFO
    assert "No node" in finding.message


def test_registered_check_through_the_runner() -> None:
    data = node_data(node(GPU_NODE), node(GPU_NODE_2, unreachable="TargetNotConnected"))
    findings = list(node_reachability(data))
    assert [f.status for f in findings] == [Status.FAIL, Status.INFO]
    assert findings[0].resources == [GPU_NODE_2]
    assert findings[1].evidence["reached"] == [GPU_NODE]


def _no_plugin() -> ProbeRunner:
    raise ProbesUnavailable("session-manager-plugin is not installed")


def test_probes_unavailable_raises_for_the_runner_to_skip() -> None:
    data = node_data(node(GPU_NODE))
    data.sources.probes = _no_plugin
    with pytest.raises(ProbesUnavailable, match="session-manager-plugin"):
        list(node_reachability(data))
