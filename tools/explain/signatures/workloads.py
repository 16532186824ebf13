"""Scheduler wording: Slurm (H) and Kubernetes containers (M)."""

from __future__ import annotations

from tools.explain.signature import LIST_NODES, TRIAGE, TRIAGE_NODE, Matching, rx, sig, word
from tools.signals import wording

SLURM_NODE = (
    "sinfo -R",
    "scontrol show node <NODE_NAME>",
    "systemctl status slurmd",
    TRIAGE,
)
SLURM_JOBS = ("squeue -t CG,CF,PD -o '%i %T %r %N'", "sinfo -R", "scontrol show job <JOB_ID>")
SLURM_DAEMONS = ("systemctl status munge slurmd", "scontrol ping", "sinfo -R")
ENDPOINTS = "aws ec2 describe-vpc-endpoints --filters Name=vpc-id,Values=<VPC_ID> --region <REGION>"
POD = (
    "kubectl describe pod <POD> -n <NAMESPACE>",
    "kubectl logs <POD> -n <NAMESPACE> --previous",
    "crictl ps -a",
)

_SLURM_CONTEXT = rx(
    r"slurm|sinfo|squeue|scontrol|sacct|sbatch|srun|State=|Reason=|NodeName=|PARTITION|NODELIST"
)

