"""Typed EC2 / VPC / Service Quotas answers: what the § A, B, C and J checks judge.

Each model is parsed once, inside the memoised read that fetched it, from botocore's
output shape. `from_api` is the one place that reads the raw dict defensively (missing
keys, None, wrong types), so the checks compare typed fields instead of digging into
dicts. Where a check today reports a value as AWS gave it (None when absent), the field
keeps it as `X | None`; where it reads a missing value as "", the field is "".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from tools.aws.session import StoppedBy
from tools.triage.data.ownership_model import Tags, tags_from_api


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _text(value: Any) -> str:
    """A truthy value as text, else "" (the checks treat a missing id like an empty one)."""
    return str(value) if value else ""


def _optional_text(value: Any) -> str | None:
    return None if value is None else str(value)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) else None


def _count(value: Any) -> int:
    """A device or interface count; 0 when absent or not a number."""
    return int(value) if isinstance(value, int | float) else 0


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _in_service(state: str | None) -> bool:
    # No State means available (the shapes the tests and some APIs give omit it).
    return (state if state is not None else "available").lower() in ("active", "available")


# -- security groups ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class IpPermission:
    """One rule of a security group (an `IpPermission` of DescribeSecurityGroups)."""

    protocol: str  # "-1" (all), "tcp", "udp", "6", ...; "" when absent
    from_port: int | None
    to_port: int | None
    source_group_ids: tuple[str, ...]  # UserIdGroupPairs[].GroupId
    ipv4_ranges: tuple[str, ...]  # IpRanges[].CidrIp
    ipv6_ranges: tuple[str, ...]  # Ipv6Ranges[].CidrIpv6
    prefix_list_ids: tuple[str, ...]  # PrefixListIds[].PrefixListId

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> IpPermission:
        return cls(
            protocol=str(raw.get("IpProtocol", "")),
            from_port=_int(raw.get("FromPort")),
            to_port=_int(raw.get("ToPort")),
            source_group_ids=tuple(
                str(p["GroupId"]) for p in _dicts(raw.get("UserIdGroupPairs")) if p.get("GroupId")
            ),
            ipv4_ranges=tuple(
                str(r["CidrIp"]) for r in _dicts(raw.get("IpRanges")) if r.get("CidrIp")
            ),
            ipv6_ranges=tuple(
                str(r["CidrIpv6"]) for r in _dicts(raw.get("Ipv6Ranges")) if r.get("CidrIpv6")
            ),
            prefix_list_ids=tuple(
                str(p.get("PrefixListId")) for p in _dicts(raw.get("PrefixListIds"))
            ),
        )

    @property
    def all_protocols(self) -> bool:
        """Protocol -1: every protocol and port."""
        return self.protocol == "-1"


@dataclass(frozen=True, slots=True)
class SecurityGroup:
    """A security group with its inbound and outbound rules."""

    group_id: str
    vpc_id: str | None
    inbound: tuple[IpPermission, ...]
    outbound: tuple[IpPermission, ...]
    # Its tags (who manages it: tools.ownership); () when the answer held none.
    tags: Tags = ()

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> SecurityGroup:
        return cls(
            group_id=str(raw.get("GroupId")),
            vpc_id=_optional_text(raw.get("VpcId")),
            inbound=tuple(IpPermission.from_api(p) for p in _dicts(raw.get("IpPermissions"))),
            outbound=tuple(
                IpPermission.from_api(p) for p in _dicts(raw.get("IpPermissionsEgress"))
            ),
            tags=tags_from_api(raw.get("Tags")),
        )


# -- subnets, route tables, endpoints -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Subnet:
    """A subnet as DescribeSubnets gives it."""

    subnet_id: str
    vpc_id: str | None
    cidr_block: str | None
    availability_zone: str
    available_ip_count: int | None  # AvailableIpAddressCount
    map_public_ip_on_launch: bool
    tags: Tags = ()

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> Subnet:
        return cls(
            subnet_id=str(raw.get("SubnetId")),
            vpc_id=_optional_text(raw.get("VpcId")),
            cidr_block=_optional_text(raw.get("CidrBlock")),
            availability_zone=str(raw.get("AvailabilityZone", "")),
            available_ip_count=_int(raw.get("AvailableIpAddressCount")),
            map_public_ip_on_launch=bool(raw.get("MapPublicIpOnLaunch", False)),
            tags=tags_from_api(raw.get("Tags")),
        )


# Route targets in the order a route names the one it sends to (fields of the EC2 `Route`).
_TARGET_KEYS = (
    "GatewayId",
    "NatGatewayId",
    "TransitGatewayId",
    "InstanceId",
    "NetworkInterfaceId",
    "VpcPeeringConnectionId",
    "LocalGatewayId",
    "CarrierGatewayId",
    "EgressOnlyInternetGatewayId",
    "CoreNetworkArn",
    "OdbNetworkArn",
    "IpAddress",
)


@dataclass(frozen=True, slots=True)
class Route:
    """One route of a route table: its destination, state and targets ("" when absent)."""

    destination_cidr_block: str | None
    destination_ipv6_cidr_block: str | None
    destination_prefix_list_id: str | None
    state: str | None  # None when the route reports no State
    gateway_id: str
    nat_gateway_id: str
    transit_gateway_id: str
    instance_id: str
    network_interface_id: str
    vpc_peering_connection_id: str
    local_gateway_id: str
    carrier_gateway_id: str
    egress_only_internet_gateway_id: str
    core_network_arn: str
    odb_network_arn: str
    ip_address: str

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> Route:
        return cls(
            destination_cidr_block=_optional_text(raw.get("DestinationCidrBlock")),
            destination_ipv6_cidr_block=_optional_text(raw.get("DestinationIpv6CidrBlock")),
            destination_prefix_list_id=_optional_text(raw.get("DestinationPrefixListId")),
            state=_optional_text(raw.get("State")),
            gateway_id=_text(raw.get("GatewayId")),
            nat_gateway_id=_text(raw.get("NatGatewayId")),
            transit_gateway_id=_text(raw.get("TransitGatewayId")),
            instance_id=_text(raw.get("InstanceId")),
            network_interface_id=_text(raw.get("NetworkInterfaceId")),
            vpc_peering_connection_id=_text(raw.get("VpcPeeringConnectionId")),
            local_gateway_id=_text(raw.get("LocalGatewayId")),
            carrier_gateway_id=_text(raw.get("CarrierGatewayId")),
            egress_only_internet_gateway_id=_text(raw.get("EgressOnlyInternetGatewayId")),
            core_network_arn=_text(raw.get("CoreNetworkArn")),
            odb_network_arn=_text(raw.get("OdbNetworkArn")),
            ip_address=_text(raw.get("IpAddress")),
        )

    @property
    def active(self) -> bool:
        """In service (a blackhole route, whose target was deleted, is not)."""
        return _in_service(self.state)

    @property
    def target(self) -> str:
        """The id the route sends traffic to (igw-, nat-, tgw-, vpce-, eni-, ...), or ""."""
        for candidate in (
            self.gateway_id,
            self.nat_gateway_id,
            self.transit_gateway_id,
            self.instance_id,
            self.network_interface_id,
            self.vpc_peering_connection_id,
            self.local_gateway_id,
            self.carrier_gateway_id,
            self.egress_only_internet_gateway_id,
            self.core_network_arn,
            self.odb_network_arn,
            self.ip_address,
        ):
            if candidate:
                return candidate
        return ""

    @property
    def destination(self) -> str:
        """The IPv4 or IPv6 CIDR or the prefix list the route covers."""
        return str(
            self.destination_cidr_block
            or self.destination_ipv6_cidr_block
            or self.destination_prefix_list_id
        )


@dataclass(frozen=True, slots=True)
class RouteTableAssociation:
    """A route table's link to a subnet, or its mark as the VPC's main table."""

    subnet_id: str | None  # None on the main table's association
    main: bool


@dataclass(frozen=True, slots=True)
class RouteTable:
    """A route table of DescribeRouteTables: its routes and associations."""

    route_table_id: str
    vpc_id: str | None
    associations: tuple[RouteTableAssociation, ...]
    routes: tuple[Route, ...]

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> RouteTable:
        return cls(
            route_table_id=str(raw.get("RouteTableId")),
            vpc_id=_optional_text(raw.get("VpcId")),
            associations=tuple(
                RouteTableAssociation(
                    subnet_id=_optional_text(a.get("SubnetId")), main=bool(a.get("Main"))
                )
                for a in _dicts(raw.get("Associations"))
            ),
            routes=tuple(Route.from_api(r) for r in _dicts(raw.get("Routes"))),
        )

    @property
    def is_main(self) -> bool:
        """The VPC's main table (used by every subnet without an explicit association)."""
        return any(a.main for a in self.associations)

    def associated_with(self, subnet_id: str) -> bool:
        """The table is explicitly associated with the subnet."""
        return any(a.subnet_id == subnet_id for a in self.associations)


