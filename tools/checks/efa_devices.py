"""§ A (node side): the efa kernel module, one verbs device per EFA interface, and
libfabric's EFA provider."""

from __future__ import annotations

from collections.abc import Iterable

from tools.checks._accel import could_not_read, judged_nodes, none_probed, read
from tools.findings import Finding, Findings, Priority
from tools.parsers.efa import (
    FiInfo,
    InfinibandDevices,
    Lsmod,
    parse_fi_info,
    parse_infiniband,
    parse_lsmod,
)
from tools.registry import check
from tools.text import clip, quoted
from tools.triage.data import ClusterData

CHECK_ID = "efa-devices"
SECTION = "A"
FINDINGS = Findings(CHECK_ID, SECTION)
_NODE_FAULT = "reboot the node, replace it if the fault remains"


def judge_efa(
    instance_id: str,
    instance_type: str,
    expected: int,
    modules: Lsmod | None,
    devices: InfinibandDevices | None,
    provider: FiInfo | None,
) -> list[Finding]:
    """FAILs P0 for a missing efa module, fewer uverbs devices than the type's EFA
    interfaces, or no EFA provider in libfabric; PASS when all three were read and fine.
    A None argument is a probe that could not be read (the caller reports it)."""
    where = f"{instance_id} ({instance_type})" if instance_type else instance_id
    findings: list[Finding] = []
    if modules is not None and not modules.efa_loaded:
        findings.append(
            FINDINGS.fail(
                Priority.P0,
                f"{where}: the efa kernel module is not loaded — {_NODE_FAULT}",
                resources=[instance_id],
                efa_loaded=False,
            )
        )
    if devices is not None and devices.count < expected:
        findings.append(
            FINDINGS.fail(
                Priority.P0,
                f"{where}: {devices.count} of {expected} EFA devices in /dev/infiniband"
                f"{' (directory missing)' if devices.missing else ''} — {_NODE_FAULT}",
                resources=[instance_id],
                expected=expected,
                visible=devices.count,
                uverbs=list(devices.uverbs),
            )
        )
    if provider is not None and not provider.efa_entries:
        reason = quoted(provider.error, 160) if provider.error else "no efa entry"
        findings.append(
            FINDINGS.fail(
                Priority.P0,
                f"{where}: libfabric offers no EFA provider (fi_info -p efa: {reason}) — "
                f"{_NODE_FAULT}",
                resources=[instance_id],
                fi_info_error=clip(provider.error) if provider.error else None,
                error_code=provider.error_code,
            )
        )
    if findings or modules is None or devices is None or provider is None:
        return findings
    return [
        FINDINGS.passed(
            f"{where}: efa module loaded, {devices.count} of {expected} EFA devices, "
            f"{len(provider.efa_devices)} in libfabric's EFA provider",
            resources=[instance_id],
            expected=expected,
            visible=devices.count,
            provider_devices=len(provider.efa_devices),
        )
    ]


@check(FINDINGS, title="EFA devices on the node", scope="node")
def efa_devices(data: ClusterData) -> Iterable[Finding]:
    """efa module, /dev/infiniband uverbs count against the type, fi_info -p efa."""
    nodes = judged_nodes(data, lambda facts: facts.efa_interfaces)
    if not nodes:
        return [none_probed(CHECK_ID, SECTION, "EFA interfaces")]
    findings: list[Finding] = []
    for node, expected in nodes:
        lsmod_probe = read(node, "efa_module")
        modules: Lsmod | None = parse_lsmod(lsmod_probe.text or "")
        if modules is not None and not modules.parsed:
            findings.append(
                could_not_read(CHECK_ID, SECTION, node, "the loaded kernel modules", lsmod_probe)
            )
            modules = None
        ib_probe = read(node, "efa_devices")
        devices: InfinibandDevices | None = parse_infiniband(ib_probe.text or "")
        if devices is not None and not devices.recognised:
            findings.append(could_not_read(CHECK_ID, SECTION, node, "/dev/infiniband", ib_probe))
            devices = None
        fi_probe = read(node, "efa_provider")
        provider: FiInfo | None = parse_fi_info(fi_probe.text or "")
        # Blocks or the fi_getinfo error are judgeable; anything else (no fi_info, a cut-off
        # session, an empty output) is not.
        if provider is not None and not (provider.entries or provider.error):
            findings.append(
                could_not_read(CHECK_ID, SECTION, node, "libfabric's EFA provider", fi_probe)
            )
            provider = None
        findings.extend(
            judge_efa(node.instance_id, node.instance_type, expected, modules, devices, provider)
        )
    return findings
