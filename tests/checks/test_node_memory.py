"""§ I.2 node-memory: OOM kills, low available memory, EFA huge pages and the hint."""

from __future__ import annotations

from cluster_simulator.node_samples import system
from tools.checks.node_memory import (
    CHECK_ID,
    CgroupKills,
    CgroupLimit,
    EarlierKills,
    HugePagesExhausted,
    KillScope,
    LowMemory,
    NodeKills,
    cgroup_kills,
    judge_memory,
    memory_verdicts,
    node_memory,
    oom_victims,
)
from tools.findings import Priority, Status
from tools.parsers.kernel_log import KernelEvent, KernelEventKind, KernelLog, parse_kernel_log
from tools.parsers.meminfo import MemInfo, parse_meminfo
from tools.probes.model import ProbeOutput

from ._node_data import CPU_NODE, GPU_NODE, assert_well_formed, cpu_node, node, node_data, statuses

HEALTHY = parse_meminfo(system.meminfo())


def oom_log(*victims: tuple[str, int]) -> str:
    lines: list[str] = []
    for name, pid in victims:
        lines += [system.oom_invoked_line(name, pid), system.oom_kill_line(name, pid)]
    return system.kernel_log(lines)


def test_oom_kills_fail_p1_naming_the_victims_and_count() -> None:
    log = parse_kernel_log(oom_log(("python", 101), ("pt_data_worker", 102)))
    [finding] = judge_memory("i-1", HEALTHY, log, None, efa=False)
    assert (finding.status, finding.priority, finding.section) == (Status.FAIL, Priority.P1, "I.2")
    assert finding.check == CHECK_ID
    assert "2 process(es)" in finding.message
    assert "python (pid 101), pt_data_worker (pid 102)" in finding.message
    assert "FI_EFA_USE_HUGE_PAGE" not in finding.message
    assert finding.evidence["kills"] == 2
    assert finding.evidence["boot"] == "current"
    assert_well_formed([finding])


def test_kill_printed_twice_by_older_kernels_counts_once() -> None:
    text = system.kernel_log(
        [
            "Out of memory: Kill process 7 (java) score 900 or sacrifice child",
            "Killed process 7 (java) total-vm:10kB, anon-rss:5kB, file-rss:0kB",
            "Killed process 7 (java) total-vm:10kB, anon-rss:5kB, file-rss:0kB",
        ]
    )
    assert len(oom_victims(parse_kernel_log(text))) == 1


def test_many_victims_are_summarised() -> None:
    log = parse_kernel_log(oom_log(*[(f"worker{i}", i) for i in range(8)]))
    [finding] = judge_memory("i-1", HEALTHY, log, None, efa=False)
    assert "and 3 more" in finding.message
    assert len(finding.evidence["victims"]) == 8


def test_efa_node_gets_the_huge_page_hint_with_oom() -> None:
    log = parse_kernel_log(oom_log(("python", 1)))
    [finding] = judge_memory("i-1", HEALTHY, log, None, efa=True)
    assert "FI_EFA_USE_HUGE_PAGE=0" in finding.message


def test_exhausted_huge_pages_on_efa_warn_p2_with_the_hint() -> None:
    info = parse_meminfo(system.meminfo(hugepages_total=5128, hugepages_free=0))
    [finding] = judge_memory("i-1", info, parse_kernel_log(""), None, efa=True)
    assert (finding.status, finding.priority) == (Status.WARN, Priority.P2)
    assert "5128 huge pages" in finding.message
    assert "FI_EFA_USE_HUGE_PAGE=0" in finding.message
    assert judge_memory("i-1", info, parse_kernel_log(""), None, efa=False) == []
    free = parse_meminfo(system.meminfo(hugepages_total=5128, hugepages_free=12))
    assert judge_memory("i-1", free, parse_kernel_log(""), None, efa=True) == []


def test_low_available_memory_warns_p1() -> None:
    low = parse_meminfo(system.meminfo(total_kib=1_000_000, available_kib=40_000))
    [finding] = judge_memory("i-1", low, None, None, efa=False)
    assert (finding.status, finding.priority) == (Status.WARN, Priority.P1)
    assert "4.0 %" in finding.message
    enough = parse_meminfo(system.meminfo(total_kib=1_000_000, available_kib=50_000))
    assert judge_memory("i-1", enough, None, None, efa=False) == []


def test_previous_boot_kills_are_history() -> None:
    previous = parse_kernel_log(
        system.kernel_log_previous_boot([system.oom_kill_line("python", 9)])
    )
    [finding] = judge_memory("i-1", HEALTHY, parse_kernel_log(""), previous, efa=False)
    assert finding.status is Status.INFO
    assert "previous boot" in finding.message
    assert finding.evidence["boot"] == "previous"


