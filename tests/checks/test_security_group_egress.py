"""§ A.1 rule of tools/checks/security_group_egress.py over literal security groups, route
tables and endpoints in botocore's shape: does each security-group set keep a way to AWS?"""

from __future__ import annotations

from typing import Any

import pytest

from tools.checks._egress import (
    EgressVerdict,
    SetEgress,
    SubnetRouting,
    VpcWays,
    carries_https,
    judge_set_egress,
)
from tools.checks._network import required_endpoints
from tools.checks.security_group_egress import word_set_egress
from tools.findings import Priority, Status
from tools.triage.data.network_model import IpPermission, PrefixList, SecurityGroup, VpcEndpoint

from ._vpc import LOCAL, NAT_DEFAULT, SUBNET, endpoint, subnet, table

SG, ENDPOINT_SG, PROXY_SG = "sg-nodes", "sg-endpoints", "sg-proxy"
S3_LIST, CUSTOM_LIST = "pl-s3", "pl-custom"
SLURM = required_endpoints("slurm")
EKS = required_endpoints("eks")
INTERFACE = [s for s in EKS if s != "s3"]


def self_rule(group_id: str = SG) -> dict[str, Any]:
    return {"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": group_id}]}


def rule(
    protocol: str = "-1", ports: tuple[int, int] | None = None, **target: Any
) -> dict[str, Any]:
    raw: dict[str, Any] = {"IpProtocol": protocol, **target}
    if ports is not None:
        raw["FromPort"], raw["ToPort"] = ports
    return raw


def cidr(block: str, protocol: str = "-1", ports: tuple[int, int] | None = None) -> dict[str, Any]:
    return rule(protocol, ports, IpRanges=[{"CidrIp": block}])


def https(**target: Any) -> dict[str, Any]:
    return rule("tcp", (443, 443), **target)


ANYWHERE = cidr("0.0.0.0/0")
S3_ROUTE = {"DestinationPrefixListId": S3_LIST, "GatewayId": "vpce-s3", "State": "active"}


def nodes(*outbound: dict[str, Any], group_id: str = SG) -> SecurityGroup:
    return SecurityGroup.from_api(
        {
            "GroupId": group_id,
            "IpPermissions": [self_rule(group_id)],
            "IpPermissionsEgress": [self_rule(group_id), *outbound],
        }
    )


def routing(*, nat: bool = True, endpoints: list[VpcEndpoint] | None = None) -> SubnetRouting:
    routes = [LOCAL, S3_ROUTE, *([NAT_DEFAULT] if nat else [])]
    tables = (table("rtb-1", routes, subnets=(SUBNET,)),)
    listed = endpoints if endpoints is not None else [endpoint("s3", "Gateway")]
    return SubnetRouting(subnets=(subnet(),), route_tables=tables, ways=VpcWays.of(listed, tables))


def interface_endpoints(*groups: str, private_dns: bool = True) -> list[VpcEndpoint]:
    extra: dict[str, Any] = {"PrivateDnsEnabled": private_dns}
    if groups:
        extra["Groups"] = [{"GroupId": g} for g in groups]
    return [endpoint("s3", "Gateway"), *(endpoint(s, **extra) for s in INTERFACE)]


def judge(
    groups: list[SecurityGroup], where: SubnetRouting, services: tuple[str, ...] = SLURM
) -> SetEgress:
    return judge_set_egress(["workers"], groups, where, services)


# -- what carries HTTPS ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (rule("-1"), True),
        (rule("tcp", (443, 443)), True),
        (rule("tcp", (0, 65535)), True),
        (rule("6", (1, 1024)), True),
        (rule("tcp", (80, 80)), False),
        (rule("udp", (443, 443)), False),
        (rule("tcp"), False),  # TCP without ports is not a rule EC2 would hold
    ],
)
def test_carries_https(raw: dict[str, Any], expected: bool) -> None:
    assert carries_https(IpPermission.from_api(raw)) is expected


# -- the verdicts ---------------------------------------------------------------------------


