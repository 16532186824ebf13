"""A small in-memory AWS 'world' that answers the read calls triage makes.

Bundled recorded clusters are produced by running the real triage against a World through
the real access layer and recorder (`python -m cluster_simulator.build`), so every bundled file
holds exactly the calls the checks make, in botocore's output shapes. Scenarios are small
edits of a healthy base world.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

from tools.aws.errors import NotRecorded
from tools.probes.model import ProbeOutput
from tools.recorded.model import KubernetesObjects, Paging, RecordedCall, RecordedError

Json = dict[str, Any]


@dataclass
class World:
    account: str
    region: str
    cluster: Json
    nodes: list[Json] = field(default_factory=list)
    node_details: dict[str, Json] = field(default_factory=dict)
    events: list[Json] = field(default_factory=list)
    # EventId -> DescribeClusterEvent EventMetadata (FailureMessage, LcsExecutionState, ...).
    event_metadata: dict[str, Json] = field(default_factory=dict)
    # ListClusterOperations summaries, newest first; OperationId -> the ScalingDetails or
    # DeepHealthCheckDetails DescribeClusterOperation adds to the summary.
    operations: list[Json] = field(default_factory=list)
    operation_details: dict[str, Json] = field(default_factory=dict)
    other_clusters: list[str] = field(default_factory=list)
    security_groups: list[Json] = field(default_factory=list)
    subnets: list[Json] = field(default_factory=list)
    vpc_attributes: dict[str, dict[str, bool]] = field(default_factory=dict)
    route_tables: list[Json] = field(default_factory=list)
    vpc_endpoints: list[Json] = field(default_factory=list)
    # DescribeManagedPrefixLists: the lists security-group rules may name.
    prefix_lists: list[Json] = field(default_factory=list)
    offerings: list[Json] = field(default_factory=list)
    instance_types: list[Json] = field(default_factory=list)
    # Every network interface of the Region (DescribeNetworkInterfaces), and the applied
    # value of the network-interfaces-per-Region quota (None: no applied value recorded).
    network_interfaces: list[Json] = field(default_factory=list)
    eni_quota: float | None = 5000.0
    eks_clusters: dict[str, Json] = field(default_factory=dict)
    # Who manages what (tools/ownership): tags of VPCs (DescribeVpcs) and of SageMaker
    # resources by ARN (ListTags), and CloudFormation's record of each stack resource
    # (DescribeStackResource's StackResourceDetail), keyed by (stack name, logical id).
    vpc_tags: dict[str, list[Json]] = field(default_factory=dict)
    sagemaker_tags: dict[str, list[Json]] = field(default_factory=dict)
    stack_resources: dict[tuple[str, str], Json] = field(default_factory=dict)
    role_inline_policies: dict[str, dict[str, Json]] = field(default_factory=dict)
    role_attached_policies: dict[str, list[Json]] = field(default_factory=dict)
    managed_policies: dict[str, Json] = field(default_factory=dict)
    log_groups: list[str] = field(default_factory=list)
    log_streams: dict[str, list[str]] = field(default_factory=dict)
    log_events: dict[str, list[Json]] = field(default_factory=dict)
    # (service, operation) pairs answered with AccessDenied, as a role without them would be.
    denied: set[tuple[str, str]] = field(default_factory=set)
    # -- node level -------------------------------------------------------------------------
    # The Kubernetes API's objects (EKS worlds), or why kubectl access fails.
    kubernetes: KubernetesObjects | None = None
    kube_unavailable: str | None = None
    # What each node prints for each catalogued probe, nodes SSM cannot reach, and whether
    # session-manager-plugin is missing on the machine running the triage.
    probes: dict[str, dict[str, ProbeOutput]] = field(default_factory=dict)
    unreachable: dict[str, str] = field(default_factory=dict)
    plugin_missing: bool = False

    def copy(self) -> World:
        return copy.deepcopy(self)

    # -- the responder protocol (tools.recorded.replay.Responder) -----------------------

    def respond(self, service: str, operation: str, params: Json) -> RecordedCall:
        identity = {k: v for k, v in params.items() if k not in _PAGING}
        if (service, operation) in self.denied:
            code = "UnauthorizedOperation" if service == "ec2" else "AccessDeniedException"
            return RecordedCall(
                service=service,
                operation=operation,
                params=identity,
                error=RecordedError(
                    code=code,
                    message=f"You are not authorized to perform: {service}:{operation}",
                    http_status=403,
                ),
            )
        handler = _HANDLERS.get((service, operation))
        if handler is None:
            raise NotRecorded(service, operation, f"{identity} (no world handler)")
        outcome = handler(self, params)
        if isinstance(outcome, RecordedError):
            return RecordedCall(
                service=service, operation=operation, params=identity, error=outcome
            )
        response, paging = outcome
        return RecordedCall(
            service=service,
            operation=operation,
            params=identity,
            response=copy.deepcopy(response),
            paging=paging,
        )


_PAGING = frozenset({"NextToken", "nextToken", "MaxResults", "maxResults", "limit", "Limit"})
Outcome = tuple[Json, Paging | None] | RecordedError


def _filter_values(params: Json, name: str) -> list[str] | None:
    for item in params.get("Filters", []):
        if item.get("Name") == name:
            return list(item.get("Values", []))
    return None


def _not_found(code: str, message: str) -> RecordedError:
    return RecordedError(code=code, message=message, http_status=400)


def _sts(world: World, params: Json) -> Outcome:
    return {
        "UserId": "AROAEXAMPLEROLEID:support",
        "Account": world.account,
        "Arn": f"arn:aws:sts::{world.account}:assumed-role/support/engineer",
    }, None


def _describe_cluster(world: World, params: Json) -> Outcome:
    wanted = params.get("ClusterName")
    if wanted in (world.cluster.get("ClusterName"), world.cluster.get("ClusterArn")):
        return world.cluster, None
    return _not_found("ResourceNotFound", f"Cluster {wanted} not found")


def _list_clusters(world: World, params: Json) -> Outcome:
    names = sorted([world.cluster["ClusterName"], *world.other_clusters])
    summaries = [{"ClusterName": n, "ClusterStatus": "InService"} for n in names]
    return {"ClusterSummaries": summaries}, Paging(result_key="ClusterSummaries")


def _list_nodes(world: World, params: Json) -> Outcome:
    return {"ClusterNodeSummaries": world.nodes}, Paging(result_key="ClusterNodeSummaries")


def _describe_node(world: World, params: Json) -> Outcome:
    node_id = params.get("NodeId", "")
    if node_id in world.node_details:
        return {"NodeDetails": world.node_details[node_id]}, None
    return _not_found("ResourceNotFound", f"Node {node_id} not found in the cluster")


def _list_events(world: World, params: Json) -> Outcome:
    if world.cluster.get("NodeProvisioningMode") != "Continuous":
        return _not_found("ValidationException", "Events are not available for this cluster")
    # The filters of the API (NodeId, InstanceGroupName, ResourceType) each narrow the list.
    wanted = {
        key: params[key]
        for key in ("NodeId", "InstanceGroupName", "ResourceType")
        if params.get(key)
    }
    fields = {"NodeId": "InstanceId"}
    events = [
        e
        for e in world.events
        if all(e.get(fields.get(key, key)) == value for key, value in wanted.items())
    ]
    return {"Events": events}, Paging(result_key="Events")


def _describe_event(world: World, params: Json) -> Outcome:
    if world.cluster.get("NodeProvisioningMode") != "Continuous":
        return _not_found("ValidationException", "Events are not available for this cluster")
    event_id = params.get("EventId", "")
    event = next((e for e in world.events if e.get("EventId") == event_id), None)
    if event is None:
        return _not_found("ResourceNotFound", f"Event {event_id} not found")
    metadata = world.event_metadata.get(event_id, {})
    return {"EventDetails": {**event, "EventDetails": {"EventMetadata": metadata}}}, None


def _list_operations(world: World, params: Json) -> Outcome:
    # moto has no cluster operations; the API's Status and Type filters narrow the list,
    # and its default order (CreationTime, newest first) is the world's.
    wanted = {key: params[key] for key in ("Status", "Type") if params.get(key)}
    found = [o for o in world.operations if all(o.get(k) == v for k, v in wanted.items())]
    if params.get("SortOrder") == "Ascending":
        found = list(reversed(found))
    return {"ClusterOperationSummaries": found}, Paging(result_key="ClusterOperationSummaries")


def _describe_operation(world: World, params: Json) -> Outcome:
    operation_id = params.get("OperationId", "")
    summary = next((o for o in world.operations if o.get("OperationId") == operation_id), None)
    if summary is None:
        return _not_found("ResourceNotFound", f"Operation {operation_id} not found")
    return {**summary, **world.operation_details.get(operation_id, {})}, None


def _security_groups(world: World, params: Json) -> Outcome:
    ids = params.get("GroupIds")
    found = [g for g in world.security_groups if not ids or g["GroupId"] in ids]
    missing = sorted(set(ids or []) - {g["GroupId"] for g in found})
    if missing:
        return _not_found(
            "InvalidGroup.NotFound", f"The security group '{missing[0]}' does not exist"
        )
    return {"SecurityGroups": found}, None


def _subnets(world: World, params: Json) -> Outcome:
    ids = params.get("SubnetIds")
    found = [s for s in world.subnets if not ids or s["SubnetId"] in ids]
    missing = sorted(set(ids or []) - {s["SubnetId"] for s in found})
    if missing:
        return _not_found(
            "InvalidSubnetID.NotFound", f"The subnet ID '{missing[0]}' does not exist"
        )
    return {"Subnets": found}, None


def _vpc_attribute(world: World, params: Json) -> Outcome:
    vpc_id, attribute = params["VpcId"], params["Attribute"]
    value = world.vpc_attributes.get(vpc_id, {}).get(attribute, False)
    key = attribute[0].upper() + attribute[1:]
    return {"VpcId": vpc_id, key: {"Value": value}}, None


def _prefix_lists(world: World, params: Json) -> Outcome:
    ids = params.get("PrefixListIds")
    found = [p for p in world.prefix_lists if not ids or p["PrefixListId"] in ids]
    missing = sorted(set(ids or []) - {p["PrefixListId"] for p in found})
    if missing:
        return _not_found(
            "InvalidPrefixListID.NotFound", f"The prefix list ID '{missing[0]}' does not exist"
        )
    return {"PrefixLists": found}, None


def _by_vpc(items: list[Json], params: Json) -> list[Json]:
    vpcs = _filter_values(params, "vpc-id")
    return [i for i in items if vpcs is None or i.get("VpcId") in vpcs]


def _route_tables(world: World, params: Json) -> Outcome:
    return {"RouteTables": _by_vpc(world.route_tables, params)}, Paging(result_key="RouteTables")


def _vpc_endpoints(world: World, params: Json) -> Outcome:
    return {"VpcEndpoints": _by_vpc(world.vpc_endpoints, params)}, Paging(result_key="VpcEndpoints")


def _offerings(world: World, params: Json) -> Outcome:
    types = _filter_values(params, "instance-type")
    found = [o for o in world.offerings if types is None or o["InstanceType"] in types]
    # EC2 pages this list even without MaxResults (replay cuts it by the asked page size).
    return {"InstanceTypeOfferings": found}, Paging(result_key="InstanceTypeOfferings")


def _instance_types(world: World, params: Json) -> Outcome:
    wanted = params.get("InstanceTypes") or []
    found = [t for t in world.instance_types if t["InstanceType"] in wanted]
    return {"InstanceTypes": found}, Paging(result_key="InstanceTypes")


def _network_interfaces(world: World, params: Json) -> Outcome:
    found = _by_vpc(world.network_interfaces, params)
    return {"NetworkInterfaces": found}, Paging(result_key="NetworkInterfaces")


def _service_quota(world: World, params: Json) -> Outcome:
    if world.eni_quota is None or params.get("QuotaCode") != "L-DF5E4CA3":
        return _not_found(
            "NoSuchResourceException", "The request failed because the quota does not exist."
        )
    quota = {
        "ServiceCode": params.get("ServiceCode"),
        "ServiceName": "Amazon Virtual Private Cloud (Amazon VPC)",
        "QuotaCode": params.get("QuotaCode"),
        "QuotaName": "Network interfaces per Region",
        "Value": world.eni_quota,
        "Unit": "None",
        "Adjustable": True,
        "GlobalQuota": False,
    }
    return {"Quota": quota}, None


def _vpcs(world: World, params: Json) -> Outcome:
    """DescribeVpcs: the VPCs the world's subnets and security groups are in."""
    known = {s.get("VpcId") for s in world.subnets} | {
        g.get("VpcId") for g in world.security_groups
    }
    ids = params.get("VpcIds") or sorted(v for v in known if v)
    missing = [v for v in ids if v not in known]
    if missing:
        return _not_found("InvalidVpcID.NotFound", f"The vpc ID '{missing[0]}' does not exist")
    vpcs = [
        {"VpcId": v, "State": "available", "OwnerId": world.account, "IsDefault": False}
        | ({"Tags": world.vpc_tags[v]} if v in world.vpc_tags else {})
        for v in ids
    ]
    return {"Vpcs": vpcs}, None


