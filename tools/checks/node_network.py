"""The node's own network: the instance metadata service (§ B) and its ENA interfaces (§ A).

`node-imds`: the host asks IMDSv2 for a session token and reads its instance type with it.
No answer, a 403 (the endpoint is turned off or the request refused) or a 401 (tokens are
required and none could be had) is a WARN P1: the instance role's credentials, the VPC CNI
on EKS and the AWS CLI in lifecycle scripts all read IMDS. A token refused while IMDSv1
still answers is a WARN P2. The probe runs on the host, so the PUT response hop limit
(which only stops responses reaching containers) cannot be judged from it.

`node-nic`: ENA interfaces whose receive or transmit error counters are above zero (WARN
P2; the counters add up since boot, or since the driver last reset the interface), and
ENA interfaces that are down or have no IPv4 address where a peer node of the same group
and type has one on the interface of the same name (WARN P2). EFA-only interfaces have no
network device and no address by design and never appear here; an EFA interface coupled
with ENA shows as its ENA device. Whether an image addresses every secondary interface is
its own design, so an interface without an address on every probed peer is not flagged.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tools.checks._node_reads import healthy_summary, node_label, read_probe, unreadable
from tools.findings import Finding, Findings, Priority, Status
from tools.parsers.node_network import (
    COUNTERS,
    CURL_EXITS,
    ImdsAnswer,
    NetInterfaces,
    parse_imds,
    parse_net_interfaces,
)
from tools.probes.model import NodeProbes
from tools.registry import check
from tools.triage.data import ClusterData

IMDS_CHECK = "node-imds"
IMDS_SECTION = "B"
IMDS_FINDINGS = Findings(IMDS_CHECK, IMDS_SECTION)
NIC_CHECK = "node-nic"
NIC_SECTION = "A"
NIC_FINDINGS = Findings(NIC_CHECK, NIC_SECTION)
_HOP_NOTE = (
    "the probe runs on the host, where a PUT response hop limit of 1 is enough; pods "
    "without host networking need 2"
)


def _curl_step(exit_code: int | None, http: str | None) -> str:
    if exit_code and exit_code in CURL_EXITS:
        return f"curl exit {exit_code}, {CURL_EXITS[exit_code]}"
    if exit_code:
        return f"curl exit {exit_code}"
    return f"HTTP {http or '?'}"


def judge_imds(node: str, answer: ImdsAnswer, where: str = "") -> list[Finding]:
    """WARNs for an IMDS the host cannot read (P1) or can read only without a token (P2)."""
    evidence = {
        "token_curl_exit": answer.token_exit,
        "token_http": answer.token_http,
        "get_curl_exit": answer.get_exit,
        "get_http": answer.get_http,
        "instance_type": answer.instance_type,
    }
    token = _curl_step(answer.token_exit, answer.token_http)
    read = _curl_step(answer.get_exit, answer.get_http)
    if answer.token_ok and answer.read_ok:
        return []
    if answer.read_ok:
        return [
            IMDS_FINDINGS.warn(
                Priority.P2,
                f"{where or node}: IMDS answers without a token (IMDSv1) but the IMDSv2 "
                f"token request failed ({token}): something on the host blocks or rewrites "
                "the PUT (a firewall rule, a proxy); clients that require IMDSv2 get no "
                "credentials",
                resources=[node],
                **evidence,
            )
        ]
    if "403" in (answer.token_http, answer.get_http):
        cause = (
            "HTTP 403: the metadata endpoint is turned off for this instance (HttpEndpoint "
            "disabled) or the request was refused"
        )
    elif answer.get_http == "401":
        cause = (
            f"HTTP 401: IMDS requires a session token (IMDSv2) and the token request failed "
            f"({token})"
        )
    elif answer.get_http in (None, "", "000"):
        cause = (
            f"no answer (token: {token}; read: {read}): a local firewall rule (iptables) "
            "dropping 169.254.169.254, or the metadata endpoint turned off"
        )
    else:
        cause = f"token: {token}; read: {read}"
    return [
        IMDS_FINDINGS.warn(
            Priority.P1,
            f"{where or node}: the host cannot read instance metadata ({cause}) — the "
            "instance role's credentials, the VPC CNI on EKS and the AWS CLI depend on it "
            f"({_HOP_NOTE})",
            resources=[node],
            **evidence,
        )
    ]


@check(IMDS_FINDINGS, title="Instance metadata service", scope="node")
def node_imds(data: ClusterData) -> Iterable[Finding]:
    """IMDSv2 token and an instance-type read from each probed node's host."""
    findings: list[Finding] = []
    healthy: list[str] = []
    for node in data.reachable_nodes():
        read = read_probe(node, "imds")
        answer = parse_imds(read.text)
        if answer.not_installed or not answer.recognised or read.truncated:
            problem = "curl is not installed on the node" if answer.not_installed else None
            findings.append(
                unreadable(
                    IMDS_FINDINGS,
                    "the instance metadata service",
                    node,
                    problem or read.problem,
                    "imds",
                )
            )
            continue
        problems = judge_imds(node.instance_id, answer, node_label(node))
        findings += problems
        if not problems:
            healthy.append(node.instance_id)
    return findings + healthy_summary(
        IMDS_CHECK, IMDS_SECTION, "IMDSv2 answers on the host", healthy
    )


