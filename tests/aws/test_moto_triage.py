"""Full triage against a realistic HyperPod cluster built in moto, and record → replay.

The cluster is built with unguarded setup clients (a separate boto3 session); the triage
under test only ever talks to moto through the guarded access layer. moto 5.2.5 lacks
ListClusterEvents (HTTP 500) and drops Orchestrator / NodeRecovery / NodeProvisioningMode
from DescribeCluster: the access layer and the checks must survive that.

Besides the registered checks, a few test-only "probe" checks are registered for the
duration of a test: they read every kind of data ClusterData offers (nodes, VPC, routes,
endpoints, EKS, IAM, logs, events) so record → replay is exercised across all of them
whatever the real checks happen to call today.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tools.aws.allowlist import READ_ONLY_OPERATIONS
from tools.aws.errors import AwsAccessError, NotRecorded
from tools.aws.session import AwsAccess
from tools.findings import Finding, info
from tools.recorded.model import RecordedCall, RecordedCluster, dump_recorded, load_recorded
from tools.recorded.recorder import MASKED_ACCOUNT, REDACTED, Recorder
from tools.recorded.replay import ReplayStore, page_call
from tools.registry import CheckSpec
from tools.triage.data import ClusterData
from tools.triage.report import TriageReport
from tools.triage.session import open_access, recording_time, triage_cluster
from tools.triage.target import TriageTarget

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
    if outbound_self_rule:  # moto already holds the default all-traffic 0.0.0.0/0 egress
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


@pytest.fixture
def cluster(moto_server: str, moto_client: MotoClient) -> MotoCluster:
    return build_cluster(moto_client, moto_server)


# -- probe checks: read every kind of data ClusterData offers -------------------------------


def _probe_nodes(data: ClusterData) -> Iterable[Finding]:
    nodes = data.nodes()
    groups = sorted({str(n.get("InstanceGroupName")) for n in nodes.items})
    yield info(
        "probe-nodes", "F", f"{len(nodes.items)} nodes in {groups}", truncated=nodes.truncated
    )


def _probe_network(data: ClusterData) -> Iterable[Finding]:
    subnets = data.subnets(data.cluster_subnet_ids())
    vpcs = sorted({str(s["VpcId"]) for s in subnets})
    for vpc in vpcs:
        dns = (
            data.vpc_attribute(vpc, "enableDnsSupport"),
            data.vpc_attribute(vpc, "enableDnsHostnames"),
        )
        routes = sorted(
            str(route.get("NatGatewayId") or route.get("GatewayId"))[:4]
            for table in data.route_tables(vpc)
            for route in table.get("Routes", [])
            if route.get("DestinationCidrBlock") == "0.0.0.0/0"
        )
        yield info("probe-network", "B", f"{vpc}: dns={dns} default routes={routes}")


def _probe_endpoints(data: ClusterData) -> Iterable[Finding]:
    vpc = data.subnets(data.cluster_subnet_ids())[0]["VpcId"]
    names = sorted(str(e.get("ServiceName")) for e in data.vpc_endpoints(vpc))
    yield info("probe-endpoints", "B.4", f"endpoints: {names}")


def _probe_eks_iam(data: ClusterData) -> Iterable[Finding]:
    eks = data.eks_cluster() or {}
    yield info("probe-eks", "B.5", f"eks {eks.get('name')} in {eks.get('resourcesVpcConfig')}")
    role = str(data.instance_groups()[0].get("ExecutionRole", ""))
    documents = data.role_policy_documents(role)
    yield info("probe-iam", "D.1", f"{len(documents)} policy documents", documents=documents)


def _probe_logs(data: ClusterData) -> Iterable[Finding]:
    streams = data.log_streams("LifecycleConfig/")
    events = data.log_events(HMA_PREFIX, "HealthMonitoringAgentDetectionEvent")
    messages = [str(e.get("message")) for e in events]
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


@pytest.fixture
def probes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Register the probe checks for this test only."""
    import tools.registry

    tools.registry.all_checks()  # import the real checks first
    for check_id, (section, run) in PROBES.items():
        spec = CheckSpec(
            id=check_id, section=section, title=check_id, description=check_id, run=run
        )
        monkeypatch.setitem(tools.registry._REGISTRY, check_id, spec)
    return list(PROBES)


