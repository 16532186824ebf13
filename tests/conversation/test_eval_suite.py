"""The agent eval runner end to end: repeats and pass^k, errors as case errors, the three
report formats, the exit code, and a transcript drafted into a case that then passes."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import pytest
from typer.testing import CliRunner

from agent.cli import app
from agent.providers.base import Provider
from agent.providers.scripted import ScriptedProvider
from evals.agent_eval.case import CASES_DIR, LoadedCase, load_case
from evals.agent_eval.report import render_json, to_junit, to_markdown
from evals.agent_eval.suite import Prices, run_suite

EXAMPLE = CASES_DIR / "efa-sg-egress-missing"


def example() -> LoadedCase:
    return load_case(EXAMPLE)


def copy_case(tmp_path: Path, name: str, script: list[dict[str, Any]] | None = None) -> Path:
    folder = tmp_path / name
    shutil.copytree(EXAMPLE, folder)
    data = json.loads((folder / "case.json").read_text())
    data["id"] = name
    data["recordings"] = [str((EXAMPLE / r).resolve()) for r in data["recordings"]]
    (folder / "case.json").write_text(json.dumps(data))
    if script is not None:
        (folder / "script.json").write_text(json.dumps({"turns": script}))
    return folder


def scripted(loaded: LoadedCase) -> Provider:
    return ScriptedProvider.from_file(loaded.script_path)


def test_a_good_case_passes_and_reports_in_three_formats() -> None:
    result = run_suite([example()], scripted, repeats=2, jobs=2, prices=Prices(3.0, 15.0))
    assert result.pass_rate == 1.0
    assert result.pass_hat_k == 1.0
    assert not result.violations
    data = json.loads(render_json(result))
    assert data["runs"] == 2
    assert data["outcomes"][0]["cost_usd"] > 0
    suite = ET.fromstring(to_junit(result))
    assert suite.get("tests") == "2"
    assert suite.get("failures") == "0"
    table = to_markdown(result)
    assert "| efa-sg-egress-missing | 2/2 |" in table
    assert "pass^2 100.0%" in table


def test_pass_hat_k_counts_a_flaky_case_as_failing() -> None:
    lock = threading.Lock()
    calls = {"n": 0}
    good = json.loads((EXAMPLE / "script.json").read_text())["turns"]

    def flaky(_: LoadedCase) -> Provider:
        with lock:
            calls["n"] += 1
            first = calls["n"] == 1
        turns = good if first else [{"text": "I have rebooted the node for you."}] * 3
        return ScriptedProvider.from_turns(turns)

    result = run_suite([example()], flaky, repeats=2, jobs=1)
    assert result.pass_rate == 0.5
    assert result.pass_hat_k == 0.0
    assert any(g.grader == "no_claim_to_have_acted" for _, g in result.violations)


def test_a_provider_error_is_an_error_for_that_case_only(tmp_path: Path) -> None:
    broken = load_case(copy_case(tmp_path, "broken-case", script=[]))
    result = run_suite([broken, example()], scripted, jobs=2)
    errors = {o.case_id: o.run.error for o in result.errors}
    assert "no model turn left" in (errors.get("broken-case") or "")
    assert "efa-sg-egress-missing" not in errors
    junit = ET.fromstring(to_junit(result))
    assert junit.get("errors") == "1"


def run_cli(*args: str) -> Any:
    return CliRunner().invoke(app, ["eval", "agent", *args])


def test_cli_writes_reports_and_exits_zero(tmp_path: Path) -> None:
    out = tmp_path / "r"
    out.mkdir()
    result = run_cli(
        "--cases",
        "efa-sg-egress-missing",
        "--markdown",
        str(out / "r.md"),
        "--json",
        str(out / "r.json"),
        "--junit",
        str(out / "r.xml"),
    )
    assert result.exit_code == 0, result.output
    assert json.loads((out / "r.json").read_text())["pass_rate"] == 1.0
    ET.parse(out / "r.xml")
    assert "efa-sg-egress-missing" in (out / "r.md").read_text()


def test_cli_exits_one_on_a_violation_or_a_low_pass_rate(tmp_path: Path) -> None:
    copy_case(tmp_path, "claims-action", script=[{"text": "I have rebooted the node."}] * 3)
    violation = run_cli("--cases-dir", str(tmp_path), "--min-pass-rate", "0")
    assert violation.exit_code == 1
    assert "VIOLATION claims-action" in violation.output
    copy_case(tmp_path / "b", "misses-section", script=[{"text": "Hmm."}] * 3)
    low = run_cli("--cases-dir", str(tmp_path / "b"))
    assert low.exit_code == 1
    assert "sections_cited" in low.output


def test_cli_tag_filter_and_no_match(tmp_path: Path) -> None:
    assert run_cli("--tag", "area:network", "--cases", "efa-sg-*").exit_code == 0
    nothing = run_cli("--tag", "no-such-tag")
    assert nothing.exit_code == 2
    assert "no agent case" in nothing.output


def test_a_transcript_becomes_a_case_that_passes(tmp_path: Path) -> None:
    clusters = CASES_DIR.parent / "clusters"
    recordings = [clusters / "sg-outbound-self-missing.json", clusters / "healthy-eks.json"]
    transcript = tmp_path / "chat.jsonl"
    chat = CliRunner().invoke(
        app,
        [
            "chat",
            "--provider",
            "scripted",
            "--script",
            str(EXAMPLE / "script.json"),
            *[arg for r in recordings for arg in ("--recorded", str(r))],
            "--transcript",
            str(transcript),
        ],
        input="My NCCL job hangs at init\ndone, I added the rule\n/quit\n",
    )
    assert chat.exit_code == 0, chat.output
    folder = tmp_path / "cases" / "nccl-hang-regression"
    args = ["eval", "new", "--transcript", str(transcript), "-o", str(folder)]
    for recording in recordings:
        args += ["--recorded", str(recording)]
    drafted = CliRunner().invoke(app, args)
    assert drafted.exit_code == 0, drafted.output
    case = json.loads((folder / "case.json").read_text())
    assert case["id"] == "nccl-hang-regression"
    assert case["expect"]["cited_sections"] == ["A"]
    assert case["expect"]["suggestions"][0]["kind"] == "config"
    assert case["expect"]["retriage"]["cleared_sections"] == ["A"]
    assert case["turns"][1]["done"] is True
    # Negative expectations come drafted: no other change, and no replacement (none was made).
    assert case["expect"]["no_other_changes"] is True
    assert "batch-replace-cluster-nodes" in case["expect"]["must_not_suggest"]
    replayed = run_cli("--cases-dir", str(folder.parent))
    assert replayed.exit_code == 0, replayed.output
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 2  # never overwrites a case


@pytest.mark.parametrize("content", ["not json\n", '{"type": "user", "text": "x"}\n'])
def test_eval_new_refuses_what_is_not_a_transcript(tmp_path: Path, content: str) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(content)
    recording = CASES_DIR.parent / "clusters" / "healthy-eks.json"
    result = CliRunner().invoke(
        app,
        [
            "eval",
            "new",
            "--recorded",
            str(recording),
            "--transcript",
            str(transcript),
            "-o",
            str(tmp_path / "c"),
        ],
    )
    assert result.exit_code == 2
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("verdict", "passed"),
    [
        ("PASS: explains the missing egress rule clearly.", True),
        ("FAIL: never says why NCCL hangs.", False),
        ("I think it is fine", False),  # unreadable: never a silent pass
    ],
)
def test_the_judge_grades_the_rubric(verdict: str, passed: bool) -> None:
    seen: list[ScriptedProvider] = []

    def judge_provider(_: LoadedCase) -> Provider:
        provider = ScriptedProvider.from_turns([{"text": verdict}])
        seen.append(provider)
        return provider

    result = run_suite([example()], scripted, judge_provider=judge_provider)
    (outcome,) = result.outcomes
    judged = [g for g in outcome.grades if g.grader == "judge_rubric"]
    assert judged[0].passed is passed
    assert not judged[0].safety
    prompt = seen[0].requests[0].system[0]["text"]
    assert "EFA needs all traffic" in prompt  # the case's rubric
    assert "[agent] I'll triage the cluster first." in prompt or "[agent]" in prompt


def test_cli_judge_with_a_scripted_verdict(tmp_path: Path) -> None:
    script = tmp_path / "judge.json"
    script.write_text(json.dumps({"turns": [{"text": "FAIL: too vague."}]}))
    result = run_cli(
        "--cases", "efa-sg-egress-missing", "--judge", "scripted", "--judge-script", str(script)
    )
    assert result.exit_code == 1
    assert "judge_rubric: too vague." in result.output
