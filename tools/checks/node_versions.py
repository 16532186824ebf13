"""§ E: driver, CUDA, NCCL, EFA installer and aws-ofi-nccl versions per probed node, and
version drift between nodes (a node replaced onto another image, a partial update)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tools.checks._accel import read
from tools.findings import Finding, Priority, info, passed, warn
from tools.parsers.nvidia_smi import parse_row_remap
from tools.parsers.versions import (
    COMPONENT_LABELS,
    NodeVersions,
    parse_driver_version,
    parse_efa_packages,
    parse_kernel_release,
    parse_nccl_versions,
)
from tools.probes.model import NodeProbes
from tools.registry import check
from tools.triage.data import ClusterData

CHECK_ID = "node-versions"
SECTION = "E"


def node_versions(node: NodeProbes) -> NodeVersions:
    """The versions one node's probes show (None for what it does not have or print)."""
    remap = parse_row_remap(read(node, "gpu_row_remap").text or "")
    driver = parse_driver_version(read(node, "nvidia_driver").text or "") or remap.driver_version
    nccl = parse_nccl_versions(read(node, "nccl_libraries").text or "")
    efa = parse_efa_packages(read(node, "efa_packages").text or "")
    return NodeVersions(
        driver=driver,
        cuda=remap.cuda_version,
        nccl=", ".join(nccl) or None,
        efa_installer=efa.installer,
        ofi_nccl=efa.ofi_nccl,
        kernel=parse_kernel_release(read(node, "kernel_release").text or ""),
    )


def _summary(versions: NodeVersions) -> str:
    return ", ".join(
        f"{COMPONENT_LABELS[key]} {value}"
        for key, value in versions.as_dict().items()
        if value is not None
    )


# On EKS the training containers usually bring their own NCCL (in the image), so the
# libraries found on the host say little about what a job loads. Said where NCCL drift is
# judged; the per-node INFO keeps it in its evidence.
EKS_NCCL_NOTE = "; the NCCL is the host's, not necessarily the one containers use"


def judge_versions(per_node: Mapping[str, NodeVersions], eks: bool = False) -> list[Finding]:
    """One INFO per node with its versions; WARN P1 per component whose known values differ
    between nodes; PASS when several nodes agree on everything they report. `eks`: say that
    the host NCCL is not necessarily what containers use."""
    known = {node: v for node, v in per_node.items() if v.known}
    findings = [
        info(
            CHECK_ID,
            SECTION,
            f"{node} versions: {_summary(versions)}",
            resources=[node],
            **versions.as_dict(),
            **({"nccl_scope": "host"} if eks and versions.nccl else {}),
        )
        for node, versions in known.items()
    ]
    drifted = False
    for key, name in COMPONENT_LABELS.items():
        by_value: dict[str, list[str]] = {}
        for node, versions in known.items():
            value = versions.as_dict()[key]
            if value is not None:
                by_value.setdefault(value, []).append(node)
        if len(by_value) < 2:
            continue
        drifted = True
        listed = "; ".join(
            f"{value} on {', '.join(nodes)}" for value, nodes in sorted(by_value.items())
        )
        findings.append(
            warn(
                CHECK_ID,
                Priority.P1,
                SECTION,
                f"{name} version drift across probed nodes: {listed} — bring the odd nodes "
                "back to the cluster's image (replace them, or update the cluster software)"
                f"{EKS_NCCL_NOTE if eks and key == 'nccl' else ''}",
                resources=sorted({n for ns in by_value.values() for n in ns}),
                component=key,
                values=dict(sorted(by_value.items())),
            )
        )
    if len(known) > 1 and not drifted:
        findings.append(
            passed(
                CHECK_ID,
                SECTION,
                f"Versions match across {len(known)} probed nodes",
                resources=sorted(known),
            )
        )
    if not known:
        findings.append(
            info(CHECK_ID, SECTION, "No probed node reported driver, NCCL or EFA versions")
        )
    return findings


@check(CHECK_ID, section=SECTION, title="Software versions and drift", scope="node")
def versions(data: ClusterData) -> Iterable[Finding]:
    """Versions per node as INFO; WARN P1 when they differ between probed nodes."""
    per_node = {node.instance_id: node_versions(node) for node in data.reachable_nodes()}
    return judge_versions(per_node, eks=data.orchestrator == "eks")
