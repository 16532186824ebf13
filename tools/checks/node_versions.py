"""§ E: driver, CUDA, NCCL, EFA installer and aws-ofi-nccl versions per probed node, and
version drift between nodes (a node replaced onto another image, a partial update); and
(`efa-software`) an EFA installer or aws-ofi-nccl plugin missing from a node that needs it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from tools.checks._accel import ProbeText, could_not_read, judged_nodes, label, none_probed, read
from tools.findings import Finding, Findings, Priority
from tools.parsers.efa import parse_ofi_nccl_plugin
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
from tools.remediation import Signal, advice, tagged
from tools.triage.data import ClusterData

CHECK_ID = "node-versions"
SECTION = "E"
FINDINGS = Findings(CHECK_ID, SECTION)


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
        FINDINGS.info(
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
            FINDINGS.warn(
                Priority.P1,
                f"{name} version drift across probed nodes: {listed} — "
                f"{advice(Signal.IMAGE_DRIFT)}"
                f"{EKS_NCCL_NOTE if eks and key == 'nccl' else ''}",
                resources=sorted({n for ns in by_value.values() for n in ns}),
                component=key,
                values=dict(sorted(by_value.items())),
                **tagged(Signal.IMAGE_DRIFT),
            )
        )
    if len(known) > 1 and not drifted:
        findings.append(
            FINDINGS.passed(
                f"Versions match across {len(known)} probed nodes", resources=sorted(known)
            )
        )
    if not known:
        findings.append(FINDINGS.info("No probed node reported driver, NCCL or EFA versions"))
    return findings


@check(FINDINGS, title="Software versions and drift", scope="node")
def versions(data: ClusterData) -> Iterable[Finding]:
    """Versions per node as INFO; WARN P1 when they differ between probed nodes."""
    per_node = {node.instance_id: node_versions(node) for node in data.reachable_nodes()}
    return judge_versions(per_node, eks=data.orchestrator == "eks")


# -- EFA installer and aws-ofi-nccl present where they are needed ------------------------------

SOFTWARE_CHECK = "efa-software"
SOFTWARE_FINDINGS = Findings(SOFTWARE_CHECK, SECTION)
_NO_FILE = "no such file or directory"


@dataclass(frozen=True)
class EfaSoftware:
    """What one EFA node shows of the EFA installer and the aws-ofi-nccl plugin (None:
    the probe could not be read)."""

    installer: str | None  # version, or "" when the installer's marker file is missing
    plugin: tuple[str, ...] | None  # plugin libraries found, or package-listed versions


def efa_software(node: NodeProbes) -> tuple[EfaSoftware, list[ProbeText]]:
    """The node's EFA installer and plugin, and the probes that could not be read."""
    unread: list[ProbeText] = []
    packages_probe = read(node, "efa_packages")
    installer: str | None = None
    listed_plugin: str | None = None
    if packages_probe.text is not None:
        packages = parse_efa_packages(packages_probe.text)
        listed_plugin = packages.ofi_nccl
        if packages.installer:
            installer = packages.installer
        elif _NO_FILE in packages_probe.text.lower():
            installer = ""
    if installer is None:
        unread.append(packages_probe)
    plugin_probe = read(node, "ofi_nccl_plugin")
    plugin: tuple[str, ...] | None = None
    if plugin_probe.text is not None:
        found = parse_ofi_nccl_plugin(plugin_probe.text)
        if not found.unexpected:
            plugin = found.net_plugin
    if listed_plugin:
        plugin = (*(plugin or ()), f"aws-ofi-nccl {listed_plugin} (efa_installed_packages)")
    elif plugin is None:
        unread.append(plugin_probe)
    return EfaSoftware(installer, plugin), unread


def judge_efa_software(
    instance_id: str, where: str, software: EfaSoftware, *, gpus: bool, eks: bool
) -> list[Finding]:
    """WARN for a missing EFA installer (P1 on Slurm, where jobs use the host's libfabric;
    P2 on EKS) and, on GPU nodes, a missing aws-ofi-nccl plugin (P1 on Slurm; INFO on EKS,
    where the training image normally brings its own)."""
    findings: list[Finding] = []
    if software.installer == "":
        findings.append(
            SOFTWARE_FINDINGS.warn(
                Priority.P2 if eks else Priority.P1,
                f"{where}: the EFA installer's marker /opt/amazon/efa_installed_packages is "
                "missing: the EFA user-space stack (libfabric, fi_info) was not installed by "
                "the EFA installer, or the node is not on the cluster's image"
                + ("; pods bring their own libfabric" if eks else ""),
                resources=[instance_id],
                efa_installer=None,
            )
        )
    if gpus and software.plugin == ():
        text = (
            f"{where}: no aws-ofi-nccl plugin (libnccl-net*.so) on the host and none listed "
            "by the EFA installer"
        )
        if eks:
            findings.append(
                SOFTWARE_FINDINGS.info(
                    text + ": containers that mount the host's plugin fall back to sockets; "
                    "images that bring their own are unaffected",
                    resources=[instance_id],
                    ofi_nccl=None,
                )
            )
        else:
            findings.append(
                SOFTWARE_FINDINGS.warn(
                    Priority.P1,
                    text + ": NCCL cannot use EFA and falls back to TCP sockets ('Using "
                    "network Socket' in an NCCL_DEBUG=INFO log)",
                    resources=[instance_id],
                    ofi_nccl=None,
                )
            )
    return findings


@check(SOFTWARE_FINDINGS, title="EFA installer and aws-ofi-nccl", scope="node")
def efa_software_check(data: ClusterData) -> Iterable[Finding]:
    """The EFA installer's marker on EFA nodes; the aws-ofi-nccl plugin on GPU EFA nodes."""
    nodes = judged_nodes(data, lambda facts: facts.efa_interfaces)
    if not nodes:
        return [none_probed(SOFTWARE_CHECK, SECTION, "EFA interfaces")]
    eks = data.orchestrator == "eks"
    findings: list[Finding] = []
    healthy: list[str] = []
    for node, _ in nodes:
        gpus = data.instance_facts(node.instance_type).gpus > 0
        software, unread = efa_software(node)
        # Only GPU nodes load NCCL: the plugin probe is not judged elsewhere.
        unread = [p for p in unread if gpus or p.name != "ofi_nccl_plugin"]
        for probe in unread:
            what = "the EFA installer" if probe.name == "efa_packages" else "aws-ofi-nccl"
            findings.append(could_not_read(SOFTWARE_CHECK, SECTION, node, what, probe))
        problems = judge_efa_software(node.instance_id, label(node), software, gpus=gpus, eks=eks)
        findings += problems
        if not problems and not unread:
            healthy.append(node.instance_id)
    if healthy:
        findings.append(
            SOFTWARE_FINDINGS.passed(
                f"EFA installer (and aws-ofi-nccl on GPU nodes) present on {len(healthy)} "
                f"node(s): {', '.join(healthy)}",
                resources=healthy,
            )
        )
    return findings