def _list_tags(world: World, params: Json) -> Outcome:
    """sagemaker:ListTags: the resource's tags; an ARN the world does not hold is refused
    as SageMaker refuses it."""
    arn = params.get("ResourceArn", "")
    if arn != world.cluster.get("ClusterArn") and arn not in world.sagemaker_tags:
        return RecordedError(
            code="ValidationException", message=f"Resource {arn} not found", http_status=400
        )
    return {"Tags": world.sagemaker_tags.get(arn, [])}, None


def _stack_resource(world: World, params: Json) -> Outcome:
    """cloudformation:DescribeStackResource by stack name or id and logical id."""
    stack, logical = params.get("StackName", ""), params.get("LogicalResourceId", "")
    for (name, logical_id), detail in world.stack_resources.items():
        if logical_id == logical and stack in (name, detail.get("StackId")):
            return {"StackResourceDetail": detail}, None
    if any(stack in (name, d.get("StackId")) for (name, _), d in world.stack_resources.items()):
        return RecordedError(
            code="ValidationError",
            message=f"Resource {logical} does not exist for stack {stack}",
            http_status=400,
        )
    return RecordedError(
        code="ValidationError", message=f"Stack with id {stack} does not exist", http_status=400
    )


def _eks_cluster(world: World, params: Json) -> Outcome:
    name = params.get("name", "")
    if name in world.eks_clusters:
        return {"cluster": world.eks_clusters[name]}, None
    return _not_found("ResourceNotFoundException", f"No cluster found for name: {name}.")


