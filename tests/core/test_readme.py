"""The README's sample report is what the demo command really prints."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from agent.cli import app

ROOT = Path(__file__).resolve().parents[2]


def test_readme_sample_report_matches_the_demo_output() -> None:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("```\nHyperPod triage:") + 4
    sample = readme[start : readme.index("```", start)]
    result = CliRunner().invoke(
        app, ["triage", "--recorded", str(ROOT / "evals/clusters/demo-eks.json"), "--no-color"]
    )
    assert result.exit_code == 0
    assert result.stdout == sample


def test_readme_names_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "python3 scripts/dev.py demo" in readme
    assert "python3 scripts/dev.py test" in readme
    assert "scripts/dev.py test" in (ROOT / ".ci" / "run").read_text()


def test_readme_sample_conversation_is_what_chat_prints() -> None:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("hyperpod-debug chat · scripted")
    sample = readme[start : readme.index("````", start)]
    clusters = ROOT / "evals" / "clusters"
    result = CliRunner().invoke(
        app,
        [
            "chat",
            "--provider",
            "scripted",
            "--script",
            str(ROOT / "evals" / "conversations" / "efa-egress-fix.json"),
            "--recorded",
            str(clusters / "sg-outbound-self-missing.json"),
            "--recorded",
            str(clusters / "healthy-eks.json"),
            "--no-color",
        ],
        input="My NCCL job on ml-cluster-eks hangs at init\ndone, I added the rule\n/quit\n",
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == sample
