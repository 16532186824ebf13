"""§ I.2: OOM kills in the kernel log, low available memory, and EFA huge pages.

A node OOM kill in the current boot ("Out of memory: Killed process") is a FAIL P1: the node
ran out of memory and the kernel ended a process of the job or of the node's own agents. A
memory cgroup's kill ("Memory cgroup out of memory: Killed process") is different: a
container, pod or job reached its own memory limit, and the kernel's cgroup OOM path fires
whatever the node has free. On a node with plenty of memory available (at least
PLENTY_AVAILABLE_PCT of MemTotal) it is a fact about the workload, reported as WARN P2 that
names the process and points at its limit, never at the node. When the node is also short
of memory, or its memory could not be read, the kill is WARN P1: check the node's use
before raising the limit. The one cgroup kill that is a node matter is one whose limiting
cgroup is the kubelet's root for all pods (`oom_memcg=/kubepods`, `/kubepods.slice`): the
pods together reached the node's allocatable memory, a FAIL P1 like a node OOM kill.

A kill in the previous boot is history, reported as INFO, since the reboot has cleared the
memory that caused it. On EFA nodes the FI_EFA_USE_HUGE_PAGE=0 hint goes with node OOM kills
and with exhausted huge pages, because fork() of a process holding huge-page-backed EFA
buffers fails with ENOMEM even when `free` shows room; a cgroup kill gets it only when the
huge pages are exhausted too.

The rules (`memory_verdicts`, `cgroup_kills`) decide typed verdicts; `word` alone writes
their findings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from tools.checks._node_reads import healthy_summary, read_kernel_log, read_probe, unreadable
from tools.findings import Finding, Findings, Priority
from tools.parsers.kernel_log import KernelEvent, KernelEventKind, KernelLog
from tools.parsers.meminfo import MemInfo, parse_meminfo
from tools.registry import check
from tools.text import clip
from tools.triage.data import ClusterData

CHECK_ID = "node-memory"
FINDINGS = Findings(CHECK_ID, "I.2")
LOW_AVAILABLE_PCT = 5.0
# "Plenty" of memory for judging a cgroup kill: four times the low-memory floor. At a fifth
# of MemTotal still available the node is far from the global OOM killer, which only runs
# when reclaim fails system-wide; MemAvailable is read after the kill, so a wide margin
# keeps a node that was briefly short from passing as roomy.
PLENTY_AVAILABLE_PCT = 20.0
# The limiting cgroup of a memory cgroup kill, from the kernel's constraint line
# ("oom-kill:constraint=CONSTRAINT_MEMCG,...,oom_memcg=/kubepods/burstable/pod7f3e,...").
_OOM_MEMCG = re.compile(r"\boom_memcg=(?P<path>[^,\s]{1,300})")
# The kubelet parents every pod under one cgroup ("kubepods", a systemd slice on cgroup
# v2 with the systemd driver) whose limit is the node's allocatable memory.
POD_ROOT_CGROUPS = frozenset({"/kubepods", "/kubepods.slice"})
NAMED_KILLS = 5  # victims named in a message; the evidence keeps all of them
EFA_HINT = (
    "on EFA nodes, forks that fail with ENOMEM are avoided with FI_EFA_USE_HUGE_PAGE=0 in "
    "the job environment"
)


def oom_victims(
    log: KernelLog, kind: KernelEventKind = KernelEventKind.OOM_KILL
) -> list[KernelEvent]:
    """Each process the OOM killer ended, once (older kernels print the kill twice); `kind`
    chooses node kills (OOM_KILL) or memory cgroup kills (CGROUP_OOM_KILL)."""
    seen: dict[tuple[int | None, str | None], KernelEvent] = {}
    for event in log.of_kind(kind):
        seen.setdefault((event.pid, event.process), event)
    return list(seen.values())


def cgroup_victims(log: KernelLog) -> list[KernelEvent]:
    return oom_victims(log, KernelEventKind.CGROUP_OOM_KILL)


def limiting_cgroups(log: KernelLog) -> list[str]:
    """The `oom_memcg` paths of this log's memory cgroup kills, in order, once each."""
    paths: list[str] = []
    for event in log.of_kind(KernelEventKind.OOM):
        match = _OOM_MEMCG.search(event.message)
        if match is not None and match["path"] not in paths:
            paths.append(match["path"])
    return paths


