"""Access wording: SSM (K), log collection (L), AWS error codes that depend on context."""

from __future__ import annotations

from tools.explain.signature import TRIAGE, TRIAGE_NODE, Matching, rx, sig, word
from tools.signals import wording

SSM = (
    "aws sagemaker describe-cluster --cluster-name <CLUSTER> --region <REGION>",
    "session-manager-plugin --version",
    TRIAGE_NODE,
)
LOGS = (
    "aws logs describe-log-streams --log-group-name /aws/sagemaker/Clusters/<CLUSTER>/<CLUSTER_ID>"
    " --region <REGION>",
    TRIAGE,
)
S3 = (
    "aws s3 ls <SOURCE_S3_URI>",
    "aws sagemaker describe-cluster --cluster-name <CLUSTER> --region <REGION>",
)

_DENIED = (
    *wording("aws.access_denied"),
    r"Access Denied",
    r"UnauthorizedOperation",
    r"not authorized to perform",
    r"\(403\)[^\n]{0,40}Forbidden",
    r"权限\s*(?:不足|被拒|拒绝)",
    r"拒绝访问",
)
_S3_CONTEXT = rx(
    r"s3://|\bS3\b|bucket|HeadObject|GetObject|on_create|lifecycle|LifeCycleConfig|SourceS3Uri|存储桶|生命周期"
)
# "the node", "a HyperPod worker node", "ip-10-1-2-3", "each compute node" …
_A_NODE = (
    r"(?:(?:the|a|an|this|that|each|every|one|my|our|any|specific|individual|HyperPod|Slurm|EKS"
    r"|GPU|compute|worker|controller|head|login|cluster|of\s+the)\s+){0,4}"
    r"(?:nodes?|instances?|hosts?|machines?|workers?|controllers?|ip-\d+-\d+-\d+-\d+)\b"
)
_SSM_CONTEXT = rx(r"\bssm\b|StartSession|start-session|session-manager|sagemaker-cluster:")

