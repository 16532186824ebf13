"""Healthy base worlds (EKS and Slurm) that every bundled scenario edits."""

from __future__ import annotations

import zlib
from datetime import UTC, datetime, timedelta

from cluster_simulator.world import Json, World

ACCOUNT = "111122223333"
REGION = "us-west-2"
RECORDED_AT = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
VPC = "vpc-0a1b2c3d4e5f60001"
SG = "sg-0a1b2c3d4e5f60001"
SUBNET = "subnet-0a1b2c3d4e5f60001"
PUBLIC_SUBNET = "subnet-0a1b2c3d4e5f60099"
ROUTE_TABLE = "rtb-0a1b2c3d4e5f60001"
MAIN_ROUTE_TABLE = "rtb-0a1b2c3d4e5f60000"
NAT = "nat-0a1b2c3d4e5f60001"
IGW = "igw-0a1b2c3d4e5f60001"
EKS_CLUSTER_SG = "sg-0a1b2c3d4e5f6e001"
AZ, AZ_ID = "us-west-2c", "usw2-az3"
ROLE_NAME = "sagemaker-hyperpod-exec"
ROLE_ARN = f"arn:aws:iam::{ACCOUNT}:role/{ROLE_NAME}"
MANAGED_POLICY = "arn:aws:iam::aws:policy/AmazonSageMakerClusterInstanceRolePolicy"
LIFECYCLE_BUCKET = "sagemaker-lifecycle-ml-cluster"
GPU_GROUP, CPU_GROUP, CONTROLLER_GROUP = "gpu-workers", "cpu-workers", "controller"


def ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def instance_id(n: int) -> str:
    return f"i-0{n:016x}"


def _group(name: str, instance_type: str, count: int, threads: int = 2) -> Json:
    return {
        "InstanceGroupName": name,
        "InstanceType": instance_type,
        "CurrentCount": count,
        "TargetCount": count,
        "Status": "InService",
        "ExecutionRole": ROLE_ARN,
        "ThreadsPerCore": threads,
        "LifeCycleConfig": {
            "SourceS3Uri": f"s3://{LIFECYCLE_BUCKET}/lifecycle/",
            "OnCreate": "on_create.sh",
        },
        "InstanceStorageConfigs": [{"EbsVolumeConfig": {"VolumeSizeInGB": 500}}],
    }


def _node(n: int, group: str, instance_type: str, launched: datetime) -> Json:
    ip = f"10.1.{n // 240}.{10 + n % 240}"
    return {
        "InstanceGroupName": group,
        "InstanceId": instance_id(n),
        "InstanceType": instance_type,
        "LaunchTime": iso(launched),
        "InstanceStatus": {"Status": "Running", "Message": ""},
        "PrivateDnsHostname": f"ip-{ip.replace('.', '-')}.{REGION}.compute.internal",
    }


def _details(summary: Json, cluster: Json) -> Json:
    group = next(
        g
        for g in cluster["InstanceGroups"]
        if g["InstanceGroupName"] == summary["InstanceGroupName"]
    )
    hostname = summary["PrivateDnsHostname"]
    ip = hostname.split(".")[0].removeprefix("ip-").replace("-", ".")
    return {
        **summary,
        "PrivatePrimaryIp": ip,
        "Placement": {"AvailabilityZone": AZ, "AvailabilityZoneId": AZ_ID},
        "ThreadsPerCore": group.get("ThreadsPerCore", 2),
        "LifeCycleConfig": group["LifeCycleConfig"],
    }


def _security_group() -> Json:
    self_pair = [{"GroupId": SG, "UserId": ACCOUNT}]
    return {
        "GroupId": SG,
        "GroupName": "hyperpod-efa",
        "Description": "HyperPod cluster nodes",
        "VpcId": VPC,
        "OwnerId": ACCOUNT,
        "IpPermissions": [{"IpProtocol": "-1", "UserIdGroupPairs": self_pair, "IpRanges": []}],
        # The shape of AWS's own HyperPod template: all traffic to and from itself (EFA),
        # and all traffic out to 0.0.0.0/0, the nodes' way to AWS through the subnet's NAT
        # (security-group egress filters NAT-bound traffic too: § A.1).
        "IpPermissionsEgress": [
            {"IpProtocol": "-1", "UserIdGroupPairs": self_pair, "IpRanges": []},
            {"IpProtocol": "-1", "UserIdGroupPairs": [], "IpRanges": [{"CidrIp": "0.0.0.0/0"}]},
        ],
    }