def _list_role_policies(world: World, params: Json) -> Outcome:
    names = sorted(world.role_inline_policies.get(params["RoleName"], {}))
    return {"PolicyNames": names, "IsTruncated": False}, None


def _get_role_policy(world: World, params: Json) -> Outcome:
    doc = world.role_inline_policies.get(params["RoleName"], {}).get(params["PolicyName"])
    if doc is None:
        return _not_found("NoSuchEntity", "The role policy cannot be found.")
    return {
        "RoleName": params["RoleName"],
        "PolicyName": params["PolicyName"],
        "PolicyDocument": doc,
    }, None


def _list_attached(world: World, params: Json) -> Outcome:
    attached = world.role_attached_policies.get(params["RoleName"], [])
    return {"AttachedPolicies": attached, "IsTruncated": False}, None


def _get_policy(world: World, params: Json) -> Outcome:
    arn = params["PolicyArn"]
    name = arn.rsplit("/", 1)[-1]
    return {"Policy": {"PolicyName": name, "Arn": arn, "DefaultVersionId": "v1"}}, None


def _get_policy_version(world: World, params: Json) -> Outcome:
    doc = world.managed_policies.get(
        params["PolicyArn"], {"Version": "2012-10-17", "Statement": []}
    )
    return {
        "PolicyVersion": {
            "Document": doc,
            "VersionId": params["VersionId"],
            "IsDefaultVersion": True,
        }
    }, None


