"""The recorded-cluster file format (see docs/recorded-cluster.md and its JSON Schema)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import sys
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from tools.display import argument, encodable

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


_KUBE_SECTIONS = ("metadata", "spec", "status")


def _kind_of(value: object) -> str:
    """A JSON value's kind, as an error message names it."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "null" if value is None else type(value).__name__


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

    @field_validator("nodes", "pods", "daemonsets", "deployments", "events", "namespaces")
    @classmethod
    def _object_sections(cls, items: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
        """Every object's metadata, spec and status, when present, are JSON objects: the
        checks and the replayed API read fields out of them."""
        for index, item in enumerate(items or []):
            for section in _KUBE_SECTIONS:
                value = item.get(section)
                if value is not None and not isinstance(value, dict):
                    raise ValueError(
                        f"item {index}: {section} is {_kind_of(value)}, expected an object"
                    )
            metadata = item.get("metadata") or {}
            for key in ("name", "namespace"):
                value = metadata.get(key)
                if value is not None and not isinstance(value, str):
                    raise ValueError(
                        f"item {index}: metadata.{key} is {_kind_of(value)}, expected a string"
                    )
            for key in ("labels", "annotations"):
                value = metadata.get(key)
                if value is not None and not isinstance(value, dict):
                    raise ValueError(
                        f"item {index}: metadata.{key} is {_kind_of(value)}, expected an object"
                    )
        return items


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
    tool_version: str | None = Field(
        default=None,
        max_length=100,
        description="The hyperpod-debug version that made the recording (record, ticket, "
        "the simulator). Absent in recordings made before versions were stamped: replay "
        "takes such a file for one made by an earlier version, and a call it lacks for one "
        "that version did not make.",
    )
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


# Reading limits. A synthetic 20,000-node EKS recording (every node, four system pods a
# node) is about 165 MiB of indented JSON; the default leaves room above that.
MAX_RECORDED_MIB = 256
MAX_RECORDED_ENV = "HYPERPOD_DEBUG_MAX_RECORDED_MB"
# Real recordings nest about a dozen levels deep (Kubernetes objects); far deeper is an
# attack on the parser or on the code that copies responses.
MAX_NESTING = 100


def max_recorded_bytes() -> int:
    """The size limit: HYPERPOD_DEBUG_MAX_RECORDED_MB when set to a positive number."""
    value = os.environ.get(MAX_RECORDED_ENV, "").strip()
    try:
        mib = float(value) if value else MAX_RECORDED_MIB
    except ValueError:
        mib = MAX_RECORDED_MIB
    if not mib > 0 or mib == float("inf"):
        mib = MAX_RECORDED_MIB
    return int(mib * 2**20)


def _read_bounded(path: Path) -> bytes:
    """The file's bytes, read only when it is a regular file within the size limit: a
    device (/dev/zero) never ends and a FIFO without a writer blocks forever on open."""
    shown = argument(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise RecordedFileError(f"recorded cluster file not found: {shown}") from None
    except (OSError, ValueError) as exc:
        raise RecordedFileError(f"cannot read recorded cluster {shown}: {_why(exc)}") from None
    if stat.S_ISDIR(info.st_mode):
        raise RecordedFileError(f"recorded cluster {shown} is a directory; give a .json file")
    if not stat.S_ISREG(info.st_mode):
        raise RecordedFileError(
            f"recorded cluster {shown} is not a regular file (a device, FIFO or socket); "
            "give a recorded-cluster .json file"
        )
    limit = max_recorded_bytes()
    too_large = RecordedFileError(
        f"recorded cluster {shown} is larger than the {limit / 2**20:,.0f} MiB limit "
        f"({info.st_size / 2**20:,.1f} MiB); set {MAX_RECORDED_ENV} to raise it"
    )
    if info.st_size > limit:
        raise too_large
    try:
        # O_NONBLOCK: should the path have become a FIFO since the stat, open does not wait.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise RecordedFileError(f"recorded cluster {shown} is not a regular file")
            data = _read_at_most(handle, limit + 1)
    except OSError as exc:
        raise RecordedFileError(f"cannot read recorded cluster {shown}: {_why(exc)}") from None
    if len(data) > limit:
        raise too_large
    return bytes(data)


def _decoded(data: bytes, shown: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordedFileError(
            f"recorded cluster {shown} is not UTF-8 text (byte {exc.start})"
        ) from None


def _read_at_most(handle: BinaryIO, most: int) -> bytearray:
    """Up to `most` bytes, in chunks: `read(most)` would allocate all `most` bytes at once
    (the size limit, hundreds of MiB) even for a file of a few KiB."""
    data = bytearray()
    while len(data) < most:
        chunk = handle.read(min(_CHUNK, most - len(data)))
        if not chunk:
            break
        data += chunk
    return data


_CHUNK = 8 * 2**20


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return argument(exc)


def _nesting(value: Any, limit: int) -> int:
    """How deep `value` nests, counted level by level; stops once past `limit`."""
    frontier: list[Any] = [value]
    depth = 0
    while frontier:
        depth += 1
        if depth > limit:
            return depth
        deeper: list[Any] = []
        for item in frontier:
            children = item.values() if type(item) is dict else item
            deeper.extend([c for c in children if type(c) is dict or type(c) is list])
        frontier = deeper
    return depth


def _parse(text: str, shown: str) -> Any:
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordedFileError(
            f"{shown} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise RecordedFileError(
            f"malformed recorded file {shown}: nesting deeper than {MAX_NESTING} levels"
        ) from None
    except ValueError as exc:  # an integer of more digits than Python converts
        if "digits" in str(exc):
            raise RecordedFileError(
                f"malformed recorded file {shown}: a number is too long "
                f"(more than {sys.get_int_max_str_digits():,} digits)"
            ) from None
        raise RecordedFileError(f"{shown} is not valid JSON ({argument(exc)})") from None
    deep = (type(raw) is dict or type(raw) is list) and _nesting(raw, MAX_NESTING) > MAX_NESTING
    if deep:
        raise RecordedFileError(
            f"malformed recorded file {shown}: nesting deeper than {MAX_NESTING} levels"
        )
    if _SURROGATE_ESCAPE.search(text):
        raw = _without_lone_surrogates(raw)
    return raw


# A JSON escape of a UTF-16 surrogate: only then can the parsed text hold a lone one.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")


def _without_lone_surrogates(value: Any) -> Any:
    """Every string with its lone surrogates replaced ("?"): they cannot be encoded, so
    any output that quoted them would fail (a pair that forms one character is kept)."""
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, list):
        return [_without_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {encodable(k): _without_lone_surrogates(v) for k, v in value.items()}
    return value


def load_recorded(path: Path) -> RecordedCluster:
    """A recorded-cluster file, or the recording inside a ticket archive (a .tar.gz that
    `ticket` wrote, checked against its manifest: tools/recorded/archive.py)."""
    shown = argument(path)
    data = _read_bounded(path)
    if data.startswith(b"\x1f\x8b"):  # gzip: a ticket archive
        from tools.recorded.archive import recording_from_archive

        return recording_from_archive(data, shown)
    return parse_recording(_decoded(data, shown), shown)


def parse_recording(text: str, shown: str) -> RecordedCluster:
    """A recorded cluster from its JSON text; RecordedFileError (one line) when invalid."""
    raw = _parse(text, shown)
    try:
        return RecordedCluster.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(argument(p, 60) for p in err['loc']) or '<root>'}: "
            f"{argument(err['msg'], 300)}"
            for err in exc.errors()[:5]
        )
        raise RecordedFileError(
            f"{shown} is not a valid recorded cluster ({exc.error_count()} problem(s)): {problems}"
        ) from None


def dump_recorded(recording: RecordedCluster, path: Path) -> None:
    """Write the file whole or not at all: a full disk leaves no truncated recording
    behind (an OSError says why, e.g. ENOSPC)."""
    data = recording.model_dump(mode="json", exclude_none=True)
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    write_whole(path, text.encode("utf-8", "replace"))


def write_whole(path: Path, data: bytes) -> None:
    """`data` into `path` through a temporary file beside it, renamed into place once
    complete; the temporary file is removed when anything fails."""
    import tempfile

    directory = path.parent if str(path.parent) else Path(".")
    fd, temporary = tempfile.mkstemp(prefix=".hpd-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(temporary, 0o644 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def json_schema() -> dict[str, Any]:
    return RecordedCluster.model_json_schema()