def _eks_cluster_security_group() -> Json:
    """The SG EKS creates for its control plane: all traffic from itself, all out."""
    return {
        "GroupId": EKS_CLUSTER_SG,
        "GroupName": "eks-cluster-sg-ml-eks",
        "Description": "EKS created security group applied to ENI attached to EKS Control Plane",
        "VpcId": VPC,
        "OwnerId": ACCOUNT,
        "IpPermissions": [
            {
                "IpProtocol": "-1",
                "UserIdGroupPairs": [{"GroupId": EKS_CLUSTER_SG, "UserId": ACCOUNT}],
                "IpRanges": [],
            }
        ],
        "IpPermissionsEgress": [
            {"IpProtocol": "-1", "UserIdGroupPairs": [], "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}
        ],
    }


def _subnet(subnet_id: str, cidr: str, free: int, az: str = AZ) -> Json:
    return {
        "SubnetId": subnet_id,
        "VpcId": VPC,
        "CidrBlock": cidr,
        "AvailabilityZone": az,
        "AvailabilityZoneId": AZ_ID,
        "AvailableIpAddressCount": free,
        "MapPublicIpOnLaunch": False,
        "State": "available",
    }


def _route_tables() -> list[Json]:
    local = {"DestinationCidrBlock": "10.1.0.0/16", "GatewayId": "local", "State": "active"}
    return [
        {
            "RouteTableId": MAIN_ROUTE_TABLE,
            "VpcId": VPC,
            "Associations": [{"Main": True, "RouteTableId": MAIN_ROUTE_TABLE}],
            "Routes": [
                local,
                {"DestinationCidrBlock": "0.0.0.0/0", "GatewayId": IGW, "State": "active"},
            ],
        },
        {
            "RouteTableId": ROUTE_TABLE,
            "VpcId": VPC,
            "Associations": [{"Main": False, "RouteTableId": ROUTE_TABLE, "SubnetId": SUBNET}],
            "Routes": [
                local,
                {"DestinationCidrBlock": "0.0.0.0/0", "NatGatewayId": NAT, "State": "active"},
                # The S3 gateway endpoint's route: its prefix list to the endpoint.
                {
                    "DestinationPrefixListId": S3_PREFIX_LIST,
                    "GatewayId": endpoint_id("s3"),
                    "State": "active",
                },
            ],
        },
    ]


S3_PREFIX_LIST = "pl-68a54001"


def endpoint_id(service: str) -> str:
    return f"vpce-0{zlib.crc32(service.encode()):016x}"


def interface_endpoint(service: str) -> Json:
    """An available interface endpoint of `service` in the base VPC, private DNS on."""
    return {**_endpoint(service), "PrivateDnsEnabled": True}


def _endpoint(service: str, kind: str = "Interface") -> Json:
    return {
        "VpcEndpointId": endpoint_id(service),
        "VpcEndpointType": kind,
        "VpcId": VPC,
        "ServiceName": f"com.amazonaws.{REGION}.{service}",
        "State": "available",
    }


def _network_interfaces(nodes: list[Json]) -> list[Json]:
    """One primary interface per node in the cluster subnet, and a few interfaces of another
    VPC of the account (the quota counts the whole Region)."""
    interfaces = [
        {
            "NetworkInterfaceId": f"eni-0{n:016x}",
            "VpcId": VPC,
            "SubnetId": SUBNET,
            "InterfaceType": "interface",
            "Status": "in-use",
        }
        for n in range(1, len(nodes) + 1)
    ]
    interfaces += [
        {
            "NetworkInterfaceId": f"eni-0{0xF000 + n:016x}",
            "VpcId": "vpc-0a1b2c3d4e5f6ffff",
            "SubnetId": "subnet-0a1b2c3d4e5f6ffff",
            "InterfaceType": "interface",
            "Status": "in-use",
        }
        for n in range(3)
    ]
    return interfaces


def _managed_policy() -> Json:
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Action": ["s3:ListBucket", "s3:GetObject"],
                "Resource": ["arn:aws:s3:::sagemaker-*/*", "arn:aws:s3:::sagemaker-*"],
            },
            {
                "Effect": "Allow",
                "Action": ["logs:PutLogEvents", "logs:CreateLogStream", "logs:CreateLogGroup"],
                "Resource": "arn:aws:logs:*:*:log-group:/aws/sagemaker/Clusters/*",
            },
        ],
    }


