"""Ticket archives: a recorded cluster packed with its case (docs/recorded-cluster.md).

`hyperpod-debug ticket` writes one `.tar.gz` holding the recording of the triage it ran,
the reports, the transcript when one was given, and `manifest.json`: the versions, the
sha256 of every other file and what was redacted or masked. `triage`, `chat`, `ask` and
`mcp --recorded` take the archive as they take a recording (`load_recorded` calls
`recording_from_archive`).

Reading never writes a member to disk and never trusts a member's name: the members are
read into memory, one folder deep, regular files only (no link, device, FIFO, absolute
path or `..`), each within the recorded-cluster size limit and all together within a few
times it, and every file must match the manifest's hash. Anything else is refused with
one line (the CLI exits 2), so a tampered or malformed archive is never half-read.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tools.recorded.model import (
    FORMAT_NAME,
    FORMAT_VERSION,
    RecordedCluster,
    RecordedFileError,
    max_recorded_bytes,
)

ARCHIVE_FORMAT: Literal["hyperpod-debug/ticket-archive"] = "hyperpod-debug/ticket-archive"
ARCHIVE_VERSION: Literal[1] = 1
MANIFEST = "manifest.json"
RECORDING = "recording.json"
TRANSCRIPT = "transcript.jsonl"
# A ticket holds a handful of files; far more members is not an archive `ticket` wrote.
MAX_MEMBERS = 64
# Beside the recording (the size limit), the reports and the transcript (at most 64 MiB,
# agent.transcript.MAX_BYTES) fit in this much: the whole tar stream is inflated into memory
# no further than the limit plus this, so a zip bomb stops there, whatever the tar headers
# (a pax or long-name header is read whole before its member is seen).
EXTRA_BYTES = 128 * 2**20
GZIP_MAGIC = b"\x1f\x8b"


class ArchiveFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="Hex digest of the file's bytes.")
    bytes: int = Field(ge=0, description="The file's size.")
    redactions: int = Field(
        default=0, ge=0, description="How many `<redacted>` markers the file holds."
    )


class RecordingFormat(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Literal["hyperpod-debug/recorded-cluster"] = FORMAT_NAME
    version: int = FORMAT_VERSION


class ClusterIdentity(BaseModel):
    """The cluster as the ticket shows it (placeholders when masked)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    arn: str = ""
    id: str = ""
    region: str
    orchestrator: str = ""