# AWS service endpoint names: com.amazonaws.<region>.<service> everywhere (GovCloud too:
# com.amazonaws.us-gov-west-1.ecr.api), and cn.com.amazonaws.<region>.<service> for some
# services in the China regions (cn.com.amazonaws.cn-north-1.ecr.api).
_SERVICE_NAME = re.compile(
    r"^(?:cn\.)?com\.amazonaws\.(?P<region>[a-z]{2}(?:-[a-z]+)+-\d)\.(?P<service>.+)$"
)


@dataclass(frozen=True, slots=True)
class VpcEndpoint:
    """A VPC endpoint of DescribeVpcEndpoints."""

    vpc_endpoint_id: str
    service_name: str
    endpoint_type: str  # Interface, Gateway, GatewayLoadBalancer; "" when absent
    state: str | None
    private_dns_enabled: bool | None
    # Groups[].GroupId: the security groups on an interface endpoint's network interfaces
    # (empty for gateway endpoints, and when the answer leaves them out).
    security_group_ids: tuple[str, ...] = ()

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> VpcEndpoint:
        return cls(
            vpc_endpoint_id=str(raw.get("VpcEndpointId")),
            service_name=str(raw.get("ServiceName", "")),
            endpoint_type=str(raw.get("VpcEndpointType", "")),
            state=_optional_text(raw.get("State")),
            private_dns_enabled=_bool(raw.get("PrivateDnsEnabled")),
            security_group_ids=tuple(
                str(g["GroupId"]) for g in _dicts(raw.get("Groups")) if g.get("GroupId")
            ),
        )

    @property
    def active(self) -> bool:
        """Available (a pending, failed or deleted endpoint serves nothing)."""
        return _in_service(self.state)

    @property
    def service(self) -> str:
        """com.amazonaws.us-west-2.ecr.api -> ecr.api, cn.com.amazonaws.cn-north-1.ecr.api ->
        ecr.api (other name forms -> the name itself)."""
        match = _SERVICE_NAME.match(self.service_name)
        return match.group("service") if match else self.service_name