def _instance_type(
    name: str, vcpus: int, cores: int, memory_mib: int, network: str, *, extra: Json
) -> Json:
    """One DescribeInstanceTypes entry (botocore output shape, the fields triage reads)."""
    return {
        "InstanceType": name,
        "CurrentGeneration": True,
        "ProcessorInfo": {"SupportedArchitectures": ["x86_64"]},
        "VCpuInfo": {
            "DefaultVCpus": vcpus,
            "DefaultCores": cores,
            "DefaultThreadsPerCore": 2,
            "ValidThreadsPerCore": [1, 2],
        },
        "MemoryInfo": {"SizeInMiB": memory_mib},
        "NetworkInfo": {"NetworkPerformance": network, "EfaSupported": False, **extra},
        "Hypervisor": "nitro",
    }


def _one_card(addresses: int) -> Json:
    """NetworkInfo of a type with one network card and `addresses` IPv4 per interface."""
    return {"MaximumNetworkCards": 1, "Ipv4AddressesPerInterface": addresses}


def _instance_types() -> list[Json]:
    p5 = _instance_type(
        "p5.48xlarge",
        192,
        96,
        2_097_152,
        "3200 Gigabit",
        extra={
            "EfaSupported": True,
            "EfaInfo": {"MaximumEfaInterfaces": 32},
            "MaximumNetworkCards": 32,
            "Ipv4AddressesPerInterface": 50,
        },
    )
    p5["InstanceStorageSupported"] = True  # 8 x 3.84 TB NVMe, mounted at /opt/dlami/nvme
    p5["GpuInfo"] = {
        "Gpus": [
            {
                "Name": "H100",
                "Manufacturer": "NVIDIA",
                "Count": 8,
                "MemoryInfo": {"SizeInMiB": 81920},
            }
        ],
        "TotalGpuMemoryInMiB": 655360,
    }
    return [
        p5,
        _instance_type("m5.2xlarge", 8, 4, 32768, "Up to 10 Gigabit", extra=_one_card(15)),
        _instance_type("m5.4xlarge", 16, 8, 65536, "Up to 10 Gigabit", extra=_one_card(30)),
    ]


def _lifecycle_log(moment: datetime) -> list[Json]:
    lines = [
        "Downloading lifecycle scripts from s3://sagemaker-lifecycle-ml-cluster/lifecycle/",
        "Running on_create.sh",
        "[provisioning] mounting /opt/sagemaker",
        "Lifecycle scripts completed successfully",
    ]
    return [
        {"timestamp": ms(moment + timedelta(seconds=i)), "message": line}
        for i, line in enumerate(lines)
    ]


