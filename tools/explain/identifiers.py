"""Pull cluster, node and resource identifiers out of pasted text.

Every pattern is strict (fixed alphabets, bounded lengths), so an extracted value is safe
to place into a suggested command line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

from tools.explain.anchors import Regex, fold
from tools.explain.xid_catalog import find_xids

MAX_PER_KIND = 50
_MAX_TIMESTAMPS = 10_000

_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_REGION = (
    r"(?:us-gov|us|eu|ap|sa|ca|me|af|il|mx|cn)-"
    r"(?:north|south|east|west|central|northeast|southeast|northwest|southwest)-\d"
)
_HEX_ID = r"(?:[0-9a-f]{17}|[0-9a-f]{8})"

CLUSTER_ARN = Regex(
    rf"arn:aws(?:-cn|-us-gov)?:sagemaker:(?P<region>{_REGION}):\d{{12}}:cluster/(?P<id>[a-z0-9]{{12}})"
)
_REGION_RE = Regex(rf"(?<![A-Za-z0-9-])({_REGION})(?:[a-z])?(?![A-Za-z0-9-])")
_INSTANCE = Regex(rf"(?<![A-Za-z0-9])i-{_HEX_ID}(?![A-Za-z0-9])")
_SG = Regex(rf"(?<![A-Za-z0-9])sg-{_HEX_ID}(?![A-Za-z0-9])")
_SUBNET = Regex(rf"(?<![A-Za-z0-9])subnet-{_HEX_ID}(?![A-Za-z0-9])")
_VPC = Regex(rf"(?<![A-Za-z0-9])vpc-{_HEX_ID}(?![A-Za-z0-9])")
_IP_NAME = r"ip-\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}"
_EKS_NODE = Regex(
    rf"(?<![A-Za-z0-9-])(?:{_IP_NAME}\.(?:{_REGION}\.compute|ec2)\.internal|hyperpod-i-[0-9a-f]{{17}})"
    r"(?![A-Za-z0-9-])"
)
_SLURM_NODE = Regex(
    rf"(?<![A-Za-z0-9-]){_IP_NAME}(?![A-Za-z0-9-])(?!\.(?:{_REGION}\.compute|ec2)\.internal)"
)
_SSM_TARGET = Regex(
    r"sagemaker-cluster:(?P<id>[a-z0-9]{12})_(?P<group>[A-Za-z0-9-]{1,63})-i-" + _HEX_ID
)
_LOG_GROUP = Regex(rf"/aws/sagemaker/Clusters/(?P<name>{_NAME})/(?P<id>[a-z0-9]{{12}})")
_CLUSTER_NAME = Regex(
    rf"(?:--cluster(?:-name)?[= ]+[\"']?(?!arn:)(?P<flag>{_NAME})"
    rf"|\"?ClusterName\"?\s*[:=]\s*[\"']?(?P<field>{_NAME})"
    rf"|cluster[ _-]?name(?:\s+is|\s*[:=])\s*[`\"']?(?P<prose>{_NAME})"
    rf"|集群\s*(?:名称|名字|名)\s*(?:是|为|[:=：])?\s*[`\"']?(?P<zh>{_NAME}))",
    re.IGNORECASE,
)
# "in cluster ml-prod", "HyperPod cluster `train2`", "集群 ml-prod": only names with a hyphen
# or a digit, so ordinary words after "cluster" ("cluster is down") are not taken as names.
_LOOSE_NAME = r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+|[A-Za-z]+[0-9][A-Za-z0-9]*"
_CLUSTER_MENTION = Regex(
    rf"(?:\bcluster|集群)\s*(?:named\s+|called\s+)?[`\"']?(?P<name>{_LOOSE_NAME})(?![A-Za-z0-9:/-])",
    re.IGNORECASE,
)
_TIMESTAMP = Regex(
    r"(?<!\d)(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?"
    r"(Z|[+-]\d{2}:?\d{2})?(?!\d)"
)


# Searched on every text, each only when its literal anchors are present (tools.explain.anchors).
PATTERNS = (
    CLUSTER_ARN,
    _REGION_RE,
    _INSTANCE,
    _SG,
    _SUBNET,
    _VPC,
    _EKS_NODE,
    _SLURM_NODE,
    _SSM_TARGET,
    _LOG_GROUP,
    _CLUSTER_NAME,
    _CLUSTER_MENTION,
    _TIMESTAMP,
)


def _json_time(moment: datetime) -> str:
    """ISO 8601 with "Z" for UTC, the form the JSON output has always had."""
    text = moment.isoformat()
    return text[: -len("+00:00")] + "Z" if text.endswith("+00:00") else text


# Plain frozen dataclasses rather than pydantic models: every value is built here from
# regex matches, so there is nothing to validate, and `explain` starts without pydantic.
@dataclass(frozen=True)
class TimeWindow:
    start: datetime
    end: datetime

    def to_json(self) -> dict[str, str]:
        return {"start": _json_time(self.start), "end": _json_time(self.end)}


@dataclass(frozen=True)
class Identifiers:
    """Identifiers found in the text, each list in order of first appearance."""

    cluster_names: list[str] = field(default_factory=list)
    cluster_arns: list[str] = field(default_factory=list)
    cluster_ids: list[str] = field(default_factory=list)
    regions: list[str] = field(default_factory=list)
    instance_ids: list[str] = field(default_factory=list)
    instance_groups: list[str] = field(default_factory=list)
    security_group_ids: list[str] = field(default_factory=list)
    subnet_ids: list[str] = field(default_factory=list)
    vpc_ids: list[str] = field(default_factory=list)
    xids: list[int] = field(default_factory=list)
    slurm_nodes: list[str] = field(default_factory=list)
    eks_nodes: list[str] = field(default_factory=list)
    time_window: TimeWindow | None = None

    def is_empty(self) -> bool:
        return not any(getattr(self, f.name) for f in fields(self))

    def to_json(self, *, exclude_defaults: bool = False) -> dict[str, Any]:
        """JSON-ready fields in declaration order; ``exclude_defaults`` drops the empty ones
        (every default is an empty list or None)."""
        data: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if exclude_defaults and not value:
                continue
            if isinstance(value, TimeWindow):
                data[f.name] = value.to_json()
            elif isinstance(value, list):
                data[f.name] = list(value)
            else:
                data[f.name] = value
        return data


def _unique(values: Iterable[str]) -> list[str]:
    out: dict[str, None] = {}
    for value in values:
        out.setdefault(value, None)
        if len(out) >= MAX_PER_KIND:
            break
    return list(out)


def _finditer(pattern: Regex, text: str, folded: str) -> Iterable[re.Match[str]]:
    return pattern.finditer(text) if pattern.may_match(folded) else ()


def _all(pattern: Regex, text: str, folded: str, group: int | str = 0) -> list[str]:
    return _unique(m.group(group) for m in _finditer(pattern, text, folded))


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


def _time_window(text: str, folded: str) -> TimeWindow | None:
    moments: list[datetime] = []
    for i, match in enumerate(_finditer(_TIMESTAMP, text, folded)):
        if i >= _MAX_TIMESTAMPS:
            break
        moment = _parse_timestamp(match)
        if moment is not None:
            moments.append(moment)
    return TimeWindow(start=min(moments), end=max(moments)) if moments else None


def _cluster_names(text: str, folded: str) -> list[str]:
    names: list[str] = []
    for match in _finditer(_CLUSTER_NAME, text, folded):
        names.append(next(v for v in match.groups() if v))
    names.extend(m.group("name") for m in _finditer(_LOG_GROUP, text, folded))
    names.extend(
        m.group("name")
        for m in _finditer(_CLUSTER_MENTION, text, folded)
        if not m.group("name").lower().startswith(("i-", "sg-", "subnet-", "vpc-", "ip-"))
    )
    return _unique(names)


def extract_identifiers(text: str) -> Identifiers:
    """Identifiers in ``text``; call it on cleaned text (see tools.explain.sanitize)."""
    folded = fold(text)
    arns = list(_finditer(CLUSTER_ARN, text, folded))
    targets = list(_finditer(_SSM_TARGET, text, folded))
    cluster_ids = [m.group("id") for m in arns]
    cluster_ids += [m.group("id") for m in targets]
    cluster_ids += [m.group("id") for m in _finditer(_LOG_GROUP, text, folded)]
    return Identifiers(
        cluster_names=_cluster_names(text, folded),
        cluster_arns=_unique(m.group(0) for m in arns),
        cluster_ids=_unique(cluster_ids),
        regions=_all(_REGION_RE, text, folded, 1),
        instance_ids=_all(_INSTANCE, text, folded),
        instance_groups=_unique(m.group("group") for m in targets),
        security_group_ids=_all(_SG, text, folded),
        subnet_ids=_all(_SUBNET, text, folded),
        vpc_ids=_all(_VPC, text, folded),
        xids=sorted({number for number, _ in find_xids(text)})[:MAX_PER_KIND],
        slurm_nodes=_all(_SLURM_NODE, text, folded),
        eks_nodes=_all(_EKS_NODE, text, folded),
        time_window=_time_window(text, folded),
    )
