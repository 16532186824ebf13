"""Network wording: EFA and security groups (A), VPC (B), NCCL and versions (E), CNI (O)."""

from __future__ import annotations

from tools.explain.signature import DESCRIBE_CLUSTER, TRIAGE, TRIAGE_NODE, Matching, rx, sig, word
from tools.signals import wording

SG_RULES = (
    "aws ec2 describe-security-groups --group-ids <SG_ID> --region <REGION>",
    TRIAGE,
)
EFA_NODE = ("fi_info -p efa -t FI_EP_RDM", "lsmod | grep efa", TRIAGE_NODE)
NCCL_ENV = ("env | grep -E '^(FI_|NCCL_)'", "fi_info -p efa -t FI_EP_RDM", TRIAGE_NODE)
VERSIONS = (
    "nvidia-smi",
    "cat /opt/amazon/efa_installed_packages",
    "env | grep -E '^(FI_|NCCL_)'",
)
VPC = ("aws ec2 describe-subnets --subnet-ids <SUBNET_ID> --region <REGION>", TRIAGE)
DNS = (
    "aws ec2 describe-vpc-attribute --vpc-id <VPC_ID> --attribute enableDnsSupport"
    " --region <REGION>",
    "aws ec2 describe-vpc-attribute --vpc-id <VPC_ID> --attribute enableDnsHostnames"
    " --region <REGION>",
    TRIAGE,
)
ROUTES = (
    "aws ec2 describe-route-tables --filters Name=association.subnet-id,Values=<SUBNET_ID>"
    " --region <REGION>",
    "aws ec2 describe-nat-gateways --region <REGION>",
    TRIAGE,
)
ENDPOINTS = (
    "aws ec2 describe-vpc-endpoints --filters Name=vpc-id,Values=<VPC_ID> --region <REGION>",
    TRIAGE,
)
EKS = ("aws eks describe-cluster --name <EKS_CLUSTER> --region <REGION>", DESCRIBE_CLUSTER)
RDMA_DEVICES = (
    "ls /sys/class/infiniband/",
    "ibv_devices",
    "fi_info -p efa -t FI_EP_RDM",
    "lsmod | grep efa",
    TRIAGE_NODE,
)
# A mount that hangs, times out or fails, in English or Chinese.
_STUCK_OR_FAILED = (
    r"(?:hang\w*|hung|stuck|time[sd]?\s*out|timed out|fail\w*|errors?"
    r"|卡住|卡着|卡死|超时|失败|报错|不上)"
)
LUSTRE = (
    "findmnt -t lustre",
    "lfs check servers",
    "lctl list_nids",
    "dmesg -T | grep -iE 'lustre|lnet'",
    "aws fsx describe-file-systems --file-system-ids <FILE_SYSTEM_ID> --region <REGION>",
)
CNI = (
    "kubectl -n kube-system get ds aws-node kube-proxy",
    "kubectl -n kube-system logs -l k8s-app=aws-node --tail 200",
    TRIAGE,
)