def _world(name: str, cluster_id: str, groups: list[Json], orchestrator: Json | None) -> World:
    arn = f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/{cluster_id}"
    created = RECORDED_AT - timedelta(days=10)
    cluster: Json = {
        "ClusterArn": arn,
        "ClusterName": name,
        "ClusterStatus": "InService",
        "CreationTime": iso(created),
        "InstanceGroups": groups,
        "VpcConfig": {"SecurityGroupIds": [SG], "Subnets": [SUBNET]},
        "NodeRecovery": "Automatic",
        "NodeProvisioningMode": "Continuous",
    }
    if orchestrator is not None:
        cluster["Orchestrator"] = orchestrator
    nodes: list[Json] = []
    counter = 1
    for group in groups:
        for _ in range(group["CurrentCount"]):
            nodes.append(_node(counter, group["InstanceGroupName"], group["InstanceType"], created))
            counter += 1
    log_group = f"/aws/sagemaker/Clusters/{name}/{cluster_id}"
    lifecycle_streams = {
        f"LifecycleConfig/{n['InstanceGroupName']}/{n['InstanceId']}": _lifecycle_log(created)
        for n in nodes
    }
    hma_streams = [
        f"SagemakerHealthMonitoringAgent/{n['InstanceGroupName']}/{n['InstanceId']}" for n in nodes
    ]
    # The cluster's creation: one scaling operation, finished, that the provisioning events
    # belong to (ListClusterOperations / DescribeClusterOperation).
    creation_op = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"
    operations: list[Json] = [
        {
            "OperationId": creation_op,
            "ClusterArn": arn,
            "Type": "Scaling",
            "Status": "Done",
            "CreationTime": iso(created),
        }
    ]
    operation_details: dict[str, Json] = {
        creation_op: {
            "ScalingDetails": [
                {
                    "InstanceGroupName": g["InstanceGroupName"],
                    "Status": "Done",
                    "Original": {"CurrentCount": 0, "TargetCount": 0},
                    "Desired": {"TargetCount": g["TargetCount"]},
                }
                for g in groups
            ]
        }
    }
    events = [
        {
            "EventId": f"evt-{i:04d}",
            "OperationId": creation_op,
            "ClusterArn": arn,
            "ClusterName": name,
            "InstanceGroupName": n["InstanceGroupName"],
            "InstanceId": n["InstanceId"],
            "ResourceType": "Instance",
            "EventTime": iso(created + timedelta(minutes=20 + i)),
            "Description": "Instance provisioned successfully and lifecycle scripts completed.",
            "EventLevel": "Info",
        }
        for i, n in enumerate(nodes)
    ]
    world = World(
        account=ACCOUNT,
        region=REGION,
        cluster=cluster,
        nodes=nodes,
        events=events,
        operations=operations,
        operation_details=operation_details,
        other_clusters=["research-sandbox"],
        security_groups=[_security_group()],
        subnets=[_subnet(SUBNET, "10.1.0.0/17", 31000)],
        vpc_attributes={VPC: {"enableDnsSupport": True, "enableDnsHostnames": True}},
        route_tables=_route_tables(),
        vpc_endpoints=[_endpoint("s3", "Gateway")],
        instance_types=_instance_types(),
        network_interfaces=_network_interfaces(nodes),
        offerings=[
            {"InstanceType": t, "LocationType": "availability-zone", "Location": az}
            for t in sorted({g["InstanceType"].removeprefix("ml.") for g in groups})
            for az in ("us-west-2a", "us-west-2b", AZ)
        ],
        role_attached_policies={
            ROLE_NAME: [
                {
                    "PolicyName": "AmazonSageMakerClusterInstanceRolePolicy",
                    "PolicyArn": MANAGED_POLICY,
                }
            ]
        },
        managed_policies={MANAGED_POLICY: _managed_policy()},
        log_groups=[log_group],
        log_streams={log_group: sorted([*lifecycle_streams, *hma_streams])},
        log_events=lifecycle_streams,
    )
    world.node_details = {n["InstanceId"]: _details(n, cluster) for n in nodes}
    return world


def healthy_eks() -> World:
    eks_name = "ml-eks"
    world = _world(
        "ml-cluster-eks",
        "a1b2c3d4e5f6",
        [_group(GPU_GROUP, "ml.p5.48xlarge", 4), _group(CPU_GROUP, "ml.m5.2xlarge", 2)],
        {"Eks": {"ClusterArn": f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/{eks_name}"}},
    )
    world.eks_clusters[eks_name] = {
        "name": eks_name,
        "arn": f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/{eks_name}",
        "status": "ACTIVE",
        "version": "1.31",
        "resourcesVpcConfig": {
            "vpcId": VPC,
            "subnetIds": [SUBNET],
            "securityGroupIds": [SG],
            "clusterSecurityGroupId": EKS_CLUSTER_SG,
            "endpointPublicAccess": True,
            "endpointPrivateAccess": True,
        },
        "accessConfig": {"authenticationMode": "API_AND_CONFIG_MAP"},
    }
    world.security_groups.append(_eks_cluster_security_group())
    return world


def healthy_slurm() -> World:
    return _world(
        "ml-cluster-slurm",
        "f6e5d4c3b2a1",
        [
            _group(CONTROLLER_GROUP, "ml.m5.4xlarge", 1),
            _group(GPU_GROUP, "ml.p5.48xlarge", 4),
        ],
        None,
    )


def grow_group(world: World, group_name: str, count: int) -> World:
    """Grow an instance group of a base world to `count` healthy nodes (benchmarks)."""
    group = next(g for g in world.cluster["InstanceGroups"] if g["InstanceGroupName"] == group_name)
    created = RECORDED_AT - timedelta(days=10)
    members = [n for n in world.nodes if n["InstanceGroupName"] == group_name]
    next_number = len(world.nodes) + 1
    for _ in range(len(members), count):
        node = _node(next_number, group_name, group["InstanceType"], created)
        world.nodes.append(node)
        world.node_details[node["InstanceId"]] = _details(node, world.cluster)
        next_number += 1
    group["CurrentCount"] = group["TargetCount"] = count
    return world
