"""Files that may hold cluster details are private (issue 22, class 8): transcripts, ticket
files and the mask mapping are written 0600 whatever the umask (an existing file loses its
wider mode too), and chat's /save never replaces a file unless asked with /save!."""

from __future__ import annotations

import os
import stat
import tarfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import app
from tools.private import write_private

from .test_cli_agent import scripted


@pytest.fixture
def open_umask() -> Iterator[None]:
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.usefixtures("open_umask")
def test_write_private_is_0600_whatever_the_umask_and_the_old_mode(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.txt"
    write_private(fresh, "a")
    assert _mode(fresh) == 0o600
    old = tmp_path / "old.txt"
    old.write_text("before")
    old.chmod(0o644)
    write_private(old, "after")
    assert (_mode(old), old.read_text()) == (0o600, "after")
    with pytest.raises(FileExistsError):
        write_private(old, "again", overwrite=False)
    assert old.read_text() == "after"


@pytest.mark.usefixtures("open_umask")
def test_chat_save_refuses_to_replace_a_file_and_save_bang_replaces_it(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text("keep me\n")
    path.chmod(0o644)
    stdin = f"hello\n/save {path}\n/quit\n"
    result = CliRunner().invoke(app, ["chat", "--no-color", *scripted(tmp_path)], input=stdin)
    assert result.exit_code == 0, result.output
    assert f"not saved: {path} exists; /save! {path} replaces it" in result.output
    assert path.read_text() == "keep me\n"
    stdin = f"hello\n/save! {path}\n/quit\n"
    result = CliRunner().invoke(app, ["chat", "--no-color", *scripted(tmp_path)], input=stdin)
    assert result.exit_code == 0, result.output
    assert f"Transcript saved to {path}" in result.output
    assert path.read_text().startswith('{"type": "meta"')
    assert _mode(path) == 0o600
    fresh = tmp_path / "new.jsonl"
    stdin = f"hello\n/save {fresh}\n/quit\n"
    result = CliRunner().invoke(app, ["chat", "--no-color", *scripted(tmp_path)], input=stdin)
    assert f"Transcript saved to {fresh}" in result.output
    assert _mode(fresh) == 0o600


@pytest.mark.usefixtures("open_umask")
def test_ask_transcript_is_0600(tmp_path: Path) -> None:
    path = tmp_path / "ask.jsonl"
    result = CliRunner().invoke(
        app, ["ask", "hello", "--transcript", str(path), *scripted(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    assert _mode(path) == 0o600


@pytest.mark.usefixtures("open_umask")
@pytest.mark.parametrize("mask", [False, True])
def test_ticket_files_and_their_archive_members_are_0600(tmp_path: Path, mask: bool) -> None:
    from agent.commands.ticket import write_bundle
    from agent.ticket import build_ticket
    from tools.recorded.model import load_recorded
    from tools.target import TriageTarget
    from tools.triage.open_cluster import DataSource, open_cluster
    from tools.triage.runner import run_triage

    from ._support import recording_path

    recording = load_recorded(recording_path("sg-outbound-self-missing"))
    target = TriageTarget(cluster=recording.cluster, region=recording.region)
    report = run_triage(open_cluster(target, source=DataSource(recorded=recording)))
    now = datetime(2025, 1, 1, tzinfo=UTC)
    facts = build_ticket(report, now=now, error_strings=[])
    paths = write_bundle(tmp_path, report, facts, created=now, mask=mask, recording=recording)
    assert len(paths) == (5 if mask else 4)
    assert all(_mode(path) == 0o600 for path in paths)
    archive = next(p for p in paths if p.name.endswith(".tar.gz"))
    with tarfile.open(archive) as opened:
        assert all(member.mode == 0o600 for member in opened.getmembers())