@pytest.fixture
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """open_access() without retries: moto's 500s come back at once."""
    import tools.triage.session

    def no_retries(region: str, **kwargs: Any) -> AwsAccess:
        return AwsAccess(region, max_attempts=0, **kwargs)

    monkeypatch.setattr(tools.triage.session, "AwsAccess", no_retries)


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


# -- (a) a live triage sends only allow-listed reads ----------------------------------------


@pytest.mark.usefixtures("fast_retries", "probes")
def test_live_triage_sends_only_allow_listed_reads(cluster: MotoCluster) -> None:
    access = open_access(cluster.target, endpoint_url=cluster.url)
    traffic = watch(access)
    report = triage_cluster(cluster.target, access)

    operations = set(traffic.attempted)
    assert operations <= READ_ONLY_OPERATIONS, operations - READ_ONLY_OPERATIONS
    assert {
        ("sts", "GetCallerIdentity"),
        ("sagemaker", "DescribeCluster"),
        ("sagemaker", "ListClusterNodes"),
        ("ec2", "DescribeSecurityGroups"),
        ("ec2", "DescribeVpcEndpoints"),
        ("iam", "GetRolePolicy"),
        ("logs", "FilterLogEvents"),
    } <= operations
    assert len(traffic.sent) >= len(operations)
    assert all(url.startswith(cluster.url) for url in traffic.sent)

    assert report.cluster.name == CLUSTER
    assert report.cluster.arn == f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/{CLUSTER}"
    assert report.cluster.account == ACCOUNT
    assert report.recorded is False
    reasons = skip_reasons(report)
    assert not [
        r for r in reasons.values() if "internal error in check" in r or r.startswith("refused")
    ]
    # moto's missing ListClusterEvents is a skip, not a crash and not an empty list.
    assert "sagemaker:ListClusterEvents failed: 500" in reasons["probe-events"]
    checks = by_check(report)
    assert [f.status for f in checks["efa-security-groups"]] == ["PASS"]
    assert checks["efa-security-groups"][0].resources == [cluster.sg_id]
    assert checks["cluster-status"][0].status == "PASS"
    assert checks["probe-nodes"][0].message == f"{NODES} nodes in ['workers']"
    assert checks["probe-logs"][0].message == (
        f"log group True: {LIFECYCLE_STREAMS} streams, 1 events"
    )
    network = checks["probe-network"][0].message
    assert network == f"{cluster.vpc_id}: dns=(True, True) default routes=['igw-', 'nat-']"


@pytest.mark.usefixtures("fast_retries")
def test_missing_outbound_self_rule_fails_on_moto(
    moto_server: str, moto_client: MotoClient
) -> None:
    world = build_cluster(moto_client, moto_server, outbound_self_rule=False)
    report = triage_cluster(world.target, open_access(world.target, endpoint_url=world.url))
    efa = by_check(report)["efa-security-groups"]
    failures = [f for f in efa if f.status == "FAIL"]
    assert len(failures) == 1
    assert "outbound" in failures[0].message
    assert "inbound" not in failures[0].message
    assert failures[0].resources == [world.sg_id]
    assert failures[0].priority == "P0"


# -- (b) record → file → replay gives the same report ---------------------------------------


