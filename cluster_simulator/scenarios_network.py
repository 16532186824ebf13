"""Network fault families (§ A, § B, § C)."""

from __future__ import annotations

from datetime import timedelta

from cluster_simulator import base
from cluster_simulator.ownership import cloudformation_stack, tag
from cluster_simulator.scenario import Scenario
from cluster_simulator.world import Json, World

# Every EC2 read the network, capacity and configuration checks make.
EC2_READS: tuple[str, ...] = (
    "DescribeSecurityGroups",
    "DescribeSubnets",
    "DescribeVpcAttribute",
    "DescribeRouteTables",
    "DescribeVpcEndpoints",
    "DescribeInstanceTypeOfferings",
    "DescribeInstanceTypes",
)


def _security_group(world: World, group_id: str) -> Json:
    return next(g for g in world.security_groups if g["GroupId"] == group_id)


def _drop_outbound_self_rule(world: World) -> None:
    group = _security_group(world, base.SG)
    group["IpPermissionsEgress"] = [
        perm for perm in group["IpPermissionsEgress"] if not perm.get("UserIdGroupPairs")
    ]


SELF_SG = "sg-0a1b2c3d4e5f60002"


CONTROLLER_SG = "sg-0a1b2c3d4e5f6c001"


def _controller_sg_without_self_rules(world: World) -> None:
    """The Slurm controller group (m5.4xlarge, no EFA) has its own SG through
    OverrideVpcConfig, with outbound to the internet and no self rules."""
    world.security_groups.append(
        {
            "GroupId": CONTROLLER_SG,
            "GroupName": "hyperpod-controller",
            "Description": "Slurm controller",
            "VpcId": base.VPC,
            "OwnerId": base.ACCOUNT,
            "IpPermissions": [],
            "IpPermissionsEgress": [
                {"IpProtocol": "-1", "UserIdGroupPairs": [], "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}
            ],
        }
    )
    controller = next(
        g
        for g in world.cluster["InstanceGroups"]
        if g["InstanceGroupName"] == base.CONTROLLER_GROUP
    )
    controller["OverrideVpcConfig"] = {
        "SecurityGroupIds": [CONTROLLER_SG],
        "Subnets": [base.SUBNET],
    }


def _efa_rules_on_a_second_sg(world: World) -> None:
    # The cluster SG loses its self rules; a second cluster SG carries the EFA self rules.
    # Every instance has both, so the union of their rules admits EFA.
    _drop_outbound_self_rule(world)
    group = _security_group(world, base.SG)
    group["IpPermissions"] = []
    self_pair = [{"GroupId": SELF_SG, "UserId": base.ACCOUNT}]
    world.security_groups.append(
        {
            "GroupId": SELF_SG,
            "GroupName": "hyperpod-efa-self",
            "Description": "EFA: all traffic among HyperPod nodes",
            "VpcId": base.VPC,
            "OwnerId": base.ACCOUNT,
            "IpPermissions": [{"IpProtocol": "-1", "UserIdGroupPairs": self_pair, "IpRanges": []}],
            "IpPermissionsEgress": [
                {"IpProtocol": "-1", "UserIdGroupPairs": self_pair, "IpRanges": []}
            ],
        }
    )
    world.cluster["VpcConfig"]["SecurityGroupIds"] = [base.SG, SELF_SG]


def _egress_self_only(world: World) -> None:
    """The EFA SG keeps only its self rules: no outbound rule reaches anything else, so
    NAT-bound and endpoint traffic alike is refused (what the reference once advised)."""
    group = _security_group(world, base.SG)
    group["IpPermissionsEgress"] = [
        p for p in group["IpPermissionsEgress"] if p.get("UserIdGroupPairs")
    ]


def _outbound_self_missing_in_a_stack(world: World) -> None:
    """The outbound self rule missing from an SG a CloudFormation stack made (with the
    subnet and the VPC), its last drift check in sync: the fix belongs in the template."""
    _drop_outbound_self_rule(world)
    cloudformation_stack(
        world,
        "hp-network",
        {base.SG: "EfaSecurityGroup", base.SUBNET: "PrivateSubnet1", base.VPC: "Vpc"},
        drift="IN_SYNC",
        checked=base.RECORDED_AT - timedelta(days=2),
    )
    # The HyperPod cluster in a stack of its own, never drift-checked; the EKS cluster in
    # the stack eksctl made for it.
    cloudformation_stack(world, "hp-cluster", {world.cluster["ClusterArn"]: "HyperPodCluster"})
    eks_arn = world.cluster["Orchestrator"]["Eks"]["ClusterArn"]
    cloudformation_stack(world, "eksctl-ml-eks-cluster", {eks_arn: "ControlPlane"})
    tag(world, eks_arn, "alpha.eksctl.io/cluster-name", eks_arn.rsplit("/", 1)[-1])


def _egress_self_only_in_a_stack(world: World) -> None:
    """The egress cut down to the self rule on an SG of a CloudFormation stack whose last
    drift check found it modified by hand."""
    _egress_self_only(world)
    cloudformation_stack(
        world,
        "hyperpod-slurm-network",
        {base.SG: "ClusterSecurityGroup"},
        drift="MODIFIED",
        checked=base.RECORDED_AT - timedelta(days=1),
    )


def _second_sg_by_terraform(world: World) -> None:
    """Two SGs a Terraform configuration made, marked by the team's ManagedBy tag (a
    convention: Terraform itself tags nothing)."""
    _efa_rules_on_a_second_sg(world)
    for group in (base.SG, SELF_SG):
        tag(world, group, "ManagedBy", "terraform")


VPC_CIDR = "10.1.0.0/16"


def _https(**target: object) -> Json:
    return {"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "UserIdGroupPairs": [], **target}


def _egress_narrowed_to_vpc_and_s3(world: World) -> None:
    """The broad egress replaced by HTTPS to the VPC CIDR and the S3 prefix list while the
    subnet reaches AWS only through NAT: S3 still works, SSM, STS, ECR, logs, the SageMaker
    and EKS APIs do not."""
    _egress_self_only(world)
    group = _security_group(world, base.SG)
    group["IpPermissionsEgress"] += [
        _https(IpRanges=[{"CidrIp": VPC_CIDR}]),
        _https(PrefixListIds=[{"PrefixListId": base.S3_PREFIX_LIST}]),
    ]


ENDPOINT_SG = "sg-0a1b2c3d4e5f6e001"


def _endpoints_only(world: World) -> None:
    """No NAT: every service through an interface endpoint (in its own SG, admitting HTTPS
    from the VPC) and S3 through the gateway endpoint; the node SG allows HTTPS to the VPC
    CIDR and the S3 prefix list beside its self rules. Everything the nodes need is open."""
    _egress_narrowed_to_vpc_and_s3(world)
    table = next(t for t in world.route_tables if t["RouteTableId"] == base.ROUTE_TABLE)
    table["Routes"] = [r for r in table["Routes"] if r.get("DestinationCidrBlock") != "0.0.0.0/0"]
    world.security_groups.append(
        {
            "GroupId": ENDPOINT_SG,
            "GroupName": "vpc-endpoints",
            "Description": "Interface endpoints",
            "VpcId": base.VPC,
            "OwnerId": base.ACCOUNT,
            "IpPermissions": [_https(IpRanges=[{"CidrIp": VPC_CIDR}])],
            "IpPermissionsEgress": [],
        }
    )
    services = ("ecr.api", "ecr.dkr", "sts", "ssm", "ssmmessages", "ec2messages", "ec2")
    for service in (*services, "sagemaker.api", "logs", "eks"):
        endpoint = base.interface_endpoint(service)
        endpoint["Groups"] = [{"GroupId": ENDPOINT_SG, "GroupName": "vpc-endpoints"}]
        world.vpc_endpoints.append(endpoint)


def _efa_health_check_failed_beside_egress_to_anywhere(world: World) -> None:
    """A scale-up of the GPU group fails its EFA health check while the EFA SG has its self
    rules and the template's all-traffic egress to 0.0.0.0/0: the group is one node short of
    its target and the failed instance never joined."""
    gpu = next(
        g for g in world.cluster["InstanceGroups"] if g["InstanceGroupName"] == base.GPU_GROUP
    )
    gpu["TargetCount"] = gpu["CurrentCount"] + 1
    gpu["Status"] = "Updating"
    world.events.append(
        {
            "EventId": "evt-efa-0001",
            "ClusterArn": world.cluster["ClusterArn"],
            "ClusterName": world.cluster["ClusterName"],
            "InstanceGroupName": base.GPU_GROUP,
            "InstanceId": "i-0fffffffffff0001",
            "ResourceType": "Instance",
            "EventTime": base.iso(base.RECORDED_AT - timedelta(hours=2)),
            "Description": "EFA health checks did not run successfully. Ensure that your VPC "
            "and security groups are properly configured before attempting to create a cluster.",
            "EventLevel": "Error",
        }
    )


def _gpu_subnet_nearly_full(world: World) -> None:
    """The cluster subnet has 60 free addresses: fewer than one more EKS p5 node takes (81)."""
    subnet = next(s for s in world.subnets if s["SubnetId"] == base.SUBNET)
    subnet["AvailableIpAddressCount"] = 60


def _eni_quota_nearly_used(world: World) -> None:
    """The Region's interfaces stand at 90 % of the network interfaces quota."""
    world.eni_quota = round(len(world.network_interfaces) / 0.9)


def _hyperpod_namespace_missing(world: World) -> None:
    """The HyperPod Helm chart was never installed: no aws-hyperpod namespace."""
    assert world.kubernetes is not None
    world.kubernetes.namespaces = []


def _managed_vpc(world: World) -> None:
    # Slurm clusters may be created without VpcConfig: nodes run in the SageMaker-managed VPC.
    del world.cluster["VpcConfig"]


def _dns_support_off(world: World) -> None:
    world.vpc_attributes[base.VPC]["enableDnsSupport"] = False


def _subnet_on_main_route_table(world: World) -> None:
    # The classic mistake: the private route table exists but the cluster subnet was never
    # associated with it, so it falls back to the VPC's main table (default route → IGW).
    for table in world.route_tables:
        table["Associations"] = [
            a for a in table["Associations"] if a.get("SubnetId") != base.SUBNET
        ]


def _no_nat_route(world: World) -> None:
    table = next(t for t in world.route_tables if t["RouteTableId"] == base.ROUTE_TABLE)
    table["Routes"] = [r for r in table["Routes"] if r.get("DestinationCidrBlock") != "0.0.0.0/0"]
    # Only the S3 gateway endpoint of the base world remains.
    world.vpc_endpoints = [e for e in world.vpc_endpoints if e["ServiceName"].endswith(".s3")]


def _eks_config_map_auth(world: World) -> None:
    for cluster in world.eks_clusters.values():
        cluster["accessConfig"] = {"authenticationMode": "CONFIG_MAP"}


def _eks_in_another_account(world: World) -> None:
    # A same-named EKS cluster that is FAILED in the caller's account: describing the bare
    # name there would judge the wrong cluster.
    other = "444455556666"
    world.cluster["Orchestrator"]["Eks"]["ClusterArn"] = (
        f"arn:aws:eks:{base.REGION}:{other}:cluster/ml-eks"
    )
    world.eks_clusters["ml-eks"]["status"] = "FAILED"


def _p5_only_elsewhere(world: World) -> None:
    world.offerings = [
        o
        for o in world.offerings
        if not (o["InstanceType"] == "p5.48xlarge" and o["Location"] == base.AZ)
    ]


def _deny_ec2_reads(world: World) -> None:
    world.denied |= {("ec2", operation) for operation in EC2_READS}


NETWORK: list[Scenario] = [
    Scenario(
        "sg-outbound-self-missing",
        "EKS cluster whose security group allows all inbound traffic from itself but has no "
        "outbound all-traffic rule to itself: EFA traffic between nodes is blocked (§ A). "
        "The SG, subnet and VPC belong to CloudFormation stack hp-network (last drift check "
        "IN_SYNC), so the fix belongs in its template.",
        "eks",
        _outbound_self_missing_in_a_stack,
        expect=[("efa-security-groups", "FAIL", "A")],
        resources={"efa-security-groups": [base.SG]},
    ),
    Scenario(
        "efa-second-sg",
        "Slurm cluster with two security groups: the first has no self rules, the second "
        "allows all traffic to and from itself. Every node carries both, so EFA traffic is "
        "allowed and nothing fails (§ A). Both SGs carry ManagedBy=terraform: likely "
        "Terraform's.",
        "slurm",
        _second_sg_by_terraform,
        must_not=[("efa-security-groups", "FAIL"), ("efa-security-groups", "WARN")],
    ),
    Scenario(
        "efa-not-needed-on-controller",
        "Slurm: the controller group (m5.4xlarge, no EFA) has its own security group without "
        "self rules; EFA is not supported on its type, so the rules are not required (INFO), "
        "while the GPU group's SG keeps them.",
        "slurm",
        _controller_sg_without_self_rules,
        expect=[("efa-security-groups", "INFO", "A")],
        resources={"efa-security-groups": [CONTROLLER_SG]},
        must_not=[("efa-security-groups", "FAIL"), ("efa-security-groups", "WARN")],
    ),
    Scenario(
        "efa-egress-anywhere-health-check-failed",
        "EKS cluster whose GPU group scale-up fails its EFA health check while the EFA "
        "security group has its self rules and the all-traffic egress to 0.0.0.0/0 of AWS's "
        "own template: the event is the FAIL (§ A); the egress rule is normal (INFO, the "
        "prerequisites' note) and never named as the cause.",
        "eks",
        _efa_health_check_failed_beside_egress_to_anywhere,
        expect=[
            ("cluster-events", "FAIL", "A"),
            ("instance-groups", "WARN", "F"),
            ("efa-security-groups", "INFO", "A"),
        ],
        resources={"efa-security-groups": [base.SG]},
        must_not=[
            ("efa-security-groups", "FAIL"),
            ("efa-security-groups", "WARN"),
            ("sg-egress", "FAIL"),
            ("sg-egress", "WARN"),
        ],
    ),
    Scenario(
        "sg-egress-self-only",
        "Slurm cluster whose EFA security group allows outbound traffic only to itself: the "
        "self rules are right, but behind a NAT gateway the nodes reach no AWS service (SSM, "
        "STS, S3, ECR, CloudWatch Logs, SageMaker API): FAIL P0 (§ A.1). The SG belongs to "
        "CloudFormation stack hyperpod-slurm-network, whose last drift check found it MODIFIED.",
        "slurm",
        _egress_self_only_in_a_stack,
        expect=[("sg-egress", "FAIL", "A.1")],
        resources={"sg-egress": [base.SG]},
        must_not=[("efa-security-groups", "FAIL")],
    ),
    Scenario(
        "sg-egress-narrowed-nat-only",
        "EKS cluster whose all-traffic egress was replaced by HTTPS to the VPC CIDR and the S3 "
        "prefix list while the subnet reaches AWS only through NAT: S3 still works, SSM, STS, "
        "ECR, CloudWatch Logs, the SageMaker and EKS APIs do not: FAIL P0 (§ A.1).",
        "eks",
        _egress_narrowed_to_vpc_and_s3,
        expect=[("sg-egress", "FAIL", "A.1")],
        resources={"sg-egress": [base.SG]},
        must_not=[("efa-security-groups", "FAIL"), ("vpc-endpoints", "FAIL")],
    ),
    Scenario(
        "sg-egress-endpoints-only",
        "EKS cluster without NAT whose nodes reach AWS through interface endpoints and the S3 "
        "gateway endpoint, with HTTPS egress to the VPC CIDR and the S3 prefix list beside the "
        "self rules: a least-privilege layout that works; nothing fails (§ A.1, § B.4).",
        "eks",
        _endpoints_only,
        must_not=[
            ("sg-egress", "FAIL"),
            ("sg-egress", "WARN"),
            ("vpc-endpoints", "FAIL"),
            ("efa-security-groups", "FAIL"),
            ("efa-security-groups", "WARN"),
        ],
    ),
    Scenario(
        "subnet-nearly-full-eks",
        "EKS cluster whose subnet has 60 free addresses while one more p5.48xlarge node "
        "takes 81 on EKS: the next replacement or scale-up fails (§ B.6).",
        "eks",
        _gpu_subnet_nearly_full,
        expect=[("subnet-free-ips", "FAIL", "B.6")],
        resources={"subnet-free-ips": [base.SUBNET]},
    ),
    Scenario(
        "eni-quota-nearly-used",
        "Slurm cluster in a Region whose network interfaces stand at 90 % of the quota "
        "L-DF5E4CA3 (§ B.7).",
        "slurm",
        _eni_quota_nearly_used,
        expect=[("eni-quota", "WARN", "B.7")],
    ),
    Scenario(
        "hyperpod-namespace-missing",
        "EKS cluster without the aws-hyperpod namespace: the HyperPod Helm chart is not "
        "installed, so the health-monitoring agent cannot run (§ B.5).",
        "eks",
        _hyperpod_namespace_missing,
        expect=[("hyperpod-namespace", "FAIL", "B.5")],
        resources={"hyperpod-namespace": ["aws-hyperpod"]},
    ),
    Scenario(
        "slurm-managed-vpc",
        "Slurm cluster created without VpcConfig (the SageMaker-managed VPC): the § A and "
        "§ B checks say they do not apply instead of staying silent, and nothing fails.",
        "slurm",
        _managed_vpc,
        must_not=[
            ("efa-security-groups", "FAIL"),
            ("vpc-membership", "FAIL"),
            ("private-subnets", "FAIL"),
            ("vpc-endpoints", "FAIL"),
            ("instance-type-offerings", "FAIL"),
        ],
    ),
    Scenario(
        "dns-support-off",
        "Slurm cluster whose VPC has enableDnsSupport turned off (§ B.2).",
        "slurm",
        _dns_support_off,
        expect=[("vpc-dns", "FAIL", "B.2")],
        resources={"vpc-dns": [base.VPC]},
    ),
    Scenario(
        "public-subnet",
        "EKS cluster whose subnet is not associated with the private route table, so it "
        "uses the VPC's main route table, which sends 0.0.0.0/0 to an internet gateway (§ B.3).",
        "eks",
        _subnet_on_main_route_table,
        expect=[("private-subnets", "FAIL", "B.3")],
        resources={"private-subnets": [base.SUBNET, base.MAIN_ROUTE_TABLE, base.IGW]},
        must_not=[("vpc-endpoints", "FAIL")],
    ),
    Scenario(
        "no-nat-missing-endpoints",
        "EKS cluster whose subnet route table has no NAT default route while the VPC has only "
        "the S3 gateway endpoint: ECR, STS, SSM, logs, EKS and the rest are unreachable (§ B.4).",
        "eks",
        _no_nat_route,
        expect=[("vpc-endpoints", "FAIL", "B.4")],
        resources={"vpc-endpoints": [base.VPC, base.SUBNET]},
        must_not=[("private-subnets", "FAIL"), ("s3-gateway-endpoint", "WARN")],
    ),
    Scenario(
        "eks-auth-config-map",
        "EKS cluster whose authentication mode is CONFIG_MAP: HyperPod needs access entries "
        "(API or API_AND_CONFIG_MAP) (§ B.5).",
        "eks",
        _eks_config_map_auth,
        expect=[("eks-cluster", "FAIL", "B.5")],
        resources={"eks-cluster": ["ml-eks"]},
    ),
    Scenario(
        "eks-other-account",
        "EKS cluster whose orchestrating EKS cluster lives in another account: it is not "
        "described from the caller's account (a same-named FAILED cluster there is not "
        "judged), and § B.5 reports that it needs access there (INFO, never FAIL).",
        "eks",
        _eks_in_another_account,
        must_not=[("eks-cluster", "FAIL"), ("eks-network", "FAIL")],
    ),
    Scenario(
        "capacity-az-mismatch",
        "EKS cluster whose p5.48xlarge group has its only subnet in us-west-2c while the type "
        "is offered only in us-west-2a and us-west-2b (§ C).",
        "eks",
        _p5_only_elsewhere,
        expect=[("instance-type-offerings", "FAIL", "C")],
        resources={"instance-type-offerings": [base.SUBNET]},
    ),
    Scenario(
        "ec2-access-denied",
        "EKS cluster triaged by a role without any ec2:Describe* permission: the EC2-based "
        "checks are skipped with the missing IAM action, never failed.",
        "eks",
        _deny_ec2_reads,
        skipped_include=[
            "Missing IAM permission for ec2:DescribeSecurityGroups",
            "Missing IAM permission for ec2:DescribeSubnets",
        ],
        must_not=[
            ("efa-security-groups", "FAIL"),
            ("vpc-membership", "FAIL"),
            ("s3-gateway-endpoint", "WARN"),
            ("vpc-dns", "FAIL"),
            ("private-subnets", "FAIL"),
            ("vpc-endpoints", "FAIL"),
            ("subnet-free-ips", "WARN"),
            ("eks-network", "FAIL"),
            ("instance-type-offerings", "FAIL"),
        ],
    ),
]