# fmt: off
SIGNATURES = (
    # § K — SSM
    sig(
        "ssm.target_not_connected", "K", 6.0,
        "SSM cannot reach the node: most often a wrong target (cluster id, group, instance)"
        " or region",
        r"TargetNotConnected", r"is not connected\b",
        checks=SSM,
    ),
    sig(
        "ssm.plugin", "K", 5.0,
        "the session-manager-plugin is missing on the machine running the command",
        r"SessionManagerPlugin is not found",
        r"session-manager-plugin[^\n]{0,40}(?:not found|missing|not installed)",
        checks=SSM,
    ),
    sig(
        "ssm.mention", "K", 2.5,
        "node access through SSM is involved",
        r"sagemaker-cluster:", r"start-session", r"StartSession", r"amazon-ssm-agent", r"SSM Agent",
        r"send-command",
        r"\bSSH\b[^\n]{0,40}(?:node|节点|HyperPod)",
        r"(?:连不上|登不上|无法登录|无法连接)\s*(?:到)?\s*(?:节点|机器)",
        checks=SSM,
    ),
    sig(
        "ssm.shell_wanted", "K", 4.5,
        "a shell or commands on a node are wanted: HyperPod nodes are reached through SSM",
        rf"(?:get|open|need|want|obtain|start|have|drop\s+into|launch)\s+(?:a\s+|an\s+)?"
        rf"(?:interactive\s+|root\s+|remote\s+|bash\s+)?(?:shell|terminal|console|session|SSH)"
        rf"\s+(?:access\s+)?(?:on|to|into|in|onto|inside)\s+{_A_NODE}",
        rf"(?:how|way|where)\s+(?:do\s+(?:I|we|you)|can\s+(?:I|we)|to|should\s+(?:I|we))\s+"
        rf"(?:\w+\s+)?(?:access|reach|connect\s+(?:in)?to|ssh\s+(?:in)?to|log\s*(?:in|on)(?:\s*to)?|get\s+(?:in)?to"
        rf"|get\s+on(?:to)?|shell\s+into|exec\s+into|run\s+commands?\s+on)\s+{_A_NODE}",
        rf"(?:can't|cannot|can\s+not|unable\s+to|could\s*not|couldn't|no\s+way\s+to)\s+"
        rf"(?:access|reach|connect\s+(?:in)?to|ssh\s+(?:in)?to|log\s*(?:in|on)(?:\s*to)?|get\s+(?:in)?to"
        rf"|get\s+a\s+shell\s+on)\s+{_A_NODE}",
        rf"run\s+(?:\w+\s+){{0,2}}?(?:commands?|scripts?)\s+(?:directly\s+|remotely\s+)?on\s+{_A_NODE}",
        r"(?:怎么|如何|怎样|想|需要|要)\s*(?:才能)?\s*(?:登录|登陆|登上|连接|连|进入|进|ssh)\s*(?:到|进|上)?\s*"
        r"[^\n。，,？?]{0,16}?(?:节点|机器|实例|主机)",
        r"(?:在|到)\s*[^\n。，,？?在到]{0,16}?(?:节点|机器|实例)\s*上\s*"
        r"(?:执行|运行|跑)\s*(?:一下|一些|几个)?\s*(?:命令|脚本|shell)",
        r"(?:节点|机器|实例)\s*(?:上)?\s*(?:开|拿|起)\s*(?:一个|个)?\s*(?:shell|终端)",
        checks=SSM,
    ),
    sig(
        "aws.denied_ssm", "K", 4.0,
        "an IAM permission for SSM is missing",
        *_DENIED, matching=Matching(context=_SSM_CONTEXT),
        checks=SSM,
    ),
    # § D.1 — S3 access for lifecycle scripts
    sig(
        "aws.denied_s3", "D.1", 5.0,
        "S3 access was denied: the managed instance-role policy only covers buckets named"
        " sagemaker-*",
        *_DENIED, matching=Matching(context=_S3_CONTEXT),
        checks=S3,
    ),
    sig(
        "lifecycle.s3_download", "D.1", 3.5,
        "the lifecycle scripts could not be fetched from S3",
        r"download failed: s3://", r"fatal error: An error occurred \(40[34]\)", r"NoSuchBucket",
        r"NoSuchKey",
        r"s3://(?!sagemaker-)[a-z0-9.-]+[^\n]{0,60}(?:denied|forbidden|403)",
        checks=S3,
    ),
    # § K — other denials and throttling, when nothing says S3 or SSM
    sig(
        "aws.denied", "K", 1.0,
        "an AWS call was denied: grant the named IAM action to the caller",
        *_DENIED, matching=Matching(unless=rx(_S3_CONTEXT.pattern, _SSM_CONTEXT.pattern)),
        checks=("aws sts get-caller-identity", TRIAGE),
    ),
    sig(
        "aws.throttled", "K", 1.5,
        "AWS API throttling: slow the calls down or retry with backoff",
        r"ThrottlingException", r"Rate exceeded", r"RequestLimitExceeded",
        r"TooManyRequestsException",
        checks=("aws sts get-caller-identity",),
    ),
    # § L — log collection
    sig(
        "logs.collection", "L", 3.5,
        "logs need collecting or are missing",
        r"(?:collect|gather)\w*\s+(?:the\s+)?logs", r"log (?:bundle|collection)",
        r"issue[- ]report", r"nvidia-bug-report",
        r"(?:no|missing|empty)\s+logs?\s+(?:in|from)\s+CloudWatch",
        r"(?:log group|log stream)[^\n]{0,40}(?:not found|missing|does not exist|empty)",
        r"\bno\s+(?:\w+\s+){0,2}log (?:streams?|groups?|events?)\b",
        r"(?:can't|cannot|can not|unable to|couldn't)\s+(?:see|find)\s+(?:the\s+|any\s+)?logs?\b",
        r"ResourceNotFoundException[^\n]{0,60}log",
        r"(?:日志|log)\s*(?:收集|打包|看不到|找不到|没有)",
        r"(?:收集|打包|导出|抓取?|采集)\s*(?:一下|一些|所有|全部)?\s*(?:的)?\s*(?:节点|集群|系统)?\s*(?:的)?\s*日志",
        r"CloudWatch\s*(?:里|中)?\s*(?:没有|看不到)",
        checks=LOGS,
    ),
    sig(
        "logs.support_case", "L", 1.5,
        "an AWS Support case is in view: it needs the logs and the cluster identifiers",
        r"(?:for|to)\s+AWS\s+(?:Premium\s+)?Support",
        r"(?:给|提交给|发给|交给)\s*AWS\s*(?:Support|支持)",
        r"(?:support|支持)\s*(?:case|工单)",
        checks=LOGS,
    ),
    sig(
        "logs.cloudwatch", "L", 1.5,
        "CloudWatch logs are mentioned",
        word("CloudWatch"), r"/aws/sagemaker/Clusters", r"log group", r"log stream",
        checks=LOGS,
    ),
)
# fmt: on
