"""Pull cluster, node and resource identifiers out of pasted text.

Every pattern is strict (fixed alphabets, bounded lengths), so an extracted value is safe
to place into a suggested command line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field

from tools.explain.xid import find_xids

MAX_PER_KIND = 50
_MAX_TIMESTAMPS = 10_000

_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_REGION = (
    r"(?:us-gov|us|eu|ap|sa|ca|me|af|il|mx|cn)-"
    r"(?:north|south|east|west|central|northeast|southeast|northwest|southwest)-\d"
)
_HEX_ID = r"(?:[0-9a-f]{17}|[0-9a-f]{8})"

CLUSTER_ARN = re.compile(
    rf"arn:aws(?:-cn|-us-gov)?:sagemaker:(?P<region>{_REGION}):\d{{12}}:cluster/(?P<id>[a-z0-9]{{12}})"
)
_REGION_RE = re.compile(rf"(?<![A-Za-z0-9-])({_REGION})(?:[a-z])?(?![A-Za-z0-9-])")
_INSTANCE = re.compile(rf"(?<![A-Za-z0-9])i-{_HEX_ID}(?![A-Za-z0-9])")
_SG = re.compile(rf"(?<![A-Za-z0-9])sg-{_HEX_ID}(?![A-Za-z0-9])")
_SUBNET = re.compile(rf"(?<![A-Za-z0-9])subnet-{_HEX_ID}(?![A-Za-z0-9])")
_VPC = re.compile(rf"(?<![A-Za-z0-9])vpc-{_HEX_ID}(?![A-Za-z0-9])")
_IP_NAME = r"ip-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}"
_EKS_NODE = re.compile(
    rf"(?<![A-Za-z0-9-])(?:{_IP_NAME}\.(?:{_REGION}\.compute|ec2)\.internal|hyperpod-i-[0-9a-f]{{17}})"
    r"(?![A-Za-z0-9-])"
)
_SLURM_NODE = re.compile(
    rf"(?<![A-Za-z0-9-]){_IP_NAME}(?![A-Za-z0-9-])(?!\.(?:{_REGION}\.compute|ec2)\.internal)"
)
_SSM_TARGET = re.compile(
    r"sagemaker-cluster:(?P<id>[a-z0-9]{12})_(?P<group>[A-Za-z0-9-]{1,63})-i-" + _HEX_ID
)
_LOG_GROUP = re.compile(rf"/aws/sagemaker/Clusters/(?P<name>{_NAME})/(?P<id>[a-z0-9]{{12}})")
_CLUSTER_NAME = re.compile(
    rf"(?:--cluster(?:-name)?[= ]+[\"']?(?!arn:)(?P<flag>{_NAME})"
    rf"|\"?ClusterName\"?\s*[:=]\s*[\"']?(?P<field>{_NAME})"
    rf"|cluster[ _-]?name(?:\s+is|\s*[:=])\s*[`\"']?(?P<prose>{_NAME})"
    rf"|集群\s*(?:名称|名字|名)\s*(?:是|为|[:=：])?\s*[`\"']?(?P<zh>{_NAME}))",
    re.IGNORECASE,
)
# "in cluster ml-prod", "HyperPod cluster `train2`", "集群 ml-prod": only names with a hyphen
# or a digit, so ordinary words after "cluster" ("cluster is down") are not taken as names.
_LOOSE_NAME = r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+|[A-Za-z]+[0-9][A-Za-z0-9]*"
_CLUSTER_MENTION = re.compile(
    rf"(?:\bcluster|集群)\s*(?:named\s+|called\s+)?[`\"']?(?P<name>{_LOOSE_NAME})(?![A-Za-z0-9:/-])",
    re.IGNORECASE,
)
_TIMESTAMP = re.compile(
    r"(?<!\d)(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?"
    r"(Z|[+-]\d{2}:?\d{2})?(?!\d)"
)


class TimeWindow(BaseModel):
    model_config = ConfigDict(frozen=True)

    start: datetime
    end: datetime


class Identifiers(BaseModel):
    """Identifiers found in the text, each list in order of first appearance."""

    model_config = ConfigDict(frozen=True)

    cluster_names: list[str] = Field(default_factory=list)
    cluster_arns: list[str] = Field(default_factory=list)
    cluster_ids: list[str] = Field(default_factory=list)
    regions: list[str] = Field(default_factory=list)
    instance_ids: list[str] = Field(default_factory=list)
    instance_groups: list[str] = Field(default_factory=list)
    security_group_ids: list[str] = Field(default_factory=list)
    subnet_ids: list[str] = Field(default_factory=list)
    vpc_ids: list[str] = Field(default_factory=list)
    xids: list[int] = Field(default_factory=list)
    slurm_nodes: list[str] = Field(default_factory=list)
    eks_nodes: list[str] = Field(default_factory=list)
    time_window: TimeWindow | None = None

    def is_empty(self) -> bool:
        return not any(value for value in self.model_dump().values())


def _unique(values: Iterable[str]) -> list[str]:
    out: dict[str, None] = {}
    for value in values:
        out.setdefault(value, None)
        if len(out) >= MAX_PER_KIND:
            break
    return list(out)


def _all(pattern: re.Pattern[str], text: str, group: int | str = 0) -> list[str]:
    return _unique(m.group(group) for m in pattern.finditer(text))


def _parse_timestamp(match: re.Match[str]) -> datetime | None:
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    micro = int((fraction or "0")[:6].ljust(6, "0"))
    try:
        moment = datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second), micro
        )
    except ValueError:
        return None
    if not 2000 <= moment.year <= 2100:
        return None
    if zone and zone != "Z":
        offset = datetime.strptime(zone.replace(":", ""), "%z").tzinfo
        return moment.replace(tzinfo=offset).astimezone(UTC)
    return moment.replace(tzinfo=UTC)  # naive timestamps are taken as UTC


def _time_window(text: str) -> TimeWindow | None:
    moments: list[datetime] = []
    for i, match in enumerate(_TIMESTAMP.finditer(text)):
        if i >= _MAX_TIMESTAMPS:
            break
        moment = _parse_timestamp(match)
        if moment is not None:
            moments.append(moment)
    return TimeWindow(start=min(moments), end=max(moments)) if moments else None


def _cluster_names(text: str) -> list[str]:
    names: list[str] = []
    for match in _CLUSTER_NAME.finditer(text):
        names.append(next(v for v in match.groups() if v))
    names.extend(m.group("name") for m in _LOG_GROUP.finditer(text))
    names.extend(
        m.group("name")
        for m in _CLUSTER_MENTION.finditer(text)
        if not m.group("name").lower().startswith(("i-", "sg-", "subnet-", "vpc-", "ip-"))
    )
    return _unique(names)


def extract_identifiers(text: str) -> Identifiers:
    """Identifiers in ``text``; call it on cleaned text (see tools.explain.sanitize)."""
    arns = list(CLUSTER_ARN.finditer(text))
    targets = list(_SSM_TARGET.finditer(text))
    cluster_ids = [m.group("id") for m in arns]
    cluster_ids += [m.group("id") for m in targets]
    cluster_ids += [m.group("id") for m in _LOG_GROUP.finditer(text)]
    return Identifiers(
        cluster_names=_cluster_names(text),
        cluster_arns=_unique(m.group(0) for m in arns),
        cluster_ids=_unique(cluster_ids),
        regions=_all(_REGION_RE, text, 1),
        instance_ids=_all(_INSTANCE, text),
        instance_groups=_unique(m.group("group") for m in targets),
        security_group_ids=_all(_SG, text),
        subnet_ids=_all(_SUBNET, text),
        vpc_ids=_all(_VPC, text),
        xids=sorted({number for number, _ in find_xids(text)})[:MAX_PER_KIND],
        slurm_nodes=_all(_SLURM_NODE, text),
        eks_nodes=_all(_EKS_NODE, text),
        time_window=_time_window(text),
    )