def _log_groups(world: World, params: Json) -> Outcome:
    prefix = params.get("logGroupNamePrefix", "")
    groups = [{"logGroupName": g} for g in world.log_groups if g.startswith(prefix)]
    return {"logGroups": groups}, None


def _log_streams(world: World, params: Json) -> Outcome:
    group = params.get("logGroupName", "")
    if group not in world.log_groups:
        return _not_found("ResourceNotFoundException", "The specified log group does not exist.")
    prefix = params.get("logStreamNamePrefix", "")
    streams = [
        {"logStreamName": s} for s in world.log_streams.get(group, []) if s.startswith(prefix)
    ]
    return {"logStreams": streams}, Paging(result_key="logStreams", token_key="nextToken")


def _pattern_matches(pattern: str, message: str) -> bool:
    """CloudWatch filter syntax subset: `?a ?b` any term, `"a b" c` all terms."""
    terms = re.findall(r'\?"[^"]*"|\?\S+|"[^"]*"|\S+', pattern)
    optional = [t[1:].strip('"') for t in terms if t.startswith("?")]
    required = [t.strip('"') for t in terms if not t.startswith("?")]
    if optional and not any(o in message for o in optional):
        return False
    return all(r in message for r in required)


def _filter_log_events(world: World, params: Json) -> Outcome:
    group = params.get("logGroupName", "")
    if group not in world.log_groups:
        return _not_found("ResourceNotFoundException", "The specified log group does not exist.")
    prefix = params.get("logStreamNamePrefix", "")
    pattern = params.get("filterPattern", "")
    start, end = params.get("startTime", 0), params.get("endTime", 2**62)
    events = [
        {**event, "logStreamName": stream, "eventId": f"{stream}-{index}"}
        for stream, stream_events in world.log_events.items()
        if stream.startswith(prefix)
        for index, event in enumerate(stream_events)
        if start <= event["timestamp"] <= end and _pattern_matches(pattern, event["message"])
    ]
    events.sort(key=lambda e: e["timestamp"])  # FilterLogEvents answers oldest first
    return {"events": events, "searchedLogStreams": []}, Paging(
        result_key="events", token_key="nextToken"
    )


