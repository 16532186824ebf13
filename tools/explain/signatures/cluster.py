"""HyperPod control-plane wording: health labels and recovery (F), capacity (C),
lifecycle scripts (D)."""

from __future__ import annotations

from tools.explain.signature import (
    DESCRIBE_CLUSTER,
    DESCRIBE_NODE,
    LIST_EVENTS,
    LIST_NODES,
    TRIAGE,
    TRIAGE_NODE,
    Matching,
    rx,
    sig,
    word,
)
from tools.signals import wording

LABELS = (
    "kubectl get nodes -L sagemaker.amazonaws.com/node-health-status"
    " -L sagemaker.amazonaws.com/deep-health-check-status",
    "kubectl describe node <NODE_NAME>",
    TRIAGE_NODE,
)
LIFECYCLE = (
    LIST_EVENTS,
    "aws logs filter-log-events --log-group-name /aws/sagemaker/Clusters/<CLUSTER>/<CLUSTER_ID>"
    " --log-stream-name-prefix LifecycleConfig --region <REGION>",
    "cat /var/log/provision/provisioning.log",
)
# Cluster (ClusterStatus), instance-group and node (InstanceStatus) status values.
_STATUS_VALUES = (
    r"(?:Creating|Updating|SystemUpdating|RollingBack|Deleting|Failed|Failure|Degraded"
    r"|InService|Pending|ShuttingDown|NotFound|DeepHealthCheckInProgress"
    r"|AttachInProgress|DetachInProgress)"
)
# In English prose only the API's own capitalisation counts ("is Failed", not "failed").
_STATUS = rf"[\"']?(?<![A-Za-z])(?-i:{_STATUS_VALUES})(?![A-Za-z])"
# Chinese questions often write the value in lower case ("一直 pending").
_STATUS_ANY_CASE = rf"[\"']?(?<![A-Za-z]){_STATUS_VALUES}(?![A-Za-z])"
# What may follow a status word at the end of a clause.
_CLAUSE_END = r"(?=\s+(?:for|since|after|again|now)\b|[ \t]*[.!?,;:。，！？；)]|[ \t]*(?:\n|$))"
SG_RULES_CHECKS = (
    "aws ec2 describe-security-groups --group-ids <SG_ID> --region <REGION>",
    LIST_EVENTS,
    TRIAGE,
)
VPC_CHECKS = (
    "aws ec2 describe-subnets --subnet-ids <SUBNET_ID> --region <REGION>",
    "aws ec2 describe-route-tables --filters Name=association.subnet-id,Values=<SUBNET_ID>"
    " --region <REGION>",
    TRIAGE,
)
_PROVISION_FAILED = (
    r"(?:(?:failed|unable)\s+to|(?:could\s*not|couldn't|cannot|can't))\s+(?:provision|launch)"
    r"\s+(?:the\s+|an?\s+|any\s+)?(?:new\s+)?(?:EC2\s+)?(?:instances?|nodes?)"
)
QUOTAS = "aws service-quotas list-service-quotas --service-code sagemaker --region <REGION>"
CAPACITY = (
    "aws ec2 describe-instance-type-offerings --location-type availability-zone"
    " --filters Name=instance-type,Values=<INSTANCE_TYPE> --region <REGION>",
    LIST_EVENTS,
    DESCRIBE_CLUSTER,
)

