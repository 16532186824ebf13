"""Closest sections by wording family, for text that no signature explains.

A signature names a specific error. Much of what people paste is vaguer: "the FSx mount is
gone after the reboot", "how do I log in to a worker", "训练在集合通信那里卡住了". Such text
belongs to a *family* of wording (storage mounts, node access, hangs in collective
communication …) whose reference sections are known even when the exact fault is not.

A guess is weaker evidence than any signature, and says so:

* its score is at most ``GUESS_CEILING``, below the smallest score a real match can reach
  (a parent section lent ``LEND`` × the lightest signature weight), so it always ranks last;
* the match carries ``guess = True`` and its ``why`` starts with ``GUESS_PREFIX``;
* a section that a signature already matched is never guessed again.

Families are plain data: wording ``terms`` (English and Chinese), an optional ``context``
that must also appear (a hang counts only near collective or training words), and the
sections closest first. Like signatures, they read only the cleaned text, after sentences
addressed to an assistant were set aside, so injected wording cannot steer them.
"""

from __future__ import annotations

from typing import NamedTuple

from tools.explain.anchors import Regex, fold
from tools.explain.sanitize import quote
from tools.explain.signature import TRIAGE, TRIAGE_NODE, rx, word

GUESS_CEILING = 0.2
GUESS_PREFIX = "No signature matched; closest by wording"
_DECAY = 0.25  # each further section of a family scores a quarter of the ceiling less
_STRENGTH_FLOOR = 0.7  # one distinct family term gives 0.7 × the ceiling, three give all of it
_MAX_TERMS = 3
_MAX_SCAN = 64  # term occurrences looked at per family: enough to count distinct ones
MAX_GUESSES = 3  # more would bury the few sections worth a look

LIST_EVENTS = "aws sagemaker list-cluster-events --cluster-name <CLUSTER> --region <REGION>"
DESCRIBE_CLUSTER = "aws sagemaker describe-cluster --cluster-name <CLUSTER> --region <REGION>"


# A NamedTuple, not a frozen dataclass: built at every start-up, where a dataclass
# costs about a millisecond to build (issue 12, item 5).
class Family(NamedTuple):
    id: str
    label: str
    sections: tuple[str, ...]  # closest first
    terms: Regex
    checks: tuple[str, ...]
    context: Regex | None = None

    def may_match(self, folded: str) -> bool:
        """Cheap pre-check on the folded text, as for signatures (tools.explain.anchors)."""
        return self.terms.may_match(folded) and (
            self.context is None or self.context.may_match(folded)
        )


# A NamedTuple, not a frozen dataclass: built at every start-up, where a dataclass
# costs about a millisecond to build (issue 12, item 5).
class Guess(NamedTuple):
    section: str
    score: float
    family: Family
    quotes: tuple[str, ...]

    @property
    def signal(self) -> str:
        return f"guess.{self.family.id}"

    @property
    def why(self) -> str:
        quoted = ", ".join(f'"{q}"' for q in self.quotes)
        return (
            f"{GUESS_PREFIX} ({self.family.label}): {quoted}. A guess, not a diagnosis:"
            " confirm with the checks before acting on it"
        )


def _rx(*alternatives: str) -> Regex:
    # Compiled only for a text that holds one of its anchors: most texts need few families.
    return rx(*alternatives)


_HANG = _rx(
    word(r"hangs?|hanging|hung|stuck|stall(?:s|ed|ing)?|freez\w*|froze|frozen|deadlock\w*"),
    r"no\s+progress",
    r"not\s+(?:progressing|moving|making\s+progress)",
    r"never\s+(?:returns?|finish\w*|complet\w*|gets?\s+past)",
    r"(?:waiting|wait|blocked|blocks)\s+(?:forever|indefinitely)",
    word(r"blocked\s+(?:in|on|at)"),
    word(r"time[sd]?\s*-?\s*out|timeout"),
    r"卡住|卡死|卡在|卡着|不动了?|没反应|没有?(?:任何)?输出|无输出|hang\s*住|阻塞|死锁|超时|停住",
)
_COLLECTIVE = _rx(
    word(r"NCCL\w*|RCCL|collectives?|ProcessGroup\w*|c10d|init_process_group|world_size"),
    word(r"all[_-]?reduce|all[_-]?gather|reduce[_-]?scatter|all[_-]?to[_-]?all|broadcast|barrier"),
    word(r"torch\.distributed|dist\.\w+|torchrun|DeepSpeed|FSDP|Megatron|Horovod|MPI"),
    word(r"ranks?|multi-?node|distributed|inter-?node"),
    word(r"train(?:ing)?|epoch|step\s*\d*|iteration"),
    r"集合通信|多机|多节点|分布式|跨节点|通信|训练",
)

