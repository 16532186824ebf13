"""§ H.3: the Slurm node name <-> instance id table, and nodes only one side knows.

Every Slurm finding names hosts (`ip-10-1-2-3`) while HyperPod's APIs and logs use
instance ids, so the table is shown as INFO. A compute node HyperPod runs that Slurm does
not list never takes jobs (WARN P1); a Slurm node no HyperPod instance stands behind is a
leftover that stays DOWN (WARN P2). Either side is judged only when it was read whole.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from tools.checks._slurm import GROUP_ABOVE, NOT_COMPUTE_GROUP, SAMPLES, with_source
from tools.findings import Finding, Findings, Priority, bounded
from tools.registry import check
from tools.text import clip
from tools.triage.data import ClusterData
from tools.triage.data.slurm_reads import SlurmNodeMap, SlurmNodeRow

CHECK_ID = "slurm-node-mapping"
FINDINGS = Findings(CHECK_ID, "H.3")
TABLE_ROWS = 50  # rows kept as evidence (the whole table in the message up to this)
TEXT_ROWS = 10  # rows shown in the message of a larger table


def _cell(row: SlurmNodeRow) -> str:
    name = row.slurm_name or "(no Slurm name)"
    instance = row.instance_id or "(no instance)"
    # Groups may come from resource_config.json on the controller: the node's text.
    group = f" [{clip(row.group, 60)}]" if row.group else ""
    return f"{name} = {instance}{group}"


def _odd(row: SlurmNodeRow) -> bool:
    """A row only one side knows, or without a Slurm name: shown first on a large cluster."""
    return not row.slurm_name or not row.instance_id or not row.in_slurm


def _table(node_map: SlurmNodeMap, rows: list[SlurmNodeRow]) -> Finding:
    """The whole table in the message up to TABLE_ROWS rows; above, its odd rows first,
    TEXT_ROWS of them in the message and TABLE_ROWS in the evidence, with the counts."""
    if len(rows) > TABLE_ROWS:
        rows = sorted(rows, key=lambda r: not _odd(r))  # stable: name order within each
        shown = rows[:TEXT_ROWS]
    else:
        shown = rows
    sources = Counter(r.source for r in rows if r.source)
    text = f"Slurm node names and instance ids ({len(rows)} row{'s' if len(rows) != 1 else ''}"
    if len(rows) > TABLE_ROWS:
        text += (
            f", first {TEXT_ROWS} shown, and {len(rows) - TEXT_ROWS} more; "
            f"{TABLE_ROWS} in the evidence"
        )
    text += "): " + "; ".join(_cell(r) for r in shown)
    if sources:
        text += " (from " + ", ".join(f"{s}: {c}" for s, c in sorted(sources.items())) + ")"
    if not node_map.slurm_listed:
        text += "; sinfo could not be read whole, so names come from HyperPod only"
    if node_map.hyperpod_problem:
        text += f"; {clip(node_map.hyperpod_problem, 200)}"
    return FINDINGS.info(
        text,
        resources=[r.instance_id for r in shown if r.instance_id],
        **bounded(
            "rows",
            (
                {
                    "slurm_name": r.slurm_name or None,
                    "instance_id": r.instance_id or None,
                    "group": r.group or None,
                    "ip": r.ip or None,
                    "source": r.source or None,
                    "in_slurm": r.in_slurm,
                }
                for r in rows[:TABLE_ROWS]
            ),
            TABLE_ROWS,
            total=len(rows),
        ),
        sources=dict(sorted(sources.items())),
        described=node_map.described,
        notes=[clip(note) for note in node_map.notes],
    )


def _one_sided(rows: list[SlurmNodeRow], priority: Priority, one: str, many: str) -> list[Finding]:
    if len(rows) <= GROUP_ABOVE:
        return [
            FINDINGS.warn(
                priority,
                one.format(name=r.slurm_name, instance=r.instance_id, group=r.group or "?"),
                resources=[r.instance_id] if r.instance_id else [],
                slurm_name=r.slurm_name or None,
                instance_id=r.instance_id or None,
                group=r.group or None,
            )
            for r in rows
        ]
    labels = [r.slurm_name or r.instance_id for r in rows]
    return [
        FINDINGS.warn(
            priority,
            many.format(count=len(rows)) + f", e.g. {', '.join(labels[:5])}",
            resources=[r.instance_id for r in rows if r.instance_id][:SAMPLES],
            count=len(rows),
            samples=labels[:SAMPLES],
        )
    ]


def judge_node_map(node_map: SlurmNodeMap, focus: str | None = None) -> list[Finding]:
    """The table (INFO), then the nodes only one side knows (WARN)."""
    rows = list(node_map.rows)
    if focus is not None:
        rows = [r for r in rows if r.instance_id == focus]
        if not rows:
            return [FINDINGS.info(f"Node {focus} has no known Slurm node name", resources=[focus])]
    if not rows:
        return [FINDINGS.info("No Slurm node and no HyperPod node to map")]
    findings = [_table(node_map, rows)]
    if node_map.slurm_listed:
        # Only nodes whose name is known: a nameless node may well be in Slurm.
        missing = [
            r
            for r in rows
            if r.instance_id
            and r.slurm_name
            and not r.in_slurm
            and not NOT_COMPUTE_GROUP.search(r.group)
        ]
        findings.extend(
            _one_sided(
                missing,
                Priority.P1,
                "HyperPod node {instance} (group {group}) is not a Slurm node: sinfo does "
                "not list {name}, so it never receives jobs",
                "{count} HyperPod compute nodes are not Slurm nodes (sinfo does not list them)",
            )
        )
    if node_map.hyperpod_complete and node_map.undescribed == 0:
        orphans = [r for r in rows if r.in_slurm and not r.instance_id]
        findings.extend(
            _one_sided(
                orphans,
                Priority.P2,
                "Slurm node {name} has no HyperPod instance behind it (no node of the "
                "cluster has that host name or IP): a leftover that stays DOWN",
                "{count} Slurm nodes have no HyperPod instance behind them",
            )
        )
    return findings


@check(FINDINGS, title="Slurm node names and instance ids", orchestrators=("slurm",), scope="node")
def slurm_node_mapping(data: ClusterData) -> Iterable[Finding]:
    """The Slurm node name <-> instance id table, with where each mapping came from, and
    nodes that HyperPod runs but Slurm does not list (or the other way round)."""
    return with_source(judge_node_map(data.slurm_node_map(), data.target.node), data.slurm_source())