@dataclass(frozen=True, slots=True)
class PrefixList:
    """A managed prefix list of DescribeManagedPrefixLists: its id, name and owner
    (AWS-managed lists are named com.amazonaws.<region>.<service>, owner "AWS")."""

    prefix_list_id: str
    name: str
    owner_id: str

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> PrefixList:
        return cls(
            prefix_list_id=str(raw.get("PrefixListId")),
            name=str(raw.get("PrefixListName", "")),
            owner_id=str(raw.get("OwnerId", "")),
        )

    @property
    def aws_service(self) -> str | None:
        """The service of an AWS-managed list (com.amazonaws.us-west-2.s3 -> s3), else None."""
        if self.owner_id != "AWS":
            return None
        match = _SERVICE_NAME.match(self.name)
        return match.group("service") if match else None


# -- instance types ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InstanceTypeOffering:
    """One (instance type, location) of DescribeInstanceTypeOfferings."""

    instance_type: str
    location: str
    location_type: str

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> InstanceTypeOffering:
        return cls(
            instance_type=str(raw.get("InstanceType")),
            location=str(raw.get("Location")),
            location_type=str(raw.get("LocationType", "availability-zone")),
        )


@dataclass(frozen=True, slots=True)
class VCpuInfo:
    """An instance type's default vCPUs and cores, and the ThreadsPerCore values it takes."""

    default_vcpus: int | None
    default_cores: int | None
    valid_threads_per_core: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class InstanceTypeInfo:
    """What the checks use of one DescribeInstanceTypes entry."""

    instance_type: str
    vcpu: VCpuInfo | None  # None when the entry has no VCpuInfo
    efa_supported: bool | None
    max_efa_interfaces: int  # 0 unless EFA is supported
    maximum_network_cards: int | None
    network_card_count: int  # len(NetworkCards)
    ipv4_addresses_per_interface: int | None
    gpu_count: int
    neuron_device_count: int
    instance_storage_supported: bool

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> InstanceTypeInfo:
        vcpu = raw.get("VCpuInfo")
        network = _dict(raw.get("NetworkInfo"))
        efa = _count(_dict(network.get("EfaInfo")).get("MaximumEfaInterfaces"))
        return cls(
            instance_type=str(raw.get("InstanceType")),
            vcpu=(
                VCpuInfo(
                    default_vcpus=_int(vcpu.get("DefaultVCpus")),
                    default_cores=_int(vcpu.get("DefaultCores")),
                    valid_threads_per_core=tuple(
                        v for v in vcpu.get("ValidThreadsPerCore") or [] if isinstance(v, int)
                    ),
                )
                if isinstance(vcpu, dict)
                else None
            ),
            efa_supported=_bool(network.get("EfaSupported")),
            max_efa_interfaces=efa if network.get("EfaSupported") else 0,
            maximum_network_cards=_int(network.get("MaximumNetworkCards")),
            network_card_count=len(network.get("NetworkCards") or []),
            ipv4_addresses_per_interface=_int(network.get("Ipv4AddressesPerInterface")),
            gpu_count=sum(
                _count(g.get("Count")) for g in _dicts(_dict(raw.get("GpuInfo")).get("Gpus"))
            ),
            neuron_device_count=sum(
                _count(d.get("Count"))
                for d in _dicts(_dict(raw.get("NeuronInfo")).get("NeuronDevices"))
            ),
            instance_storage_supported=bool(raw.get("InstanceStorageSupported", False)),
        )

    @property
    def network_cards(self) -> int | None:
        """MaximumNetworkCards, else the number of NetworkCards listed; None when neither."""
        cards = self.maximum_network_cards
        if cards is not None and cards >= 1:
            return cards
        return self.network_card_count or None


# -- network interfaces and their quota ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NetworkInterface:
    """The few fields of an interface that counting needs."""

    network_interface_id: str
    vpc_id: str  # "" when absent
    subnet_id: str
    interface_type: str
    status: str

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> NetworkInterface:
        return cls(
            network_interface_id=_text(raw.get("NetworkInterfaceId")),
            vpc_id=_text(raw.get("VpcId")),
            subnet_id=_text(raw.get("SubnetId")),
            interface_type=_text(raw.get("InterfaceType")),
            status=_text(raw.get("Status")),
        )


@dataclass(frozen=True, slots=True)
class NetworkInterfaceListing:
    """The Region's interfaces; `truncated` when the cap stopped the listing."""

    items: tuple[NetworkInterface, ...]
    truncated: bool
    stopped_by: StoppedBy = "end"


@dataclass(frozen=True, slots=True)
class EniQuota:
    """The applied "Network interfaces per Region" quota; `value` None when not a number."""

    value: float | None

    @classmethod
    def from_api(cls, raw: dict[str, Any]) -> EniQuota:
        value = raw.get("Value")
        return cls(float(value) if isinstance(value, int | float) else None)
