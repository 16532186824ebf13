"""The recorded-cluster file format (see docs/recorded-cluster.md and its JSON Schema)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

FORMAT_NAME: Literal["hyperpod-debug/recorded-cluster"] = "hyperpod-debug/recorded-cluster"
FORMAT_VERSION: Literal[1] = 1

# Request parameters that only steer paging: they are not part of a call's identity.
PAGING_PARAMS: frozenset[str] = frozenset(
    {"NextToken", "nextToken", "MaxResults", "maxResults", "limit", "Limit", "Marker", "MaxItems"}
)


class RecordedError(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str = Field(
        description="AWS error code, e.g. AccessDeniedException, UnauthorizedOperation."
    )
    message: str = ""
    http_status: int = Field(default=400, ge=300, le=599)


class Paging(BaseModel):
    model_config = ConfigDict(extra="forbid")

    result_key: str = Field(description="The list in `response` that replay pages through.")
    token_key: str = Field(default="NextToken", description="Name of the continuation token.")
    truncated: bool = Field(
        default=False,
        description="The live API had more items than the triage's cap: replay says so too.",
    )


class RecordedCall(BaseModel):
    """One AWS call: botocore's own output shape, or the error it returned."""

    model_config = ConfigDict(extra="forbid")

    service: str = Field(description="boto3 client name: sagemaker, ec2, eks, logs, sts, iam ...")
    operation: str = Field(description="API operation name, e.g. DescribeCluster.")
    params: dict[str, Any] = Field(
        default_factory=dict, description="Request parameters, without paging parameters."
    )
    response: dict[str, Any] | None = None
    error: RecordedError | None = None
    paging: Paging | None = Field(
        default=None, description="Set when `response` holds the whole list of a paged API."
    )


class Unavailable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["api", "tool", "node", "kubernetes"]
    what: str
    reason: str


class ProbeRecord(BaseModel):
    """The raw stdout of one catalogued probe (see tools/probes/catalog.py)."""

    model_config = ConfigDict(extra="forbid")

    stdout: str = ""
    exit_code: int | None = Field(default=0, description="None when the probe never finished.")
    truncated: bool = False


class KubernetesObjects(BaseModel):
    """Kubernetes objects in the API's own JSON (the items of `kubectl get -o json`).

    A recording keeps them slimmed to the fields the checks read, and only the pods the
    checks looked at; a hand-written file may hold complete objects."""

    model_config = ConfigDict(extra="forbid")

    nodes: list[dict[str, Any]] = Field(default_factory=list, description="v1 Node items.")
    pods: list[dict[str, Any]] = Field(default_factory=list, description="v1 Pod items.")
    daemonsets: list[dict[str, Any]] = Field(
        default_factory=list, description="apps/v1 DaemonSet items (kube-system)."
    )
    deployments: list[dict[str, Any]] = Field(
        default_factory=list, description="apps/v1 Deployment items (kube-system)."
    )
    events: list[dict[str, Any]] = Field(default_factory=list, description="v1 Event items.")
    namespaces: list[dict[str, Any]] | None = Field(
        default=None,
        description="v1 Namespace items that were read (the aws-hyperpod one); absent when "
        "the recording never read namespaces, which replay refuses rather than answers empty.",
    )
    logs: dict[str, str] = Field(
        default_factory=dict,
        description='Container log tails keyed "namespace/pod/container" '
        '(add "#previous" for the previous, crashed container).',
    )


class ExpectedFinding(BaseModel):
    """A finding a bundled scenario must (or must not) produce; used by tests and evals."""

    model_config = ConfigDict(extra="forbid")

    check: str
    status: Literal["PASS", "FAIL", "WARN", "INFO"]
    section: str | None = None
    priority: Literal["P0", "P1", "P2"] | None = Field(
        default=None, description="Compared when given."
    )
    resources_include: list[str] = Field(default_factory=list)


class Expectations(BaseModel):
    model_config = ConfigDict(extra="forbid")

    node: str | None = Field(default=None, description="--node to triage with, if any.")
    findings: list[ExpectedFinding] = Field(
        default_factory=list, description="Exactly the FAIL/WARN findings the triage must produce."
    )
    must_not: list[ExpectedFinding] = Field(default_factory=list)
    skipped_include: list[str] = Field(
        default_factory=list, description="Substrings that must appear in skipped reasons."
    )


class RecordedCluster(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: Literal["hyperpod-debug/recorded-cluster"] = FORMAT_NAME
    version: Literal[1] = FORMAT_VERSION
    description: str = ""
    recorded_at: str = Field(description="ISO-8601 UTC time of recording; replay uses it as 'now'.")

    @field_validator("recorded_at")
    @classmethod
    def _iso_timestamp_with_zone(cls, value: str) -> str:
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"{value!r} is not an ISO-8601 timestamp") from None
        if moment.tzinfo is None:
            raise ValueError(f"{value!r} has no time zone (use e.g. 2026-11-20T12:00:00Z)")
        return value

    cluster: str = Field(description="Cluster name or ARN the triage was recorded with.")
    region: str
    aws: list[RecordedCall] = Field(default_factory=list)
    kubernetes: KubernetesObjects | None = Field(
        default=None,
        description="Kubernetes objects in the API's own JSON, slimmed to the fields the "
        "checks read (EKS clusters).",
    )
    probes: dict[str, dict[str, ProbeRecord | str]] = Field(
        default_factory=dict,
        description='Node probe outputs: instance id (or "local") -> probe name -> raw stdout '
        "(a string) or a record with exit code.",
    )

    @field_validator("probes")
    @classmethod
    def _catalogued_probes(
        cls, value: dict[str, dict[str, ProbeRecord | str]]
    ) -> dict[str, dict[str, ProbeRecord | str]]:
        from tools.probes.catalog import CATALOGUE

        for node, outputs in value.items():
            unknown = sorted(set(outputs) - set(CATALOGUE))
            if unknown:
                raise ValueError(f"{node}: not catalogued probes: {', '.join(unknown)}")
        return value

    unavailable: list[Unavailable] = Field(default_factory=list)
    expect: Expectations | None = Field(
        default=None, description="For bundled scenarios: the findings triage must produce."
    )


class RecordedFileError(Exception):
    """A recorded-cluster file that cannot be used, with a message a person can act on."""


def load_recorded(path: Path) -> RecordedCluster:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordedFileError(f"recorded cluster file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordedFileError(f"cannot read recorded cluster {path}: {exc}") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordedFileError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    try:
        return RecordedCluster.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}"
            for err in exc.errors()[:5]
        )
        raise RecordedFileError(
            f"{path} is not a valid recorded cluster ({exc.error_count()} problem(s)): {problems}"
        ) from None


def dump_recorded(recording: RecordedCluster, path: Path) -> None:
    data = recording.model_dump(mode="json", exclude_none=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def json_schema() -> dict[str, Any]:
    return RecordedCluster.model_json_schema()