def test_registered_check() -> None:
    data = node_data(
        node(GPU_NODE, kernel_log=oom_log(("python", 4242))),
        cpu_node(meminfo=system.meminfo(total_kib=32_000_000, available_kib=320_000)),
    )
    findings = list(node_memory(data))
    assert [(f.status, f.resources) for f in findings] == [
        (Status.FAIL, [GPU_NODE]),
        (Status.WARN, [CPU_NODE]),
    ]
    # The p5 has EFA (DescribeInstanceTypes): the hint is there; the m5 has none.
    assert "FI_EFA_USE_HUGE_PAGE=0" in findings[0].message
    assert_well_formed(findings)


def test_registered_check_healthy_and_unreadable() -> None:
    data = node_data(
        node(GPU_NODE),
        cpu_node(
            meminfo=ProbeOutput(stdout="", exit_code=None, truncated=True),
            kernel_log=ProbeOutput(stdout="", exit_code=2),
        ),
    )
    findings = list(node_memory(data))
    assert statuses(findings) == [Status.INFO, Status.INFO, Status.PASS]
    assert "Could not read memory on" in findings[0].message
    assert "Could not read the kernel log on" in findings[1].message
    assert findings[2].resources == [GPU_NODE]


def cgroup_oom_log(name: str, pid: int) -> str:
    return system.kernel_log(
        [
            f"{name} invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=985",
            "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=cri-containerd-1a2b,"
            "mems_allowed=0-1,oom_memcg=/kubepods/burstable/pod7f3e,"
            f"task_memcg=/kubepods/burstable/pod7f3e/1a2b,task={name},pid={pid},uid=0",
            f"Memory cgroup out of memory: Killed process {pid} ({name}) total-vm:9876543kB, "
            "anon-rss:8765432kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:17123kB "
            "oom_score_adj:985",
        ]
    )


def test_cgroup_oom_kill_with_plenty_of_memory_is_a_workload_warning() -> None:
    log = parse_kernel_log(cgroup_oom_log("python", 4242))
    [finding] = judge_memory("i-1", HEALTHY, log, None, efa=True)
    assert (finding.status, finding.priority, finding.section) == (Status.WARN, Priority.P2, "I.2")
    assert finding.message.startswith("Workload signal, not a node fault")
    assert "reached its own memory limit" in finding.message
    assert "93 % of its memory available" in finding.message
    assert not any(word in finding.message for word in ("reboot", "replace"))
    assert "python (pid 4242)" in finding.message
    assert "The OOM killer ended" not in finding.message
    # An EFA node, but its huge pages are not exhausted: not the fork case.
    assert "FI_EFA_USE_HUGE_PAGE" not in finding.message
    assert finding.evidence["scope"] == "cgroup"
    assert finding.evidence["workload"] is True
    assert finding.evidence["limiting_cgroups"] == ["/kubepods/burstable/pod7f3e"]
    assert_well_formed([finding])


def test_cgroup_oom_kill_on_a_node_short_of_memory_warns_p1() -> None:
    log = parse_kernel_log(cgroup_oom_log("python", 4242))
    tight = parse_meminfo(system.meminfo(total_kib=1_000_000, available_kib=150_000))
    [finding] = judge_memory("i-1", tight, log, None, efa=False)
    assert (finding.status, finding.priority) == (Status.WARN, Priority.P1)
    assert "only 15.0 % of the node's memory is available" in finding.message
    # Unreadable meminfo is not taken for plenty either.
    [unknown] = judge_memory("i-1", None, log, None, efa=False)
    assert (unknown.status, unknown.priority) == (Status.WARN, Priority.P1)
    assert "could not be read" in unknown.message


def test_plenty_starts_at_a_fifth_of_memory_available() -> None:
    log = parse_kernel_log(cgroup_oom_log("python", 4242))
    at_floor = parse_meminfo(system.meminfo(total_kib=1_000_000, available_kib=200_000))
    below = parse_meminfo(system.meminfo(total_kib=1_000_000, available_kib=199_000))
    assert judge_memory("i-1", at_floor, log, None, efa=False)[0].priority is Priority.P2
    assert judge_memory("i-1", below, log, None, efa=False)[0].priority is Priority.P1


def test_kill_at_the_pods_root_cgroup_is_a_node_matter() -> None:
    text = cgroup_oom_log("python", 4242).replace(
        "oom_memcg=/kubepods/burstable/pod7f3e", "oom_memcg=/kubepods.slice"
    )
    [finding] = judge_memory("i-1", HEALTHY, parse_kernel_log(text), None, efa=False)
    assert (finding.status, finding.priority) == (Status.FAIL, Priority.P1)
    assert "allocatable" in finding.message
    assert finding.evidence["workload"] is False


def test_cgroup_oom_kill_with_exhausted_huge_pages_on_efa_gets_the_hint() -> None:
    exhausted = parse_meminfo(system.meminfo(hugepages_total=5128, hugepages_free=0))
    log = parse_kernel_log(cgroup_oom_log("python", 4242))
    [finding] = judge_memory("i-1", exhausted, log, None, efa=True)
    assert "reached its own memory limit" in finding.message
    assert "FI_EFA_USE_HUGE_PAGE=0" in finding.message


