"""Reversible local masking of what identifies an account's resources.

Redaction removes secrets for good. Masking is different: account ids, IPv4 addresses,
EC2 / EKS host names and cluster names are replaced by stable placeholders (`<ACCOUNT_1>`,
`<IP_3>`, `<HOST_2>`, `<CLUSTER_1>`) so text can be shown to someone (a model, a support
engineer) without them, and the mapping from placeholder to real value is kept on this
machine, so an answer written with placeholders reads back with the real names:

    masker = Masker(clusters=["ml-training"])        # names known up front, if any
    shown = masker.mask(text)                        # or masker.mask_value(json_like)
    masker.save(Path("mask-mapping.json"))           # stays local, mode 0600
    answer = unmask(model_answer, masker.mapping)    # or load_mapping(path)

Within one `Masker` the same value always gets the same placeholder, numbered in order of
first sight, so one run is deterministic. An EC2 private host name keeps its shape with
the address masked (`ip-10-1-2-3` → `ip-<IP_1>`), so a node name and its address stay
visibly the same node. Cluster names are learnt from EKS cluster ARNs, `"ClusterName"`
fields and `--cluster-name` arguments, and apply to the text that follows (pass names
known up front to the constructor so they are masked from the first text on).

Not masked: well-known addresses (0.0.0.0, loopback, 169.254.169.254, broadcast), instance
ids (a support case needs them), and names shorter than three characters.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

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
)
_MIN_NAME = 3


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
            alternatives = "|".join(re.escape(n) for n in names)
            self._cluster_pattern = re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])")

    def mask(self, text: str) -> str:
        for pattern in _CLUSTER_CONTEXTS:
            for found in pattern.finditer(text):
                self._learn_cluster(found.group(1))
        for pattern in _ACCOUNT_CONTEXTS:
            text = pattern.sub(lambda m: m.group(1) + self.placeholder("ACCOUNT", m.group(2)), text)
        text = _EKS_HOST.sub(lambda m: self.placeholder("HOST", m.group(1)), text)
        text = _IP_HOST.sub(self._ip_host, text)
        text = _IPV4.sub(self._ip, text)
        if self._cluster_pattern is not None:
            text = self._cluster_pattern.sub(
                lambda m: self.placeholder("CLUSTER", m.group(0)), text
            )
        return text

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

    def save(self, path: Path) -> None:
        """Write the mapping as JSON, readable by this user only."""
        data = {"format": FORMAT, "version": VERSION, "mapping": self._mapping}
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, ensure_ascii=False)
            handle.write("\n")

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