def test_self_rules_only_behind_nat_reach_nothing() -> None:
    answer = judge([nodes()], routing())
    assert answer.verdict is EgressVerdict.BLOCKED
    assert answer.only_within_set
    assert set(answer.blocked) == set(SLURM)
    [finding] = [word_set_egress(answer, several=False)]
    assert (finding.status, finding.priority, finding.section) == (Status.FAIL, Priority.P0, "A.1")
    assert "only to themselves" in finding.message
    assert "SSM" in finding.message
    assert "STS" in finding.message


def test_awss_template_shape_is_open() -> None:
    """Self rules both ways plus all traffic to 0.0.0.0/0, NAT, S3 gateway endpoint."""
    answer = judge([nodes(ANYWHERE)], routing())
    assert answer.verdict is EgressVerdict.OPEN
    assert answer.checked == SLURM
    assert word_set_egress(answer, several=False).status is Status.PASS


def test_https_to_anywhere_is_enough() -> None:
    assert judge([nodes(https(IpRanges=[{"CidrIp": "0.0.0.0/0"}]))], routing()).verdict is (
        EgressVerdict.OPEN
    )


def test_narrowing_to_the_vpc_and_s3_on_a_nat_only_vpc_blocks_everything_but_s3() -> None:
    """What the reference once advised: HTTPS to the VPC CIDR and the S3 prefix list."""
    rules = nodes(
        https(IpRanges=[{"CidrIp": "10.0.0.0/16"}]),
        https(PrefixListIds=[{"PrefixListId": S3_LIST}]),
    )
    answer = judge([rules], routing(), EKS)
    assert answer.verdict is EgressVerdict.BLOCKED
    assert not answer.only_within_set
    assert set(answer.blocked) == set(INTERFACE)
    assert answer.blocked["sts"] == (SUBNET,)
    finding = word_set_egress(answer, several=False)
    assert finding.status is Status.FAIL
    assert "EKS" in finding.message
    assert "S3" not in finding.message.split(":", 1)[1]


def test_the_same_rules_work_through_interface_endpoints_without_nat() -> None:
    rules = nodes(
        https(IpRanges=[{"CidrIp": "10.0.0.0/16"}]),
        https(PrefixListIds=[{"PrefixListId": S3_LIST}]),
    )
    answer = judge([rules], routing(nat=False, endpoints=interface_endpoints(ENDPOINT_SG)), EKS)
    assert answer.verdict is EgressVerdict.OPEN
    assert answer.checked == EKS


def test_a_rule_to_the_endpoints_group_reaches_them() -> None:
    rules = nodes(
        https(UserIdGroupPairs=[{"GroupId": ENDPOINT_SG}]),
        https(PrefixListIds=[{"PrefixListId": S3_LIST}]),
    )
    where = routing(nat=False, endpoints=interface_endpoints(ENDPOINT_SG))
    assert judge([rules], where).verdict is EgressVerdict.OPEN
    elsewhere = routing(nat=False, endpoints=interface_endpoints("sg-other"))
    assert judge([rules], elsewhere).verdict is EgressVerdict.BLOCKED


def test_endpoints_carrying_the_nodes_group_are_reached_by_the_self_rule() -> None:
    where = routing(nat=False, endpoints=interface_endpoints(SG))
    answer = judge([nodes()], where)
    # Every interface service is reached; S3's gateway endpoint is not (no prefix list rule).
    assert set(answer.blocked) == {"s3"}


def test_without_nat_or_endpoints_nothing_is_judged_here() -> None:
    """A subnet that cannot route a service at all is § B.4's finding, not this one's."""
    answer = judge([nodes(ANYWHERE)], routing(nat=False, endpoints=[]))
    assert answer.checked == ()
    assert answer.verdict is EgressVerdict.OPEN


def test_self_rules_only_are_blocked_whatever_the_routes() -> None:
    """No route, or centralised endpoints behind a transit gateway: a set whose only
    outbound rule is the self rule reaches nothing either way."""
    for where in (routing(nat=False, endpoints=[]), _routed(TGW_DEFAULT)):
        answer = judge([nodes()], where)
        assert answer.verdict is EgressVerdict.BLOCKED
        assert answer.only_within_set
        assert set(answer.blocked) == set(SLURM)


