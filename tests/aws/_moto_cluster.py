"""Shared pieces of the moto triage tests: a realistic HyperPod cluster built in moto,
test-only "probe" checks, and ways to watch the traffic a triage sends.

The cluster is built with unguarded setup clients (a separate boto3 session); the triage
under test only ever talks to moto through the guarded access layer. moto 5.2.5 lacks
ListClusterEvents (HTTP 500) and drops Orchestrator / NodeRecovery / NodeProvisioningMode
from DescribeCluster: the access layer and the checks must survive that.

The probe checks, registered for the duration of a test (`register_probes`), read every
kind of data ClusterData offers (nodes, VPC, routes, endpoints, EKS, IAM, logs, events) so
record → replay is exercised across all of them whatever the real checks happen to call
today.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import pytest

from tools.aws.answers import ErrorAnswer
from tools.aws.session import AwsAccess
from tools.findings import Finding, info
from tools.registry import CheckSpec
from tools.target import TriageTarget
from tools.triage.data import ClusterData
from tools.triage.report import TriageReport

REGION = "us-west-2"
ACCOUNT = "123456789012"
CLUSTER = "hp"
NODES = 12  # moto 5.2.5 ignores ListClusterNodes' NextToken: keep to one page
LIFECYCLE_STREAMS = 53  # > one DescribeLogStreams page of 50
HMA_PREFIX = "SagemakerHealthMonitoringAgent/"
SECRET_KEY_ID = "AKIAIOSFODNN7EXAMPLE"
SECRET_VALUE = "wJalrXUtnFEMIEXAMPLEKEYdoNotLeak"

MotoClient = Callable[[str, str], Any]


@dataclass
class MotoCluster:
    url: str
    target: TriageTarget
    vpc_id: str
    sg_id: str
    private_subnets: list[str]
    eks_arn: str
    ec2: Any


def build_cluster(
    moto_client: MotoClient,
    url: str,
    *,
    outbound_self_rule: bool = True,
) -> MotoCluster:
    ec2 = moto_client("ec2", REGION)
    vpc_id = ec2.create_vpc(CidrBlock="10.1.0.0/16")["Vpc"]["VpcId"]
    ec2.modify_vpc_attribute(VpcId=vpc_id, EnableDnsSupport={"Value": True})
    ec2.modify_vpc_attribute(VpcId=vpc_id, EnableDnsHostnames={"Value": True})
    public = ec2.create_subnet(
        VpcId=vpc_id, CidrBlock="10.1.0.0/24", AvailabilityZone=f"{REGION}a"
    )["Subnet"]["SubnetId"]
    private = [
        ec2.create_subnet(VpcId=vpc_id, CidrBlock=cidr, AvailabilityZone=f"{REGION}{az}")["Subnet"][
            "SubnetId"
        ]
        for cidr, az in (("10.1.16.0/20", "a"), ("10.1.32.0/20", "b"))
    ]
    igw = ec2.create_internet_gateway()["InternetGateway"]["InternetGatewayId"]
    ec2.attach_internet_gateway(InternetGatewayId=igw, VpcId=vpc_id)
    public_rt = ec2.create_route_table(VpcId=vpc_id)["RouteTable"]["RouteTableId"]
    ec2.create_route(RouteTableId=public_rt, DestinationCidrBlock="0.0.0.0/0", GatewayId=igw)
    ec2.associate_route_table(RouteTableId=public_rt, SubnetId=public)
    allocation = ec2.allocate_address(Domain="vpc")["AllocationId"]
    nat = ec2.create_nat_gateway(SubnetId=public, AllocationId=allocation)["NatGateway"][
        "NatGatewayId"
    ]
    private_rt = ec2.create_route_table(VpcId=vpc_id)["RouteTable"]["RouteTableId"]
    ec2.create_route(RouteTableId=private_rt, DestinationCidrBlock="0.0.0.0/0", NatGatewayId=nat)
    for subnet in private:
        ec2.associate_route_table(RouteTableId=private_rt, SubnetId=subnet)
    ec2.create_vpc_endpoint(
        VpcId=vpc_id,
        ServiceName=f"com.amazonaws.{REGION}.s3",
        VpcEndpointType="Gateway",
        RouteTableIds=[private_rt],
    )
    sg_id = ec2.create_security_group(GroupName="hyperpod", Description="hp", VpcId=vpc_id)[
        "GroupId"
    ]
    self_rule = [{"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": sg_id}]}]
    ec2.authorize_security_group_ingress(GroupId=sg_id, IpPermissions=self_rule)
    # A new group starts with an all-traffic egress to 0.0.0.0/0; the HyperPod prerequisites
    # ask to avoid it on the EFA group (egress goes through the subnet's NAT), so it goes.
    anywhere = [{"IpProtocol": "-1", "IpRanges": [{"CidrIp": "0.0.0.0/0"}]}]
    ec2.revoke_security_group_egress(GroupId=sg_id, IpPermissions=anywhere)
    if outbound_self_rule:
        ec2.authorize_security_group_egress(GroupId=sg_id, IpPermissions=self_rule)

    iam = moto_client("iam", REGION)
    role_arn = iam.create_role(RoleName="hp-exec", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
    iam.put_role_policy(
        RoleName="hp-exec",
        PolicyName="lifecycle-bucket",
        PolicyDocument=json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [
                    {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::lc/*"}
                ],
            }
        ),
    )
    eks_arn = moto_client("eks", REGION).create_cluster(
        name="hp-eks",
        roleArn=role_arn,
        resourcesVpcConfig={"subnetIds": private, "securityGroupIds": [sg_id]},
    )["cluster"]["arn"]
    moto_client("sagemaker", REGION).create_cluster(
        ClusterName=CLUSTER,
        InstanceGroups=[
            {
                "InstanceGroupName": "workers",
                "InstanceType": "ml.p5.48xlarge",
                "InstanceCount": NODES,
                "LifeCycleConfig": {"SourceS3Uri": "s3://sagemaker-lc/", "OnCreate": "on.sh"},
                "ExecutionRole": role_arn,
                "ThreadsPerCore": 2,  # moto fails (500) without it
            }
        ],
        VpcConfig={"SecurityGroupIds": [sg_id], "Subnets": private},
        Orchestrator={"Eks": {"ClusterArn": eks_arn}},
        NodeRecovery="Automatic",
        NodeProvisioningMode="Continuous",
    )

    logs = moto_client("logs", REGION)
    group = f"/aws/sagemaker/Clusters/{CLUSTER}/{CLUSTER}"  # moto's cluster id is the name
    logs.create_log_group(logGroupName=group)
    for index in range(LIFECYCLE_STREAMS):
        logs.create_log_stream(
            logGroupName=group, logStreamName=f"LifecycleConfig/workers/workers-{index}"
        )
    stream = f"{HMA_PREFIX}workers/workers-7"
    logs.create_log_stream(logGroupName=group, logStreamName=stream)
    logs.put_log_events(
        logGroupName=group,
        logStreamName=stream,
        logEvents=[
            {
                "timestamp": int(time.time() * 1000) - 60_000,
                "message": "HealthMonitoringAgentDetectionEvent XidHardwareFailure",
            }
        ],
    )
    return MotoCluster(
        url=url,
        target=TriageTarget(cluster=CLUSTER, region=REGION),
        vpc_id=vpc_id,
        sg_id=sg_id,
        private_subnets=private,
        eks_arn=eks_arn,
        ec2=ec2,
    )


# -- probe checks: read every kind of data ClusterData offers -------------------------------


def _probe_nodes(data: ClusterData) -> Iterable[Finding]:
    nodes = data.nodes()
    groups = sorted({n.instance_group for n in nodes.items})
    yield info(
        "probe-nodes", "F", f"{len(nodes.items)} nodes in {groups}", truncated=nodes.truncated
    )


def _probe_network(data: ClusterData) -> Iterable[Finding]:
    subnets = data.subnets(data.cluster_subnet_ids())
    vpcs = sorted({str(s.vpc_id) for s in subnets})
    for vpc in vpcs:
        dns = (
            data.vpc_attribute(vpc, "enableDnsSupport"),
            data.vpc_attribute(vpc, "enableDnsHostnames"),
        )
        routes = sorted(
            (route.nat_gateway_id or route.gateway_id)[:4]
            for table in data.route_tables(vpc)
            for route in table.routes
            if route.destination_cidr_block == "0.0.0.0/0"
        )
        yield info("probe-network", "B", f"{vpc}: dns={dns} default routes={routes}")


def _probe_endpoints(data: ClusterData) -> Iterable[Finding]:
    vpc = str(data.subnets(data.cluster_subnet_ids())[0].vpc_id)
    names = sorted(e.service_name for e in data.vpc_endpoints(vpc))
    yield info("probe-endpoints", "B.4", f"endpoints: {names}")


def _probe_eks_iam(data: ClusterData) -> Iterable[Finding]:
    eks = data.eks_cluster()
    yield info("probe-eks", "B.5", f"eks {eks.name if eks else None} in {eks and eks.vpc_config}")
    role = data.instance_groups()[0].execution_role
    documents = data.role_policy_documents(role)
    statements = [len(d.statements) for d in documents]
    yield info("probe-iam", "D.1", f"{len(documents)} policy documents", statements=statements)


def _probe_logs(data: ClusterData) -> Iterable[Finding]:
    streams = data.log_stream_count("LifecycleConfig/").names
    events = data.recent_log_events(HMA_PREFIX, "HealthMonitoringAgentDetectionEvent").items
    messages = [e.message for e in events]
    yield info(
        "probe-logs",
        "F.3",
        f"log group {data.log_group_exists()}: {len(streams)} streams, {len(events)} events",
        messages=messages,
    )


def _probe_events(data: ClusterData) -> Iterable[Finding]:
    events = data.events()  # moto: HTTP 500, must become a skip
    yield info("probe-events", "F", f"{len(events.items)} events")


PROBES: dict[str, tuple[str, Callable[[ClusterData], Iterable[Finding]]]] = {
    "probe-nodes": ("F", _probe_nodes),
    "probe-network": ("B", _probe_network),
    "probe-endpoints": ("B.4", _probe_endpoints),
    "probe-eks-iam": ("B.5", _probe_eks_iam),
    "probe-logs": ("F.3", _probe_logs),
    "probe-events": ("F", _probe_events),
}


def register_probes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Register the probe checks for the calling test only (its `probes` fixture)."""
    import tools.registry

    tools.registry.all_checks()  # import the real checks first
    for check_id, (section, run) in PROBES.items():
        spec = CheckSpec(
            id=check_id, section=section, title=check_id, description=check_id, run=run
        )
        monkeypatch.setitem(tools.registry._REGISTRY, check_id, spec)
    return list(PROBES)


