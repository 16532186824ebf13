"""§ G.5: every Neuron device of a Trainium / Inferentia type is visible (`neuron-ls`)."""

from __future__ import annotations

from collections.abc import Iterable

from tools.checks._accel import could_not_read, judged_nodes, none_probed, read
from tools.findings import Finding, Findings, Priority
from tools.parsers.neuron import NeuronListing, parse_neuron_device_files, parse_neuron_ls
from tools.registry import check
from tools.remediation import Signal, advice, tagged
from tools.triage.data import ClusterData

CHECK_ID = "neuron-devices"
SECTION = "G.5"
FINDINGS = Findings(CHECK_ID, SECTION)


def judge_neuron_devices(
    instance_id: str,
    instance_type: str,
    expected: int,
    listing: NeuronListing,
    source: str = "neuron-ls",
) -> Finding:
    """FAIL P0 when neuron-ls (or, when it cannot be read, the driver's device files)
    shows fewer devices than the type carries."""
    where = f"{instance_id} ({instance_type})" if instance_type else instance_id
    visible = listing.count
    evidence = {
        "instance_type": instance_type,
        "expected": expected,
        "visible": visible,
        "devices": [d.index for d in listing.devices],
        "source": source,
    }
    if visible < expected:
        return FINDINGS.fail(
            Priority.P0,
            f"{where}: {visible} of {expected} Neuron devices visible to {source} — "
            f"{advice(Signal.ACCELERATOR_DEVICES_MISSING)}",
            resources=[instance_id],
            **evidence,
            **tagged(Signal.ACCELERATOR_DEVICES_MISSING),
        )
    if visible > expected:
        return FINDINGS.info(
            f"{where}: {visible} Neuron devices visible, more than the {expected} the type lists",
            resources=[instance_id],
            **evidence,
        )
    return FINDINGS.passed(
        f"{where}: {visible} of {expected} Neuron devices visible to {source}",
        resources=[instance_id],
        **evidence,
    )


@check(FINDINGS, title="Neuron device count", scope="node")
def neuron_devices(data: ClusterData) -> Iterable[Finding]:
    """Neuron devices from neuron-ls against the type's count on trn / inf nodes."""
    nodes = judged_nodes(data, lambda facts: facts.neuron_devices)
    if not nodes:
        return [none_probed(CHECK_ID, SECTION, "Neuron devices")]
    findings: list[Finding] = []
    for node, expected in nodes:
        probe = read(node, "neuron_devices")
        listing, source = parse_neuron_ls(probe.text or ""), "neuron-ls"
        if not listing.parsed:
            # neuron-ls missing or in an unknown format: the driver's device files still
            # say how many devices the node sees.
            files = read(node, "neuron_device_files")
            listing, source = parse_neuron_device_files(files.text or ""), "/dev/neuron*"
        if not listing.parsed or (source != "neuron-ls" and not listing.devices):
            findings.append(could_not_read(CHECK_ID, SECTION, node, "the Neuron devices", probe))
            continue
        findings.append(
            judge_neuron_devices(node.instance_id, node.instance_type, expected, listing, source)
        )
    return findings
