"""EC2 / VPC reads: the cluster's security groups and subnets, VPC attributes, route
tables, endpoints, instance types and their offerings, network interfaces and their quota.

Each read parses botocore's answer once, inside its memo entry, into the typed models of
`network_model`; the checks never see the raw shapes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from tools.aws.errors import AwsAccessError, ResourceNotFound
from tools.aws.session import PageRead
from tools.triage.data.network_model import (
    EniQuota,
    InstanceTypeInfo,
    InstanceTypeOffering,
    NetworkInterface,
    NetworkInterfaceListing,
    PrefixList,
    RouteTable,
    SecurityGroup,
    Subnet,
    VpcEndpoint,
)
from tools.triage.data.sagemaker import SageMakerReads

# EC2 pages these lists even when MaxResults is not asked for, so they are read with
# `paginate` at the API's largest page size (botocore's bounds) up to a generous cap; a
# list longer than its cap is refused rather than judged as whole.
ROUTE_TABLE_PAGE, ROUTE_TABLE_CAP = 100, 5_000
ENDPOINT_PAGE, ENDPOINT_CAP = 1_000, 5_000
OFFERING_PAGE, OFFERING_CAP = 1_000, 20_000
INSTANCE_TYPE_PAGE, INSTANCE_TYPE_CAP = 100, 1_000
# Network interfaces are counted Region-wide (the quota is per Region); a list longer than
# the cap is judged as "at least the cap", which already exceeds any quota near it.
ENI_PAGE, ENI_CAP = 1_000, 100_000
# Service Quotas: "Network interfaces per Region" (Amazon VPC quotas).
ENI_QUOTA_SERVICE, ENI_QUOTA_CODE = "vpc", "L-DF5E4CA3"
T = TypeVar("T")
_ENI_FIELDS = ("NetworkInterfaceId", "VpcId", "SubnetId", "InterfaceType", "Status")


def _eni_fields(item: dict[str, Any]) -> dict[str, Any]:
    """The few fields of an interface that counting needs (idempotent: replay reapplies it)."""
    return {k: item[k] for k in _ENI_FIELDS if k in item}


class NetworkReads(SageMakerReads):
    def cluster_security_group_ids(self) -> list[str]:
        """Cluster SGs plus every instance group's OverrideVpcConfig SGs."""
        ids = list(self.cluster().vpc_config.security_group_ids)
        for group in self.instance_groups():
            if group.override_vpc is not None:
                ids.extend(group.override_vpc.security_group_ids)
        return sorted(set(ids))

    def cluster_subnet_ids(self) -> list[str]:
        ids = list(self.cluster().vpc_config.subnets)
        for group in self.instance_groups():
            if group.override_vpc is not None:
                ids.extend(group.override_vpc.subnets)
        return sorted(set(ids))

    def security_groups(self, group_ids: list[str]) -> tuple[SecurityGroup, ...]:
        ids = sorted(set(group_ids))
        if not ids:
            return ()

        def fetch() -> tuple[SecurityGroup, ...]:
            answer = self.access.call("ec2", "DescribeSecurityGroups", GroupIds=ids)
            return tuple(SecurityGroup.from_api(g) for g in _items(answer, "SecurityGroups"))

        return self._once(("sgs", *ids), fetch)

    def subnets(self, subnet_ids: list[str]) -> tuple[Subnet, ...]:
        ids = sorted(set(subnet_ids))
        if not ids:
            return ()

        def fetch() -> tuple[Subnet, ...]:
            answer = self.access.call("ec2", "DescribeSubnets", SubnetIds=ids)
            return tuple(Subnet.from_api(s) for s in _items(answer, "Subnets"))

        return self._once(("subnets", *ids), fetch)

    def existing_subnets(self, subnet_ids: list[str]) -> tuple[tuple[Subnet, ...], list[str]]:
        """(subnets found, ids that do not exist): one bad id fails the whole batch call,
        so on NotFound each id is asked alone to tell the missing ones apart."""
        return _split_missing(self.subnets, subnet_ids, lambda subnet: subnet.subnet_id)

    def existing_security_groups(
        self, group_ids: list[str]
    ) -> tuple[tuple[SecurityGroup, ...], list[str]]:
        """(security groups found, ids that do not exist), like `existing_subnets`."""
        return _split_missing(self.security_groups, group_ids, lambda group: group.group_id)

    def vpc_attribute(self, vpc_id: str, attribute: str) -> bool:
        """enableDnsSupport / enableDnsHostnames as a bool."""
        key = attribute[0].upper() + attribute[1:]

        def fetch() -> bool:
            response = self.access.call(
                "ec2", "DescribeVpcAttribute", VpcId=vpc_id, Attribute=attribute
            )
            return bool(response.get(key, {}).get("Value", False))

        return self._once(("vpc-attr", vpc_id, attribute), fetch)

    def route_tables(self, vpc_id: str) -> tuple[RouteTable, ...]:
        return self._once(
            ("route-tables", vpc_id),
            lambda: tuple(
                RouteTable.from_api(table)
                for table in self._whole(
                    "DescribeRouteTables",
                    "RouteTables",
                    ROUTE_TABLE_PAGE,
                    ROUTE_TABLE_CAP,
                    Filters=[{"Name": "vpc-id", "Values": [vpc_id]}],
                )
            ),
        )

    def vpc_endpoints(self, vpc_id: str) -> tuple[VpcEndpoint, ...]:
        return self._once(
            ("endpoints", vpc_id),
            lambda: tuple(
                VpcEndpoint.from_api(endpoint)
                for endpoint in self._whole(
                    "DescribeVpcEndpoints",
                    "VpcEndpoints",
                    ENDPOINT_PAGE,
                    ENDPOINT_CAP,
                    Filters=[{"Name": "vpc-id", "Values": [vpc_id]}],
                )
            ),
        )

    def prefix_lists(self, prefix_list_ids: list[str]) -> tuple[PrefixList, ...]:
        """The named managed prefix lists (a list of another account may not be listed)."""
        ids = sorted(set(prefix_list_ids))
        if not ids:
            return ()

        def fetch() -> tuple[PrefixList, ...]:
            answer = self.access.call("ec2", "DescribeManagedPrefixLists", PrefixListIds=ids)
            return tuple(PrefixList.from_api(p) for p in _items(answer, "PrefixLists"))

        return self._once(("prefix-lists", *ids), fetch)

    def instance_type_offerings(self, ec2_types: list[str]) -> tuple[InstanceTypeOffering, ...]:
        types = sorted(set(ec2_types))
        if not types:
            return ()
        return self._once(
            ("offerings", *types),
            lambda: tuple(
                InstanceTypeOffering.from_api(offering)
                for offering in self._whole(
                    "DescribeInstanceTypeOfferings",
                    "InstanceTypeOfferings",
                    OFFERING_PAGE,
                    OFFERING_CAP,
                    LocationType="availability-zone",
                    Filters=[{"Name": "instance-type", "Values": types}],
                )
            ),
        )

    def instance_types(self, ec2_types: list[str]) -> tuple[InstanceTypeInfo, ...]:
        types = sorted(set(ec2_types))
        if not types:
            return ()
        return self._once(
            ("instance-types", *types),
            lambda: tuple(
                InstanceTypeInfo.from_api(entry)
                for entry in self._whole(
                    "DescribeInstanceTypes",
                    "InstanceTypes",
                    INSTANCE_TYPE_PAGE,
                    INSTANCE_TYPE_CAP,
                    InstanceTypes=types,
                )
            ),
        )

    def network_interfaces(self) -> NetworkInterfaceListing:
        """Every network interface of the Region, reduced to a few fields (`_eni_fields`)."""

        def fetch() -> NetworkInterfaceListing:
            listed = self.access.paginate(
                "ec2",
                "DescribeNetworkInterfaces",
                PageRead("NetworkInterfaces", page_size=ENI_PAGE, cap=ENI_CAP, project=_eni_fields),
            )
            return NetworkInterfaceListing(
                items=tuple(NetworkInterface.from_api(item) for item in listed.items),
                truncated=listed.truncated,
                stopped_by=listed.stopped_by,
            )

        return self._once(("network-interfaces",), fetch)

    def eni_quota(self) -> EniQuota:
        """GetServiceQuota for the network interfaces per Region (its `Quota` member)."""

        def fetch() -> EniQuota:
            answer = self.access.call(
                "service-quotas",
                "GetServiceQuota",
                ServiceCode=ENI_QUOTA_SERVICE,
                QuotaCode=ENI_QUOTA_CODE,
            )
            quota = answer.get("Quota")
            return EniQuota.from_api(quota if isinstance(quota, dict) else {})

        return self._once(("eni-quota",), fetch)

    def _whole(
        self, operation: str, result_key: str, page_size: int, cap: int, **params: Any
    ) -> list[dict[str, Any]]:
        """Every page of an EC2 list; more than `cap` items is an error, not a partial list."""
        result = self.access.paginate(
            "ec2", operation, PageRead(result_key, page_size=page_size, cap=cap), **params
        )
        if result.truncated:
            raise AwsAccessError(
                "ec2", operation, f"more than {cap} {result_key} listed; not judged as partial"
            )
        return result.items


def _items(answer: dict[str, Any], key: str) -> list[dict[str, Any]]:
    return [item for item in answer.get(key, []) if isinstance(item, dict)]


def _split_missing(
    describe: Callable[[list[str]], tuple[T, ...]], ids: list[str], id_of: Callable[[T], str]
) -> tuple[tuple[T, ...], list[str]]:
    wanted = sorted(set(ids))
    try:
        found = describe(wanted)
    except ResourceNotFound:
        alone: list[T] = []
        for one in wanted:
            try:
                alone.extend(describe([one]))
            except ResourceNotFound:
                continue
        found = tuple(alone)
    seen = {id_of(item) for item in found}
    return found, [one for one in wanted if one not in seen]