_HANDLERS = {
    ("sts", "GetCallerIdentity"): _sts,
    ("sagemaker", "DescribeCluster"): _describe_cluster,
    ("sagemaker", "ListClusters"): _list_clusters,
    ("sagemaker", "ListClusterNodes"): _list_nodes,
    ("sagemaker", "DescribeClusterNode"): _describe_node,
    ("sagemaker", "ListClusterEvents"): _list_events,
    ("sagemaker", "DescribeClusterEvent"): _describe_event,
    ("sagemaker", "ListClusterOperations"): _list_operations,
    ("sagemaker", "DescribeClusterOperation"): _describe_operation,
    ("ec2", "DescribeSecurityGroups"): _security_groups,
    ("ec2", "DescribeSubnets"): _subnets,
    ("ec2", "DescribeVpcs"): _vpcs,
    ("sagemaker", "ListTags"): _list_tags,
    ("cloudformation", "DescribeStackResource"): _stack_resource,
    ("ec2", "DescribeVpcAttribute"): _vpc_attribute,
    ("ec2", "DescribeRouteTables"): _route_tables,
    ("ec2", "DescribeVpcEndpoints"): _vpc_endpoints,
    ("ec2", "DescribeManagedPrefixLists"): _prefix_lists,
    ("ec2", "DescribeInstanceTypeOfferings"): _offerings,
    ("ec2", "DescribeInstanceTypes"): _instance_types,
    ("ec2", "DescribeNetworkInterfaces"): _network_interfaces,
    ("service-quotas", "GetServiceQuota"): _service_quota,
    ("eks", "DescribeCluster"): _eks_cluster,
    ("iam", "ListRolePolicies"): _list_role_policies,
    ("iam", "GetRolePolicy"): _get_role_policy,
    ("iam", "ListAttachedRolePolicies"): _list_attached,
    ("iam", "GetPolicy"): _get_policy,
    ("iam", "GetPolicyVersion"): _get_policy_version,
    ("logs", "DescribeLogGroups"): _log_groups,
    ("logs", "DescribeLogStreams"): _log_streams,
    ("logs", "FilterLogEvents"): _filter_log_events,
}