def test_private_dns_off_sends_the_service_through_the_default_route() -> None:
    rules = nodes(https(IpRanges=[{"CidrIp": "10.0.0.0/16"}]))
    where = routing(nat=True, endpoints=interface_endpoints(ENDPOINT_SG, private_dns=False))
    answer = judge([rules], where)
    assert "sts" in answer.blocked  # resolves to the public address: needs NAT-bound HTTPS


TGW_DEFAULT = {"DestinationCidrBlock": "0.0.0.0/0", "TransitGatewayId": "tgw-1", "State": "active"}
TGW_PRIVATE = {"DestinationCidrBlock": "10.0.0.0/8", "TransitGatewayId": "tgw-1", "State": "active"}


def _routed(*routes: dict[str, Any]) -> SubnetRouting:
    tables = (table("rtb-1", [LOCAL, S3_ROUTE, *routes], subnets=(SUBNET,)),)
    return SubnetRouting(
        subnets=(subnet(),),
        route_tables=tables,
        ways=VpcWays.of([endpoint("s3", "Gateway")], tables),
    )


@pytest.mark.parametrize("routes", [(TGW_DEFAULT,), (NAT_DEFAULT, TGW_PRIVATE)])
def test_private_https_counts_where_routes_lead_beyond_the_vpc(
    routes: tuple[dict[str, Any], ...],
) -> None:
    """Centralised endpoints or a proxy behind a transit gateway answer on private
    addresses: HTTPS to 10.0.0.0/8 may be the way out, so it is not called blocked."""
    rules = nodes(
        https(IpRanges=[{"CidrIp": "10.0.0.0/8"}]),
        https(PrefixListIds=[{"PrefixListId": S3_LIST}]),
    )
    assert judge([rules], _routed(*routes)).verdict is EgressVerdict.OPEN
    assert judge([rules], _routed(NAT_DEFAULT)).verdict is EgressVerdict.BLOCKED


def test_an_ipv6_rule_does_not_carry_ipv4_traffic() -> None:
    answer = judge([nodes(rule("-1", Ipv6Ranges=[{"CidrIpv6": "::/0"}]))], routing())
    assert answer.verdict is EgressVerdict.BLOCKED
    assert not answer.only_within_set


def test_a_customer_prefix_list_is_uncertain_not_open() -> None:
    """Its entries are not read: a WARN P2 that says so, never a PASS or a FAIL."""
    rules = nodes(https(PrefixListIds=[{"PrefixListId": CUSTOM_LIST}]))
    answer = judge([rules], routing())
    assert answer.verdict is EgressVerdict.UNCERTAIN
    assert answer.unread_prefix_lists == (CUSTOM_LIST,)
    finding = word_set_egress(answer, several=False)
    assert (finding.status, finding.priority) == (Status.WARN, Priority.P2)
    assert CUSTOM_LIST in finding.message


def test_awss_own_s3_list_through_nat_reaches_s3_only() -> None:
    """No gateway endpoint: the list is known by its name (DescribeManagedPrefixLists)."""
    rules = nodes(https(PrefixListIds=[{"PrefixListId": "pl-aws-s3"}]))
    named = PrefixList.from_api(
        {
            "PrefixListId": "pl-aws-s3",
            "PrefixListName": "com.amazonaws.us-west-2.s3",
            "OwnerId": "AWS",
        }
    )
    tables = (table("rtb-1", [LOCAL, NAT_DEFAULT], subnets=(SUBNET,)),)
    where = SubnetRouting(
        subnets=(subnet(),), route_tables=tables, ways=VpcWays.of([], tables, [named])
    )
    answer = judge([rules], where)
    assert answer.verdict is EgressVerdict.BLOCKED
    assert "s3" not in answer.blocked
    assert "sts" in answer.blocked