# fmt: off
SIGNATURES = (
    # § F.2 — node health labels
    sig(
        "hyperpod.pending_replacement", "F.2", 6.0,
        "HyperPod marked the node for replacement after a hardware fault",
        r"UnschedulablePendingReplacement",
        checks=LABELS,
    ),
    sig(
        "hyperpod.pending_reboot", "F.2", 5.0,
        "HyperPod marked the node for a reboot",
        r"UnschedulablePendingReboot",
        checks=LABELS,
    ),
    sig(
        "hyperpod.deep_health_failed", "F.2", 6.0,
        "the deep health check failed on the node: read the fault details, then § G",
        *wording("hyperpod.deep_health_failed_label"),
        r"deep health checks?\s+(?:has\s+|have\s+)?(?:failed|failure)",
        r"(?:深度健康检查|deep health check)\s*(?:失败|没过|未通过)",
        r"DeepHealthCheck\w*\s*(?:Failed|failure)",
        checks=LABELS,
    ),
    sig(
        "hyperpod.deep_health_gpu", "G", 1.5,
        "deep health checks test GPUs with DCGM and NCCL",
        *wording("hyperpod.deep_health_failed_label"),
        r"deep health checks?\s+(?:failed|failure)",
        r"深度健康检查\s*(?:失败|没过|未通过)",
    ),
    sig(
        "hyperpod.labels", "F.2", 2.5,
        "HyperPod health labels or fault annotations are involved",
        r"node-health-status", r"deep-health-check-status", r"fault-details", r"fault-reasons?",
        r"fault-types?",
        r"sagemaker\.amazonaws\.com/[a-z-]+", r"Unschedulable\b",
        checks=LABELS,
    ),
    sig(
        "hyperpod.deep_health_word", "F.2", 2.0,
        "deep health checks are mentioned",
        r"deep health check", r"DeepHealthCheckInProgress", r"OnStartDeepHealthChecks",
        r"深度健康检查",
        r"InstanceStress|InstanceConnectivity",
        checks=LABELS,
    ),
    # § F — the platform's own verdict that the instance hardware failed
    sig(
        "hyperpod.hardware_failure", "F", 5.5,
        "HyperPod concluded the instance hardware failed: the node is (or will be) replaced",
        r"(?:likely\s+|probably\s+|may\s+have\s+)?(?:experienced|suffered|encountered|had)"
        r"\s+(?:an?\s+)?(?:underlying\s+)?hardware\s+(?:failure|fault|issue|problem|error)",
        r"hardware\s+(?:failure|fault)\s+(?:was\s+|has\s+been\s+)?(?:detected|identified|suspected)",
        r"(?:due\s+to|because\s+of|caused\s+by)\s+(?:an?\s+)?(?:underlying\s+)?hardware"
        r"\s+(?:failure|fault|issue)",
        r"硬件\s*(?:故障|失败)", r"(?:出现|发生|遇到)了?\s*硬件\s*问题",
        checks=(LIST_EVENTS, DESCRIBE_NODE, LIST_NODES),
    ),
    sig(
        "hyperpod.provision_failed", "C", 4.5,
        "HyperPod could not provision an EC2 instance: capacity first, then a hardware fault"
        " on the new instance (§ F)",
        _PROVISION_FAILED,
        r"(?:EC2\s+)?instance\s+provisioning\s+(?:failed|failure|error)",
        r"(?:EC2\s*)?(?:实例|机器)\s*(?:预置|创建|启动|开通)\s*(?:失败|不成功|报错)",
        r"(?:预置|开通)\s*(?:EC2\s*)?(?:实例|机器)\s*(?:失败|不成功)",
        checks=CAPACITY,
    ),
    sig(
        "hyperpod.provision_failed_hw", "F", 2.0,
        "a provisioning failure can also be a hardware fault on the new instance",
        _PROVISION_FAILED,
        r"(?:EC2\s*)?(?:实例|机器)\s*(?:预置|开通)\s*(?:失败|不成功|报错)",
        checks=(LIST_EVENTS, LIST_NODES),
    ),
    # § A + § B — an instance that could not bootstrap because of the network
    sig(
        "hyperpod.bootstrap_network", "A", 4.5,
        "the instance could not bootstrap for a network reason: the EFA security-group self"
        " rules first, then the VPC (§ B)",
        *wording("hyperpod.bootstrap_network"),
        checks=SG_RULES_CHECKS,
    ),
    sig(
        "hyperpod.bootstrap_network_vpc", "B", 4.0,
        "the instance could not bootstrap for a network reason: subnets, routes, DNS and"
        " endpoints of the VPC",
        *wording("hyperpod.bootstrap_network"),
        checks=VPC_CHECKS,
    ),
    sig(
        "hyperpod.bootstrap_failed", "D", 2.0,
        "the instance failed to bootstrap (provisioning and the lifecycle step run then)",
        r"bootstrap\w*\s+(?:has\s+)?(?:failed|failure|error|timed out)",
        r"(?:failed|unable)\s+to\s+bootstrap",
        r"(?:引导|bootstrap)\s*(?:失败|超时)",
        checks=LIFECYCLE,
    ),
    # § A — the health agent's network fault type
    sig(
        "hyperpod.network_fault", "A", 5.0,
        "the node's fault type is a network fault: EFA and its security group come first",
        r"NetworkFaultType", r"fault-types?[\"'=:\s]{0,6}Network\w*",
        r"fault\s+type[\"'=:\s]{0,6}Network\w*",
        checks=SG_RULES_CHECKS,
    ),
    # § F.1 — NodeRecovery
    sig(
        "hyperpod.node_recovery_none", "F.1", 6.0,
        "automatic node recovery is switched off for the cluster",
        r"NodeRecovery[\"'=:\s]{0,6}None", r"node[- ]recovery\s+(?:is\s+)?(?:None|off|disabled)",
        checks=(DESCRIBE_CLUSTER, TRIAGE),
    ),
    sig(
        "hyperpod.node_recovery", "F.1", 3.5,
        "automatic recovery did not act as expected",
        r"NodeRecovery",
        r"auto[- ]?(?:repair|recovery)\w*\s+(?:did not|didn't|never|not)\s+"
        r"(?:trigger|kick|happen|start|work)",
        r"(?:not|never|wasn't|isn't)\s+(?:automatically\s+)?(?:replaced|repaired|recovered)",
        r"自动(?:修复|恢复|替换)[^\n]{0,10}(?:没|未|不)",
        r"(?:没|未)\s*(?:有)?\s*自动(?:修复|恢复|替换)",
        checks=(DESCRIBE_CLUSTER, TRIAGE),
    ),
    # § F.3 — Health Monitoring Agent
    sig(
        "hyperpod.hma", "F.3", 4.0,
        "the Health Monitoring Agent detected a fault",
        r"SagemakerHealthMonitoringAgent", r"HealthMonitoringAgent\w*", word("HMA"),
        r"NvidiaErrorReboot",
        r"health[- ]monitoring agent",
        checks=(TRIAGE_NODE, LIST_EVENTS),
    ),
    # § F.4 — manual reboot / replace
    sig(
        "hyperpod.batch_ops", "F.4", 4.5,
        "a manual reboot or replacement through the batch APIs",
        r"batch-(?:reboot|replace)-cluster-nodes", r"Batch(?:Reboot|Replace)ClusterNodes",
        r"InvalidInstanceStatus", r"InstanceIdInUse", r"InstanceIdNotFound",
        r"(?:replace|replacement|reboot)\w*[^\n]{0,30}(?:stuck|failed|keeps failing|not working)",
        r"(?:替换|重启)\s*(?:节点)?\s*(?:失败|卡住|没反应)", r"节点\s*(?:替换|重启)",
        checks=(LIST_NODES, DESCRIBE_NODE, LIST_EVENTS),
    ),
    sig(
        "hyperpod.status_transition", "F.1", 5.0,
        "an expected transition (platform update or deep health checks): wait, and read the"
        " cluster events if it lasts",
        word(r"SystemUpdating|DeepHealthCheckInProgress|AttachInProgress|DetachInProgress"),
        checks=(LIST_NODES, LIST_EVENTS, DESCRIBE_CLUSTER),
    ),
    sig(
        "hyperpod.status_value", "F.1", 4.5,
        "a HyperPod cluster, instance-group or node status is in question",
        word(r"RollingBack|ShuttingDown"),
        r"(?:ClusterStatus|InstanceStatus|InstanceGroupStatus|\"Status\")[\"'=:\s{]{0,24}"
        + _STATUS,
        r"(?:cluster|instance[- ]group|node|instance)s?\s+(?:status|state)\b[^\n.]{0,24}?"
        + _STATUS,
        r"(?:cluster|instance[- ]group|nodes?|instances?)\b[^\n.]{0,40}?"
        r"(?:(?:has|have)\s+been|is|are|was|were|stays?|remains?|stuck|still|sits?|went|goes"
        r"|turned|became|shows?|changed)\s+(?:stuck\s+)?(?:(?:in|at|on|to|into)\s+(?:the\s+)?)?"
        + _STATUS
        + r"(?:\s+(?:status|state))?"
        + _CLAUSE_END,
        r"(?:in|stuck in|stuck at)\s+(?:the\s+)?" + _STATUS + r"\s+(?:status|state)\b",
        r"(?:集群|节点|实例组|实例)[^\n。，,]{0,24}?(?:状态|status)[^\n。，,]{0,10}?"
        + _STATUS_ANY_CASE,
        r"(?:集群|节点|实例组|实例)[^\n。，,]{0,16}?(?:一直|卡在|停在|还是|仍然|仍|始终|处于)"
        r"\s*(?:是|在|处于)?\s*" + _STATUS_ANY_CASE,
        r"卡在\s*" + _STATUS_ANY_CASE,
        matching=Matching(unless=rx(r"\bpods?\b|squeue|sbatch|srun|作业|容器组")),
        checks=(LIST_NODES, LIST_EVENTS, DESCRIBE_CLUSTER),
    ),
    sig(
        "hyperpod.status_words_zh", "F.1", 1.5,
        "the cluster or node status is asked about",
        r"(?:集群|节点|实例组)\s*(?:的)?\s*状态",
        checks=(LIST_NODES, LIST_EVENTS, DESCRIBE_CLUSTER),
    ),
    sig(
        "hyperpod.cluster_failed", "F.1", 1.5,
        "the cluster or an instance group is in a failed state",
        r"ClusterStatus[\"'=:\s]{0,6}(?:Failed|RollingBack)",
        r"InstanceGroup\w*\s+(?:status\s+)?(?:Failed|Degraded)",
        r"FailureMessage", r"集群\s*(?:创建)?\s*(?:失败|回滚)",
        checks=(DESCRIBE_CLUSTER, LIST_EVENTS),
    ),
    # § C — capacity and Availability Zones
    sig(
        "capacity.insufficient", "C", 6.0,
        "no capacity for the instance type in that Availability Zone",
        # Shared wording first: no two of these can start a match at the same character,
        # so their order never changes what is quoted.
        *wording("capacity.insufficient"),
        r"Insufficient capacity", r"insufficient\s+\w+\s+capacity",
        r"not have sufficient \S+ capacity", r"InsufficientCapacity\w*",
        r"容量不足", r"没有\s*(?:足够的?)?\s*容量", r"(?:实例|机器)\s*(?:不够|不足|拿不到)",
        checks=CAPACITY,
    ),
    sig(
        "capacity.az", "C", 4.0,
        "the instance type is not offered in the subnet's Availability Zone",
        r"not supported in (?:the|your) requested Availability Zone",
        r"Unsupported[^\n]{0,60}Availability Zone",
        r"Availability Zone[^\n]{0,40}(?:not supported|mismatch|does not (?:have|offer|support))",
        r"describe-instance-type-offerings", r"可用区\s*(?:不支持|不匹配|没有)",
        r"no\s+subnets?\s+(?:\w+\s+){0,3}(?:in|for|match\w*|cover\w*)\s+(?:\w+\s+){0,5}?"
        r"(?:AZs?|Availability\s+Zones?)\b",
        r"(?:capacity|reservation|training\s+plan)\w*[^\n.]{0,60}?(?:AZ|Availability\s+Zone)"
        r"[^\n.]{0,60}?(?:no|without|none\s+of\s+(?:the|our|its))\s+(?:\w+\s+)?subnets?",
        r"subnets?\b[^\n.]{0,40}?not\s+in\s+the\s+(?:same\s+)?(?:AZ|Availability\s+Zone)"
        r"[^\n.]{0,30}?(?:capacity|reservation|training\s+plan|reserved)",
        r"(?:容量|预留|训练计划)[^\n。]{0,30}?可用区[^\n。]{0,30}?(?:没有|没|缺少|无)[^\n。]{0,10}?子网",
        r"子网[^\n。]{0,30}?(?:不在|没有在|都不在)[^\n。]{0,20}?(?:容量|预留|训练计划)[^\n。]{0,10}?(?:的)?\s*可用区",
        r"(?:容量|预留|训练计划)[^\n。]{0,20}?(?:的)?\s*可用区[^\n。]{0,10}?(?:没有|无)\s*子网",
        checks=CAPACITY,
    ),
    sig(
        "capacity.quota", "C", 4.0,
        "an account quota or reservation limits the instance count",
        r"ResourceLimitExceeded", r"service (?:quota|limit)", r"for cluster usage",
        r"capacity reservation", word("ODCR"),
        *wording("capacity.training_plan"), r"配额\s*(?:不足|不够|超了|限制)",
        checks=(QUOTAS, *CAPACITY),
    ),
    sig(
        "capacity.az_word", "C", 1.0,
        "Availability Zones are mentioned",
        r"Availability Zone", r"可用区", r"\b[a-z]{2}-[a-z]+-\d[a-f]\b",
        checks=CAPACITY,
    ),
    # § D — lifecycle scripts
    sig(
        "lifecycle.crlf", "D.2", 6.0,
        "Windows line endings (CRLF) in a lifecycle script",
        # Shared wording first (as for capacity.insufficient, order changes no match).
        *wording("lifecycle.crlf"), r"bad interpreter:[^\n]{0,40}\^M",
        word("CRLF"), r"line endings?", r"换行符", r"\^M",
        checks=("file <SCRIPT>", *LIFECYCLE),
    ),
    sig(
        "lifecycle.script_failed", "D.2", 4.0,
        "a lifecycle script failed or timed out",
        r"lifecycle (?:script|configuration|config)s?\b[^\n]{0,60}"
        r"(?:fail\w*|error|timed? ?out|exit(?:ed)? (?:code|status)|did not (?:run|complete)"
        r"|didn't (?:run|complete))",
        r"on_create\.sh[^\n]{0,60}(?:fail\w*|error|exit|line \d+)", r"LcsExecutionState",
        r"lifecycle\s+script\s+execution",
        r"生命周期脚本\s*(?:执行)?\s*(?:失败|报错|超时)",
        # Mixed text: the script named in English, the outcome in Chinese.
        r"(?:lifecycle\s*(?:scripts?|config\w*)|生命周期\s*(?:脚本|配置)|on_create(?:\.sh)?)"
        r"[^\n。]{0,40}?(?:执行|运行)?\s*(?:失败|报错|出错|超时|错误|退出码\s*[1-9])",
        checks=LIFECYCLE,
    ),
    # A status names no cause; a failure message that names a lifecycle script does, so it
    # outweighs a bare Failed or RollingBack status (§ F.1) in any language.
    sig(
        "lifecycle.failure_reason", "D", 5.5,
        "the cluster's failure message names a lifecycle script: the status is its symptom",
        r"(?:FailureMessage|failure\s+(?:message|reason)|失败原因|失败信息|报错信息|错误信息|原因)"
        r"[^\n]{0,120}?(?:lifecycle|LifeCycleConfig|on_create|OnCreate|生命周期|provisioning_parameters)",
        checks=LIFECYCLE,
    ),
    sig(
        "lifecycle.params", "D.2", 4.0,
        "provisioning_parameters.json does not match the instance groups",
        r"provisioning_parameters\.json",
        r"(?:instance )?group name[^\n]{0,40}(?:mismatch|not found|does not match|doesn't match)",
        r"(?:mismatch|does not match|doesn't match)[^\n]{0,40}group name",
        r"KeyError: '?(?:controller|worker|login)", r"controller_group|worker_groups|login_group",
        checks=("cat /opt/ml/config/provisioning_parameters.json", *LIFECYCLE),
    ),
    sig(
        "lifecycle.mention", "D", 2.0,
        "lifecycle scripts are involved",
        r"lifecycle scripts?", r"LifeCycleConfig", r"on_create(?:\.sh)?", r"OnCreate",
        *wording("lifecycle.on_init_complete"),
        r"/var/log/provision", r"生命周期(?:脚本|配置)", r"lifecycle_script",
        checks=LIFECYCLE,
    ),
)
# fmt: on