@pytest.mark.usefixtures("fast_retries", "probes")
def test_record_replay_round_trip(cluster: MotoCluster, tmp_path: Path) -> None:
    recorder = Recorder()
    live_access = open_access(cluster.target, recorder=recorder, endpoint_url=cluster.url)
    live = triage_cluster(cluster.target, live_access, now=recorder.now)
    path = tmp_path / "cluster.json"
    dump_recorded(recorder.build(cluster=CLUSTER, region=REGION), path)

    recording = load_recorded(path)
    assert recording_time(recording) == recorder.now
    replay_access = open_access(cluster.target, recording=recording)
    traffic = watch(replay_access)
    replayed = triage_cluster(cluster.target, replay_access, now=recording_time(recording))

    assert replayed.recorded is True
    assert replayed.cluster == live.cluster
    assert replayed.findings == live.findings
    assert replayed.skipped == live.skipped
    assert traffic.sent == []  # replay never builds an HTTP request

    # Paginated lists are stored whole, with `paging` set ...
    calls = {(c.service, c.operation): c for c in recording.aws}
    nodes = calls[("sagemaker", "ListClusterNodes")]
    assert nodes.paging is not None
    assert nodes.paging.result_key == "ClusterNodeSummaries"
    assert nodes.response is not None
    assert len(nodes.response["ClusterNodeSummaries"]) == NODES
    assert "NextToken" not in nodes.response
    assert "MaxResults" not in nodes.params
    streams = next(
        c
        for c in recording.aws
        if c.operation == "DescribeLogStreams"
        and c.params["logStreamNamePrefix"] == "LifecycleConfig/"
    )
    assert streams.paging is not None
    assert (streams.paging.result_key, streams.paging.token_key) == ("logStreams", "nextToken")
    assert streams.response is not None
    assert len(streams.response["logStreams"]) == LIFECYCLE_STREAMS
    # ... and paged again on replay, as the real APIs page them.
    stream_pages = [
        params
        for op, params in zip(traffic.attempted, traffic.params, strict=True)
        if op == ("logs", "DescribeLogStreams")
        and params["logStreamNamePrefix"] == "LifecycleConfig/"
    ]
    assert [p.get("nextToken") for p in stream_pages] == [None, "hpd-replay:50"]
    assert all(p["limit"] == 50 for p in stream_pages)
    # The moto 500 was recorded as what it was, and replays as the same skip.
    events = calls[("sagemaker", "ListClusterEvents")]
    assert events.error is not None
    assert events.error.http_status == 500


def test_replay_store_pages_a_stored_list() -> None:
    items = [{"InstanceId": f"i-{n:017x}"} for n in range(250)]
    recording = RecordedCluster.model_validate(
        {
            "recorded_at": "2026-01-01T00:00:00Z",
            "cluster": CLUSTER,
            "region": REGION,
            "aws": [
                {
                    "service": "sagemaker",
                    "operation": "ListClusterNodes",
                    "params": {"ClusterName": CLUSTER},
                    "response": {"ClusterNodeSummaries": items},
                    "paging": {"result_key": "ClusterNodeSummaries"},
                }
            ],
        }
    )
    store = ReplayStore(recording)
    pages, token = [], None
    while True:
        params: dict[str, Any] = {"ClusterName": CLUSTER, "MaxResults": 100}
        if token:
            params["NextToken"] = token
        response = page_call(
            store.respond("sagemaker", "ListClusterNodes", params), params
        ).response
        assert response is not None
        pages.append(response["ClusterNodeSummaries"])
        token = response.get("NextToken")
        if not token:
            break
    assert [len(p) for p in pages] == [100, 100, 50]
    assert [i for page in pages for i in page] == items
    # Without MaxResults a page holds 100; a bogus token is an error, not an empty page.
    bare = {"ClusterName": CLUSTER}
    first = page_call(store.respond("sagemaker", "ListClusterNodes", bare), bare).response
    assert first is not None
    assert len(first["ClusterNodeSummaries"]) == 100
    bogus = {"ClusterName": CLUSTER, "NextToken": "x"}
    with pytest.raises(ValueError, match="invalid replay pagination token"):
        page_call(store.respond("sagemaker", "ListClusterNodes", bogus), bogus)


def test_paginate_over_replay_respects_the_cap() -> None:
    items = [{"InstanceId": f"i-{n:017x}"} for n in range(250)]
    recording = RecordedCluster(
        recorded_at="2026-01-01T00:00:00Z",
        cluster=CLUSTER,
        region=REGION,
        aws=[
            {
                "service": "sagemaker",
                "operation": "ListClusterNodes",
                "params": {"ClusterName": CLUSTER},
                "response": {"ClusterNodeSummaries": items},
                "paging": {"result_key": "ClusterNodeSummaries"},
            }
        ],
    )
    access = AwsAccess(REGION, replay=recording)
    traffic = watch(access)
    capped = access.paginate(
        "sagemaker",
        "ListClusterNodes",
        "ClusterNodeSummaries",
        page_size=100,
        cap=150,
        ClusterName=CLUSTER,
    )
    assert len(capped.items) == 150
    assert capped.truncated is True
    assert capped.items == items[:150]
    assert len(traffic.attempted) == 2
    whole = access.paginate(
        "sagemaker",
        "ListClusterNodes",
        "ClusterNodeSummaries",
        page_size=100,
        cap=1000,
        ClusterName=CLUSTER,
    )
    assert whole.items == items
    assert whole.truncated is False


