"""The replayable case inside a ticket archive: the recording, the transcript, the manifest.

`hyperpod-debug ticket` packs what its triage read (captured by the same `Recorder` as
`record`, or the recording it replayed) with the reports and, when given, the chat
transcript. Every member is redacted as recordings and transcripts are; with `--mask` the
one `Masker` of the bundle also replaces identifying names in the recording and the
transcript, so the archive and every answer replayed from it show the same placeholders,
and the mapping stays beside the archive. `manifest.json` lists the versions, the sha256
of every member and what was redacted or masked (tools/recorded/archive.py reads it back).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tools.recorded.archive import (
    RECORDING,
    TRANSCRIPT,
    ArchiveFile,
    ClusterIdentity,
    Manifest,
    Masking,
    sha256,
)
from tools.recorded.model import RecordedCluster
from tools.redaction import REDACTED, redact, redact_strings

if TYPE_CHECKING:
    from tools.masking import Masker
    from tools.triage.report import TriageReport

TOOL = "hyperpod-debug"
REDACTION = (
    "Secret-looking keys and values (credentials, session tokens, passwords, private keys, "
    "access keys, EKS tokens) and the credentials in the environment are replaced by "
    f"{REDACTED} in every member, as in recordings and transcripts (tools/redaction.py)."
)
# Keys whose bare 12-digit value is an account id (EC2 OwnerId, STS Account, ...): masking
# learns them first, so the same account is masked wherever it appears without context.
_ACCOUNT_KEY = re.compile(r"(?i)^(?:account|owner)(?:[_-]?id)?$")
_ACCOUNT = re.compile(r"^\d{12}$")


def tool_version() -> str:
    """The installed distribution's version ("unknown" when run from a bare source tree)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(TOOL)
    except PackageNotFoundError:
        return "unknown"


def recording_json(recording: RecordedCluster) -> dict[str, Any]:
    """The recording as JSON, redacted again as a whole (a recording given with --recorded
    may have been written by hand) and by string at the output boundary."""
    data = recording.model_dump(mode="json", exclude_none=True)
    result: dict[str, Any] = redact_strings(redact(data))
    # A call's `paging` names API fields ("result_key": "events", "token_key": "nextToken")
    # that the secret-key patterns would hide, and replay needs them to page and narrow
    # the stored lists; they hold no value read from the cluster.
    for call, redacted in zip(data.get("aws") or [], result.get("aws") or [], strict=True):
        if "paging" in call:
            redacted["paging"] = call["paging"]
    return result


def mask_json(value: Any, masker: Masker) -> Any:
    """`value` with the masker's placeholders in every string and key. Two passes: the
    first learns every cluster name and account (a name may be used before the context
    that reveals it), the second masks with all of them known."""
    _learn_accounts(value, masker)
    masker.mask_value(value)
    return masker.mask_value(value)


def _learn_accounts(value: Any, masker: Masker) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, str) and _ACCOUNT.match(item) and _ACCOUNT_KEY.match(str(key)):
                masker.placeholder("ACCOUNT", item)
            else:
                _learn_accounts(item, masker)
    elif isinstance(value, list):
        for item in value:
            _learn_accounts(item, masker)


def recording_bytes(data: dict[str, Any]) -> bytes:
    """The recording member, validated (a masked or redacted value never makes an invalid
    file) and written as `record` writes it."""
    RecordedCluster.model_validate(data)
    return (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode("utf-8", "replace")


def transcript_bytes(path: Path, masker: Masker | None) -> bytes:
    """The transcript member: read as data (agent.transcript.read_transcript; TranscriptError
    when it is not one), every line redacted again and masked with the bundle's masker."""
    from agent.transcript import read_transcript

    saved = read_transcript(path)
    items = [saved.meta, *saved.events, *([saved.state] if saved.state is not None else [])]
    lines = []
    for item in items:
        clean = redact_strings(redact(item))
        if masker is not None:
            clean = masker.mask_value(clean)
        lines.append(json.dumps(clean, ensure_ascii=False, default=str))
    return ("\n".join(lines) + "\n").encode("utf-8", "replace")


def identity(report: TriageReport, masker: Masker | None) -> ClusterIdentity:
    cluster = report.cluster
    fields = {
        "name": cluster.name,
        "arn": cluster.arn,
        "id": cluster.id,
        "region": cluster.region,
        "orchestrator": cluster.orchestrator,
    }
    if masker is not None:
        fields = {key: masker.mask(value) for key, value in fields.items()}
    return ClusterIdentity(**fields)


def manifest(
    files: dict[str, bytes],
    *,
    report: TriageReport,
    recorded_at: str,
    created: datetime,
    masker: Masker | None,
    mapping_file: str,
) -> Manifest:
    """The manifest of `files` (every member but the manifest itself)."""
    counts: dict[str, int] = {}
    if masker is not None:
        for placeholder in masker.mapping:
            kind = placeholder.strip("<>").rsplit("_", 1)[0]
            counts[kind] = counts.get(kind, 0) + 1
    return Manifest(
        tool=TOOL,
        tool_version=tool_version(),
        created_at=created.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        recorded_at=recorded_at,
        recording=RECORDING,
        transcript=TRANSCRIPT if TRANSCRIPT in files else None,
        cluster=identity(report, masker),
        redaction=REDACTION,
        masking=Masking(
            masked=masker is not None,
            placeholders=dict(sorted(counts.items())),
            mapping=f"{mapping_file} beside the archive (never inside it)" if masker else "",
        ),
        files={
            name: ArchiveFile(
                sha256=sha256(data),
                bytes=len(data),
                redactions=data.count(REDACTED.encode()),
            )
            for name, data in files.items()
        },
    )