class Masking(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    masked: bool
    placeholders: dict[str, int] = Field(
        default_factory=dict,
        description="How many values of each kind (ACCOUNT, IP, HOST, CLUSTER) were replaced.",
    )
    mapping: str = Field(
        default="",
        description="Where the placeholder -> value mapping is: beside the archive, never in it.",
    )


class Manifest(BaseModel):
    """`manifest.json` of a ticket archive."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["hyperpod-debug/ticket-archive"] = ARCHIVE_FORMAT
    version: Literal[1] = ARCHIVE_VERSION
    tool: str = Field(description="The program that wrote the archive.")
    tool_version: str
    created_at: str = Field(description="ISO-8601 UTC time the archive was written.")
    recorded_at: str = Field(description="When the triage read the cluster (the recording's).")
    recording: str = Field(default=RECORDING, description="The recorded-cluster member.")
    recording_format: RecordingFormat = RecordingFormat()
    transcript: str | None = Field(default=None, description="The chat transcript member.")
    cluster: ClusterIdentity
    redaction: str = Field(description="What was redacted, in words.")
    masking: Masking
    files: dict[str, ArchiveFile] = Field(
        description="Every other member by name (the manifest does not hash itself)."
    )


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_archive(
    folder: str, files: dict[str, bytes], manifest: Manifest, *, mtime: int, mode: int
) -> bytes:
    """The archive's bytes: every file, then the manifest, under `folder/`, each member
    with `mode` (private: extracted, the files stay private too)."""
    buffer = io.BytesIO()
    members = {**files, MANIFEST: manifest_bytes(manifest)}
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(f"{folder}/{name}")
            info.size = len(data)
            info.mtime = mtime
            info.mode = mode
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def manifest_bytes(manifest: Manifest) -> bytes:
    data = manifest.model_dump(mode="json", exclude_none=True)
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def read_members(data: bytes, shown: str) -> dict[str, bytes]:
    """Every file of the archive by its name inside the one top folder, read in memory;
    RecordedFileError (one line) for anything a ticket archive never holds."""
    limit = max_recorded_bytes()
    total_limit = limit + EXTRA_BYTES
    stream = _inflated(data, total_limit, shown)
    files: dict[str, bytes] = {}
    folders: set[str] = set()
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(stream), mode="r:") as archive:
            for count, member in enumerate(archive, start=1):
                if count > MAX_MEMBERS:
                    raise _bad(shown, f"more than {MAX_MEMBERS} members")
                folder, name = _member_path(member.name, shown)
                if member.isdir() and not name:
                    folders.add(folder)
                    continue
                if not member.isreg():
                    raise _bad(shown, f"member {_shown(member.name)} is {_kind(member)}")
                if not name:
                    raise _bad(shown, f"member {_shown(member.name)} is not in a folder")
                folders.add(folder)
                if member.size > limit or total + member.size > total_limit:
                    raise _bad(
                        shown,
                        f"member {_shown(member.name)} is too large ({member.size:,} bytes; "
                        f"the limit is {limit:,})",
                    )
                if name in files:
                    raise _bad(shown, f"member {_shown(member.name)} appears twice")
                handle = archive.extractfile(member)
                if handle is None:  # pragma: no cover - isreg() members always have data
                    raise _bad(shown, f"member {_shown(member.name)} has no data")
                content = handle.read(member.size + 1)
                if len(content) != member.size:
                    raise _bad(shown, f"member {_shown(member.name)} is cut short")
                total += member.size
                files[name] = content
    except RecordedFileError:
        raise
    except (tarfile.TarError, OSError, EOFError, ValueError) as exc:
        why = _shown(str(exc) or type(exc).__name__)
        raise _bad(shown, f"not a readable .tar.gz ({why})") from None
    if len(folders) > 1:
        raise _bad(shown, "its members are in more than one folder")
    return files


def _inflated(data: bytes, most: int, shown: str) -> bytes:
    """The tar stream inside the gzip data, refused once it grows past `most` bytes."""
    import gzip
    import zlib

    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data), mode="rb") as inflating:
            stream = inflating.read(most + 1)
    except (OSError, EOFError, zlib.error) as exc:
        why = _shown(str(exc) or type(exc).__name__)
        raise _bad(shown, f"not a readable .tar.gz ({why})") from None
    if len(stream) > most:
        raise _bad(shown, f"it inflates to more than {most:,} bytes")
    return stream


def open_archive(data: bytes, shown: str) -> tuple[Manifest, dict[str, bytes]]:
    """The manifest and the files it lists, every hash checked."""
    files = read_members(data, shown)
    raw = files.pop(MANIFEST, None)
    if raw is None:
        raise _bad(shown, f"it has no {MANIFEST}")
    try:
        manifest = Manifest.model_validate_json(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "<root>"
        why = f"{_shown(where)}: {_shown(first['msg'])}"
        raise _bad(shown, f"{MANIFEST} is not valid ({why})") from None
    for name in sorted(set(files) - set(manifest.files)):
        raise RecordedFileError(
            f"{shown} was altered: {_shown(name)} is not listed in its {MANIFEST}"
        )
    for name, expected in sorted(manifest.files.items()):
        content = files.get(name)
        if content is None:
            raise RecordedFileError(f"{shown} was altered: {_shown(name)} is missing")
        if len(content) != expected.bytes or sha256(content) != expected.sha256:
            raise RecordedFileError(
                f"{shown} was altered: {_shown(name)} does not match the sha256 in its {MANIFEST}"
            )
    if manifest.recording not in files:
        raise _bad(shown, f"its {MANIFEST} names no recording member")
    return manifest, files


def recording_from_archive(data: bytes, shown: str) -> RecordedCluster:
    """The recorded cluster inside a ticket archive, checked against its manifest."""
    from tools.recorded.model import parse_recording

    manifest, files = open_archive(data, shown)
    member = f"{shown}!{manifest.recording}"
    try:
        text = files[manifest.recording].decode("utf-8")
    except UnicodeDecodeError:
        raise _bad(shown, f"{_shown(manifest.recording)} is not UTF-8 text") from None
    return parse_recording(text, member)


def _member_path(name: str, shown: str) -> tuple[str, str]:
    """(folder, file) of a member named `folder/file` or `folder/`; anything that could
    point elsewhere once extracted is refused."""
    drive = ":" in name.split("/", maxsplit=1)[0]  # C:/..., read as absolute on Windows
    if "\\" in name or "\x00" in name or name.startswith("/") or drive:
        raise _bad(shown, f"member {_shown(name)} has an unsafe path")
    parts = name.removesuffix("/").split("/")
    if any(part in ("", ".", "..") for part in parts) or len(parts) > 2:
        raise _bad(shown, f"member {_shown(name)} has an unsafe path")
    return parts[0], parts[1] if len(parts) == 2 else ""


def _kind(member: tarfile.TarInfo) -> str:
    if member.issym():
        return "a symbolic link"
    if member.islnk():
        return "a hard link"
    if member.ischr() or member.isblk():
        return "a device"
    if member.isfifo():
        return "a FIFO"
    if member.isdir():
        return "a nested folder"
    return "not a regular file"


def _bad(shown: str, why: str) -> RecordedFileError:
    return RecordedFileError(f"{shown} is not a usable ticket archive: {why}")


def _shown(value: Any) -> str:
    from tools.display import argument

    return argument(value, 120)