# fmt: off
SIGNATURES = (
    # § H.1 — node states
    sig(
        "slurm.unexpected_reboot", "H.1", 6.0,
        "Slurm marked the node DOWN because it rebooted unexpectedly",
        r"Node unexpectedly rebooted", r"unexpectedly rebooted",
        checks=SLURM_NODE,
    ),
    sig(
        "slurm.node_state", "H.1", 4.0,
        "a Slurm node is DOWN, DRAINED or not responding",
        word(r"DOWN\*?|DRAIN(?:ED|ING)?\*?|NOT_RESPONDING|FAIL(?:ING)?"),
        r"\b(?:down|drain|drng|idle|alloc|mix)\*",
        r"Not responding", r"Kill task failed", r"batch job complete failure",
        r"Prolog error|Epilog error",
        matching=Matching(case=True, context=_SLURM_CONTEXT),
        checks=SLURM_NODE,
    ),
    sig(
        "slurm.node_state_words", "H.1", 3.0,
        "a Slurm node is unavailable",
        r"(?:slurm|sinfo)[^\n]{0,40}(?:down|drain\w*|not responding)",
        r"(?:node|节点)s?\s+(?:is\s+|are\s+)?(?:down|drained|draining)\b",
        r"(?:Slurm|slurm)\s*节点",
        r"节点\s*(?:状态\s*)?(?:是|变成|变为|显示)?\s*(?:down|drain|DOWN|DRAIN)",
        r"Reason=", r"sinfo -R",
        checks=SLURM_NODE,
    ),
    # § H.2 — stuck jobs
    sig(
        "slurm.completing", "H.2", 5.0,
        "jobs are stuck completing (CG) or configuring (CF)",
        r"\bCOMPLETING\b", r"\bCONFIGURING\b", r"(?<=\s)(?:CG|CF)(?=\s)",
        matching=Matching(case=True, context=_SLURM_CONTEXT),
        checks=SLURM_JOBS,
    ),
    sig(
        "slurm.stuck_jobs", "H.2", 4.0,
        "jobs do not start or do not finish",
        r"(?:job|jobs)\s+(?:are\s+|is\s+)?(?:stuck|hang\w*|remain\w*)\s+(?:in\s+)?(?:PENDING|COMPLETING|CONFIGURING|PD|CG)",
        r"stuck in (?:PENDING|COMPLETING|CONFIGURING)", r"ReqNodeNotAvail",
        r"\((?:Resources|Priority|Dependency|BeginTime|launch failed requeued held)\)",
        r"(?:作业|任务|job)\s*(?:一直)?\s*(?:卡在|卡住|停在)\s*(?:PD|CG|PENDING|COMPLETING|pending|completing)",
        checks=SLURM_JOBS,
    ),
    sig(
        "slurm.stuck_jobs_zh", "H.2", 4.0,
        "jobs do not start or do not finish",
        r"一直\s*(?:是\s*)?(?:PD|CG|pending|PENDING|Pending|COMPLETING|completing)",
        matching=Matching(
            context=rx(
                r"作业|任务|\bjobs?\b|squeue|sbatch|srun|slurm|scancel|(?<![A-Za-z])(?:PD|CG)(?![A-Za-z])"
            )
        ),
        checks=SLURM_JOBS,
    ),
    # § H — daemons
    sig(
        "slurm.daemons", "H", 4.5,
        "Slurm daemons or munge authentication are failing",
        r"munge\w*[^\n]{0,40}(?:fail|error|inactive|dead|Invalid credential|decode)",
        r"Invalid (?:job )?credential",
        r"Unable to contact slurm controller", r"slurm_load_\w+: Unable to contact",
        r"Zero Bytes were transmitted or received",
        r"slurmd?(?:ctld)?[^\n]{0,40}(?:inactive|dead|failed|not running|Connection refused)",
        r"(?:slurmctld|slurmd)\s*(?:挂了|起不来|没启动)",
        checks=SLURM_DAEMONS,
    ),
    sig(
        "slurm.mention", "H", 1.5,
        "Slurm is involved",
        word(r"slurm\w*|sinfo|squeue|scontrol|sbatch|srun|sacct"),
        checks=("sinfo -R", "squeue"),
    ),
    # § H.3 — names
    sig(
        "slurm.node_mapping", "H.3", 3.0,
        "a Slurm node name has to be mapped to an instance id",
        r"(?:which|what|map\w*|find|translate)\s+(?:the\s+)?instance(?:\s+id)?[^\n]{0,40}ip-\d+-\d+-\d+-\d+",
        r"ip-\d+-\d+-\d+-\d+[^\n]{0,40}(?:which|what|map\w*|对应)\s*(?:instance|实例)",
        r"resource_config\.json", r"PrivateDnsHostname",
        checks=("cat /opt/ml/config/resource_config.json", LIST_NODES),
    ),
    # § M — container runtime
    sig(
        "k8s.crashloop", "M", 4.0,
        "a container keeps crashing and restarting",
        r"CrashLoopBackOff", r"Back-off restarting failed container",
        r"容器\s*(?:一直|反复|不停)?\s*(?:重启|崩溃)",
        checks=POD,
    ),
    sig(
        "k8s.oomkilled", "M", 5.0,
        "the container hit its memory limit and was OOMKilled",
        *wording("k8s.oomkilled"), r"exit code 137", r"Reason:\s*OOMKilled",
        checks=(*POD, "kubectl top pod <POD> -n <NAMESPACE>"),
    ),
    sig(
        "k8s.oomkilled_memory", "I.2", 1.5,
        "memory pressure on the node",
        *wording("k8s.oomkilled"),
        checks=("free -g", "dmesg -T | grep -i oom"),
    ),
    sig(
        "k8s.image_pull", "M", 4.5,
        "the image cannot be pulled",
        r"ImagePullBackOff", r"ErrImagePull", r"Failed to pull image", r"pull access denied",
        r"manifest unknown",
        r"no basic auth credentials", r"镜像\s*(?:拉取|下载|拉)\s*(?:失败|不下来|不了)",
        r"拉不下来",
        checks=POD,
    ),
    sig(
        "k8s.image_pull_ecr", "B.4", 2.5,
        "ECR is unreachable from a private subnet without NAT or ecr.api / ecr.dkr / s3 endpoints",
        r"dkr\.ecr\.[^\n]{0,80}(?:i/o timeout|timed out|timeout)",
        r"api\.ecr\.[^\n]{0,80}(?:timeout|timed out)",
        checks=(ENDPOINTS,),
    ),
    sig(
        "k8s.container_error", "M", 4.0,
        "the container runtime could not create or start the container",
        r"RunContainerError", r"CreateContainer(?:Config)?Error", r"ContainerCannotRun",
        r"OCI runtime (?:create|exec|start) failed",
        r"nvidia-container-(?:cli|runtime|toolkit)", r"could not select device driver",
        r"runc\b[^\n]{0,40}(?:fail|error)",
        checks=(*POD, "journalctl -u containerd --no-pager -n 200"),
    ),
    sig(
        "k8s.runtime_mention", "M", 1.5,
        "the container runtime is involved",
        word(r"containerd|crictl|kubelet"),
        checks=("journalctl -u containerd --no-pager -n 200", "crictl ps -a"),
    ),
    sig(
        "k8s.unschedulable", "F.2", 2.0,
        "the node is cordoned or tainted (health labels may explain why)",
        r"untolerated taint", r"node\.kubernetes\.io/unschedulable", r"SchedulingDisabled",
        checks=("kubectl get nodes -o wide", TRIAGE_NODE),
    ),
    sig(
        "k8s.insufficient_devices", "G", 2.5,
        "the scheduler sees fewer GPUs, EFA or Neuron devices than requested",
        r"Insufficient nvidia\.com/gpu", r"Insufficient aws\.amazon\.com/neuron\w*",
        r"Insufficient vpc\.amazonaws\.com/efa",
        checks=("kubectl describe node <NODE_NAME>", "kubectl -n kube-system get ds", TRIAGE_NODE),
    ),
)
# fmt: on
