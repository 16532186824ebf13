"""§ K: every node chosen for probing either answered over SSM or is reported unreachable.

The other node checks judge only the nodes that answered; an unreachable node is reported
here, once, as a FAIL P0 with the transport's reason (TargetNotConnected most often means
the SSM agent is down or the target string is wrong, § K).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tools.checks._node_reads import node_label
from tools.findings import Finding, Findings, Priority
from tools.probes.model import NodeProbes
from tools.registry import check
from tools.text import clip
from tools.triage.data import ClusterData

CHECK_ID = "node-reachability"
FINDINGS = Findings(CHECK_ID, "K")


def judge_reachability(nodes: Sequence[NodeProbes]) -> list[Finding]:
    """FAIL P0 per unreachable node, then one INFO listing the nodes probed."""
    if not nodes:
        return [FINDINGS.info("No node was selected for on-node probes")]
    findings: list[Finding] = []
    for node in nodes:
        if node.unreachable is None:
            continue
        findings.append(
            FINDINGS.fail(
                Priority.P0,
                f"Node {node_label(node)} could not be probed over SSM: "
                f"{clip(node.unreachable)}; check the SSM agent on it (amazon-ssm-agent) and "
                f"the session target, then re-run with --node {node.instance_id}",
                resources=[node.instance_id],
                reason=clip(node.unreachable, 400),
                group=node.group,
                elapsed_s=node.elapsed_s,
            )
        )
    reached = [n.instance_id for n in nodes if n.unreachable is None]
    missed = [n.instance_id for n in nodes if n.unreachable is not None]
    summary = f"Probed {len(nodes)} node(s) over SSM: {', '.join(n.instance_id for n in nodes)}"
    if missed:
        summary += f" ({len(reached)} answered, {len(missed)} unreachable)"
    findings.append(
        FINDINGS.info(
            summary, resources=[n.instance_id for n in nodes], reached=reached, unreachable=missed
        )
    )
    return findings


@check(FINDINGS, title="Nodes reachable over SSM", scope="node")
def node_reachability(data: ClusterData) -> Iterable[Finding]:
    """Nodes chosen for probing that no SSM session could reach (TargetNotConnected, ...)."""
    return judge_reachability(list(data.node_probes().values()))
