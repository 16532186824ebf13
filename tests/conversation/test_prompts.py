"""The agent's prompts: the rendered system prompt is a snapshot, the suggestion block a contract.

Snapshots live in ``tests/conversation/snapshots/``. After an intended prompt change,
regenerate them with ``UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/conversation/test_prompts.py``
and review the diff.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import jinja2
import pytest

from agent.safety.model import (
    FLAG_BEFORE_TRIAGE,
    FLAG_DATA_LOSS,
    FLAG_REPLACE_BEFORE_REBOOT,
    FLAG_SLURM_CONTROLLER,
    FLAG_UNCLASSIFIED,
    Suggestion,
)
from prompts import render
from tools.sections import TOP_LEVEL_IDS

SNAPSHOT_DIR = Path(__file__).resolve().parent / "snapshots"
TODAY = "2026-12-01"

EKS_EN: dict[str, object] = {
    "cluster": "ml-training",
    "region": "us-west-2",
    "orchestrator": "eks",
    "node": "i-0123456789abcdef0",
    "recorded": False,
    "today": TODAY,
    "language": "en",
}
SLURM_RECORDED_ZH: dict[str, object] = {
    "cluster": "slurm-research",
    "region": "ap-northeast-1",
    "orchestrator": "slurm",
    "node": None,
    "recorded": True,
    "today": TODAY,
    "language": "zh",
}
NO_CLUSTER_EN: dict[str, object] = {
    "cluster": None,
    "region": None,
    "orchestrator": None,
    "node": None,
    "recorded": False,
    "today": TODAY,
    "language": "en",
}
SNAPSHOT_CASES: dict[str, dict[str, object]] = {
    "system_prompt_eks_en.txt": EKS_EN,
    "system_prompt_slurm_recorded_zh.txt": SLURM_RECORDED_ZH,
    "system_prompt_no_cluster_en.txt": NO_CLUSTER_EN,
}

# Every tool the workflow partial tells the model about (check_* is a family).
WORKFLOW_TOOLS = (
    "triage",
    "read_reference",
    "suggest_command",
    "check_*",
    "list_findings",
    "explain_signal",
    "compare_triage",
    "draft_support_ticket",
    "use_cluster",
)
HEADINGS = {"en": "Suggested command (run yourself)", "zh": "建议命令（请您自行执行）"}
FLAG_IDS = (
    FLAG_REPLACE_BEFORE_REBOOT,
    FLAG_SLURM_CONTROLLER,
    FLAG_BEFORE_TRIAGE,
    FLAG_UNCLASSIFIED,
    FLAG_DATA_LOSS,
)
LANGUAGES = ("en", "zh")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _system(context: dict[str, object]) -> str:
    return render("system.jinja2", **context)


def _suggestion(**overrides: object) -> Suggestion:
    fields: dict[str, object] = {
        "command": "aws sagemaker batch-reboot-cluster-nodes --cluster-name ml-training "
        "--node-ids i-0123456789abcdef0 --region us-west-2",
        "kind": "reboot",
        "mutating": True,
        "purpose": "Reboot the node so the pending row remap is applied.",
        "targets": ["i-0123456789abcdef0"],
        "blast_radius": "Reboots i-0123456789abcdef0; jobs on it are interrupted.",
        "section": "G.1.a",
    }
    fields.update(overrides)
    return Suggestion.model_validate(fields)


def _block(suggestion: Suggestion, language: str) -> str:
    return render("suggested_command.jinja2", suggestion=suggestion, language=language)


@pytest.mark.parametrize("name", sorted(SNAPSHOT_CASES))
def test_system_prompt_matches_snapshot(name: str) -> None:
    rendered = _system(SNAPSHOT_CASES[name])
    path = SNAPSHOT_DIR / name
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        path.write_text(rendered, encoding="utf-8")
        return
    hint = f"rerun with UPDATE_SNAPSHOTS=1 to rewrite {path} and review the diff"
    assert path.exists(), f"snapshot {name} is missing: {hint}"
    assert rendered == path.read_text(encoding="utf-8"), f"system prompt changed: {hint}"


@pytest.mark.parametrize("name", sorted(SNAPSHOT_CASES))
def test_system_prompt_has_no_trailing_spaces_and_stays_compact(name: str) -> None:
    rendered = _system(SNAPSHOT_CASES[name])
    assert not [line for line in rendered.splitlines() if line != line.rstrip()]
    assert len(rendered) < 20_000, "the system prompt is sent on every request: keep it short"


@pytest.mark.parametrize("missing", sorted(EKS_EN))
def test_a_missing_variable_fails_loudly(missing: str) -> None:
    context = {key: value for key, value in EKS_EN.items() if key != missing}
    with pytest.raises(jinja2.UndefinedError):
        _system(context)


def test_an_unknown_language_fails_loudly() -> None:
    with pytest.raises(jinja2.UndefinedError):
        _system({**EKS_EN, "language": "fr"})
    with pytest.raises(jinja2.UndefinedError):
        _block(_suggestion(), "fr")
    with pytest.raises(jinja2.UndefinedError):
        render("suggested_command.jinja2", suggestion=_suggestion())


def test_the_context_reflects_the_session() -> None:
    eks = _system(EKS_EN)
    assert "`ml-training`" in eks
    assert "`us-west-2`" in eks
    assert "`i-0123456789abcdef0`" in eks
    assert "Source: the live cluster" in eks
    slurm = _system(SLURM_RECORDED_ZH)
    assert "Slurm" in slurm
    assert "Source: a recorded cluster" in slurm
    assert "Simplified Chinese" in slurm
    unknown = _system(NO_CLUSTER_EN)
    assert "Cluster: not known yet." in unknown
    assert "No cluster is open" in unknown


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_suggestion_heading_is_exact(language: str) -> None:
    first_line = _block(_suggestion(), language).splitlines()[0]
    assert first_line == f"**{HEADINGS[language]}**"


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_suggestion_block_carries_every_field(language: str) -> None:
    suggestion = _suggestion()
    block = _block(suggestion, language)
    assert f"```bash\n{suggestion.command}\n```" in block
    assert suggestion.purpose in block
    assert suggestion.blast_radius in block
    assert "`i-0123456789abcdef0`" in block
    assert "§ G.1.a" in block
    assert not [line for line in block.splitlines() if line != line.rstrip()]
    assert "\n\n\n" not in block


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("flag", FLAG_IDS)
def test_every_flag_renders_its_text_not_its_id(flag: str, language: str) -> None:
    block = _block(_suggestion(flags=[flag]), language)
    assert flag not in block
    warning_lines = [line for line in block.splitlines() if line.startswith("- ⚠ ")]
    assert len(warning_lines) == 1
    assert len(warning_lines[0]) > 40
    assert bool(_CJK.search(warning_lines[0])) is (language == "zh")


@pytest.mark.parametrize("language", LANGUAGES)
def test_an_unknown_flag_renders_as_its_id(language: str) -> None:
    block = _block(_suggestion(flags=["some-new-flag"]), language)
    assert "some-new-flag" in block


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_iac_warning_is_in_the_system_prompt_and_under_a_config_suggestion(
    language: str,
) -> None:
    warning = render("iac_warning.jinja2", language=language).strip()
    assert "Terraform" in warning
    assert bool(_CJK.search(warning)) is (language == "zh")
    assert warning in _system({**EKS_EN, "language": language})
    config = _suggestion(
        command="aws ec2 authorize-security-group-egress --group-id sg-0abc "
        "--ip-permissions 'IpProtocol=-1,UserIdGroupPairs=[{GroupId=sg-0abc}]'",
        kind="config",
        targets=["sg-0abc"],
        blast_radius="Adds one outbound rule to sg-0abc.",
        section="A",
        iac_warning=warning,
    )
    assert f"> {warning}" in _block(config, language)
    assert warning not in _block(_suggestion(), language)


def test_every_section_letter_appears_in_the_signal_tables() -> None:
    tables = render("_signals.jinja2")
    assert len(TOP_LEVEL_IDS) == 15
    missing = [letter for letter in TOP_LEVEL_IDS if f"§ {letter}" not in tables]
    assert not missing


@pytest.mark.parametrize("name", sorted(SNAPSHOT_CASES))
def test_the_prompt_names_every_workflow_tool(name: str) -> None:
    rendered = _system(SNAPSHOT_CASES[name])
    missing = [tool for tool in WORKFLOW_TOOLS if f"`{tool}`" not in rendered]
    assert not missing
