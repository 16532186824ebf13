"""§ A (node side): the efa kernel module, one verbs device per EFA interface, and
libfabric's EFA provider."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

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
from tools.remediation import Signal, advice
from tools.text import clip, quoted
from tools.triage.data import ClusterData

CHECK_ID = "efa-devices"
SECTION = "A"
FINDINGS = Findings(CHECK_ID, SECTION)
_NODE_FAULT = advice(Signal.ACCELERATOR_DEVICES_MISSING)


@dataclass(frozen=True, slots=True)
class EfaReads:
    """What was read of one node's EFA: None is a probe that could not be read."""

    instance_id: str
    instance_type: str
    expected: int  # the type's EFA interfaces
    modules: Lsmod | None
    devices: InfinibandDevices | None
    provider: FiInfo | None


@dataclass(frozen=True, slots=True)
class ModuleNotLoaded:
    """lsmod lists no efa module."""


@dataclass(frozen=True, slots=True)
class DevicesMissing:
    """Fewer uverbs devices in /dev/infiniband than the type's EFA interfaces."""

    devices: InfinibandDevices
    expected: int


@dataclass(frozen=True, slots=True)
class NoProvider:
    """libfabric lists no EFA provider (fi_info -p efa)."""

    provider: FiInfo


@dataclass(frozen=True, slots=True)
class EfaHealthy:
    """All three probes read, and none shows a fault."""

    visible: int  # uverbs devices
    expected: int
    provider_devices: int


EfaVerdict = ModuleNotLoaded | DevicesMissing | NoProvider | EfaHealthy


def efa_verdicts(reads: EfaReads) -> list[EfaVerdict]:
    """The rule: each fault among the probes that were read, in that order; healthy only
    when all three were read and none shows a fault; nothing when one was not read and the
    others are fine (the caller reports the unread probe)."""
    modules, devices, provider = reads.modules, reads.devices, reads.provider
    faults: list[EfaVerdict] = []
    if modules is not None and not modules.efa_loaded:
        faults.append(ModuleNotLoaded())
    if devices is not None and devices.count < reads.expected:
        faults.append(DevicesMissing(devices, reads.expected))
    if provider is not None and not provider.efa_entries:
        faults.append(NoProvider(provider))
    if faults or modules is None or devices is None or provider is None:
        return faults
    return [EfaHealthy(devices.count, reads.expected, len(provider.efa_devices))]


def word_efa(verdict: EfaVerdict, instance_id: str, instance_type: str) -> Finding:
    """The finding that states one verdict on the node's EFA (FAIL P0 for a fault)."""
    where = f"{instance_id} ({instance_type})" if instance_type else instance_id
    resources = [instance_id]
    if isinstance(verdict, ModuleNotLoaded):
        return FINDINGS.fail(
            Priority.P0,
            f"{where}: the efa kernel module is not loaded — {_NODE_FAULT}",
            resources=resources,
            efa_loaded=False,
        )
    if isinstance(verdict, DevicesMissing):
        devices = verdict.devices
        return FINDINGS.fail(
            Priority.P0,
            f"{where}: {devices.count} of {verdict.expected} EFA devices in /dev/infiniband"
            f"{' (directory missing)' if devices.missing else ''} — {_NODE_FAULT}",
            resources=resources,
            expected=verdict.expected,
            visible=devices.count,
            uverbs=list(devices.uverbs),
        )
    if isinstance(verdict, NoProvider):
        error = verdict.provider.error
        return FINDINGS.fail(
            Priority.P0,
            f"{where}: libfabric offers no EFA provider (fi_info -p efa: "
            f"{quoted(error, 160) if error else 'no efa entry'}) — {_NODE_FAULT}",
            resources=resources,
            fi_info_error=clip(error) if error else None,
            error_code=verdict.provider.error_code,
        )
    return FINDINGS.passed(
        f"{where}: efa module loaded, {verdict.visible} of {verdict.expected} EFA devices, "
        f"{verdict.provider_devices} in libfabric's EFA provider",
        resources=resources,
        expected=verdict.expected,
        visible=verdict.visible,
        provider_devices=verdict.provider_devices,
    )


def judge_efa(reads: EfaReads) -> list[Finding]:
    """FAILs P0 for a missing efa module, fewer uverbs devices than the type's EFA
    interfaces, or no EFA provider in libfabric; PASS when all three were read and fine.
    A None read is a probe that could not be read (the caller reports it)."""
    return [
        word_efa(verdict, reads.instance_id, reads.instance_type) for verdict in efa_verdicts(reads)
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
            judge_efa(
                EfaReads(node.instance_id, node.instance_type, expected, modules, devices, provider)
            )
        )
    return findings
