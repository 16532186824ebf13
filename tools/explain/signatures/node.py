"""Node wording: kernel (N), resources (I.1–I.3), clock (I.4), instance configuration (J)."""

from __future__ import annotations

from tools.explain.signature import DESCRIBE_CLUSTER, TRIAGE_NODE, Matching, rx, sig, word

KERNEL = (
    "dmesg -T | grep -iE 'panic|watchdog|hung_task|lockup|NMI|nvrm'",
    "journalctl -k -b -1 --no-pager",
    TRIAGE_NODE,
)
DISK = (
    "df -h / /opt/sagemaker /opt/dlami/nvme",
    "df -i /",
    "du -xsh /var/log /tmp /home 2>/dev/null",
)
MEMORY = ("free -g", "dmesg -T | grep -iE 'oom|killed process'", "ulimit -a")
SHM = ("df -h /dev/shm", "findmnt /dev/shm", "du -sh /dev/shm")
CLOCK = ("chronyc tracking", "chronyc sources -v", "timedatectl status")
CPUS = ("nproc", "lscpu", DESCRIBE_CLUSTER)

# fmt: off
SIGNATURES = (
    # § N — kernel
    sig(
        "kernel.panic", "N", 5.0,
        "the kernel crashed",
        r"Kernel panic", r"kernel BUG at", r"\bOops:", r"general protection fault",
        r"Unable to handle kernel",
        r"内核\s*(?:崩溃|panic)", r"kernel\s*panic",
        checks=KERNEL,
    ),
    sig(
        "kernel.lockup", "N", 5.0,
        "a CPU or task lockup: the kernel watchdog fired",
        r"soft lockup", r"hard LOCKUP", r"watchdog: BUG", r"NMI watchdog", r"hung_task",
        r"blocked for more than \d+ seconds",
        r"rcu[_:]?\w*\s*(?:self-detected )?stall", r"软锁|死锁|hung\s*住",
        r"hung[\s_-]+tasks?", r"task\s+\S+\s+blocked",
        checks=KERNEL,
    ),
    sig(
        "kernel.watchdog_prose", "N", 4.0,
        "the kernel watchdog fired or the whole system hung: read the previous boot's kernel log",
        r"watchdog\s+(?:timeout|timed\s+out|time-?out|fired|triggered|reset|expired)",
        r"(?:watchdog|看门狗)\s*(?:超时|触发|复位)",
        r"(?:system|OS|kernel|whole\s+(?:node|machine|box|host))\s+(?:\w+\s+)?"
        r"(?:hangs?|hung|froze|frozen|freez\w*|lock(?:ed|s)?\s*up|unresponsive|stopped\s+responding)",
        r"(?:node|instance|host|machine|server|box|worker)s?\s+(?:\w+\s+){0,2}?"
        r"(?:froze|frozen|freez\w*|locked\s+up|became\s+unresponsive|hard[- ]hung)",
        r"(?:系统|内核|操作系统)\s*(?:整个)?\s*(?:卡死|死机|假死|无响应|hang\s*住|hang了|冻结)",
        r"(?:节点|机器|主机|实例)\s*(?:整个|直接)?\s*(?:假死|冻结|无响应)",
        matching=Matching(
            unless=rx(r"NCCL|ProcessGroup|collective|all_?reduce|allgather|barrier|集合通信|\bpods?\b")
        ),
        checks=KERNEL,
    ),
    sig(
        "kernel.hardware", "N", 3.5,
        "the host reported a machine-check or memory hardware error",
        r"Machine Check", word("MCE"), r"Hardware Error", r"EDAC\b[^\n]{0,60}(?:error|CE|UE)",
        r"mce: \[Hardware Error\]",
        checks=(*KERNEL, "journalctl -k --no-pager | grep -iE 'mce|edac'"),
    ),
    sig(
        "kernel.nvrm", "N", 1.5,
        "an NVIDIA driver (NVRM) message in the kernel log",
        r"NVRM:", r"nvidia-modeset", r"nvidia\s+[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d",
        checks=KERNEL,
    ),
    sig(
        "kernel.call_trace", "N", 2.0,
        "a kernel stack trace",
        r"Call Trace:", r"RIP: 0010:", r"Tainted: ",
        checks=KERNEL,
    ),
    sig(
        "kernel.reboot", "N", 2.0,
        "the node rebooted or froze without an obvious cause",
        r"rebooted unexpectedly", r"unexpected(?:ly)? reboot",
        r"(?:node|instance|机器|节点)\s*(?:自己|突然|意外)?\s*(?:重启|死机|卡死|hang)",
        r"journalctl -b -1", r"系统\s*(?:崩溃|重启)",
        r"(?:froze|frozen|hung|locked\s+up|unresponsive|crash\w*)\s+(?:\w+\s+){0,3}?"
        r"(?:and|then)\s+(?:\w+\s+){0,2}?(?:re-?boot\w*|restart\w*|came\s+back)",
        r"(?:re-?boot\w*|restart\w*)\s+(?:by\s+itself|on\s+its\s+own|out\s+of\s+nowhere|for\s+no"
        r"\s+(?:apparent\s+|obvious\s+)?reason)",
        r"(?:自动|自己|莫名其妙地?|无故)\s*重启",
        matching=Matching(unless=rx(r"Node unexpectedly rebooted")), checks=KERNEL,
    ),
    # § I.1 — disk and inodes
    sig(
        "disk.full", "I.1", 5.5,
        "a filesystem is full",
        r"No space left on device", word("ENOSPC"), r"Errno 28", r"disk (?:is )?full",
        r"disk quota exceeded",
        r"(?:root|/)\s*(?:volume|filesystem|file system|partition|disk)\s+"
        r"(?:is\s+)?(?:full|100\s*%)",
        r"磁盘\s*(?:已)?满",
        r"(?:磁盘|硬盘|根分区|根目录|存储)\s*(?:空间)?\s*(?:不足|满了|已满|爆了|写满)", r"空间不足",
        checks=DISK,
    ),
    sig(
        "disk.pressure", "I.1", 4.0,
        "kubelet reports disk pressure or evicts pods for ephemeral storage",
        r"DiskPressure", r"disk-pressure", r"ephemeral-storage", r"low on resource: ephemeral",
        checks=DISK,
    ),
    sig(
        "disk.inodes", "I.1", 3.5,
        "inodes may be exhausted",
        r"\binodes?\b", r"IUse%", r"索引节点|inode\s*(?:满|耗尽|用完)",
        checks=DISK,
    ),
    sig(
        "disk.paths", "I.1", 1.5,
        "the data volumes are involved",
        r"/opt/sagemaker", r"/opt/dlami/nvme", r"root volume",
        r"(?:100|99|98|97|96|95)\s*%\s+/(?:\s|$)",
        checks=DISK,
    ),
    # § I.2 — memory
    sig(
        "memory.oom_killer", "I.2", 5.5,
        "the kernel OOM killer ended a process",
        r"Out of memory: Killed process", r"Killed process \d+", r"invoked oom-killer",
        r"oom-kill\w*", r"oom_reaper",
        r"Memory cgroup out of memory", r"MemoryPressure",
        checks=MEMORY,
    ),
    sig(
        "memory.enomem", "I.2", 4.0,
        "memory allocation failed on the host",
        r"Cannot allocate memory", word("ENOMEM"), r"Errno 12",
        r"(?:内存|主机内存)\s*(?:不足|不够|溢出|爆了|用完)",
        r"被\s*OOM",
        word("OOM"),
        checks=MEMORY,
    ),
    sig(
        "memory.fork_efa", "I.2", 4.0,
        "fork() failing with EFA: huge pages registered by libfabric (FI_EFA_USE_HUGE_PAGE=0)",
        r"os\.fork\(\)", r"self\.pid = os\.fork", r"FI_EFA_USE_HUGE_PAGE",
        r"fork\(\)[^\n]{0,40}(?:fail|ENOMEM|memory)",
        r"max locked memory", r"RLIMIT_MEMLOCK", r"Failure to post internal receive buffers",
        checks=(*MEMORY, "env | grep FI_EFA"),
    ),
    # § I.3 — shared memory
    sig(
        "shm.full", "I.3", 5.0,
        "/dev/shm is exhausted (DataLoader workers and NCCL use it)",
        r"out of shared memory", r"insufficient shared memory", r"shared memory limit", r"/dev/shm",
        r"共享内存\s*(?:不足|不够|满|用完)?", r"--shm-size", r"shm[_-]?size",
        checks=SHM,
    ),
    sig(
        "shm.bus_error", "I.3", 3.0,
        "a bus error, typically a worker writing to a full /dev/shm",
        r"Bus error", word("SIGBUS"), r"bus error",
        checks=SHM,
    ),
    # § I.4 — clock
    sig(
        "clock.unsynced", "I.4", 5.5,
        "the system clock is not synchronised",
        r"clock (?:is )?not synchroni[sz]ed", r"System clock synchronized:\s*no",
        r"NTP (?:service|synchronized):\s*(?:inactive|no)",
        r"Leap status\s*:\s*Not synchronised", r"clock (?:skew|drift)", r"time (?:drift|skew)",
        r"(?:time|clock) (?:is )?out of sync",
        r"RequestTimeTooSkewed", r"Signature expired",
        r"(?:时间|时钟)\s*(?:不同步|漂移|偏差|不准|没同步)",
        checks=CLOCK,
    ),
    sig(
        "clock.chrony", "I.4", 2.0,
        "the time service is involved",
        r"chronyd?", r"chronyc", r"timedatectl", word("NTP"), r"169\.254\.169\.123",
        checks=CLOCK,
    ),
    # § J — instance configuration
    sig(
        "config.vcpus", "J", 5.5,
        "half the expected vCPUs: the instance group runs with ThreadsPerCore=1",
        r"ThreadsPerCore", r"\b96\s*(?:v?CPUs?|cores|个\s*(?:v?CPU|核))",
        r"(?:v?CPUs?|nproc|CPU\(s\):)\D{0,12}\b96\b",
        r"Thread\(s\) per core:\s*1", r"hyper-?threading",
        r"multithreading\s+(?:is\s+)?(?:off|disabled)", r"超线程",
        r"\bSMT\b[^\n.。]{0,20}?(?:off|disabled|关闭|关了)",
        # A count said to be wrong or halved, in words: "wrong vCPU count", "only half the
        # cores", "CPU 数量不对", "核数只有一半".
        r"(?:wrong|incorrect|unexpected|reduced|fewer|missing|low|half\s+the)\s+"
        r"(?:number\s+of\s+)?(?:v?CPUs?|cores|threads)(?:\s+(?:count|number)s?)?",
        r"(?:v?CPUs?|cores|threads|nproc|lscpu|CPU\(s\))[^\n.。]{0,60}?"
        r"(?:(?:only\s+)?half\b|halved|one\s+thread\s+per\s+core)",
        r"(?:only|just)\s+(?:see\s+|shows?\s+|has\s+|have\s+)?half\s+(?:the\s+|of\s+the\s+)?"
        r"(?:v?CPUs?|cores|threads)",
        r"(?:v?CPU|CPU|核|核心|线程)\s*(?:的)?\s*(?:数量|数目|个数|数)\s*(?:不对|不正确|错了|有误|少了|减半|偏少|只有一半|只有预期的一半|变成一半)",
        r"(?:v?CPU|CPU|核|核心|线程)[^\n。，,]{0,20}?(?:只有|少了|剩|是)\s*[^\n。，,]{0,12}?的?\s*一半",
        r"每\s*个?\s*(?:物理)?\s*(?:核|核心|core)\s*(?:只有|只)\s*(?:一个|1\s*个?)\s*线程",
        # Known full/half pairs of the accelerated types (p5/p4d/trn1: 192/96, 96/48,
        # 128/64), one beside the other: "96 instead of 192", "192 个 … 只有 96".
        r"\b(?:96|48|64)\b[^\n。]{0,30}?(?:instead\s+of|rather\s+than|not|vs\.?|versus|but\s+"
        r"(?:expected|should\s+be)|而不是|不是|而非|应该是)\s*\b(?:192|96|128)\b",
        r"\b(?:192|96|128)\b[^\n。]{0,40}?(?:only|but|just|只有|只|却是?)\s*\b(?:96|48|64)\b",
        matching=Matching(
            context=rx(r"v?CPU|cores?|threads?|nproc|lscpu|核|线程|ThreadsPerCore|xlarge")
        ),
        checks=CPUS,
    ),
)
# fmt: on
