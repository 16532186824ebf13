"""A ticket archive is a replayable case: `triage`, `chat` and `mcp --recorded ARCHIVE` open
it directly, its manifest is checked, a masked one stays masked, a bad one is refused."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from agent.cli import app
from tools.masking import load_mapping
from tools.private import write_private_files
from tools.recorded.archive import MANIFEST, RECORDING, TRANSCRIPT, Manifest, sha256

from ._cli_support import assert_clean_exit, run

ROOT = Path(__file__).resolve().parents[2]
CLUSTERS = ROOT / "evals" / "clusters"
DEMO = CLUSTERS / "demo-eks.json"
REPORTS = ("summary.md", "triage.txt", "triage.json")


def make_ticket(out: Path, recorded: Path, *args: str) -> Path:
    result = run("ticket", "--recorded", str(recorded), "-o", str(out), *args)
    assert_clean_exit(result, 0)
    archives = list(out.glob("ticket-*.tar.gz"))
    assert len(archives) == 1, archives
    return archives[0]


def members(archive: Path) -> dict[str, bytes]:
    """The archive's files by name inside its folder (the test trusts what `ticket` wrote)."""
    with tarfile.open(archive, "r:gz") as opened:
        found = {}
        for member in opened.getmembers():
            handle = opened.extractfile(member)
            assert handle is not None
            found[member.name.split("/", 1)[1]] = handle.read()
        return found


def triage_json(recorded: Path, *args: str) -> dict[str, Any]:
    result = run("triage", "--recorded", str(recorded), "--format", "json", *args)
    assert_clean_exit(result, 0)
    parsed: dict[str, Any] = json.loads(result.stdout)
    return parsed


def one_line_error(result: Result) -> str:
    """A refused archive: exit 2, one line on stderr, no traceback."""
    assert_clean_exit(result, 2)
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("error: ")
    return result.stderr


@pytest.fixture(scope="module")
def demo_archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_ticket(tmp_path_factory.mktemp("plain") / "out", DEMO)