# fmt: off
SIGNATURES = (
    # § A — EFA and security groups
    sig(
        "efa.health_check", "A", 6.0,
        "the EFA health check at node creation failed: the security group self rules come first",
        r"EFA health checks? did not run successfully",
        r"EFA health check(?:s)?\s+(?:failed|failure)",
        r"EFA\s*健康检查\s*(?:失败|没通过|未通过)",
        checks=SG_RULES,
    ),
    sig(
        "efa.sg_self", "A", 4.5,
        "security-group rules are in question: EFA needs all traffic to and from the group itself",
        r"(?:security group|SG)\b[^\n]{0,60}\b(?:self|itself|self-referenc\w*|outbound|egress)",
        r"(?:outbound|egress|inbound|ingress)\b[^\n]{0,60}\b(?:security group|SG)\b",
        r"安全组[^\n]{0,30}(?:出站|入站|自引用|自身|自己)", r"(?:出站|入站)\s*规则",
        checks=SG_RULES,
    ),
    sig(
        "sg.egress_lost", "A.1", 9.0,
        "outbound rules were narrowed or removed: security-group egress filters NAT-bound "
        "traffic too, so the nodes may have lost their way to AWS",
        r"(?:remov|delet|revok|tighten|restrict|narrow)\w*\b[^\n]{0,50}"
        r"(?:0\.0\.0\.0/0|outbound|egress)",
        r"drop\w*\b[^\n]{0,40}(?:0\.0\.0\.0/0|outbound|egress)[^\n]{0,30}\brules?\b",
        r"(?:0\.0\.0\.0/0|outbound|egress)\b[^\n]{0,40}"
        r"\b(?:removed|deleted|revoked|tightened|restricted|narrowed)",
        r"(?:删|删除|删掉|去掉|移除|收紧|限制)[^\n]{0,20}(?:出站|0\.0\.0\.0/0)",
        r"(?:出站|0\.0\.0\.0/0)[^\n]{0,20}(?:删|删除|删掉|去掉|移除|收紧)",
        checks=(
            "aws ec2 describe-security-group-rules --filters Name=group-id,Values=<SG_ID>"
            " --region <REGION>",
            TRIAGE,
        ),
    ),
    sig(
        "efa.sg_generic", "A", 1.5,
        "a security group is mentioned",
        r"security group", r"安全组", word(r"sg-[0-9a-f]{8,17}"),
        checks=SG_RULES,
    ),
    sig(
        "efa.socket_fallback", "A", 4.5,
        "NCCL fell back to TCP sockets: EFA / the OFI plugin is not in use",
        r"Using network Socket", r"NET/Socket", r"Could not find any optimal provider",
        r"(?:没有|没|未)\s*(?:走|用|使用)\s*EFA", r"走(?:的是|了)?\s*socket",
        checks=NCCL_ENV,
    ),
    sig(
        "versions.socket_fallback", "E", 1.5,
        "NCCL on sockets is often the job environment: an image without libfabric or the"
        " aws-ofi-nccl plugin, or EFA devices not passed into the container",
        r"Using network Socket",
        r"(?:no|without)\s+(?:the\s+)?(?:OFI|aws-ofi-nccl)\s+plugin",
        r"(?:没|没有|未)\s*(?:装|安装|打包|带)\s*(?:aws-ofi-nccl|libfabric|OFI\s*(?:插件|plugin)|EFA)",
        r"(?:image|container|镜像|容器)[^\n。]{0,40}?(?:without|lacks?|missing|no|没有|缺少?)\s*"
        r"(?:the\s+)?(?:aws-ofi-nccl|libfabric|OFI\s+plugin)",
        checks=VERSIONS,
    ),
    sig(
        "efa.ofi", "A", 3.5,
        "libfabric / the NCCL OFI plugin could not bring EFA up",
        r"NET/OFI", r"fi_getinfo", r"aws-ofi-nccl",
        r"(?:Failed to initialize|cannot open)\s+(?:libfabric|EFA)",
        r"unreachable via EFA", r"No EFA devices?",
        r"EFA (?:device|interface)s?\s+(?:not found|missing)",
        r"efa\s+(?:provider|driver)\s+(?:not|missing|failed)", r"/dev/infiniband",
        checks=EFA_NODE,
    ),
    sig(
        "efa.rdma_missing", "A", 5.0,
        "the node lists no EFA (RDMA) devices: compare with a healthy peer, reboot, then § F.4",
        # ibv_devices printing its header and nothing under it (the next line is a prompt,
        # a blank line or the end of the paste), ibv_devinfo's own message, and prose.
        r"node GUID[ \t]*\n[ \t]*-{4,}[ \t]+-{4,}[ \t]*(?:\n[ \t]*(?:[$#>\n]|$)|$)",
        r"No IB devices found",
        r"(?:no|zero|without|missing|none of the|0)\s+(?:\w+\s+){0,2}?(?:rdmap\w*|RDMA|uverbs|EFA)"
        r"\s*(?:devices?|interfaces?|links?)",
        r"(?:rdmap\w*|RDMA|uverbs|EFA)\s*(?:devices?|interfaces?)\s*(?:are\s+|is\s+)?"
        r"(?:missing|gone|absent|not\s+(?:present|found|listed|there|visible))",
        r"(?:ibv_devices|ibv_devinfo|rdma\s+link(?:\s+show)?|/sys/class/infiniband/?|/dev/infiniband/?)"
        r"[^\n.。]{0,40}?(?:(?:is|are|was|comes?\s+back|returns?|prints?|shows?)\s+(?:\w+\s+)?"
        r"(?:empty|nothing|blank)|only\s+(?:prints?|shows?|has)?\s*(?:the\s+)?header"
        r"|(?:只|仅)\s*(?:打印|显示|输出|有)了?\s*表头|(?:也)?\s*(?:是)?\s*空的?|(?:没有|没|无)\s*(?:任何)?\s*(?:输出|设备)"
        r"|(?:什么|啥)\s*(?:都|也)\s*(?:没有|没))",
        r"(?:看不到|没有|没|找不到|缺少|不见了?)\s*(?:任何)?\s*(?:rdmap\w*|RDMA|EFA|uverbs)\s*(?:的)?\s*(?:设备|网卡|接口)",
        r"(?:rdmap\w*|RDMA|EFA|uverbs)\s*(?:的)?\s*(?:设备|网卡)\s*(?:都)?\s*(?:不见了|没了|消失|没有|缺失|找不到)",
        checks=RDMA_DEVICES,
    ),
    sig(
        "efa.mention", "A", 1.5,
        "EFA is mentioned",
        word("EFA"), r"libfabric", word("FI_PROVIDER"),
        checks=EFA_NODE,
    ),
    sig(
        "nccl.timeout", "A", 3.5,
        "a collective timed out: check EFA and the security groups first, then versions (§ E)",
        *wording("nccl.collective_timeout"),
        r"collective operation timeout",
        r"(?:AllReduce|all_reduce|allgather|reduce_scatter)[^\n]{0,40}"
        r"(?:timed out|timeout|hang|stuck)",
        r"NCCL\s*(?:超时|卡住|hang)", r"(?:AllReduce|通信)\s*(?:超时|卡住|hang住|卡死)",
        r"(?:stuck|hang\w*|hung|sits?|sat|sitting|wait\w*|blocked|spin\w*|frozen)\s+(?:forever\s+)?"
        r"(?:in|at|during|on|inside)\s+(?:the\s+)?NCCL",
        r"NCCL\s+init\w*[^\n]{0,30}(?:stuck|hang|slow)",
        r"(?:卡在|卡死在|停在|hang\s*在)\s*(?:了\s*)?(?:NCCL|AllReduce|all_reduce|通信)",
        r"NCCL\s*(?:的)?\s*(?:初始化|init)\s*(?:阶段|那一步|时)?\s*(?:就)?\s*(?:卡住|卡死|超时|很慢|hang)",
        checks=NCCL_ENV,
    ),
    sig(
        "nccl.timeout_versions", "E", 2.0,
        "after EFA, mismatched NCCL / OFI / driver versions across nodes are the next suspect",
        *wording("nccl.collective_timeout"),
        r"NCCL\s*(?:超时|卡住)", r"(?:AllReduce|通信)\s*(?:超时|卡住|hang住)",
        checks=VERSIONS,
    ),
    sig(
        "nccl.error", "A", 2.5,
        "NCCL reported a system or remote error (often the network path)",
        # Shared wording first: ncclRemoteError cannot start a match where another one does,
        # so moving it after them changes no quote.
        *wording("nccl.error"), r"ncclRemoteError",
        r"NCCL error", r"remote process exited or there was a network error",
        checks=NCCL_ENV,
    ),
    sig(
        "nccl.error_versions", "E", 1.5,
        "NCCL errors can also come from version or environment mismatches",
        *wording("nccl.error"), r"ncclInvalidUsage",
        checks=VERSIONS,
    ),
    # § E — versions and job environment
    sig(
        "versions.mismatch", "E", 5.0,
        "a driver / library version mismatch",
        r"CUDA driver version is insufficient", r"Driver/library version mismatch",
        r"(?:driver|CUDA|NCCL|cuDNN|EFA|OFI|libfabric|PyTorch|torch)\s+versions?\s+"
        r"(?:mismatch|differ|do not match|are different|is different)",
        r"version\s+mismatch", r"版本\s*(?:不匹配|不一致|不同)",
        r"undefined symbol:\s*\w*(?:nccl|cuda|cublas)",
        r"NET/Plugin\s*:?\s*(?:Could not find|No plugin found|Failed to find|Plugin load returned)",
        r"(?:couldn't|could not) communicate with the NVIDIA driver",
        checks=VERSIONS,
    ),
    sig(
        "versions.driver_too_old", "E", 6.0,
        "the NVIDIA driver is older than the CUDA runtime in the job or image needs",
        r"NVIDIA driver on your system is too old", r"driver (?:version )?(?:is )?too old",
        r"update your (?:GPU |NVIDIA )?driver", r"cudaErrorInsufficientDriver",
        r"CUDA_ERROR_INSUFFICIENT_DRIVER",
        r"forward compatibility was attempted on non supported HW",
        r"cudaErrorCompatNotSupportedOnDevice|CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
        r"unsupported display driver\s*/\s*cuda driver combination",
        r"cudaErrorSystemDriverMismatch|CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
        r"requirement error: unsatisfied condition: cuda",
        r"PTX was compiled with an unsupported toolchain",
        r"(?:NVIDIA|GPU|CUDA|显卡)?\s*驱动\s*(?:的)?\s*(?:版本)?\s*(?:太|过|偏|比较)?\s*(?:老|旧|低)(?!温)",
        r"驱动\s*(?:版本)?\s*(?:不够|不足|不兼容|不支持|跟不上)",
        r"CUDA\s*(?:版本)?\s*(?:太|过)\s*(?:高|新)",
        checks=VERSIONS,
    ),
    sig(
        "versions.build_mismatch", "E", 4.0,
        "the framework or container was built for another CUDA version or GPU architecture",
        r"no kernel image is available for execution on the device",
        r"(?:was|were) compiled (?:with|against) CUDA\s*[\d.]+[^\n]{0,60}(?:but|while)",
        r"CUDA (?:runtime|driver) API version[^\n]{0,40}(?:mismatch|not match|too old)",
        r"(?:升级|更新)\s*(?:一下)?\s*(?:GPU\s*|NVIDIA\s*|显卡\s*)?驱动",
        checks=VERSIONS,
    ),
    sig(
        "versions.nccl_skew", "E", 4.5,
        "NCCL, CUDA or driver versions differ between nodes or between the image and the host",
        r"NCCL\s+versions?\s+(?:mismatch|differ\w*|do(?:es)? not match|(?:is|are) different)",
        r"(?:different|mismatched|inconsistent)\s+(?:NCCL|CUDA|driver|EFA|libfabric|OFI)"
        r"\s+versions?",
        r"(?:NCCL|CUDA|驱动|driver|EFA|OFI|PyTorch|torch)\s*(?:的)?\s*版本[^\n。，,]{0,16}?"
        r"(?:不一样|不一致|不同|不匹配|对不上)",
        r"版本\s*(?:不一样|对不上)",
        checks=VERSIONS,
    ),
    sig(
        "versions.env", "E", 2.0,
        "EFA / NCCL job environment variables are involved",
        word(r"FI_EFA_USE_DEVICE_RDMA|NCCL_SOCKET_IFNAME|NCCL_NET|NCCL_PROTO|NCCL_IB_DISABLE"),
        r"NCCL version\s+\d", r"nccl\s+\d+\.\d+\.\d+",
        checks=VERSIONS,
    ),
    # § B.1 — one VPC
    sig(
        "vpc.mismatch", "B.1", 4.5,
        "subnets and security groups are not all in the same VPC",
        r"(?:not|aren't) in the same VPC", r"different VPCs?", r"VPC (?:mismatch|does not match)",
        r"belong to (?:a )?different (?:VPCs?|networks)", r"(?:不在|不是)\s*同一个?\s*VPC",
        checks=VPC,
    ),
    # § B.2 — DNS
    sig(
        "vpc.dns_attribute", "B.2", 5.0,
        "VPC DNS support or DNS hostnames is turned off",
        r"enableDns(?:Support|Hostnames)",
        r"DNS\s+(?:support|hostnames?|resolution)\s+(?:is\s+)?(?:disabled|off|false|not enabled)",
        r"DNS\s*(?:支持|主机名)\s*(?:没开|未开启|关闭)",
        checks=DNS,
    ),
    sig(
        "vpc.dns_failure", "B.2", 3.5,
        "names do not resolve on the node",
        r"Could not resolve host", r"Temporary failure in name resolution",
        r"Name or service not known",
        r"no such host", r"getaddrinfo (?:failed|ENOTFOUND|EAI_AGAIN)", r"NXDOMAIN",
        r"(?:域名|DNS)\s*解析\s*(?:失败|不了|错误)", r"无法解析",
        checks=DNS,
    ),
    # § B.3 — private subnets, NAT, IGW
    sig(
        "vpc.public_subnet", "B.3", 4.5,
        "the subnet looks public (routes to an internet gateway) or has no NAT",
        r"public subnet", r"internet gateway", word("IGW"), word(r"igw-[0-9a-f]{8,17}"),
        r"MapPublicIpOnLaunch",
        r"NAT gateway", r"no NAT\b", r"without (?:a )?NAT", r"(?:公有|公网|公共)\s*子网",
        r"NAT\s*网关", r"(?:没有|没|无|不带)\s*NAT",
        r"互联网网关",
        checks=ROUTES,
    ),
    # § B.4 — VPC endpoints
    sig(
        "vpc.endpoints", "B.4", 4.0,
        "AWS endpoints are unreachable: private subnets need NAT or VPC endpoints",
        r"VPC endpoints?", word(r"vpce-[0-9a-f]{8,17}"), r"(?:interface|gateway) endpoint",
        *wording("aws.endpoint_unreachable"), r"PrivateLink",
        r"(?:终端节点|VPC\s*端点|endpoint)\s*(?:缺失|没有|没配|未配置)",
        r"(?:which|what)\s+(?:VPC\s+|interface\s+|AWS\s+)?endpoints\s+(?:do|does|are|should|must)\b",
        r"(?:没有|没|缺少|缺|未)\s*(?:配置?|创建|建)?\s*(?:VPC\s*)?(?:终端节点|端点|endpoints?)",
        # "没建 ssm、ecr 和 s3 的终端节点": the services named between the verb and the noun
        r"(?:没有|没|缺少|缺|未)\s*(?:配置?|创建|建|开)\s*[^\n。，,]{1,30}?(?:的)\s*(?:VPC\s*)?"
        r"(?:终端节点|端点|endpoints?)",
        checks=ENDPOINTS,
    ),
    sig(
        "vpc.endpoint_timeout", "B.4", 2.5,
        "HTTPS connections to AWS services time out",
        r"dial tcp [^\n]{0,80}:443: (?:i/o timeout|connect: connection timed out)",
        r"(?:ecr|sts|ssm|s3|logs|sagemaker)[.\w-]*\.amazonaws\.com[^\n]{0,60}(?:timed out|timeout)",
        r"(?:connection|connect) timed out[^\n]{0,60}amazonaws",
        r"(?:ecr|sts|ssm|s3|logs|sagemaker)[.\w-]*\.amazonaws\.com[^\n]{0,60}?time[sd]?\s+out",
        r"(?:cannot|can't|unable to|could not|couldn't|fails? to|failed to)\s+(?:reach|connect to"
        r"|contact)\s+(?:ecr|sts|ssm|ec2messages|ssmmessages|s3|logs|sagemaker|api\.sagemaker)"
        r"[.\w-]*\.amazonaws\.com",
        # An AWS CLI call to the service that times out ("aws s3 cp 一直超时"); a bare
        # "SSM 连不上" is § K's wording, not evidence about endpoints.
        r"aws\s+(?:s3|s3api|ecr|sts|ssm|sagemaker)\b[^\n。，,]{0,30}?(?:超时|timed out|timeout)",
        checks=ENDPOINTS,
    ),
    # § B.5 — EKS alignment
    sig(
        "eks.auth_mode", "B.5", 5.5,
        "the EKS authentication mode must be API or API_AND_CONFIG_MAP, not CONFIG_MAP alone",
        r"CONFIG_MAP", r"authentication ?mode", r"authenticationMode", r"access entr(?:y|ies)",
        r"认证模式", r"访问条目",
        checks=EKS,
    ),
    sig(
        "eks.unauthorized", "B.5", 3.0,
        "the caller or the nodes are not authorised against the EKS API",
        r"You must be logged in to the server",
        r"server has asked for the client to provide credentials",
        r"aws-auth", r"Unauthorized[^\n]{0,30}(?:kubectl|eks|kubernetes|api server)",
        checks=EKS,
    ),
    sig(
        "eks.vpc", "B.5", 3.0,
        "the EKS cluster and HyperPod do not share a VPC or security-group path",
        r"EKS[^\n]{0,40}(?:VPC|security group|control plane)[^\n]{0,40}"
        r"(?:mismatch|different|unreachable|not reach)",
        r"(?:cannot|can't|unable to) reach (?:the )?(?:EKS|Kubernetes) (?:API|control plane)",
        r"EKS[^\n]{0,20}(?:控制平面|API)[^\n]{0,10}(?:连不上|不通)",
        checks=EKS,
    ),
    sig(
        "eks.network_path", "B.5", 6.0,
        "HyperPod nodes cannot reach the EKS control plane: same VPC, and HTTPS (443) from the"
        " HyperPod security group to the EKS cluster security group",
        r"EKS[^\n.。]{0,60}(?:different|another|separate|other|(?:not|isn't|aren't)\s+in\s+the\s+same)"
        r"\s+VPCs?",
        r"(?:different|separate|(?:not|isn't|aren't)\s+in\s+the\s+same)\s+VPCs?[^\n.。]{0,60}EKS",
        r"EKS[^\n。]{0,40}(?:不在|不是)\s*(?:在\s*)?同一个?\s*VPC",
        r"EKS[^\n。]{0,40}(?:不同|另一个|别的|两个)\s*(?:的)?\s*VPC", r"跨\s*VPC[^\n。]{0,30}EKS",
        # EKS's and HyperPod's VPC or security groups said not to match, either order
        # ("EKS VPC / SG 与 HyperPod 不匹配", "EKS 的安全组和 HyperPod 的安全组不一致").
        r"EKS[^\n。]{0,30}?(?:VPC|SG|安全组|security\s+groups?)[^\n。]{0,30}?(?:与|和|跟|同|vs\.?|and)"
        r"\s*HyperPod[^\n。]{0,30}?(?:不匹配|不一致|不一样|不同|对不上|mismatch\w*|differ\w*"
        r"|(?:do|does)\s*n[o']t\s+match)",
        r"HyperPod[^\n。]{0,30}?(?:VPC|SG|安全组|security\s+groups?)[^\n。]{0,30}?(?:与|和|跟|同|vs\.?|and)"
        r"\s*EKS[^\n。]{0,30}?(?:不匹配|不一致|不一样|不同|对不上|mismatch\w*|differ\w*"
        r"|(?:do|does)\s*n[o']t\s+match)",
        r"(?:API\s*server|apiserver|api-server|control plane|cluster endpoint|eks\.amazonaws\.com)"
        r"[^\n]{0,80}?(?:i/o timeout|timed? ?out|unreachable|connection refused|no route to host"
        r"|not reachable|just hangs|hangs)",
        r"(?:cannot|can't|unable to|could not|couldn't|fails? to|failed to)\s+(?:reach|connect to"
        r"|talk to|contact)\s+(?:the\s+)?(?:EKS\s+|Kubernetes\s+|k8s\s+)?(?:cluster\s+)?"
        r"(?:API\s*server|control plane|API endpoint|cluster endpoint)",
        r"Unable to register node with API server",
        r"(?:EKS|control plane|API\s*server)[^\n]{0,60}(?:port\s+)?(?<!\d)443(?!\d)",
        r"(?:EKS|control plane)\s+(?:cluster\s+)?security group",
        r"(?:API\s*server|APIServer|api-server|控制平面|控制面|集群端点|EKS\s*(?:的)?\s*endpoint)"
        r"[^\n。，,]{0,20}?(?:连不上|连不通|不通|无法连接|连接不上|超时|访问不了|访问不到|不可达)",
        r"(?:连不上|连不通|无法连接|连接不上|访问不了|访问不到)\s*(?:到)?\s*(?:EKS|集群)?[^\n。，,]{0,12}?"
        r"(?:API\s*server|apiserver|api-server|控制平面|控制面|endpoint|端点)",
        r"(?:安全组|security group)[^\n。]{0,30}(?<!\d)443(?!\d)[^\n。]{0,10}?"
        r"(?:不通|没开|没放通|未放行|被拦|没有放行)",
        r"(?<!\d)443(?!\d)\s*(?:端口)?\s*(?:不通|没开|没放通|未放行)",
        r"(?:安全组|security group)[^\n。]{0,20}?(?:不通|没开|没放通|未放行|没有放行)"
        r"\s*(?:端口)?\s*(?<!\d)443(?!\d)",
        checks=EKS,
    ),
    sig(
        "eks.nodes_not_joining", "B.5", 4.0,
        "HyperPod nodes never joined the EKS cluster (networking or authentication)",
        r"(?:none of\s+(?:the\s+|its\s+|our\s+)?(?:HyperPod\s+)?(?:nodes|instances)"
        r"|(?:nodes?|instances?)\s+(?:never|don't|do not|didn't|did not|doesn't|does not|can't"
        r"|cannot|won't|fail(?:ed)?\s+to))\s+(?:\w+\s+)?(?:appear|show up|join|register)\w*",
        r"(?:节点|HyperPod)[^\n。]{0,20}?(?:加不进|加入不了|无法加入|注册不到|注册不上|没有加入|没加入)",
        matching=Matching(context=rx(r"EKS|kubectl|Kubernetes|k8s|集群")),
        checks=EKS,
    ),
    sig(
        "eks.vpc_config", "B.5", 3.0,
        "the EKS cluster's own VPC configuration is involved",
        r"resourcesVpcConfig", r"clusterSecurityGroupId", r"endpointPrivateAccess",
        r"endpointPublicAccess",
        checks=EKS,
    ),
    # § B.6 — free IPs
    sig(
        "vpc.free_ips", "B.6", 5.0,
        "the subnet is out of free IP addresses",
        r"InsufficientFreeAddressesInSubnet", r"not enough (?:free )?IP addresses",
        r"no (?:free|available) IP",
        r"IP (?:address )?exhaust\w*", r"IP\s*(?:地址)?\s*(?:不足|耗尽|不够|用完)",
        checks=VPC,
    ),
    # § B.7 — network interfaces per Region
    sig(
        "vpc.eni_quota", "B.7", 5.0,
        "the Region has (almost) no network interfaces left under its quota",
        r"NetworkInterfaceLimitExceeded", r"L-DF5E4CA3",
        r"network interfaces? (?:quota|limit)", r"ENI (?:quota|limit)",
        r"(?:网络接口|ENI)\s*(?:配额|上限)",
        checks=("aws service-quotas get-service-quota --service-code vpc "
                "--quota-code L-DF5E4CA3 --region <REGION>", TRIAGE),
    ),
    # § B.8 — FSx for Lustre clients
    sig(
        "fsx.lustre_client", "B.8", 6.0,
        "the Lustre client lost or could not reach its FSx file system: the security groups"
        " must pass TCP 988 and 1018-1023 both ways (all traffic for EFA-enabled FSx)",
        *wording("storage.lustre_client"),
        r"(?:FSx|Lustre|lustre)[^\n.。]{0,60}?(?:mount\w*|挂载)[^\n.。]{0,60}?" + _STUCK_OR_FAILED,
        r"(?:mount\w*|挂载)[^\n.。]{0,20}?(?:FSx|Lustre)[^\n.。]{0,60}?" + _STUCK_OR_FAILED,
        r"lfs\s+(?:df|check)\b[^\n.。]{0,40}?"
        r"(?:hang\w*|hung|stuck|never returns|no response|卡住|卡死|没反应)",
        checks=LUSTRE,
    ),
    sig(
        "fsx.lustre_ports", "B.8", 3.0,
        "the Lustre ports are in question: TCP 988 and 1018-1023 between the clients and the"
        " file system",
        r"(?<!\d)1018\s*[-–~]\s*1023(?!\d)",
        r"(?:port|端口|TCP)\s*(?<!\d)988(?!\d)", r"(?<!\d)988(?!\d)\s*(?:端口|port)",
        matching=Matching(context=rx(r"FSx|Lustre|LNet|@tcp")),
        checks=(*SG_RULES[:1], *LUSTRE[:3]),
    ),
    sig(
        "fsx.lustre_word", "B.8", 2.0,
        "the FSx for Lustre client is involved",
        r"LustreError", word(r"LNet\w*"), r"\d+\.\d+\.\d+\.\d+@tcp\d*", r"-OST[0-9a-f]{4}",
        r"-MDT[0-9a-f]{4}", r"mount\.lustre", r"-t lustre",
        checks=LUSTRE,
    ),
    # § O — VPC CNI
    sig(
        "cni.ipamd", "O", 5.0,
        "the VPC CNI (aws-node / ipamd) is not serving: pods get no IP",
        r"127\.0\.0\.1:50051", r":50051", r"ipamd", r"IPAM-?D", r"aws-routed-eni",
        r"AddNetwork gRPC", r"failed to assign an IP address to container",
        checks=CNI,
    ),
    sig(
        "cni.aws_node", "O", 3.5,
        "the aws-node DaemonSet is involved",
        word("aws-node"), r"amazon-vpc-cni", r"vpc-cni", r"\bCNI\b",
        checks=CNI,
    ),
    sig(
        "cni.aws_node_crash", "O", 3.0,
        "the aws-node pod itself is crash-looping: ipamd is not serving",
        r"aws-node[^\n]{0,60}CrashLoopBackOff", r"CrashLoopBackOff[^\n]{0,60}aws-node",
        checks=CNI,
    ),
    sig(
        "cni.sandbox", "O", 4.0,
        "the pod sandbox could not get networking",
        r"FailedCreatePodSandBox", r"failed to (?:set ?up|setup) network for sandbox",
        r"networkPlugin cni failed",
        r"cni plugin not initialized", r"NetworkPluginNotReady", r"network plugin is not ready",
        checks=CNI,
    ),
    sig(
        "cni.dns_proxy", "O", 3.0,
        "cluster DNS or kube-proxy is unhealthy",
        r"coredns", r"kube-dns", r"kube-proxy",
        checks=("kubectl -n kube-system get pods -l k8s-app=kube-dns", *CNI),
    ),
    sig(
        "cni.pending", "O", 2.0,
        "pods waiting without networking",
        r"(?:pods?|Pod)\s+(?:are\s+|is\s+)?(?:stuck\s+(?:in\s+)?)?(?:Pending|ContainerCreating)\b",
        r"Pod\s*一直\s*(?:Pending|ContainerCreating)", r"ContainerCreating",
        checks=("kubectl describe pod <POD> -n <NAMESPACE>", *CNI),
    ),
)
# fmt: on