def memory_is_plenty(meminfo: MemInfo | None) -> bool:
    """MemAvailable is at least PLENTY_AVAILABLE_PCT of MemTotal (False when unknown)."""
    pct = meminfo.available_pct if meminfo is not None else None
    return pct is not None and pct >= PLENTY_AVAILABLE_PCT


class KillScope(Enum):
    """Whose memory ran out: the whole node's, or one memory cgroup's."""

    NODE = "node"
    CGROUP = "cgroup"


class CgroupLimit(Enum):
    """Which limit a memory cgroup kill hit, and how the node stood."""

    PODS_ROOT = "pods root"  # every pod together reached the node's allocatable memory
    PLENTY = "plenty"  # one workload's own limit, on a node with plenty available
    SHORT = "short"  # one workload's own limit, on a node short of memory (or unread)


@dataclass(frozen=True, slots=True)
class NodeKills:
    """This boot's node OOM kills; `efa_hint` when the node has EFA."""

    victims: tuple[KernelEvent, ...]
    efa_hint: bool


@dataclass(frozen=True, slots=True)
class CgroupKills:
    """This boot's memory cgroup kills; `efa_hint` when EFA huge pages are exhausted too."""

    victims: tuple[KernelEvent, ...]
    limiting_cgroups: tuple[str, ...]
    limit: CgroupLimit
    available_pct: float | None
    efa_hint: bool = False


@dataclass(frozen=True, slots=True)
class EarlierKills:
    """The previous boot's OOM kills of one scope: history the reboot cleared."""

    scope: KillScope
    victims: tuple[KernelEvent, ...]


@dataclass(frozen=True, slots=True)
class LowMemory:
    """MemAvailable below LOW_AVAILABLE_PCT of MemTotal."""

    available_pct: float
    mem_total_kib: int | None
    mem_available_kib: int | None


@dataclass(frozen=True, slots=True)
class HugePagesExhausted:
    """Every huge page of an EFA node in use, with no OOM kill to explain it."""

    total: int | None
    free: int | None
    page_size_kib: int | None


MemoryVerdict = NodeKills | CgroupKills | EarlierKills | LowMemory | HugePagesExhausted


def cgroup_kills(
    victims: Sequence[KernelEvent],
    cgroups: Sequence[str],
    meminfo: MemInfo | None,
    efa_hint: bool = False,
) -> CgroupKills:
    """Decide which limit this boot's memory cgroup kills hit: the pods' root cgroup is the
    node's allocatable memory; any other is a workload's own, on a node with plenty of
    memory or not."""
    if any(c in POD_ROOT_CGROUPS for c in cgroups):
        limit = CgroupLimit.PODS_ROOT
    elif memory_is_plenty(meminfo):
        limit = CgroupLimit.PLENTY
    else:
        limit = CgroupLimit.SHORT
    return CgroupKills(
        victims=tuple(victims),
        limiting_cgroups=tuple(cgroups),
        limit=limit,
        available_pct=meminfo.available_pct if meminfo is not None else None,
        efa_hint=efa_hint,
    )


def earlier_kills(previous: KernelLog | None) -> list[EarlierKills]:
    """The previous boot's node kills, then its memory cgroup kills, where there were any."""
    if previous is None:
        return []
    kills = [
        EarlierKills(KillScope.NODE, tuple(oom_victims(previous))),
        EarlierKills(KillScope.CGROUP, tuple(cgroup_victims(previous))),
    ]
    return [k for k in kills if k.victims]


def low_memory(meminfo: MemInfo | None) -> LowMemory | None:
    """LowMemory when MemAvailable is below LOW_AVAILABLE_PCT of MemTotal."""
    pct = meminfo.available_pct if meminfo is not None else None
    if meminfo is None or pct is None or pct >= LOW_AVAILABLE_PCT:
        return None
    return LowMemory(pct, meminfo.mem_total_kib, meminfo.mem_available_kib)