class StuckPager:
    """A responder whose list API hands back the token it was given, as moto's does."""

    def __init__(self) -> None:
        self.calls = 0

    def respond(self, service: str, operation: str, params: dict[str, Any]) -> RecordedCall:
        self.calls += 1
        return RecordedCall(
            service=service,
            operation=operation,
            params=params,
            response={"ClusterNodeSummaries": [{"InstanceId": "i-1"}], "NextToken": "stuck"},
        )


def test_pagination_that_never_advances_fails_loudly() -> None:
    pager = StuckPager()
    access = AwsAccess(REGION, replay=pager)
    with pytest.raises(AwsAccessError) as stuck:
        access.paginate(
            "sagemaker",
            "ListClusterNodes",
            "ClusterNodeSummaries",
            page_size=100,
            cap=20_000,
            ClusterName=CLUSTER,
        )
    assert pager.calls == 2  # not 200 requests for 20,000 copies of one page
    assert stuck.value.reason == (
        "sagemaker:ListClusterNodes failed: "
        "pagination did not advance (the same NextToken came back)"
    )


@pytest.mark.usefixtures("fast_retries")
def test_moto_node_listing_never_yields_duplicates(
    moto_server: str, moto_client: MotoClient
) -> None:
    """moto 5.2.5 ignores ListClusterNodes' NextToken; triage must not read one page 200 times."""
    moto_client("sagemaker", REGION).create_cluster(
        ClusterName="big",
        InstanceGroups=[
            {
                "InstanceGroupName": "workers",
                "InstanceType": "ml.p5.48xlarge",
                "InstanceCount": 130,
                "LifeCycleConfig": {"SourceS3Uri": "s3://sagemaker-lc/", "OnCreate": "on.sh"},
                "ExecutionRole": f"arn:aws:iam::{ACCOUNT}:role/exec",
                "ThreadsPerCore": 2,
            }
        ],
        VpcConfig={"SecurityGroupIds": ["sg-1"], "Subnets": ["subnet-1"]},
    )
    target = TriageTarget(cluster="big", region=REGION)
    access = open_access(target, endpoint_url=moto_server)
    traffic = watch(access)
    data = ClusterData(access, target)
    outcome: list[dict[str, Any]] | AwsAccessError
    try:
        outcome = data.nodes().items
    except AwsAccessError as exc:
        outcome = exc
    if isinstance(outcome, AwsAccessError):  # moto's bug, reported as what it is
        assert "pagination did not advance" in outcome.reason
        assert traffic.attempted.count(("sagemaker", "ListClusterNodes")) == 2
    else:  # a moto that pages properly
        ids = [n["InstanceId"] for n in outcome]
        assert len(ids) == len(set(ids)) == 130


# -- (c) an unrecorded call fails loudly ----------------------------------------------------


@pytest.mark.usefixtures("fast_retries", "probes")
def test_unrecorded_call_is_not_an_empty_result(cluster: MotoCluster) -> None:
    recorder = Recorder()
    access = open_access(cluster.target, recorder=recorder, endpoint_url=cluster.url)
    live = triage_cluster(cluster.target, access, now=recorder.now)
    assert "probe-endpoints" in by_check(live)
    recording = recorder.build(cluster=CLUSTER, region=REGION)
    recording.aws = [c for c in recording.aws if c.operation != "DescribeVpcEndpoints"]

    replay = open_access(cluster.target, recording=recording)
    filters = [{"Name": "vpc-id", "Values": [cluster.vpc_id]}]
    with pytest.raises(NotRecorded) as missing:
        replay.call("ec2", "DescribeVpcEndpoints", Filters=filters)
    expected = f"not recorded: ec2:DescribeVpcEndpoints {json.dumps({'Filters': filters})}"
    assert str(missing.value) == expected
    assert missing.value.reason == expected

    replayed = triage_cluster(cluster.target, replay, now=recording_time(recording))
    assert "probe-endpoints" not in by_check(replayed)
    assert skip_reasons(replayed)["probe-endpoints"] == expected
    assert "Re-record" in next(s.hint for s in replayed.skipped if s.check == "probe-endpoints")


# -- (d) redaction ------------------------------------------------------------------------


