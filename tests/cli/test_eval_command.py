"""`hyperpod-debug eval` grades recorded clusters and exits 1 when one fails."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agent.cli import app
from agent.commands import eval_cmd

CLUSTERS = Path(__file__).resolve().parents[2] / "evals" / "clusters"


def test_the_default_is_the_bundled_folder() -> None:
    assert eval_cmd.DEFAULT_CLUSTERS == CLUSTERS


def test_without_clusters_the_default_folder_is_graded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command over its default folder, here holding one bundled recording: every
    bundled recording is graded once, by tests/scenarios/test_bundled.py."""
    shutil.copy(CLUSTERS / "healthy-slurm.json", tmp_path)
    monkeypatch.setattr(eval_cmd, "DEFAULT_CLUSTERS", tmp_path)
    result = CliRunner().invoke(app, ["eval", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["clusters"] == [{"name": "healthy-slurm", "passed": True, "problems": []}]
    assert payload["explain"]["overall"]["total"] > 50


def test_a_wrong_declaration_fails_the_run(tmp_path: Path) -> None:
    data = json.loads((CLUSTERS / "dns-support-off.json").read_text())
    data["expect"]["findings"] = []
    case = tmp_path / "tampered.json"
    case.write_text(json.dumps(data))
    result = CliRunner().invoke(app, ["eval", "--clusters", str(case)])
    assert result.exit_code == 1
    assert "FAIL  tampered" in result.stdout
    assert "unexpected FAIL vpc-dns § B.2" in result.stdout


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["eval", "--clusters", str(tmp_path / "nope")])
    assert result.exit_code == 2


def test_an_unreadable_case_fails_without_stopping_the_others(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text("{not json")
    good = tmp_path / "good.json"
    good.write_text((CLUSTERS / "healthy-slurm.json").read_text())
    result = CliRunner().invoke(app, ["eval", "--clusters", str(tmp_path)])
    assert result.exit_code == 1
    assert "FAIL  broken" in result.stdout
    assert "PASS  good" in result.stdout