def test_an_ipv6_rule_beside_an_ipv6_route_is_uncertain() -> None:
    v6_out = {"DestinationIpv6CidrBlock": "::/0", "EgressOnlyInternetGatewayId": "eigw-1"}
    rules = nodes(rule("-1", Ipv6Ranges=[{"CidrIpv6": "::/0"}]))
    assert judge([rules], _routed(NAT_DEFAULT, v6_out)).verdict is EgressVerdict.UNCERTAIN


@pytest.mark.parametrize(
    "proxy",
    [
        cidr("10.0.9.9/32", "tcp", (3128, 3128)),
        rule("tcp", (8080, 8080), UserIdGroupPairs=[{"GroupId": PROXY_SG}]),
        rule("-1", UserIdGroupPairs=[{"GroupId": PROXY_SG}]),
        cidr("10.0.0.0/16"),  # all traffic to the VPC: a proxy inside it on any port
        cidr("165.225.0.0/17", "tcp", (9400, 9400)),  # a proxy on public addresses
        cidr("0.0.0.0/0", "tcp", (80, 80)),
    ],
)
def test_a_possible_proxy_makes_it_a_warning(proxy: dict[str, Any]) -> None:
    answer = judge([nodes(proxy)], routing())
    assert answer.verdict is EgressVerdict.PROXY_UNKNOWN
    finding = word_set_egress(answer, several=False)
    assert (finding.status, finding.priority) == (Status.WARN, Priority.P1)
    assert "proxy" in finding.message


def test_https_to_the_vpc_does_not_leave_through_nat_even_beside_a_tgw_route() -> None:
    """The narrowed layout of catalogue #39 with a route to on-premises: the VPC's own CIDR
    is not where centralised endpoints or a proxy beyond the transit gateway live."""
    rules = nodes(
        https(IpRanges=[{"CidrIp": "10.0.0.0/16"}]),
        https(PrefixListIds=[{"PrefixListId": S3_LIST}]),
    )
    assert judge([rules], _routed(NAT_DEFAULT, TGW_PRIVATE)).verdict is EgressVerdict.BLOCKED


def test_interface_endpoints_are_judged_against_the_vpcs_own_cidrs() -> None:
    wrong = nodes(https(IpRanges=[{"CidrIp": "192.168.0.0/24"}]))
    where = routing(nat=False, endpoints=interface_endpoints(ENDPOINT_SG))
    assert set(judge([wrong], where).blocked) == set(SLURM)
    public_vpc = {"DestinationCidrBlock": "30.0.0.0/16", "GatewayId": "local", "State": "active"}
    tables = (table("rtb-1", [public_vpc, S3_ROUTE], subnets=(SUBNET,)),)
    own = nodes(
        https(IpRanges=[{"CidrIp": "30.0.0.0/16"}]),
        https(PrefixListIds=[{"PrefixListId": S3_LIST}]),
    )
    ways = VpcWays.of(interface_endpoints(ENDPOINT_SG), tables)
    answer = judge([own], SubnetRouting(subnets=(subnet(),), route_tables=tables, ways=ways))
    assert answer.verdict is EgressVerdict.OPEN


def test_the_evidence_says_whether_the_anywhere_rule_could_go() -> None:
    template = judge([nodes(ANYWHERE)], routing())
    assert template.verdict is EgressVerdict.OPEN
    assert not template.open_without_anywhere  # NAT only: it is the way out
    endpoints_too = nodes(
        ANYWHERE,
        https(IpRanges=[{"CidrIp": "10.0.0.0/16"}]),
        https(PrefixListIds=[{"PrefixListId": S3_LIST}]),
    )
    where = routing(nat=True, endpoints=interface_endpoints(ENDPOINT_SG))
    answer = judge([endpoints_too], where)
    assert answer.open_without_anywhere
    assert "also without" in word_set_egress(answer, several=False).message


def test_every_blocked_service_is_worded() -> None:
    answer = judge([nodes(cidr("0.0.0.0/0", "udp", (123, 123)))], routing())
    finding = word_set_egress(answer, several=False)
    assert not finding.message.endswith(": ")
    assert "no EC2 API" in finding.message