def test_recorder_redacts_secret_keys_and_values(tmp_path: Path) -> None:
    private_key = "-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----"
    recorder = Recorder()
    recorder.record_response(
        "sts",
        "GetCallerIdentity",
        {},
        {
            "Account": ACCOUNT,
            "Credentials": {
                "AccessKeyId": SECRET_KEY_ID,
                "SecretAccessKey": SECRET_VALUE,
                "SessionToken": "FwoGZXIvYXdzEXAMPLETOKEN",
            },
            "NextToken": "keep-me",
            "Notes": [f"key {SECRET_KEY_ID} in text", private_key, "token k8s-aws-v1.abcDEF_123"],
            "Config": {"aws_secret_access_key": "xyz", "password": "hunter2"},
        },
    )
    recorder.record_error(
        "ec2",
        "DescribeSubnets",
        {"SubnetIds": ["subnet-1"]},
        "AuthFailure",
        f"credential {SECRET_KEY_ID} secret={SECRET_VALUE}",
        401,
    )
    path = tmp_path / "secrets.json"
    dump_recorded(recorder.build(cluster=CLUSTER, region=REGION), path)
    text = path.read_text()
    for secret in (
        SECRET_KEY_ID,
        SECRET_VALUE,
        "FwoGZXIvYXdzEXAMPLETOKEN",
        "MIIEabc",
        "PRIVATE KEY",
        "k8s-aws-v1.abc",
        "hunter2",
        '"xyz"',
    ):
        assert secret not in text, secret
    assert REDACTED in text
    assert "keep-me" in text  # pagination tokens survive
    assert ACCOUNT in text  # not masked unless asked
    load_recorded(path)  # still a valid recorded cluster


@pytest.mark.usefixtures("fast_retries", "probes")
def test_live_recording_redacts_and_masks_accounts(
    cluster: MotoCluster, moto_client: MotoClient, tmp_path: Path
) -> None:
    logs = moto_client("logs", REGION)
    logs.put_log_events(
        logGroupName=f"/aws/sagemaker/Clusters/{CLUSTER}/{CLUSTER}",
        logStreamName=f"{HMA_PREFIX}workers/workers-7",
        logEvents=[
            {
                "timestamp": int(time.time() * 1000) - 30_000,
                "message": (
                    "HealthMonitoringAgentDetectionEvent NvidiaErrorReboot leaked env "
                    f"AWS_ACCESS_KEY_ID={SECRET_KEY_ID} aws_secret_access_key={SECRET_VALUE}"
                ),
            }
        ],
    )
    recorder = Recorder(mask_account=True)
    access = open_access(cluster.target, recorder=recorder, endpoint_url=cluster.url)
    live = triage_cluster(cluster.target, access, now=recorder.now)
    # moto drops Orchestrator, so triage never asks EKS; read it once to record its secrets.
    access.call("eks", "DescribeCluster", name="hp-eks")
    path = tmp_path / "masked.json"
    dump_recorded(recorder.build(cluster=CLUSTER, region=REGION), path)
    text = path.read_text()

    assert SECRET_KEY_ID not in text
    assert SECRET_VALUE not in text
    assert "leaked env AWS_ACCESS_KEY_ID=" in text  # the rest of the log line is kept
    assert ACCOUNT not in text
    assert f"arn:aws:sagemaker:{REGION}:{MASKED_ACCOUNT}:cluster/{CLUSTER}" in text
    assert f"arn:aws:eks:{REGION}:{MASKED_ACCOUNT}:cluster/hp-eks" in text
    eks = next(c for c in load_recorded(path).aws if c.service == "eks")
    assert eks.response is not None
    assert eks.response["cluster"]["certificateAuthority"] == REDACTED

    # A masked recording still replays, to the same judgements.
    recording = load_recorded(path)
    replayed = triage_cluster(
        cluster.target,
        open_access(cluster.target, recording=recording),
        now=recording_time(recording),
    )
    assert replayed.cluster.account == MASKED_ACCOUNT
    assert [(f.check, f.status, f.section) for f in replayed.findings] == [
        (f.check, f.status, f.section) for f in live.findings
    ]
    assert [s.check for s in replayed.skipped] == [s.check for s in live.skipped]


# -- (e) AccessDenied and throttling become skips --------------------------------------------


def _respond_with(status: int, body: bytes, content_type: str) -> Any:
    from botocore.awsrequest import AWSResponse

    class Raw:
        def stream(self, **_: Any) -> Iterator[bytes]:
            yield body

    return AWSResponse("http://127.0.0.1/", status, {"Content-Type": content_type}, Raw())