def memory_verdicts(
    meminfo: MemInfo | None,
    current: KernelLog | None,
    previous: KernelLog | None,
    efa: bool,
) -> list[MemoryVerdict]:
    """Every problem of one node's memory, in report order; None inputs were not readable."""
    exhausted = meminfo is not None and meminfo.hugepages_exhausted
    verdicts: list[MemoryVerdict] = []
    victims = oom_victims(current) if current is not None else []
    if victims:
        verdicts.append(NodeKills(tuple(victims), efa_hint=efa))
    limited = cgroup_victims(current) if current is not None else []
    if limited and current is not None:
        # The EFA fork case shows as exhausted huge pages; without it the limit is the cause.
        verdicts.append(
            cgroup_kills(limited, limiting_cgroups(current), meminfo, efa_hint=efa and exhausted)
        )
    verdicts += earlier_kills(previous)
    low = low_memory(meminfo)
    if low is not None:
        verdicts.append(low)
    if efa and exhausted and meminfo is not None and not (victims or limited):
        verdicts.append(
            HugePagesExhausted(
                meminfo.hugepages_total, meminfo.hugepages_free, meminfo.hugepage_size_kib
            )
        )
    return verdicts


# -- words ------------------------------------------------------------------------------


def _victim_list(victims: Sequence[KernelEvent]) -> str:
    # Process names come from the node's log: clipped like any quoted cluster text.
    named = [f"{clip(v.process or '?', 40)} (pid {v.pid})" for v in victims[:NAMED_KILLS]]
    more = len(victims) - len(named)
    return ", ".join(named) + (f" and {more} more" if more > 0 else "")


def _victim_evidence(victims: Sequence[KernelEvent]) -> list[dict[str, object]]:
    return [
        {"process": clip(v.process, 80) if v.process else None, "pid": v.pid, "time": v.timestamp}
        for v in victims
    ]


def _hint(efa_hint: bool) -> str:
    return f"; {EFA_HINT}" if efa_hint else ""


def _word_cgroup_kills(node: str, kills: CgroupKills, hint: str) -> Finding:
    victims, cgroups, pct = kills.victims, kills.limiting_cgroups, kills.available_pct
    evidence: dict[str, object] = {
        "boot": "current",
        "scope": "cgroup",
        "kills": len(victims),
        "victims": _victim_evidence(victims),
        "lines": [clip(v.message) for v in victims[:NAMED_KILLS]],
        "limiting_cgroups": [clip(c, 120) for c in cgroups[:NAMED_KILLS]],
        "available_pct": round(pct, 2) if pct is not None else None,
    }
    ended = f"{len(victims)} process(es): {_victim_list(victims)}"
    if kills.limit is CgroupLimit.PODS_ROOT:
        return FINDINGS.fail(
            Priority.P1,
            f"The pods on {node} together reached the memory Kubernetes allots to pods (the "
            f"kubepods cgroup) in this boot and the kernel ended {ended} — compare the pods' "
            f"memory requests and limits with the node's allocatable memory{hint}",
            resources=[node],
            workload=False,
            **evidence,
        )
    if kills.limit is CgroupLimit.PLENTY:
        return FINDINGS.warn(
            Priority.P2,
            f"Workload signal, not a node fault: a container or job on {node} reached its own "
            f"memory limit in this boot and its memory cgroup ended {ended}, while the node "
            f"has {pct:.0f} % of its memory available — raise that container's or job's "
            f"memory limit, or lower its use{hint}",
            resources=[node],
            workload=True,
            **evidence,
        )
    state = (
        f"only {pct:.1f} % of the node's memory is available"
        if pct is not None
        else "the node's available memory could not be read"
    )
    return FINDINGS.warn(
        Priority.P1,
        f"A container or job on {node} reached its own memory limit in this boot and its "
        f"memory cgroup ended {ended}; {state}, so check what uses the node's memory before "
        f"raising the limit{hint}",
        resources=[node],
        workload=True,
        **evidence,
    )


def _word_node_kills(node: str, kills: NodeKills) -> Finding:
    victims = kills.victims
    return FINDINGS.fail(
        Priority.P1,
        f"The OOM killer ended {len(victims)} process(es) on {node} in this boot: "
        f"{_victim_list(victims)}{_hint(kills.efa_hint)}",
        resources=[node],
        boot="current",
        scope="node",
        kills=len(victims),
        victims=_victim_evidence(victims),
        lines=[clip(v.message) for v in victims[:NAMED_KILLS]],
    )