@pytest.fixture(scope="module")
def masked(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    out = tmp_path_factory.mktemp("masked") / "out"
    archive = make_ticket(out, DEMO, "--mask")
    return archive, load_mapping(out / "mask-mapping.json")


# -- the archive replays the case ------------------------------------------------------------


@pytest.mark.parametrize(
    ("scenario", "node"),
    [("demo-eks", None), ("healthy-slurm", "i-00000000000000002"), ("slurm-managed-vpc", None)],
)
def test_the_archive_triages_as_the_recording_it_was_made_from(
    tmp_path: Path, scenario: str, node: str | None
) -> None:
    focus = ("--node", node) if node else ()
    archive = make_ticket(tmp_path / "out", CLUSTERS / f"{scenario}.json", *focus)
    original = triage_json(CLUSTERS / f"{scenario}.json", *focus)
    replayed = triage_json(archive, *focus)
    assert replayed["findings"] == original["findings"]
    assert replayed["skipped"] == original["skipped"]
    assert replayed["cluster"] == original["cluster"]
    assert replayed["summary"] == original["summary"]


def test_the_manifest_hashes_every_member_and_says_what_it_holds(demo_archive: Path) -> None:
    files = members(demo_archive)
    manifest = Manifest.model_validate_json(files.pop(MANIFEST))
    assert set(files) == {*REPORTS, RECORDING} == set(manifest.files)
    for name, data in files.items():
        assert manifest.files[name].sha256 == sha256(data)
        assert manifest.files[name].bytes == len(data)
    assert manifest.tool == "hyperpod-debug"
    assert manifest.tool_version
    assert manifest.recording_format.name == "hyperpod-debug/recorded-cluster"
    assert manifest.recording_format.version == 1
    assert manifest.recorded_at == "2026-11-20T12:00:00Z"
    assert manifest.cluster.name == "ml-cluster-eks"
    assert manifest.cluster.arn.endswith(":cluster/a1b2c3d4e5f6")
    assert manifest.masking.masked is False
    assert manifest.masking.placeholders == {}
    assert manifest.transcript is None
    # The reports in the archive are the files written beside it.
    for name in REPORTS:
        assert files[name] == (demo_archive.parent / name).read_bytes()


def test_a_ticket_of_an_archive_holds_the_same_recording(
    demo_archive: Path, tmp_path: Path
) -> None:
    again = make_ticket(tmp_path / "again", demo_archive)
    assert members(again)[RECORDING] == members(demo_archive)[RECORDING]
    assert triage_json(again)["findings"] == triage_json(DEMO)["findings"]


def _script(tmp_path: Path) -> str:
    turns = [
        {"tool_calls": [{"name": "triage", "input": {}}]},
        {"tool_calls": [{"name": "list_findings", "input": {}}]},
        {"text": "The triage is done."},
    ]
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return str(path)


def chat(tmp_path: Path, archive: Path) -> Result:
    args = ["chat", "--no-color", "--provider", "scripted", "--script", _script(tmp_path)]
    result = CliRunner().invoke(app, [*args, "--recorded", str(archive)], input="why?\n/findings\n")
    assert_clean_exit(result, 0)
    return result


def test_chat_opens_the_archive(demo_archive: Path, tmp_path: Path) -> None:
    result = chat(tmp_path, demo_archive)
    assert "The triage is done." in result.stdout
    assert "i-00000000000000003" in result.stdout  # the failed node, from /findings
    assert "ml-cluster-eks" in result.stdout


def _mcp(archive: Path) -> tuple[str, dict[str, Any]]:
    """`hyperpod-debug mcp --recorded ARCHIVE` through the official client: the triage
    result's text and structured content, and a check's."""
    # As tests/mcp/test_mcp_stdio.py starts it: the checkout's console script, and AWS
    # credentials that reach no account.
    import sys

    import anyio
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import get_default_environment

    script = Path(sys.executable).with_name("hyperpod-debug")
    command, prefix = (str(script), []) if script.exists() else (sys.executable, ["-m", "agent"])
    offline = {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_CONFIG_FILE": "/dev/null",
        "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
    }
    parameters = StdioServerParameters(
        command=command,
        args=[*prefix, "mcp", "--recorded", str(archive)],
        env={**get_default_environment(), **offline},
        cwd=ROOT,
    )

    async def main() -> tuple[str, dict[str, Any]]:
        with anyio.fail_after(60):
            async with Client(parameters, mode="legacy", read_timeout_seconds=60) as client:
                texts, structured = [], {}
                for name in ("triage", "list_findings"):
                    result = await client.call_tool(name, {})
                    assert result.is_error is False
                    texts += [c.text for c in result.content if hasattr(c, "text")]
                    structured[name] = result.structured_content
                return "\n".join(texts), structured

    return anyio.run(main)


def test_mcp_serves_the_archive(demo_archive: Path) -> None:
    text, structured = _mcp(demo_archive)
    assert structured["triage"]["counts"]["FAIL"] == 5  # as the recording itself
    assert "i-00000000000000003" in text


# -- a masked archive stays masked ---------------------------------------------------------


def test_a_masked_archive_names_nothing_the_mapping_holds(
    masked: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    archive, mapping = masked
    originals = [v for v in mapping.values() if len(v) >= 3]
    assert "ml-cluster-eks" in originals
    assert "111122223333" in originals
    outputs = {
        "archive": b"\n".join(members(archive).values()).decode("utf-8"),
        "triage text": run("triage", "--recorded", str(archive)).stdout,
        "triage json": json.dumps(triage_json(archive)),
        "chat": chat(tmp_path, archive).stdout,
        "mcp": "\n".join(map(str, _mcp(archive))),
    }
    for where, text in outputs.items():
        assert "<CLUSTER_" in text or "<ACCOUNT_" in text, where
        for original in originals:
            assert original not in text, (where, original)

    # Placeholders are what the recording holds: the problems found are the same ones (a
    # check that reads an address, e.g. a NIC's, may PASS or INFO differently: see
    # docs/recorded-cluster.md, "Masked archives").
    def problems(report: dict[str, Any]) -> list[tuple[str, str, str, list[str]]]:
        return [
            (f["check"], f["status"], f["priority"], f["resources"])
            for f in report["findings"]
            if f["status"] in ("FAIL", "WARN")
        ]

    assert problems(triage_json(archive)) == problems(triage_json(DEMO))
    manifest = Manifest.model_validate_json(members(archive)[MANIFEST])
    assert manifest.masking.masked is True
    assert manifest.masking.placeholders["ACCOUNT"] == 1
    assert "mask-mapping.json" in manifest.masking.mapping
    assert manifest.cluster.name.startswith("<CLUSTER_")


# -- the transcript ------------------------------------------------------------------------


def _transcript(tmp_path: Path) -> Path:
    from agent.transcript import Transcript

    saved = Transcript({"recorded": [str(DEMO)]})
    saved.add({"type": "user", "text": "ml-cluster-eks at 10.1.0.12 fails; my token is "
               "ghp_plantedTokenABCDEFGHIJKLMNOP123456"})  # fmt: skip
    saved.add({"type": "assistant", "text": "Node i-00000000000000003 in ml-cluster-eks."})
    path = tmp_path / "chat.jsonl"
    saved.save(path)
    text = path.read_text(encoding="utf-8")
    # Saving redacts; plant the secret back as a hand-edited file would hold it.
    path.write_text(text.replace("<redacted>", "ghp_plantedTokenABCDEFGHIJKLMNOP123456"))
    return path


@pytest.mark.parametrize("mask", [False, True])
def test_the_transcript_goes_in_redacted_and_masked(tmp_path: Path, mask: bool) -> None:
    transcript = _transcript(tmp_path)
    assert "ghp_planted" in transcript.read_text()
    out = tmp_path / "out"
    extra = ("--mask",) if mask else ()
    archive = make_ticket(out, DEMO, "--transcript", str(transcript), *extra)
    files = members(archive)
    manifest = Manifest.model_validate_json(files[MANIFEST])
    assert manifest.transcript == TRANSCRIPT
    assert manifest.files[TRANSCRIPT].sha256 == sha256(files[TRANSCRIPT])
    text = files[TRANSCRIPT].decode("utf-8")
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[0]["type"] == "meta"
    assert len(lines) == 3
    assert "ghp_planted" not in text
    assert ("ml-cluster-eks" in text) is not mask
    assert ("10.1.0.12" in text) is not mask
    assert "i-00000000000000003" in text  # instance ids are never masked
    assert triage_json(archive)["findings"]  # still replays


def test_a_transcript_that_is_not_one_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("just notes\n", encoding="utf-8")
    out = tmp_path / "out"
    result = run("ticket", "--recorded", str(DEMO), "-o", str(out), "--transcript", str(bad))
    assert "--transcript" in one_line_error(result)
    assert not out.exists() or not any(out.iterdir())


# -- a bad archive is refused, with one line -------------------------------------------------


def _pack(entries: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for info, data in entries:
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def _file(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def _genuine(archive: Path, **changes: bytes) -> list[tuple[tarfile.TarInfo, bytes | None]]:
    folder = archive.name.removesuffix(".tar.gz")
    files = {**members(archive), **changes}
    return [_file(f"{folder}/{name}", data) for name, data in files.items()]


def _special(name: str, kind: bytes, link: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    return info, None


def _refused(tmp_path: Path, data: bytes) -> str:
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(data)
    before = sorted(p.name for p in tmp_path.parent.iterdir())
    message = one_line_error(run("triage", "--recorded", str(bad)))
    assert sorted(p.name for p in tmp_path.parent.iterdir()) == before  # nothing extracted
    return message


def test_a_tampered_member_is_refused(demo_archive: Path, tmp_path: Path) -> None:
    recording = members(demo_archive)[RECORDING].replace(b"Failure", b"Running")
    message = _refused(tmp_path, _pack(_genuine(demo_archive, **{RECORDING: recording})))
    assert "was altered" in message
    assert "recording.json" in message


def test_a_member_the_manifest_does_not_list_is_refused(demo_archive: Path, tmp_path: Path) -> None:
    folder = demo_archive.name.removesuffix(".tar.gz")
    entries = [*_genuine(demo_archive), _file(f"{folder}/extra.txt", b"hello")]
    assert "not listed" in _refused(tmp_path, _pack(entries))


def test_a_manifest_that_is_missing_or_invalid_is_refused(
    demo_archive: Path, tmp_path: Path
) -> None:
    entries = [e for e in _genuine(demo_archive) if not e[0].name.endswith(MANIFEST)]
    assert "no manifest.json" in _refused(tmp_path, _pack(entries))
    broken = _pack(_genuine(demo_archive, **{MANIFEST: b'{"format": "other"}'}))
    assert "manifest.json is not valid" in _refused(tmp_path, broken)


@pytest.mark.parametrize(
    "name", ["../escape.json", "/etc/escape.json", "case/../../escape.json", "case/a/b.json"]
)
def test_an_unsafe_member_path_is_refused(demo_archive: Path, tmp_path: Path, name: str) -> None:
    entries = [*_genuine(demo_archive), _file(name, b"{}")]
    assert "unsafe path" in _refused(tmp_path, _pack(entries))
    assert not (tmp_path.parent / "escape.json").exists()


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        (tarfile.SYMTYPE, "symbolic link"),
        (tarfile.LNKTYPE, "hard link"),
        (tarfile.CHRTYPE, "a device"),
        (tarfile.FIFOTYPE, "a FIFO"),
    ],
)
def test_links_and_devices_are_refused(
    demo_archive: Path, tmp_path: Path, kind: bytes, words: str
) -> None:
    folder = demo_archive.name.removesuffix(".tar.gz")
    special = _special(f"{folder}/{RECORDING}", kind, "/etc/passwd")
    entries = [special, *(e for e in _genuine(demo_archive) if RECORDING not in e[0].name)]
    assert words in _refused(tmp_path, _pack(entries))


def test_an_oversize_member_is_refused_before_it_is_read(
    demo_archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The archive (about 20 KiB) is under the limit; its recording (about 75 KiB) is not.
    monkeypatch.setenv("HYPERPOD_DEBUG_MAX_RECORDED_MB", "0.05")
    assert demo_archive.stat().st_size < 0.05 * 2**20 < len(members(demo_archive)[RECORDING])
    assert "too large" in _refused(tmp_path, demo_archive.read_bytes())


def test_a_member_that_claims_a_huge_size_is_refused(tmp_path: Path) -> None:
    # A header declaring 10 GiB and no data: refused from the header, nothing inflated.
    info = tarfile.TarInfo("case/recording.json")
    info.size = 10 * 2**30
    header = info.tobuf(format=tarfile.GNU_FORMAT)
    assert "too large" in _refused(tmp_path, gzip.compress(header + b"\0" * 1024))


def test_an_archive_that_inflates_too_far_is_refused_while_inflating(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A pax header is read whole before its member is seen: only the inflating bound holds
    # such a header back. Here 1 MiB of zeros (1 KiB compressed) against a 52 KB bound.
    import tools.recorded.archive

    monkeypatch.setenv("HYPERPOD_DEBUG_MAX_RECORDED_MB", "0.05")
    monkeypatch.setattr(tools.recorded.archive, "EXTRA_BYTES", 0)
    info = tarfile.TarInfo("case/recording.json")
    info.pax_headers = {"comment": "x" * 2**20}
    bomb = _pack([(info, b"")])
    assert len(bomb) < 0.05 * 2**20
    assert "inflates to more than" in _refused(tmp_path, bomb)


@pytest.mark.parametrize(
    "data", [gzip.compress(b"not a tar at all" * 100, mtime=0), b"\x1f\x8b\x08garbage", b""]
)
def test_malformed_archives_are_refused(tmp_path: Path, data: bytes) -> None:
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(data)
    one_line_error(run("triage", "--recorded", str(bad)))


def test_chat_and_mcp_refuse_a_tampered_archive_too(demo_archive: Path, tmp_path: Path) -> None:
    recording = members(demo_archive)[RECORDING].replace(b"Failure", b"Running")
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(_pack(_genuine(demo_archive, **{RECORDING: recording})))
    for command in (["chat", "--provider", "scripted"], ["mcp"]):
        result = CliRunner().invoke(app, [*command, "--recorded", str(bad)], input="")
        assert "was altered" in one_line_error(result)


# -- all or nothing on disk ------------------------------------------------------------------


def test_files_are_written_all_or_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    real = os.replace
    moved: list[str | Path] = []

    def failing(source: str | Path, target: str | Path) -> None:
        if moved:
            raise OSError(28, "No space left on device")
        moved.append(target)
        real(source, target)

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(OSError, match="No space"):
        write_private_files(tmp_path, {"a.txt": b"a", "b.txt": b"b"})
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(os, "replace", real)
    written = write_private_files(tmp_path, {"a.txt": b"a", "b.txt": b"b"})
    assert [p.read_bytes() for p in written] == [b"a", b"b"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]


# -- a live ticket records while it triages ----------------------------------------------------


def test_a_live_ticket_records_what_its_triage_read(
    live: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One pass over the cluster (moto here): the archive replays to the report the ticket
    wrote, with no server."""
    out = tmp_path / "out"
    result = run(
        "ticket", "--cluster", "hp", "--region", "us-west-2", "--no-probes", "-o", str(out)
    )
    assert_clean_exit(result, 0)
    archive = next(out.glob("ticket-hp-*.tar.gz"))
    written = json.loads((out / "triage.json").read_text(encoding="utf-8"))
    recording = json.loads(members(archive)[RECORDING])
    assert recording["cluster"] == "hp"
    assert recording["description"] == "recorded by hyperpod-debug ticket"
    assert {c["operation"] for c in recording["aws"]} >= {"DescribeCluster", "ListClusterNodes"}
    monkeypatch.delenv("AWS_ENDPOINT_URL")  # replay must not need the server
    replayed = triage_json(archive, "--no-probes")
    for key in ("cluster", "findings", "skipped", "summary"):
        assert replayed[key] == written[key], key


# -- the pieces: placeholders as a target, masking a recording --------------------------------


def test_a_masked_cluster_is_a_target_and_other_brackets_are_not() -> None:
    from pydantic import ValidationError

    from tools.target import TriageTarget

    assert TriageTarget(cluster="<CLUSTER_1>", region="us-west-2").cluster == "<CLUSTER_1>"
    arn = "arn:aws:sagemaker:us-west-2:<ACCOUNT_2>:cluster/a1b2c3d4e5f6"
    assert TriageTarget(cluster=arn, region="us-west-2").cluster == arn
    for bad in ("<CLUSTER_x>", "<script>", "<CLUSTER_1>x", arn.replace("ACCOUNT", "HOST")):
        with pytest.raises(ValidationError):
            TriageTarget(cluster=bad, region="us-west-2")


def test_masking_a_recording_learns_every_name_before_it_masks() -> None:
    """A name or an account seen first without context (a bare OwnerId, the EKS name
    before its ARN) is masked everywhere, in values and keys alike."""
    from agent.ticket_archive import mask_json
    from tools.masking import Masker

    data = {
        "aws": [
            {"params": {"name": "ml-eks"}, "response": {"OwnerId": "444455556666"}},
            {
                "response": {
                    "Peer": "444455556666",
                    "Arn": "arn:aws:eks:us-west-2:111122223333:cluster/ml-eks",
                }
            },
        ],
        "logs": {"ml-eks/pod": "at 10.1.0.12"},
    }
    masker = Masker()
    masked = json.dumps(mask_json(data, masker))
    for original in ("ml-eks", "444455556666", "111122223333", "10.1.0.12"):
        assert original not in masked
        assert original in masker.mapping.values()


# The bundle of `ticket --mask`: summary.md, triage.txt, triage.json, the archive, the mapping.
BUNDLE_FILES = 5


@pytest.mark.parametrize("failing", range(BUNDLE_FILES))
def test_a_full_disk_leaves_no_file_of_the_bundle(
    failing: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENOSPC on any one file of a masked bundle (the mapping last): exit 1, one line, and
    nothing in DIR, neither a partial file nor masked files without their mapping."""
    import errno
    import os

    real = os.fdopen
    opened: list[int] = []

    class Full:
        def __init__(self, handle: Any) -> None:
            self.handle = handle

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *exc: object) -> None:
            self.handle.close()

        def fileno(self) -> int:
            return int(self.handle.fileno())

        def write(self, data: bytes) -> int:
            self.handle.write(data[: len(data) // 2])  # part of it reached the disk
            raise OSError(errno.ENOSPC, "No space left on device")

    def fdopen(descriptor: int, *args: Any, **kwargs: Any) -> Any:
        handle = real(descriptor, *args, **kwargs)
        if "w" not in str(args[0] if args else kwargs.get("mode", "r")):
            return handle  # a read elsewhere in the run
        opened.append(descriptor)
        return Full(handle) if len(opened) == failing + 1 else handle

    monkeypatch.setattr(os, "fdopen", fdopen)  # tools.private writes through it
    out = tmp_path / "out"
    result = run("ticket", "--recorded", str(DEMO), "-o", str(out), "--mask")
    assert_clean_exit(result, 1)
    assert len(opened) == failing + 1  # the files after the failing one were never begun
    assert result.stderr.count("\n") == 1, result.stderr
    assert "No space left on device" in result.stderr
    assert list(out.iterdir()) == []
    monkeypatch.setattr(os, "fdopen", real)
    written = run("ticket", "--recorded", str(DEMO), "-o", str(out), "--mask")
    assert_clean_exit(written, 0)
    assert len(list(out.iterdir())) == BUNDLE_FILES


@pytest.mark.parametrize("scenario", ["slurm-node-unexpected-reboot", "slurm-job-stuck-completing"])
def test_a_masked_slurm_archive_finds_the_recording_s_problems(
    scenario: str, tmp_path: Path
) -> None:
    """Slurm node names hold the node's address (`ip-10-1-0-13`); masked, they become
    `ip-<IP_4>` beside the instance's `<IP_4>`, and still map name to instance."""
    recording = CLUSTERS / f"{scenario}.json"
    archive = make_ticket(tmp_path, recording, "--mask")

    def problems(report: dict[str, Any]) -> list[tuple[str, str, str, list[str]]]:
        return [
            (f["check"], f["status"], f["section"], f["resources"])
            for f in report["findings"]
            if f["status"] in ("FAIL", "WARN")
        ]

    found = problems(triage_json(archive))
    assert found == problems(triage_json(recording))
    assert any(check.startswith("slurm-") for check, *_ in found)