# fmt: off
FAMILIES: tuple[Family, ...] = (
    Family(
        "storage_mounts", "shared storage and file-system mounts",
        # Mounts are set up by the lifecycle scripts (§ D); FSx and S3 need endpoints from
        # a private subnet (§ B.4); the node's own volumes are § I.1.
        ("D", "B.4", "I.1"),
        _rx(
            word(r"FSx(?:\s+for\s+Lustre)?|Lustre|LNet|EFS|NFS(?:v?4(?:\.1)?)?|nfsd?|lfs"),
            word(r"(?:re|un)?mount(?:s|ed|ing|point)?|umount|fstab|autofs"),
            word(r"mount-?s3|mountpoint(?:-for-amazon)?-?s3|s3fs|goofys|amazon-efs-utils"),
            r"stale\s+(?:NFS\s+)?file\s+handle", word("ESTALE"),
            r"Transport endpoint is not connected", r"(?<![\w/])/fsx\b",
            r"挂载|卸载|共享(?:存储|盘|目录|文件系统)|网络(?:存储|文件系统)|存储桶挂载",
        ),
        (
            "findmnt -t lustre,nfs,nfs4,fuse",
            "df -hT",
            "dmesg -T | grep -iE 'lustre|lnet|nfs|fuse'",
            LIST_EVENTS,
        ),
    ),
    Family(
        "lustre_client", "the FSx for Lustre client",
        # Lustre words without an error signature ("the FSx mount is gone", "lfs df is
        # slow"): the client's path to the file system (§ B.8) after the lifecycle mount (§ D).
        ("B.8", "D"),
        _rx(word(r"FSx(?:\s+for\s+Lustre)?|Lustre|LNet|lfs|lctl|mount\.lustre"), r"并行文件系统"),
        ("findmnt -t lustre", "lfs check servers", "lctl list_nids",
         "dmesg -T | grep -iE 'lustre|lnet'", TRIAGE_NODE),
    ),
    Family(
        "storage_local", "local disks and file-system errors",
        ("I.1", "N"),
        _rx(
            r"read-?only\s+file\s*system", word("EROFS"), r"remount\w*\s+(?:\w+\s+)?read-?only",
            r"(?:EXT4|XFS|BTRFS)-fs\b", r"(?:buffer\s+)?I/O\s+error", r"Input/output error",
            word("EIO"), r"file\s*system\s+(?:\w+\s+)?(?:corrupt\w*|error|damaged|check)",
            word(r"fsck|EBS\s+volumes?|nvme\d+n\d+(?:p\d+)?"),
            r"只读(?:文件系统)?|文件系统\s*(?:只读|损坏|报错|错误|异常|坏了)|(?:磁盘|硬盘)\s*(?:IO|I/O)?\s*(?:错误|报错|坏了)"
            r"|读写\s*(?:错误|报错|失败)|输入/输出错误",
        ),
        ("df -hT", "findmnt -o TARGET,SOURCE,FSTYPE,OPTIONS /",
         "dmesg -T | grep -iE 'I/O error|EXT4-fs|XFS|read-only'", TRIAGE_NODE),
    ),
    Family(
        "node_access", "node access, shells and SSH",
        # Nodes are reached through SSM (§ K); Slurm host names map to instance ids (§ H.3).
        ("K", "H.3"),
        _rx(
            word(r"ssh\w*|sshd|scp|authorized_keys|id_(?:rsa|ed25519)|known_hosts|bastion"),
            r"port\s+22\b", r"Permission denied \(publickey", r"Host key verification failed",
            r"Connection closed by", word(r"jump\s*(?:host|box)|shell|terminal|console"),
            word(r"log(?:ging|ged)?\s*(?:in|on)(?:to)?|login"),
            r"登录|登陆|登不上|远程(?:连接|登录)?|跳板机|堡垒机|终端|命令行",
        ),
        (DESCRIBE_CLUSTER, "session-manager-plugin --version",
         "cat /opt/ml/config/resource_config.json", TRIAGE_NODE),
    ),
    Family(
        "collective_hang", "hangs in collective communication",
        # A collective that never completes: the network path first (§ A), then versions
        # and environment (§ E), then one slow or faulty GPU holding the others (§ G).
        ("A", "E", "G"),
        _HANG,
        ("env | grep -E '^(FI_|NCCL_)'", "fi_info -p efa -t FI_EP_RDM",
         "cat /opt/amazon/efa_installed_packages", TRIAGE_NODE),
        context=_COLLECTIVE,
    ),
    Family(
        "capacity", "capacity and scaling",
        ("C", "F.1"),
        _rx(
            word(r"scal(?:e|ing)\s*(?:up|out)|scale-?up|add(?:ing)?\s+(?:more\s+)?nodes"),
            word(r"capacity|quotas?|reservations?|reserved\s+instances?|instance\s+count"),
            word(r"target\s*count|current\s*count"),
            r"扩容|加节点|加机器|容量|配额|预留|实例数|机器不够|资源不够|申请不到",
        ),
        ("aws ec2 describe-instance-type-offerings --location-type availability-zone"
         " --filters Name=instance-type,Values=<INSTANCE_TYPE> --region <REGION>",
         "aws service-quotas list-service-quotas --service-code sagemaker --region <REGION>",
         LIST_EVENTS, DESCRIBE_CLUSTER),
    ),
    Family(
        "permissions", "permissions and IAM",
        # Denied AWS calls are § K; the instance role reading the lifecycle bucket is § D.1.
        ("K", "D.1"),
        _rx(
            word(r"permissions?|IAM|policy|policies|forbidden|unauthori[sz]ed|denied|EACCES"),
            word(r"(?:execution|instance)\s+role|credentials?|not\s+allowed|assume-?role"),
            r"权限|没有权限|无权|角色|策略|凭证|被拒绝?",
        ),
        ("aws sts get-caller-identity", DESCRIBE_CLUSTER, TRIAGE),
    ),
    Family(
        "network_reach", "network reachability",
        ("B", "B.4", "A"),
        _rx(
            r"connection\s+(?:refused|reset|timed\s*out)", r"no\s+route\s+to\s+host",
            r"network\s+(?:is\s+)?unreachable", word(r"unreachable|ECONNREFUSED|ETIMEDOUT"),
            word(r"EHOSTUNREACH|ECONNRESET"),
            r"(?:can't|cannot|can\s+not|unable\s+to|couldn't|could\s+not|fail\w*\s+to)\s+"
            r"(?:reach|connect|ping)\b",
            word(r"ping|traceroute|curl|telnet|netcat"),
            r"网络\s*(?:不通|断了?|异常|问题|故障)|连不上|连不通|不通|无法连接|连接\s*(?:超时|失败|被拒)",
        ),
        ("aws ec2 describe-route-tables --filters Name=association.subnet-id,Values=<SUBNET_ID>"
         " --region <REGION>",
         "aws ec2 describe-vpc-endpoints --filters Name=vpc-id,Values=<VPC_ID> --region <REGION>",
         TRIAGE),
    ),
    Family(
        "name_resolution", "name resolution (DNS)",
        ("B.2", "O"),
        _rx(
            word(r"DNS|resolv(?:e|es|ed|ing|er)|resolution|resolv\.conf|nslookup|dig|getent"),
            word(r"host\s*name|Route\s*53"),
            r"域名|解析|主机名",
        ),
        ("aws ec2 describe-vpc-attribute --vpc-id <VPC_ID> --attribute enableDnsSupport"
         " --region <REGION>",
         "kubectl -n kube-system get pods -l k8s-app=kube-dns", TRIAGE),
    ),
    Family(
        "gpu", "GPUs and CUDA",
        ("G", "G.2", "E"),
        _rx(word(r"GPUs?|CUDA|cuDNN|NVIDIA|nvidia-smi|H100|A100|H200|B200|p[45]\w*\.48xlarge"),
            r"显卡|GPU|算力卡"),
        ("nvidia-smi", "nvidia-smi -L", "dmesg -T | grep -iE 'xid|nvrm'", TRIAGE_NODE),
    ),
    Family(
        "slowness", "slow training and throughput",
        # Slow rather than failing: a throttling GPU (§ G.4), NCCL over sockets instead of
        # EFA (§ A), half the vCPUs (§ J).
        ("G.4", "A", "J"),
        _rx(
            word(r"slow\w*|throughput|MFU|TFLOPS|tokens?/s|samples?/s|step\s+time|iteration\s+time"),
            word(r"degrad\w*|performance|regress\w*|bandwidth|busbw|algbw|latency"),
            r"变慢|很慢|太慢|慢了|性能|吞吐|速度\s*(?:下降|变低|慢)|带宽|延迟",
        ),
        ("nvidia-smi -q -d PERFORMANCE,TEMPERATURE", "env | grep -E '^(FI_|NCCL_)'", "nproc",
         TRIAGE_NODE),
    ),
    Family(
        "node_health", "node health and readiness",
        ("F.2", "F", "M"),
        _rx(
            word(r"NotReady|not\s+ready|unhealthy|health\s*checks?|cordon\w*|taint\w*"),
            word(r"(?:bad|sick|broken|faulty|degraded)\s+(?:node|host|instance)"),
            r"不健康|节点\s*(?:异常|坏了|故障|有问题)|健康检查|NotReady",
        ),
        ("kubectl get nodes -L sagemaker.amazonaws.com/node-health-status",
         "kubectl describe node <NODE_NAME>", TRIAGE_NODE),
    ),
    Family(
        "process_crash", "processes that crash or are killed",
        # A crash that follows a version across nodes is § E; inside a pod § M; a process
        # killed for memory § I.2.
        ("E", "M", "I.2"),
        _rx(
            r"Segmentation fault", word(r"segfault|SIGSEGV|SIGABRT|SIGKILL|core\s+dumped"),
            word(r"exit(?:ed)?\s+(?:code|status)\s+-?\d+|killed|crash\w*|terminated"),
            r"段错误|崩溃|被杀|挂掉|退出码|异常退出",
        ),
        ("dmesg -T | grep -iE 'segfault|oom|killed process'", "nvidia-smi", TRIAGE_NODE),
    ),
)
# fmt: on