# -- ENA interfaces ----------------------------------------------------------------------------


def judge_nic_errors(
    instance_id: str, interfaces: NetInterfaces, uptime: str = "", where: str = ""
) -> list[Finding]:
    """WARN P2 naming every ENA interface with receive or transmit errors."""
    erring = [i for i in interfaces.interfaces if i.errors > 0]
    if not erring:
        return []
    parts = [
        f"{i.name}: {i.counters.get('rx_errors', 0):,} RX / {i.counters.get('tx_errors', 0):,} "
        f"TX errors in {i.counters.get('rx_packets', 0) + i.counters.get('tx_packets', 0):,} "
        "packets"
        for i in erring
    ]
    return [
        NIC_FINDINGS.warn(
            Priority.P2,
            f"{where or instance_id}: network errors on {len(erring)} ENA interface(s) "
            f"({'; '.join(parts)}). "
            "The counters add up since boot"
            + (f" ({uptime} ago)" if uptime else "")
            + ": read them again to see whether they still grow",
            resources=[instance_id],
            interfaces={i.name: {k: i.counters.get(k) for k in COUNTERS} for i in erring},
        )
    ]


def judge_unaddressed(
    instance_id: str,
    interfaces: NetInterfaces,
    peers: Sequence[tuple[str, NetInterfaces]],
    where: str = "",
) -> list[Finding]:
    """WARN P2 for ENA interfaces that are down or lack an IPv4 address where a peer of the
    same group and type has the same interface up with one; INFO when no peer was probed
    to tell the image's design from a fault."""
    lacking = [i for i in interfaces.interfaces if not (i.up and i.ipv4)]
    if not lacking:
        return []
    if not peers:
        names = ", ".join(f"{i.name} ({i.operstate or 'state ?'})" for i in lacking)
        return [
            NIC_FINDINGS.info(
                f"{where or instance_id}: ENA interface(s) down or without an IPv4 address: "
                f"{names}; no peer of the same group and type was probed to compare with",
                resources=[instance_id],
                interfaces=[i.name for i in lacking],
            )
        ]
    flagged: dict[str, list[str]] = {}
    for iface in lacking:
        having = [
            peer
            for peer, theirs in peers
            if any(t.name == iface.name and t.up and t.ipv4 for t in theirs.interfaces)
        ]
        if having:
            flagged[iface.name] = having
    if not flagged:
        return []
    by_name = {i.name: i for i in lacking}
    parts = [
        f"{name} ({'no IPv4 address' if by_name[name].up else f'link {by_name[name].operstate}'};"
        f" up with an address on {', '.join(sorted(having)[:3])})"
        for name, having in flagged.items()
    ]
    return [
        NIC_FINDINGS.warn(
            Priority.P2,
            f"{where or instance_id}: ENA interface(s) not configured as on their peers: "
            f"{'; '.join(parts)} — "
            "traffic routed through them (a socket bootstrap that names the interface, a "
            "mount) fails; the EFA data path does not use the address",
            resources=[instance_id],
            interfaces=sorted(flagged),
            peers={name: sorted(having) for name, having in flagged.items()},
        )
    ]


def _uptime(node: NodeProbes) -> str:
    output = node.output("uptime")
    if output is None or not output.finished:
        return ""
    try:
        seconds = float(output.stdout.split()[0])
    except (IndexError, ValueError):
        return ""
    days, rest = divmod(int(seconds), 86_400)
    return f"{days} d {rest // 3600} h" if days else f"{rest // 3600} h {rest % 3600 // 60} min"


@check(NIC_FINDINGS, title="ENA interfaces: errors and addresses", scope="node")
def node_nic(data: ClusterData) -> Iterable[Finding]:
    """ENA interface error counters, and interfaces left without an address unlike peers."""
    findings: list[Finding] = []
    parsed: dict[str, tuple[NodeProbes, NetInterfaces]] = {}
    for node in data.reachable_nodes():
        read = read_probe(node, "net_interfaces")
        interfaces = parse_net_interfaces(read.text)
        if not interfaces.recognised or read.truncated:
            findings.append(
                unreadable(
                    NIC_FINDINGS,
                    "the ENA interfaces",
                    node,
                    read.problem or (interfaces.errors[0] if interfaces.errors else None),
                    "net_interfaces",
                )
            )
            continue
        parsed[node.instance_id] = (node, interfaces)
    healthy: list[str] = []
    for instance_id, (node, interfaces) in parsed.items():
        peers = [
            (other_id, theirs)
            for other_id, (other, theirs) in parsed.items()
            if other_id != instance_id
            and other.group == node.group
            and other.instance_type == node.instance_type
        ]
        where = node_label(node)
        problems = judge_nic_errors(instance_id, interfaces, _uptime(node), where)
        problems += judge_unaddressed(instance_id, interfaces, peers, where)
        findings += problems
        if all(p.status == Status.INFO for p in problems):
            healthy.append(instance_id)
    return findings + healthy_summary(
        NIC_CHECK,
        NIC_SECTION,
        "ENA interfaces without errors and addressed like their peers",
        healthy,
    )