def test_node_and_cgroup_kills_are_reported_apart() -> None:
    text = oom_log(("trainer", 9)) + cgroup_oom_log("python", 4242)
    node_kill, cgroup_kill = judge_memory("i-1", HEALTHY, parse_kernel_log(text), None, efa=True)
    assert node_kill.evidence["scope"] == "node"
    assert "trainer (pid 9)" in node_kill.message
    assert "FI_EFA_USE_HUGE_PAGE=0" in node_kill.message
    assert cgroup_kill.evidence["scope"] == "cgroup"
    assert "python (pid 4242)" in cgroup_kill.message


def test_previous_boot_cgroup_kills_are_history() -> None:
    previous = parse_kernel_log(
        system.kernel_log_previous_boot(
            ["Memory cgroup out of memory: Killed process 7 (python) total-vm:1kB"]
        )
    )
    [finding] = judge_memory("i-1", HEALTHY, parse_kernel_log(""), previous, efa=False)
    assert finding.status is Status.INFO
    assert finding.evidence["scope"] == "cgroup"
    assert "memory cgroup" in finding.message


def test_registered_check_cgroup_kill() -> None:
    data = node_data(node(GPU_NODE, kernel_log=cgroup_oom_log("python", 4242)))
    [finding] = list(node_memory(data))
    assert (finding.status, finding.resources) == (Status.WARN, [GPU_NODE])
    assert "reached its own memory limit" in finding.message
    # The p5 has EFA, but its huge pages are free: no fork hint.
    assert "FI_EFA_USE_HUGE_PAGE" not in finding.message


# -- the rules alone: verdicts on literal events and meminfo, no words ------------------

ROOMY = MemInfo(mem_total_kib=1_000_000, mem_available_kib=500_000)
TIGHT = MemInfo(mem_total_kib=1_000_000, mem_available_kib=30_000)
PAGES_GONE = MemInfo(
    mem_total_kib=1_000_000,
    mem_available_kib=500_000,
    hugepages_total=64,
    hugepages_free=0,
    hugepage_size_kib=2048,
)


def kill(kind: KernelEventKind, pid: int, process: str = "python") -> KernelEvent:
    return KernelEvent(kind, f"Killed process {pid} ({process})", process=process, pid=pid)


NODE_KILL = kill(KernelEventKind.OOM_KILL, 7)
CGROUP_KILL = kill(KernelEventKind.CGROUP_OOM_KILL, 8)


def memcg(path: str) -> KernelEvent:
    return KernelEvent(
        KernelEventKind.OOM, f"oom-kill:constraint=CONSTRAINT_MEMCG,oom_memcg={path}"
    )


def test_cgroup_kill_rule_tells_the_limit_that_was_hit() -> None:
    victims = [CGROUP_KILL]
    pods = cgroup_kills(victims, ["/kubepods.slice"], ROOMY)
    assert pods.limit is CgroupLimit.PODS_ROOT
    assert cgroup_kills(victims, ["/kubepods/pod1"], ROOMY).limit is CgroupLimit.PLENTY
    assert cgroup_kills(victims, ["/kubepods/pod1"], TIGHT).limit is CgroupLimit.SHORT
    unread = cgroup_kills(victims, ["/kubepods/pod1"], None)
    assert (unread.limit, unread.available_pct) == (CgroupLimit.SHORT, None)


def test_verdicts_of_this_boot_come_node_kills_first() -> None:
    log = KernelLog((CGROUP_KILL, memcg("/kubepods/pod1"), NODE_KILL, NODE_KILL))
    verdicts = memory_verdicts(PAGES_GONE, log, None, efa=True)
    assert verdicts == [
        NodeKills((NODE_KILL,), efa_hint=True),
        CgroupKills((CGROUP_KILL,), ("/kubepods/pod1",), CgroupLimit.PLENTY, 50.0, efa_hint=True),
    ]


def test_verdicts_of_history_low_memory_and_huge_pages() -> None:
    previous = KernelLog((NODE_KILL, CGROUP_KILL))
    assert memory_verdicts(TIGHT, KernelLog(), previous, efa=False) == [
        EarlierKills(KillScope.NODE, (NODE_KILL,)),
        EarlierKills(KillScope.CGROUP, (CGROUP_KILL,)),
        LowMemory(3.0, 1_000_000, 30_000),
    ]
    assert memory_verdicts(PAGES_GONE, KernelLog(), None, efa=True) == [
        HugePagesExhausted(64, 0, 2048)
    ]
    # Without EFA, exhausted huge pages are not the fork case: nothing to say.
    assert memory_verdicts(PAGES_GONE, KernelLog(), None, efa=False) == []