def without_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """open_access() without retries: moto's 500s come back at once."""
    import tools.triage.open_cluster

    def no_retries(region: str, **kwargs: Any) -> AwsAccess:
        return AwsAccess(region, max_attempts=0, **kwargs)

    monkeypatch.setattr(tools.triage.open_cluster, "AwsAccess", no_retries)


@dataclass
class Traffic:
    attempted: list[tuple[str, str]]
    params: list[dict[str, Any]]
    sent: list[str]


def watch(access: AwsAccess) -> Traffic:
    """Count every operation attempted (before the guard) and every request sent."""
    traffic = Traffic(attempted=[], params=[], sent=[])

    def attempted(model: Any, params: dict[str, Any], **_: Any) -> None:
        traffic.attempted.append((model.service_model.service_name, model.name))
        traffic.params.append(dict(params))

    def sent(request: Any, **_: Any) -> None:
        traffic.sent.append(str(request.url))

    if access._recorded is not None:
        # A replay answers without botocore (tools/aws/replay.py): watch that door, which
        # every replayed call passes before the guard.
        recorded = access._recorded
        answer = recorded.answer

        def replayed(
            service: str, operation: str, params: dict[str, Any]
        ) -> dict[str, Any] | ErrorAnswer:
            traffic.attempted.append((service, operation))
            traffic.params.append(dict(params))
            return answer(service, operation, params)

        recorded.answer = replayed  # type: ignore[method-assign]
        return traffic
    access._session.events.register_first("provide-client-params", attempted)
    access._session.events.register("before-send", sent)
    return traffic


def by_check(report: TriageReport) -> dict[str, list[Finding]]:
    grouped: dict[str, list[Finding]] = {}
    for finding in report.findings:
        grouped.setdefault(finding.check, []).append(finding)
    return grouped


def skip_reasons(report: TriageReport) -> dict[str, str]:
    return {s.check: s.reason for s in report.skipped}