def test_the_union_of_the_set_counts() -> None:
    """An instance carries every group of its set: one group's egress serves them all."""
    other = SecurityGroup.from_api(
        {"GroupId": "sg-b", "IpPermissions": [], "IpPermissionsEgress": [ANYWHERE]}
    )
    assert judge([nodes(), other], routing()).verdict is EgressVerdict.OPEN


# -- the registered check on the simulator's worlds ------------------------------------------


def _run(world: Any) -> list[Any]:
    from cluster_simulator import base
    from tools.aws.session import AwsAccess
    from tools.checks.security_group_egress import security_group_egress
    from tools.target import TriageTarget
    from tools.triage.data import ClusterData

    target = TriageTarget(cluster=world.cluster["ClusterName"], region=world.region)
    data = ClusterData(AwsAccess(world.region, replay=world), target, now=base.RECORDED_AT)
    return list(security_group_egress(data))


def test_the_base_world_has_a_way_out() -> None:
    from cluster_simulator import base

    [finding] = _run(base.healthy_eks())
    assert finding.status is Status.PASS


def test_an_override_group_without_a_way_out_is_named_alone() -> None:
    from cluster_simulator import base

    world = base.healthy_slurm()
    world.security_groups.append(
        {
            "GroupId": "sg-controller",
            "VpcId": base.VPC,
            "IpPermissions": [],
            "IpPermissionsEgress": [self_rule("sg-controller")],
        }
    )
    controller = next(
        g
        for g in world.cluster["InstanceGroups"]
        if g["InstanceGroupName"] == base.CONTROLLER_GROUP
    )
    controller["OverrideVpcConfig"] = {
        "SecurityGroupIds": ["sg-controller"],
        "Subnets": [base.SUBNET],
    }
    findings = _run(world)
    [failed] = [f for f in findings if f.status is Status.FAIL]
    assert failed.resources == ["sg-controller"]
    assert failed.evidence["instance_groups"] == [base.CONTROLLER_GROUP]
    assert failed.message.startswith(f"Instance group(s) {base.CONTROLLER_GROUP}:")
    assert [f.status for f in findings].count(Status.PASS) == 1


def test_endpoints_that_cannot_be_read_skip_the_check() -> None:
    """Without the endpoints the way a service leaves is unknown: the runner lists the
    check as skipped (Missing IAM permission) instead of guessing."""
    from cluster_simulator import base
    from tools.aws.errors import AwsAccessError

    world = base.healthy_eks()
    world.denied.add(("ec2", "DescribeVpcEndpoints"))
    with pytest.raises(AwsAccessError):
        _run(world)


def test_the_registered_check_reads_the_names_of_unknown_prefix_lists() -> None:
    """AWS's own S3 list named by DescribeManagedPrefixLists, on a NAT subnet: S3 passes,
    the rest is blocked; with the read refused the list stays unknown and could hold
    anything: a WARN P2 that says so, not a FAIL."""
    from cluster_simulator import base

    world = base.healthy_slurm()
    group = next(g for g in world.security_groups if g["GroupId"] == base.SG)
    group["IpPermissionsEgress"] = [
        self_rule(base.SG),
        https(PrefixListIds=[{"PrefixListId": "pl-02cd2c6b"}]),
    ]
    world.prefix_lists = [
        {
            "PrefixListId": "pl-02cd2c6b",
            "PrefixListName": f"com.amazonaws.{base.REGION}.s3",
            "OwnerId": "AWS",
        }
    ]
    [failed] = _run(world)
    assert failed.status is Status.FAIL
    assert "s3" not in failed.evidence["blocked"]
    assert "sts" in failed.evidence["blocked"]
    world.denied.add(("ec2", "DescribeManagedPrefixLists"))
    [unsure] = _run(world)
    assert (unsure.status, unsure.priority) == (Status.WARN, Priority.P2)
    assert "pl-02cd2c6b" in unsure.message
    assert unsure.evidence["blocked"] == {}
