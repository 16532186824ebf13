"""Reversible local masking of what identifies an account's resources.

Redaction removes secrets for good. Masking is different: account ids (in ARNs, ECR
hosts, bucket names, and a known account anywhere), IPv4 and IPv6 addresses, EC2 / EKS /
FSx / RDS host names, other host names (a FQDN outside the AWS and public project
domains: a corporate LDAP or Git server) and cluster names (HyperPod and EKS) are replaced
by stable placeholders (`<ACCOUNT_1>`, `<IP_3>`, `<HOST_2>`, `<CLUSTER_1>`) so text can be
shown to someone (a model, a support engineer) without them, and the mapping from
placeholder to real value is kept on this machine, so an answer written with placeholders
reads back with the real names:

    masker = Masker(clusters=["ml-training"])        # names known up front, if any
    shown = masker.mask(text)                        # or masker.mask_value(json_like)
    masker.save(Path("mask-mapping.json"))           # stays local, mode 0600
    answer = unmask(model_answer, masker.mapping)    # or load_mapping(path)

Within one `Masker` the same value always gets the same placeholder, numbered in order of
first sight, so one run is deterministic. An EC2 private host name keeps its shape with
the address masked (`ip-10-1-2-3` → `ip-<IP_1>`), so a node name and its address stay
visibly the same node. Cluster names are learnt from EKS cluster ARNs, `"ClusterName"`
fields, `--cluster-name` arguments, "EKS cluster NAME" and `aws eks … --name NAME`, and
apply to the text that follows (pass names known up front to the constructor so they are
masked from the first text on).

Not masked: well-known addresses (0.0.0.0, loopback, 169.254.169.254, broadcast), instance
ids (a support case needs them), and names shorter than three characters.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tools.private import write_private

FORMAT = "hyperpod-debug-mask-mapping"
VERSION = 1

PLACEHOLDER = re.compile(r"(?:(?<![\w-])(ip-|ec2-))?<(ACCOUNT|IP|HOST|CLUSTER)_(\d+)>")

_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV4 = re.compile(rf"(?<![\d.])({_OCTET}(?:\.{_OCTET}){{3}})(?!\.?\d)")
# ip-10-1-2-3(.us-west-2.compute.internal), ec2-54-1-2-3.compute-1.amazonaws.com
_IP_HOST = re.compile(rf"(?<![\w-])(ip|ec2)-({_OCTET}(?:-{_OCTET}){{3}})(?![\w-])")
_KEEP_IPS = frozenset({"0.0.0.0", "255.255.255.255", "169.254.169.254"})
# The EKS API endpoint: <32 hex>.<gr7|sk1|yl4>.<region>.eks.amazonaws.com
_EKS_HOST = re.compile(
    r"(?<![\w.-])([A-Za-z0-9]{16,40}\.[a-z0-9]{2,4}\.[a-z0-9-]{1,30})(?=\.eks\.)"
)
_ACCOUNT_CONTEXTS = (
    re.compile(r"(arn:aws[\w-]{0,20}:[\w-]{0,40}:[\w-]{0,40}:)(\d{12})(?=:)"),
    re.compile(r"()(\d{12})(?=\.dkr\.ecr\.)"),
    re.compile(r"(?i)(\baccount(?:[ _-]?id)?['\"]?\s{0,4}[:=]?\s{0,4}['\"]?)(\d{12})(?!\d)"),
    re.compile(r"(?i)(\bowner(?:[ _-]?id)?['\"]?\s{0,4}[:=]?\s{0,4}['\"]?)(\d{12})(?!\d)"),
    re.compile(r"(\bsagemaker-[a-z]{2}(?:-[a-z]{1,10}){1,2}-\d-)(\d{12})(?!\d)"),
)
_CLUSTER_CONTEXTS = (
    re.compile(r"arn:aws[\w-]{0,20}:eks:[\w-]{0,40}:\d{12}:cluster/([A-Za-z0-9][\w-]{0,99})"),
    re.compile(
        r'"(?:ClusterName|clusterName|cluster_name)"\s{0,4}:\s{0,4}"([A-Za-z0-9][\w-]{0,62})"'
    ),
    re.compile(r"--(?:cluster-name|cluster)[ =]([A-Za-z0-9][\w-]{0,62})\b"),
    # The EKS cluster by name in a check's message ("EKS cluster ml-eks is ACTIVE") and in
    # `aws eks ... --name NAME` (describe-cluster, update-kubeconfig).
    re.compile(r"\bEKS cluster ([A-Za-z0-9][\w-]{0,99})"),
    re.compile(r"\baws eks [a-z-]{1,40} (?:[^\n]{0,120}? )?--name[ =]([A-Za-z0-9][\w-]{0,99})"),
)
# Words that follow "EKS cluster" in a sentence without naming it.
_NOT_NAMES = frozenset(
    {
        *("and", "are", "can", "cannot", "could", "does", "for", "from", "has", "have", "into"),
        *("is", "named", "not", "the", "this", "that", "uses", "was", "which", "with", "without"),
        # A recording's free text (a scenario's description, an error message) says more.
        *("whose", "where", "when", "while", "lives", "triaged", "must", "should", "will"),
        *("would", "may", "might", "but", "its", "then", "also", "had", "did", "needs"),
        *("api", "endpoint", "version", "role", "access", "status", "itself", "runs"),
    }
)
_MIN_NAME = 3
# An S3 bucket name that ends in (or holds) an account id: my-bucket-123456789012. The
# name is read after s3://, an S3 ARN or a bucket key; the scan is bounded.
_BUCKET_ACCOUNT = re.compile(
    r"(?i)((?:s3://|arn:aws[\w-]{0,20}:s3:::|bucket['\"]?\s{0,4}[:=]?\s{0,4}['\"]?)"
    r"[a-z0-9][a-z0-9.-]{0,50}?[.-])(\d{12})(?![\d])"
)
# IPv6 candidates: hex digits and colons, two colons at least; `ipaddress` decides.
_IPV6 = re.compile(r"(?<![\w:.])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?![\w:])")
_KEEP_IPV6 = frozenset({"::", "::1"})
# An FSx file system's DNS name: fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com.
_FSX_HOST = re.compile(r"(?<![\w.-])(fs-[0-9a-f]{8,17})(?=\.fsx\.)")
# An RDS endpoint: mydb.c9akciq32.us-east-1.rds.amazonaws.com (instance or cluster name and
# the account's hash; the region and service stay).
_RDS_HOST = re.compile(
    r"(?<![\w.-])((?:[A-Za-z0-9-]{1,63}\.){1,3}?[A-Za-z0-9-]{1,63})"
    r"(?=\.[a-z]{2}(?:-[a-z]+){1,2}-\d\.rds\.amazonaws\.com)"
)
# A host name (a corporate DNS name) with a top-level domain of this list: file names
# (config.yaml, libc.so) and module paths (torch.cuda) do not end in one.
_TLDS = (
    "com|net|org|io|co|corp|internal|intranet|intra|lan|local|cn|jp|kr|de|uk|fr|in|sg|au|ca"
    "|us|eu|biz|info|dev|app|cloud|ai|edu|gov"
)
_FQDN = re.compile(
    r"(?<![\w.-])((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}(?:" + _TLDS + r"))"
    r"(?![\w-]|\.[A-Za-z0-9])"
)
# Public names that identify no one: AWS service endpoints and documentation, and the
# projects a report or an answer cites.
_PUBLIC_DOMAINS = (
    "amazonaws.com",
    "amazonaws.com.cn",
    "amazon.com",
    "aws",
    "aws.dev",
    "awsstatic.com",
    "compute.internal",
    "ec2.internal",
    "cluster.local",
    "github.com",
    "githubusercontent.com",
    "kubernetes.io",
    "k8s.io",
    "nvidia.com",
    "docker.io",
    "docker.com",
    "pytorch.org",
    "python.org",
    "pypi.org",
    "ubuntu.com",
    "schedmd.com",
    "slack.com",
    "example.com",
    "example.org",
    "example.net",
)


def _name_pattern(name: str) -> str:
    """A cluster name as a whole word (`ml-training-2` is another cluster), or inside the
    name of the security group EKS creates for a cluster: `eks-cluster-sg-<name>`, then a
    numeric suffix (the suffix is as the EKS user guide shows it, "uniqueID": unverified)."""
    word = re.escape(name)
    return rf"(?<![\w-]){word}(?![\w-])|(?<=\beks-cluster-sg-){word}(?=(?:-\d+)?(?![\w-]))"


class Masker:
    """Replaces identifying values by placeholders and remembers the mapping."""

    def __init__(
        self, *, clusters: Iterable[str] = (), mapping: Mapping[str, str] | None = None
    ) -> None:
        # placeholder -> original, and original -> placeholder per kind
        self._mapping: dict[str, str] = {}
        self._placeholders: dict[tuple[str, str], str] = {}
        self._counts: dict[str, int] = {}
        for placeholder, original in (mapping or {}).items():
            found = PLACEHOLDER.fullmatch(placeholder)
            if found is None or found.group(1):
                raise ValueError(f"not a mask placeholder: {placeholder[:40]!r}")
            kind, number = found.group(2), int(found.group(3))
            self._mapping[placeholder] = original
            self._placeholders[(kind, original)] = placeholder
            self._counts[kind] = max(self._counts.get(kind, 0), number)
        self._clusters: set[str] = set()
        self._accounts_compiled: tuple[list[str], re.Pattern[str] | None] = ([], None)
        self._cluster_pattern: re.Pattern[str] | None = None
        for name in clusters:
            self._learn_cluster(name)
        for (kind, original), _ in list(self._placeholders.items()):
            if kind == "CLUSTER":
                self._learn_cluster(original)

    @property
    def mapping(self) -> dict[str, str]:
        """Placeholder -> real value. Keep it on this machine."""
        return dict(self._mapping)

    def placeholder(self, kind: str, original: str) -> str:
        key = (kind, original)
        if key not in self._placeholders:
            number = self._counts.get(kind, 0) + 1
            self._counts[kind] = number
            placeholder = f"<{kind}_{number}>"
            self._placeholders[key] = placeholder
            self._mapping[placeholder] = original
        return self._placeholders[key]

    def _learn_cluster(self, name: str) -> None:
        if len(name) >= _MIN_NAME and name not in self._clusters:
            self._clusters.add(name)
            names = sorted(self._clusters, key=lambda n: (-len(n), n))
            alternatives = "|".join(_name_pattern(n) for n in names)
            self._cluster_pattern = re.compile(alternatives)

    def mask(self, text: str) -> str:
        for pattern in _CLUSTER_CONTEXTS:
            for found in pattern.finditer(text):
                if found.group(1).lower() not in _NOT_NAMES:
                    self._learn_cluster(found.group(1))
        for pattern in (*_ACCOUNT_CONTEXTS, _BUCKET_ACCOUNT):
            text = pattern.sub(lambda m: m.group(1) + self.placeholder("ACCOUNT", m.group(2)), text)
        if self._account_pattern is not None:  # a known account anywhere, e.g. in a name
            text = self._account_pattern.sub(
                lambda m: self.placeholder("ACCOUNT", m.group(0)), text
            )
        text = _EKS_HOST.sub(lambda m: self.placeholder("HOST", m.group(1)), text)
        text = _FSX_HOST.sub(lambda m: self.placeholder("HOST", m.group(1)), text)
        text = _RDS_HOST.sub(lambda m: self.placeholder("HOST", m.group(1)), text)
        text = _FQDN.sub(self._host, text)
        text = _IP_HOST.sub(self._ip_host, text)
        text = _IPV4.sub(self._ip, text)
        if ":" in text:
            text = _IPV6.sub(self._ipv6, text)
        if self._cluster_pattern is not None:
            text = self._cluster_pattern.sub(
                lambda m: self.placeholder("CLUSTER", m.group(0)), text
            )
        return text

    @property
    def _account_pattern(self) -> re.Pattern[str] | None:
        accounts = sorted(original for kind, original in self._placeholders if kind == "ACCOUNT")
        if not accounts:
            return None
        if self._accounts_compiled[0] != accounts:
            alternatives = "|".join(re.escape(a) for a in accounts)
            self._accounts_compiled = (accounts, re.compile(rf"(?<!\d)(?:{alternatives})(?!\d)"))
        return self._accounts_compiled[1]

    def _host(self, found: re.Match[str]) -> str:
        name = found.group(1)
        lowered = name.lower()
        if any(lowered == d or lowered.endswith("." + d) for d in _PUBLIC_DOMAINS):
            return name
        return self.placeholder("HOST", name)

    def _ipv6(self, found: re.Match[str]) -> str:
        text = found.group(0)
        try:
            address = ipaddress.IPv6Address(text)
        except ValueError:
            return text  # a time (12:30:45), a MAC address, a port list
        if text in _KEEP_IPV6 or address.is_loopback or address.is_unspecified:
            return text
        return self.placeholder("IP", text)

    def _ip(self, found: re.Match[str]) -> str:
        address = found.group(1)
        if address in _KEEP_IPS or address.startswith("127."):
            return address
        return self.placeholder("IP", address)

    def _ip_host(self, found: re.Match[str]) -> str:
        return f"{found.group(1)}-{self.placeholder('IP', found.group(2).replace('-', '.'))}"

    def mask_value(self, value: Any) -> Any:
        """`mask` applied to every string (keys included) of a JSON-like structure."""
        if isinstance(value, dict):
            return {self.mask(str(k)): self.mask_value(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.mask_value(item) for item in value]
        if isinstance(value, str):
            return self.mask(value)
        return value

    def dumps(self) -> str:
        """The mapping file's text (what `save` writes)."""
        data = {"format": FORMAT, "version": VERSION, "mapping": self._mapping}
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

    def save(self, path: Path) -> None:
        """Write the mapping as JSON, readable by this user only."""
        write_private(path, self.dumps())

    @classmethod
    def load(cls, path: Path) -> Masker:
        """Continue a run: the same values keep their placeholders."""
        return cls(mapping=load_mapping(path))


def load_mapping(path: Path) -> dict[str, str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a {FORMAT} file")
    mapping = data.get("mapping")
    if not isinstance(mapping, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in mapping.items()
    ):
        raise ValueError(f"{path}: mapping must be an object of strings")
    return mapping


def unmask(text: str, mapping: Mapping[str, str]) -> str:
    """Put the real values back; a placeholder missing from the mapping stays as it is."""

    def real(found: re.Match[str]) -> str:
        prefix = found.group(1) or ""
        placeholder = found.group(0)[len(prefix) :]
        original = mapping.get(placeholder)
        if original is None:
            return found.group(0)
        if prefix and found.group(2) == "IP":
            return prefix + original.replace(".", "-")
        return prefix + original

    return PLACEHOLDER.sub(real, text)


def unmask_value(value: Any, mapping: Mapping[str, str]) -> Any:
    if isinstance(value, dict):
        return {unmask(str(k), mapping): unmask_value(v, mapping) for k, v in value.items()}
    if isinstance(value, list):
        return [unmask_value(item, mapping) for item in value]
    if isinstance(value, str):
        return unmask(value, mapping)
    return value