def _family_quotes(family: Family, text: str) -> tuple[str, ...]:
    """Distinct wording of the family in the text (first seen first), or () if absent."""
    if family.context is not None and family.context.search(text) is None:
        return ()
    seen: dict[str, str] = {}
    for scanned, found in enumerate(family.terms.finditer(text)):
        if scanned >= _MAX_SCAN or len(seen) >= _MAX_TERMS:
            break
        fragment = found.group(0)
        seen.setdefault(" ".join(fragment.lower().split()), quote(fragment, limit=40))
    if seen and family.context is not None and (context := family.context.search(text)):
        seen.setdefault(" ".join(context.group(0).lower().split()), quote(context.group(0), 40))
    return tuple(seen.values())


def _strength(distinct: int) -> float:
    share = min(distinct, _MAX_TERMS) - 1
    return _STRENGTH_FLOOR + (1 - _STRENGTH_FLOOR) * share / (_MAX_TERMS - 1)


def find_guesses(text: str, taken: set[str] | frozenset[str] = frozenset()) -> list[Guess]:
    """Sections the text's wording families point at, best first; ``taken`` is skipped."""
    best: dict[str, Guess] = {}
    order: dict[str, int] = {}
    folded = fold(text)
    for family_index, family in enumerate(FAMILIES):
        if not family.may_match(folded):
            continue
        quotes = _family_quotes(family, text)
        if not quotes:
            continue
        strength = _strength(len(quotes))
        for position, section_id in enumerate(family.sections):
            if section_id in taken:
                continue
            score = round(GUESS_CEILING * strength * (1 - _DECAY * position), 2)
            current = best.get(section_id)
            if current is None or score > current.score:
                best[section_id] = Guess(section_id, score, family, quotes)
                order[section_id] = family_index * 10 + position
    ranked = sorted(best.values(), key=lambda g: (-g.score, order[g.section]))
    return ranked[:MAX_GUESSES]