def _word_earlier_kills(node: str, kills: EarlierKills) -> Finding:
    who = "The OOM killer" if kills.scope is KillScope.NODE else "The memory cgroup OOM killer"
    return FINDINGS.info(
        f"{who} ended {len(kills.victims)} process(es) on {node} in the previous "
        f"boot: {_victim_list(kills.victims)}",
        resources=[node],
        boot="previous",
        scope=kills.scope.value,
        kills=len(kills.victims),
        victims=_victim_evidence(kills.victims),
    )


def _word_low_memory(node: str, low: LowMemory) -> Finding:
    return FINDINGS.warn(
        Priority.P1,
        f"Only {low.available_pct:.1f} % of memory is available on {node} "
        f"({low.mem_available_kib} of {low.mem_total_kib} KiB, below "
        f"{LOW_AVAILABLE_PCT:g} %)",
        resources=[node],
        mem_total_kib=low.mem_total_kib,
        mem_available_kib=low.mem_available_kib,
        available_pct=round(low.available_pct, 2),
    )


def _word_huge_pages(node: str, pages: HugePagesExhausted) -> Finding:
    return FINDINGS.warn(
        Priority.P2,
        f"All {pages.total} huge pages of {node} are in use; {EFA_HINT}",
        resources=[node],
        hugepages_total=pages.total,
        hugepages_free=pages.free,
        hugepage_size_kib=pages.page_size_kib,
    )


def word(node: str, verdict: MemoryVerdict) -> Finding:
    """The finding of one memory verdict on `node` (its instance id)."""
    match verdict:
        case NodeKills():
            return _word_node_kills(node, verdict)
        case CgroupKills():
            return _word_cgroup_kills(node, verdict, _hint(verdict.efa_hint))
        case EarlierKills():
            return _word_earlier_kills(node, verdict)
        case LowMemory():
            return _word_low_memory(node, verdict)
        case HugePagesExhausted():
            return _word_huge_pages(node, verdict)


def judge_cgroup_kills(
    node: str,
    victims: list[KernelEvent],
    cgroups: list[str],
    meminfo: MemInfo | None,
    hint: str = "",
) -> Finding:
    """One finding for this boot's memory cgroup kills on `node`: a workload signal (WARN
    P2 with plenty of memory, P1 without) unless the limit was the pods' root cgroup."""
    return _word_cgroup_kills(node, cgroup_kills(victims, cgroups, meminfo), hint)


def judge_memory(
    node: str,
    meminfo: MemInfo | None,
    current: KernelLog | None,
    previous: KernelLog | None,
    efa: bool,
) -> list[Finding]:
    """Problems of one node (`node` is its instance id); None inputs were not readable."""
    return [word(node, v) for v in memory_verdicts(meminfo, current, previous, efa)]


@check(FINDINGS, title="Memory and OOM kills", scope="node")
def node_memory(data: ClusterData) -> Iterable[Finding]:
    """OOM kills in the kernel log, MemAvailable below 5 %, EFA huge pages exhausted."""
    findings: list[Finding] = []
    healthy: list[str] = []
    for node in data.reachable_nodes():
        read = read_probe(node, "meminfo")
        meminfo: MemInfo | None = parse_meminfo(read.text)
        if meminfo is not None and meminfo.mem_total_kib is None:
            findings.append(unreadable(FINDINGS, "memory", node, read.problem, "meminfo"))
            meminfo = None
        current = read_kernel_log(node, "kernel_log", CHECK_ID, "I.2", findings)
        # The previous boot's log is history: node-kernel reports when it cannot be read.
        previous = read_kernel_log(node, "kernel_log_previous_boot", CHECK_ID, "I.2", None)
        facts = data.instance_facts(node.instance_type) if node.instance_type else None
        efa = bool(facts and facts.efa_interfaces)
        problems = judge_memory(node.instance_id, meminfo, current, previous, efa)
        findings += problems
        if meminfo is not None and current is not None and not problems:
            healthy.append(node.instance_id)
    return findings + healthy_summary(
        CHECK_ID, "I.2", "No OOM kill and enough available memory", healthy
    )