def _body(request: Any) -> bytes:
    body = request.body or b""
    return body.encode() if isinstance(body, str) else bytes(body)


def _ec2_error(code: str, status: int) -> Any:
    body = (
        f"<Response><Errors><Error><Code>{code}</Code><Message>no</Message></Error></Errors>"
        "<RequestID>1</RequestID></Response>"
    ).encode()
    return _respond_with(status, body, "text/xml")


@pytest.mark.usefixtures("fast_retries")
@pytest.mark.parametrize("code", ["UnauthorizedOperation", "AccessDenied"])
def test_access_denied_on_one_api_is_a_skip(cluster: MotoCluster, code: str) -> None:
    recorder = Recorder()
    access = open_access(cluster.target, recorder=recorder, endpoint_url=cluster.url)
    denied: list[str] = []

    def deny(request: Any, **_: Any) -> Any:
        if b"Action=DescribeSecurityGroups" in _body(request):
            denied.append(request.url)
            return _ec2_error(code, 403)
        return None

    access._session.events.register("before-send.ec2", deny)
    report = triage_cluster(cluster.target, access, now=recorder.now)

    assert len(denied) == 1  # a denial is not retried, and asked once per run
    skipped = [s for s in report.skipped if s.check == "efa-security-groups"]
    assert len(skipped) == 1
    assert skipped[0].reason == "Missing IAM permission for ec2:DescribeSecurityGroups"
    assert "IAM" in skipped[0].hint
    assert "efa-security-groups" not in by_check(report)
    assert by_check(report)["cluster-status"][0].status == "PASS"  # triage went on

    # The denial is recorded, and replays to the same skip.
    recording = recorder.build(cluster=CLUSTER, region=REGION)
    errors = [c for c in recording.aws if c.error is not None and c.service == "ec2"]
    assert [(c.operation, c.error.code, c.error.http_status) for c in errors if c.error] == [
        ("DescribeSecurityGroups", code, 403)
    ]
    replayed = triage_cluster(
        cluster.target, open_access(cluster.target, recording=recording), now=recorder.now
    )
    assert replayed.skipped == report.skipped
    assert replayed.findings == report.findings


@pytest.fixture
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retries without sleeping (botocore's standard/adaptive back-off and rate limiter)."""
    from botocore.retries import adaptive, standard

    monkeypatch.setattr(standard.ExponentialBackoff, "delay_amount", lambda self, ctx: 0.0)
    monkeypatch.setattr(adaptive.ClientRateLimiter, "on_sending_request", lambda *a, **k: None)


def _sagemaker_throttled() -> Any:
    body = b'{"__type": "ThrottlingException", "message": "Rate exceeded"}'
    return _respond_with(400, body, "application/x-amz-json-1.1")


@pytest.mark.usefixtures("no_backoff", "probes")
@pytest.mark.parametrize(
    ("service", "operation", "code", "check"),
    [
        ("ec2", "DescribeSecurityGroups", "RequestLimitExceeded", "efa-security-groups"),
        ("sagemaker", "ListClusterNodes", "ThrottlingException", "probe-nodes"),
    ],
)
def test_throttling_after_retries_is_a_skip(
    cluster: MotoCluster, service: str, operation: str, code: str, check: str
) -> None:
    # botocore's retries.max_attempts counts retries: 2 means three attempts in all.
    access = AwsAccess(REGION, endpoint_url=cluster.url, max_attempts=2)
    attempts: list[str] = []

    def is_target(request: Any) -> bool:
        if service == "ec2":
            return f"Action={operation}".encode() in _body(request)
        return str(request.headers.get("X-Amz-Target", b"")).endswith(f".{operation}'")

    def throttle(request: Any, **_: Any) -> Any:
        if not is_target(request):
            return None
        attempts.append(request.url)
        return _ec2_error(code, 503) if service == "ec2" else _sagemaker_throttled()

    access._session.events.register(f"before-send.{service}", throttle)
    report = triage_cluster(cluster.target, access)

    assert attempts
    assert len(attempts) % 3 == 0  # each throttled call: the first try and two retries
    reason = skip_reasons(report)[check]
    assert reason.startswith(f"{service}:{operation} was throttled after retries: {code}")
    assert next(s.hint for s in report.skipped if s.check == check).startswith("Re-run later")
    assert by_check(report)["cluster-status"][0].status == "PASS"  # triage went on
